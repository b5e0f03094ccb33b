#include "nimble/workflow/info.h"

namespace nimble::workflow {

StatusOr<InfoResult> Info(const store::RunDatabase& db) {
  InfoResult out;
  out.path = db.path();
  out.schema_version = db.reader().schema_version();
  NIMBLE_ASSIGN_OR_RETURN(out.runs, db.reader().Runs());
  NIMBLE_ASSIGN_OR_RETURN(out.tables, db.reader().TableCounts());
  return out;
}

}  // namespace nimble::workflow

#include "nimble/workflow/upgrade.h"

#include "nimble/store/run_database.h"
#include "nimble/store/schema.h"

namespace nimble::workflow {

StatusOr<UpgradeResult> Upgrade(const std::string& path) {
  UpgradeResult out;
  NIMBLE_ASSIGN_OR_RETURN(out.from, store::FileSchemaVersion(path));
  NIMBLE_RETURN_IF_ERROR(store::UpgradeDatabase(path));
  out.to = store::kSchemaVersion;
  return out;
}

}  // namespace nimble::workflow

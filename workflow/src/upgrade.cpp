#include "nimble/workflow/upgrade.h"

#include "nimble/store/run_reader.h"
#include "nimble/store/schema.h"

namespace nimble::workflow {
namespace {

// Every run is loaded through the checking reader before its content becomes the digests' reference:
// sealing must never bless damage.
Status CheckEveryRun(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(auto reader, store::RunReader::Open(path));
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<RunInfo> runs, reader->Runs());
  for (const RunInfo& run : runs) {
    NIMBLE_RETURN_IF_ERROR(reader->LoadTrace(run.id).status());
    NIMBLE_RETURN_IF_ERROR(reader->LoadGraph(run.id).status());
    NIMBLE_RETURN_IF_ERROR(reader->LoadAttribution(run.id).status());
  }
  return OkStatus();
}

}  // namespace

StatusOr<UpgradeResult> Upgrade(const std::string& path) {
  UpgradeResult out;
  NIMBLE_ASSIGN_OR_RETURN(out.from, store::FileSchemaVersion(path));
  NIMBLE_RETURN_IF_ERROR(CheckEveryRun(path));
  NIMBLE_RETURN_IF_ERROR(store::UpgradeDatabase(path));
  NIMBLE_ASSIGN_OR_RETURN(out.sealed_runs, store::SealUnsealedRuns(path));
  out.to = store::kSchemaVersion;
  return out;
}

}  // namespace nimble::workflow

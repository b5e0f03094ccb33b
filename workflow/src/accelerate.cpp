// The accelerate workflow's order of steps, its checks before any GPU work, the eager fallback for a
// model that cannot be captured, and the one open --db database it reads op times from and stores
// results into.
#include "nimble/workflow/accelerate.h"

#include <filesystem>
#include <memory>

#include "accelerate_results.h"
#include "accelerate_session.h"
#include "nimble/accelerate/capturability.h"
#include "nimble/accelerate/cuda_devices.h"
#include "recorded_inputs.h"

namespace nimble::workflow {
namespace {

Status CheckOptions(const AccelerateOptions& options) {
  std::error_code error;
  if (!std::filesystem::exists(options.model, error)) return NotFound(options.model + ": no such file");
  if (options.record_replays < 0) {
    return InvalidArgument("--record-replays must be 0 or more (got " + std::to_string(options.record_replays) + ")");
  }
  if (accelerate::CudaDeviceCount() == 0) {
    return Unavailable("no CUDA device: ahead-of-time capture needs a GPU, and this machine has none "
                       "(nimble-prof report still works on recorded runs)");
  }
  return OkStatus();
}

// The steps after the checks; `db` is the open --db database, or null.
StatusOr<AccelerateResult> RunSteps(const AccelerateOptions& options, std::unique_ptr<store::RunDatabase>& db,
                                    const ProgressFn& progress) {
  Session session(options, &db, progress);
  NIMBLE_RETURN_IF_ERROR(session.Load());
  if (Status capturable = accelerate::CheckCapturable(session.model().model); !capturable.ok()) {
    if (!options.allow_eager_fallback) {
      return Status(capturable.code(), capturable.message() +
                                           " (--allow-eager-fallback times the model with libtorch instead; "
                                           "no model.nimble)");
    }
    AccelerateResult result = session.result();
    result.eager_fallback_reason = capturable.message();
    NIMBLE_ASSIGN_OR_RETURN(result.baseline_ms, session.TimeBaseline(options.iters));
    return result;
  }
  NIMBLE_RETURN_IF_ERROR(session.PlanAndCapture());
  NIMBLE_RETURN_IF_ERROR(session.CheckOutputs());
  NIMBLE_RETURN_IF_ERROR(session.Measure());
  NIMBLE_RETURN_IF_ERROR(session.Predict());
  session.Choose();
  NIMBLE_RETURN_IF_ERROR(session.RecordReplays());
  AccelerateResult result = session.result();
  if (db != nullptr) NIMBLE_RETURN_IF_ERROR(StoreResults(db, result, session.model().graph, session.recordings()));
  NIMBLE_RETURN_IF_ERROR(session.Save());
  return result;
}

}  // namespace

StatusOr<AccelerateResult> Accelerate(const AccelerateOptions& given, const ProgressFn& progress) {
  AccelerateOptions options = given;
  NIMBLE_RETURN_IF_ERROR(FillRecordedInputs(options.model, options.inputs, progress));
  NIMBLE_RETURN_IF_ERROR(CheckOptions(options));
  // A --db that does not exist yet is made here, and removed again if the call fails.
  std::unique_ptr<store::RunDatabase> db;
  bool created = false;
  if (!options.db.empty()) {
    std::error_code error;
    created = !std::filesystem::exists(options.db, error);
    NIMBLE_ASSIGN_OR_RETURN(db, created ? store::RunDatabase::Create(options.db)
                                        : store::RunDatabase::Open(options.db, store::Access::kReadWrite));
  }
  StatusOr<AccelerateResult> result = RunSteps(options, db, progress);
  const bool nothing_stored = !result.ok() || (result->stored_runs.empty() && result->eager_run < 0);
  if (created && nothing_stored) {  // a failed call, or the eager fallback, which stores nothing
    db.reset();
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(options.db + suffix, ignored);
  }
  return result;
}

}  // namespace nimble::workflow

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

namespace nimble::workflow {
namespace {

Status CheckOptions(const AccelerateOptions& options) {
  std::error_code error;
  if (!std::filesystem::exists(options.model, error)) return NotFound(options.model + ": no such file");
  if (options.inputs.empty()) return InvalidArgument("--input is required: the shape of each model input");
  if (accelerate::CudaDeviceCount() == 0) {
    return Unavailable("no CUDA device: ahead-of-time capture needs a GPU, and this machine has none "
                       "(nimble-prof report still works on recorded runs)");
  }
  return OkStatus();
}

}  // namespace

StatusOr<AccelerateResult> Accelerate(const AccelerateOptions& options, const ProgressFn& progress) {
  NIMBLE_RETURN_IF_ERROR(CheckOptions(options));
  std::unique_ptr<store::RunDatabase> db;
  if (!options.db.empty()) {
    NIMBLE_ASSIGN_OR_RETURN(db, store::RunDatabase::Open(options.db, store::Access::kReadWrite));
  }
  Session session(options, db.get(), progress);
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
  AccelerateResult result = session.result();
  if (db != nullptr) NIMBLE_RETURN_IF_ERROR(StoreResults(*db, result, session.model().graph));
  NIMBLE_RETURN_IF_ERROR(session.Save());
  return result;
}

}  // namespace nimble::workflow

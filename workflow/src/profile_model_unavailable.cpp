// Model profiling in a build without libtorch or CUDA: the API stays and says how to get it.
#include "nimble/workflow/profile_model.h"

namespace nimble::workflow {

StatusOr<ProfileResult> ProfileModel(const ProfileOptions& options, const ProgressFn&) {
  NIMBLE_RETURN_IF_ERROR(CheckProfileOptions(options));
  return FailedPrecondition(
      "this nimble-prof was built without model profiling (it needs libtorch and CUDA): configure with "
      "-DNIMBLE_WITH_TORCH=ON -DNIMBLE_WITH_CUDA=ON; `nimble-prof report` works on recorded runs");
}

}  // namespace nimble::workflow

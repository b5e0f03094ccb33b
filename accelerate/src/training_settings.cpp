#include "training_settings.h"

#include <torch/csrc/jit/serialization/import.h>

#include <cmath>
#include <filesystem>
#include <system_error>

#include "export_program.h"
#include "tensor_checks.h"
#include "torch_errors.h"

namespace nimble::accelerate {

Status CheckSettings(const std::string& path, const std::vector<at::Tensor>& inputs, const at::Tensor& target,
                     const TrainingOptions& o) {
  if (inputs.empty()) return InvalidArgument(path + ": no example inputs");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "example input " + std::to_string(i);
    if (!inputs[i].defined()) return InvalidArgument(path + ": " + name + " is undefined");
    if (!inputs[i].is_cuda()) return InvalidArgument(path + ": " + name + " is on " + inputs[i].device().str() +
                                                     ": the step is captured on a CUDA device");
    if (inputs[i].device() != inputs[0].device()) {
      return InvalidArgument(path + ": " + name + " is on " + inputs[i].device().str() + ", input 0 on " +
                             inputs[0].device().str());
    }
  }
  if (!target.defined() || target.device() != inputs[0].device()) {
    return InvalidArgument(path + ": the example target must be a tensor on " + inputs[0].device().str());
  }
  if (o.loss == TrainingLoss::kCrossEntropy && target.scalar_type() != at::kLong) {
    return InvalidArgument(path + ": cross-entropy needs int64 class indices as the target, not " + TensorText(target));
  }
  const SgdSettings& sgd = o.sgd;
  if (!(sgd.lr > 0) || !(sgd.momentum >= 0) || !(sgd.weight_decay >= 0) || !std::isfinite(sgd.lr) ||
      !std::isfinite(sgd.momentum) || !std::isfinite(sgd.weight_decay) || !std::isfinite(sgd.dampening)) {
    return InvalidArgument(path + ": SGD needs a finite lr > 0 and finite momentum, weight decay >= 0");
  }
  if (sgd.momentum > 0 && sgd.dampening != 0) {
    return InvalidArgument(path + ": SGD dampening with momentum is not supported (the captured momentum buffers "
                                  "start at zero, which is PyTorch's first step only without dampening)");
  }
  if (sgd.nesterov && (sgd.momentum <= 0 || sgd.dampening != 0)) {
    return InvalidArgument(path + ": Nesterov momentum needs a momentum above 0 and no dampening");
  }
  if (o.warmup_steps < 1 || o.check_steps < 0 || o.timing_steps < 0 || o.check_tolerance < 0 || o.max_streams < 0 ||
      o.choice_steps < 0) {
    return InvalidArgument(path + ": warm-up steps must be at least 1; check, timing and choice steps, the tolerance "
                                  "and the most streams not negative");
  }
  if (o.smem_carveout != kMeasureCarveout && o.smem_carveout != kKeepCarveout &&
      (o.smem_carveout < 0 || o.smem_carveout > 100)) {
    return InvalidArgument(path + ": shared-memory carveout " + std::to_string(o.smem_carveout) +
                           ": a percentage from 0 to 100, kKeepCarveout (-1) or kMeasureCarveout (-2)");
  }
  return OkStatus();
}

Status CheckModelFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return NotFound(path + ": no such model file");
  if (LooksLikeExportArchive(path)) {
    return FailedPrecondition(path + ": a torch.export program (.pt2) is an inference graph without trainable "
                              "parameters; training takes a TorchScript module (torch.jit.script(model).save)");
  }
  return OkStatus();
}

StatusOr<torch::jit::Module> LoadForTraining(const std::string& path, const c10::Device& device) {
  try {
    torch::jit::Module module = torch::jit::load(path, device);
    module.train(true);
    return module;
  } catch (const std::exception& e) {
    return DataLoss(path + ": cannot be loaded as a TorchScript module: " + TorchMessage(e));
  }
}

}  // namespace nimble::accelerate

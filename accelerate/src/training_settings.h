// What TrainingStep::Capture checks before it asks anything of the device: the model file (there, and
// a TorchScript module rather than a torch.export program), the example tensors and the settings; and
// the module's loading for training. Private to accelerate/src.
#pragma once

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/module.h>

#include <string>
#include <vector>

#include "nimble/accelerate/training_step.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// InvalidArgument naming `path` for example tensors that are missing, off the device or on different
// devices, a target of the wrong kind for the loss, or settings out of range (TrainingOptions).
Status CheckSettings(const std::string& path, const std::vector<at::Tensor>& inputs, const at::Tensor& target,
                     const TrainingOptions& o);

// NotFound for no such file; FailedPrecondition for a torch.export program (.pt2).
Status CheckModelFile(const std::string& path);

// The TorchScript module at `path` on `device`, in training mode; DataLoss naming the file otherwise.
StatusOr<torch::jit::Module> LoadForTraining(const std::string& path, const c10::Device& device);

}  // namespace nimble::accelerate

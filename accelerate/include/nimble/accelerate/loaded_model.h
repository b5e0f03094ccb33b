// A TorchScript model or torch.export program after the front end: loaded, frozen, inlined, with no
// control flow left, kept for the stages that follow (stream rewrite, capture). Opaque on purpose: no libtorch header here,
// so the CLI can hold one without compiling torch. Copies share one module, like torch::jit::Module.
// Not thread-safe: use a LoadedModel (and its copies) from one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/core/ids.h"
#include "nimble/core/status.h"
#include "nimble/core/tensor_spec.h"

namespace nimble::accelerate {

class LoadedModel {
 public:
  // Defined in accelerate/src/loaded_model_impl.h; only accelerate's own sources see inside.
  struct Impl;

  LoadedModel() = default;  // empty: holds no model
  explicit LoadedModel(std::shared_ptr<Impl> impl);

  bool empty() const { return impl_ == nullptr; }

  // The file it came from and the device it lives on ("cpu", "cuda:0").
  const std::string& path() const;
  const std::string& device() const;
  // The inputs (shape and dtype) the op graph's output shapes were computed for.
  const std::vector<TensorSpec>& inputs() const;

  // The frozen forward graph in TorchScript IR, for debugging and reports.
  std::string GraphText() const;
  // The IR line of the node op `op` came from, e.g. "%x : Tensor = aten::relu(%y)".
  StatusOr<std::string> NodeText(OpId op) const;

  // Writes the module as the front end left it (frozen, optimized, specialized to the input shapes) to
  // `path` as a TorchScript file that torch.jit.load reads, so other tools can run exactly this graph.
  // Written to `path`.partial, then renamed; PermissionDenied or Internal naming the path.
  Status Save(const std::string& path) const;

  // For accelerate's later stages; callers outside accelerate/src cannot use what it returns.
  Impl& impl() const;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace nimble::accelerate

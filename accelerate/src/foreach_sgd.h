// SGD as torch.optim.SGD(foreach=True) updates: each step is a handful of multi-tensor kernels over all
// parameters (at::_foreach_*), where torch::optim::SGD, libtorch's C++ optimizer, launches two or three
// kernels per parameter tensor. In a captured training step of a CNN with 160 parameter tensors that is
// about 480 small kernels against a few (TrainingStep's update). Same arithmetic, in the same order, as
// torch::optim::SGD (tested against it); no dampening with momentum (the buffers start at zero, which is
// PyTorch's first step only without it). Private to accelerate/src. Not thread-safe.
#pragma once

#include <ATen/ATen.h>

#include <vector>

namespace nimble::accelerate {

class ForeachSgd {
 public:
  ForeachSgd(std::vector<at::Tensor> parameters, double lr, double momentum, double weight_decay, bool nesterov);

  // Gradients unset (set_to_none: backward then writes fresh ones) or zeroed in place.
  void ZeroGrad(bool set_to_none);
  // One update of every parameter that has a gradient; capturable once the momentum buffers exist.
  void Step();
  // Momentum buffers back to zero (the state of a fresh optimizer, given no dampening).
  void ZeroMomentum();

 private:
  std::vector<at::Tensor> parameters_;
  std::vector<at::Tensor> momentum_;  // per parameter; undefined until its first step
  double lr_, momentum_factor_, weight_decay_;
  bool nesterov_;
};

}  // namespace nimble::accelerate

#include "foreach_sgd.h"

#include <ATen/core/grad_mode.h>

#include <utility>

namespace nimble::accelerate {

ForeachSgd::ForeachSgd(std::vector<at::Tensor> parameters, double lr, double momentum, double weight_decay,
                       bool nesterov)
    : parameters_(std::move(parameters)),
      momentum_(parameters_.size()),
      lr_(lr),
      momentum_factor_(momentum),
      weight_decay_(weight_decay),
      nesterov_(nesterov) {}

void ForeachSgd::ZeroGrad(bool set_to_none) {
  for (at::Tensor& p : parameters_) {
    at::Tensor& grad = p.mutable_grad();
    if (!grad.defined()) continue;
    if (set_to_none) {
      grad.reset();
    } else {
      grad.detach_();
      grad.zero_();
    }
  }
}

void ForeachSgd::Step() {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> params, grads, fresh;  // fresh: parameters whose buffer this step creates
  std::vector<size_t> at;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const at::Tensor& grad = parameters_[i].grad();
    if (!grad.defined()) continue;
    params.push_back(parameters_[i]);
    grads.push_back(grad);
    at.push_back(i);
  }
  if (params.empty()) return;
  if (weight_decay_ != 0) grads = at::_foreach_add(grads, params, weight_decay_);
  if (momentum_factor_ != 0) {
    std::vector<at::Tensor> buffers, existing, existing_grads;
    for (size_t k = 0; k < at.size(); ++k) {
      at::Tensor& buffer = momentum_[at[k]];
      if (!buffer.defined()) {
        buffer = grads[k].clone().detach();  // torch::optim::SGD's first step: the gradient itself
      } else {
        existing.push_back(buffer);
        existing_grads.push_back(grads[k]);
      }
      buffers.push_back(buffer);
    }
    if (!existing.empty()) {
      at::_foreach_mul_(existing, momentum_factor_);
      at::_foreach_add_(existing, existing_grads, 1.0);
    }
    if (nesterov_) {
      grads = at::_foreach_add(grads, buffers, momentum_factor_);
    } else {
      grads = buffers;
    }
  }
  at::_foreach_add_(params, grads, -lr_);
}

void ForeachSgd::ZeroMomentum() {
  for (at::Tensor& buffer : momentum_) {
    if (buffer.defined()) buffer.zero_();
  }
}

}  // namespace nimble::accelerate

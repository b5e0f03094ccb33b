// ForeachSgd (accelerate/src/foreach_sgd.h), the update TrainingStep captures, against libtorch's
// torch::optim::SGD on the CPU: the same parameters after every step, bit for bit, for plain SGD,
// momentum, weight decay and Nesterov, with a parameter that gets no gradient on some steps; and zeroed
// momentum buffers giving a fresh optimizer's first step.
#include "foreach_sgd.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/optim/sgd.h>

#include <string>
#include <vector>

namespace nimble::accelerate {
namespace {

struct Case {
  double lr, momentum, weight_decay;
  bool nesterov;
};

std::vector<at::Tensor> Parameters() {
  at::manual_seed(3);
  std::vector<at::Tensor> params;
  for (int64_t n : {7, 64, 1, 300}) params.push_back(at::randn({n}).requires_grad_(true));
  return params;
}

void SetGrads(std::vector<at::Tensor>& params, int step) {
  at::manual_seed(100 + step);
  for (size_t i = 0; i < params.size(); ++i) {
    at::Tensor g = at::randn(params[i].sizes());
    // The last parameter has no gradient on odd steps (an unused branch): both optimizers skip it.
    params[i].mutable_grad() = (i + 1 == params.size() && step % 2 == 1) ? at::Tensor() : g;
  }
}

TEST(ForeachSgdTest, UpdatesAsTorchOptimSgdBitForBit) {
  for (const Case c : {Case{0.1, 0, 0, false}, Case{0.05, 0.9, 0, false}, Case{0.05, 0.9, 1e-2, false},
                       Case{0.02, 0.8, 1e-3, true}}) {
    SCOPED_TRACE("lr " + std::to_string(c.lr) + " momentum " + std::to_string(c.momentum) + " weight decay " +
                 std::to_string(c.weight_decay) + (c.nesterov ? " nesterov" : ""));
    std::vector<at::Tensor> ours = Parameters(), theirs = Parameters();
    ForeachSgd sgd(ours, c.lr, c.momentum, c.weight_decay, c.nesterov);
    torch::optim::SGD reference(
        theirs, torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weight_decay).nesterov(c.nesterov));
    for (int step = 0; step < 6; ++step) {
      SetGrads(ours, step);
      SetGrads(theirs, step);
      sgd.Step();
      reference.step();
      for (size_t i = 0; i < ours.size(); ++i) {
        EXPECT_TRUE(at::equal(ours[i], theirs[i])) << "step " << step << " tensor " << i;
      }
    }
  }
}

TEST(ForeachSgdTest, ZeroedMomentumGivesAFreshOptimizersFirstStep) {
  std::vector<at::Tensor> ours = Parameters(), fresh = Parameters();
  ForeachSgd sgd(ours, 0.05, 0.9, 0, false);
  SetGrads(ours, 0);
  sgd.Step();  // creates the buffers
  {
    at::NoGradGuard no_grad;
    for (size_t i = 0; i < ours.size(); ++i) ours[i].copy_(fresh[i]);
  }
  sgd.ZeroMomentum();
  torch::optim::SGD reference(fresh, torch::optim::SGDOptions(0.05).momentum(0.9));
  SetGrads(ours, 2);
  SetGrads(fresh, 2);
  sgd.Step();
  reference.step();
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_TRUE(at::equal(ours[i], fresh[i])) << "tensor " << i;
  sgd.ZeroGrad(/*set_to_none=*/false);
  EXPECT_EQ(ours[0].grad().abs().sum().item<double>(), 0.0);
  sgd.ZeroGrad(/*set_to_none=*/true);
  EXPECT_FALSE(ours[0].grad().defined());
}

}  // namespace
}  // namespace nimble::accelerate

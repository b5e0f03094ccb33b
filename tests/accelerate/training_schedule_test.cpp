// The multi-stream training forward's planning (accelerate/src/training_schedule.h), on the CPU: a
// training-mode module's attributes lifted, batch norm's batch-size check dropped, the width found and
// planned, and the rewritten forward computing what the module computes, gradients included. Forwards
// that cannot be scheduled are refused with the reason. The capture on streams is training_step_test's.
#include "training_schedule.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace nimble::accelerate {
namespace {

// Three branches of convolution, batch norm in training mode (with torch.nn.functional's check that a
// batch holds more than one value per channel and a step counter, as scripted torchvision models carry
// them) and ReLU, summed, then a classifier.
constexpr const char* kBranches = R"(
def norm(self, y, g, b, rm, rv, seen):
    size = y.size()
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    assert size_prods != 1, "Expected more than 1 value per channel when training"
    if self.training:
        seen.add_(1)
    return torch.batch_norm(y, g, b, rm, rv, self.training, self.momentum, 1e-5, True)

def forward(self, x):
    a = torch.relu(self.norm(torch.conv2d(x, self.w0, None, [1, 1], [1, 1]), self.g0, self.b0, self.rm0, self.rv0, self.seen0))
    b = torch.relu(self.norm(torch.conv2d(x, self.w1, None, [1, 1], [1, 1]), self.g1, self.b1, self.rm1, self.rv1, self.seen1))
    c = torch.relu(self.norm(torch.conv2d(x, self.w2, None, [1, 1], [1, 1]), self.g2, self.b2, self.rm2, self.rv2, self.seen2))
    y = torch.adaptive_avg_pool2d(a + b + c, [1, 1]).flatten(1)
    return torch.linear(y, self.w3, None)
)";

torch::jit::Module Branches() {
  torch::jit::Module m("TrainBranches");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.register_attribute("momentum", c10::FloatType::get(), 0.1);
  at::manual_seed(3);
  for (int i = 0; i < 3; ++i) {
    const std::string k = std::to_string(i);
    m.register_parameter("w" + k, at::randn({4, 3, 3, 3}) * 0.3, false);
    m.register_parameter("g" + k, at::ones({4}), false);
    m.register_parameter("b" + k, at::zeros({4}), false);
    m.register_buffer("rm" + k, at::zeros({4}));
    m.register_buffer("rv" + k, at::ones({4}));
    m.register_buffer("seen" + k, at::zeros({}, at::kLong));
  }
  m.register_parameter("w3", at::randn({10, 4}) * 0.3, false);
  m.define(kBranches);
  for (at::Tensor p : m.parameters()) p.requires_grad_(true);
  return m;
}

TEST(TrainingScheduleTest, TheBranchesArePlannedOnStreamsAndComputeWhatTheModuleComputes) {
  torch::jit::Module module = Branches();
  const at::Tensor x = at::randn({2, 3, 6, 6});
  StatusOr<TrainingSchedule> schedule = ScheduleTrainingForward(module, {x}, "branches.pt", 0);
  ASSERT_TRUE(schedule.ok()) << schedule.status().ToString();
  EXPECT_EQ(schedule->width, 3);
  EXPECT_EQ(schedule->streams, 3);
  EXPECT_GE(schedule->syncs, 2);  // the three branches meet at the sum
  // Every parameter and buffer the forward reads is an input, each once.
  EXPECT_EQ(schedule->state.size(), 10u + 6u + 3u);
  // Batch norm's step counters leave the graph (nothing in it reads them) and are added after it.
  ASSERT_EQ(schedule->increments.size(), 1u);
  EXPECT_EQ(schedule->increments[0].first, 1);
  EXPECT_EQ(schedule->increments[0].second.size(), 3u);
  const std::string graph = schedule->scheduled.model.GraphText();
  EXPECT_EQ(graph.find("prim::If"), std::string::npos) << graph;
  EXPECT_EQ(graph.find("prim::Loop"), std::string::npos) << graph;
  EXPECT_EQ(graph.find("prim::GetAttr"), std::string::npos) << graph;
  EXPECT_NE(graph.find("nimble::set_stream"), std::string::npos) << graph;

  // The same output and gradients as the module's forward, and the statistics updated alike.
  std::vector<at::Tensor> params;
  for (const at::Tensor& p : module.parameters()) params.push_back(p);
  at::Tensor running_before = module.attr("rm1").toTensor().clone();
  const at::Tensor expected = module.forward({x}).toTensor();
  const std::vector<at::Tensor> expected_grads = torch::autograd::grad({expected.square().sum()}, params);
  const at::Tensor module_stats = module.attr("rm1").toTensor().clone();
  module.attr("rm1").toTensor().copy_(running_before);
  const at::Tensor got = RunScheduledForward(*schedule, {x}).toTensor();
  const std::vector<at::Tensor> got_grads = torch::autograd::grad({got.square().sum()}, params);
  EXPECT_TRUE(at::allclose(got, expected, 1e-5, 1e-6));
  ASSERT_EQ(got_grads.size(), expected_grads.size());
  for (size_t i = 0; i < got_grads.size(); ++i) {
    EXPECT_TRUE(at::allclose(got_grads[i], expected_grads[i], 1e-5, 1e-6)) << "parameter " << i;
  }
  EXPECT_TRUE(at::allclose(module.attr("rm1").toTensor(), module_stats));  // the module's own buffer, updated
  for (const char* seen : {"seen0", "seen1", "seen2"}) {
    EXPECT_EQ(module.attr(seen).toTensor().item<int64_t>(), 2) << seen;  // one per forward
  }
}

TEST(TrainingScheduleTest, AChainHasNoWidthAndDataDependentFlowIsRefused) {
  torch::jit::Module chain("TrainChain");
  chain.register_parameter("w", at::randn({4, 4}), false);
  chain.define(R"(
def forward(self, x):
    return torch.relu(torch.linear(torch.relu(torch.linear(x, self.w, None)), self.w, None))
)");
  StatusOr<TrainingSchedule> narrow = ScheduleTrainingForward(chain, {at::randn({2, 4})}, "chain.pt", 0);
  EXPECT_EQ(narrow.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(narrow.status().message().find("no width"), std::string::npos) << narrow.status().ToString();
  EXPECT_NE(narrow.status().message().find("chain.pt"), std::string::npos);
  EXPECT_TRUE(ScheduleTrainingForward(chain, {at::randn({2, 4})}, "chain.pt", 1).ok());  // one stream: planned

  torch::jit::Module branchy("TrainBranchy");
  branchy.register_parameter("w", at::randn({4, 4}), false);
  branchy.define(R"(
def forward(self, x):
    if bool(x.sum() > 0):
        return torch.linear(x, self.w, None)
    return torch.relu(x)
)");
  StatusOr<TrainingSchedule> flow = ScheduleTrainingForward(branchy, {at::randn({2, 4})}, "branchy.pt", 0);
  EXPECT_EQ(flow.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(flow.status().message().find("control flow"), std::string::npos) << flow.status().ToString();
}

TEST(TrainingScheduleTest, TheMostStreamsAreRespected) {
  torch::jit::Module module = Branches();
  StatusOr<TrainingSchedule> two = ScheduleTrainingForward(module, {at::randn({2, 3, 6, 6})}, "branches.pt", 2);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->streams, 2);
  EXPECT_EQ(two->width, 3);
  // One stream: the lifted forward whatever its width, with no sync.
  StatusOr<TrainingSchedule> one = ScheduleTrainingForward(module, {at::randn({2, 3, 6, 6})}, "branches.pt", 1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->streams, 1);
  EXPECT_EQ(one->syncs, 0);
  EXPECT_EQ(one->increments.size(), 1u);
}

// A loop that fills a list is not dropped (only loops of host arithmetic that nothing reads go with the
// checks), and a buffer written between two reads keeps both in order around the write.
TEST(TrainingScheduleTest, ListsFilledByLoopsAndWritesToBuffersKeepTheirEffect) {
  torch::jit::Module pooled("TrainPooled");
  pooled.register_parameter("w", at::randn({5, 4}), false);
  pooled.define(R"(
def forward(self, x):
    dims: List[int] = []
    for i in range(2, x.dim()):
        dims.append(i)
    return torch.linear(x.mean(dims), self.w, None)
)");
  const at::Tensor x = at::randn({2, 4, 3, 3});
  // Kept, its trip count is the input's rank, not a constant before the shapes are folded: refused,
  // naming it (dropped, the mean would be over every dimension).
  StatusOr<TrainingSchedule> schedule = ScheduleTrainingForward(pooled, {x}, "pooled.pt", 1);
  EXPECT_EQ(schedule.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(schedule.status().message().find("prim::Loop"), std::string::npos) << schedule.status().ToString();

  torch::jit::Module written("TrainWritten");
  written.register_buffer("scale", at::ones({4}));
  written.define(R"(
def forward(self, x):
    p = torch.relu(x * self.scale)
    self.scale.add_(1.0)
    q = torch.sigmoid(x * self.scale)
    return p + q
)");
  StatusOr<TrainingSchedule> ordered = ScheduleTrainingForward(written, {at::randn({2, 4})}, "written.pt", 0);
  ASSERT_TRUE(ordered.ok()) << ordered.status().ToString();
  // The first product before the write, the second after it: relu beside the write and the second
  // branch, no more. Without those edges the three would be independent (width 3).
  EXPECT_EQ(ordered->width, 2);
}

// NIMBLE_TRAINING_MODELS=a.pt:b.pt (torchvision models scripted in training mode, 10 classes, as
// bench/training_bench.py --script writes them) plans each at batch 4 on 32x32 and compares the scheduled
// forward's output with the module's. Skips without it.
TEST(TrainingScheduleTest, ScriptedModelsFromTheEnvironment) {
  const char* list = std::getenv("NIMBLE_TRAINING_MODELS");
  if (list == nullptr || *list == 0) GTEST_SKIP() << "NIMBLE_TRAINING_MODELS not set";
  std::stringstream paths(list);
  std::string path;
  while (std::getline(paths, path, ':')) {
    torch::jit::Module module = torch::jit::load(path);
    module.train(true);
    const at::Tensor x = at::randn({4, 3, 32, 32});
    {
      // Run once first, as the training step's warm-up does before planning: TorchScript caches what
      // its executor made of each method.
      torch::jit::GraphOptimizerEnabledGuard eager_autograd(false);
      (void)module.forward({x});
    }
    StatusOr<TrainingSchedule> schedule = ScheduleTrainingForward(module, {x}, path, 0);
    if (!schedule.ok()) {
      EXPECT_NE(schedule.status().message().find("no width"), std::string::npos) << schedule.status().ToString();
      std::cout << schedule.status().message() << "\n";
      continue;
    }
    std::cout << path << ": " << schedule->ops << " ops, width " << schedule->width << ", " << schedule->streams
              << " streams, " << schedule->syncs << " syncs\n";
    at::manual_seed(5);
    const at::Tensor expected = module.forward({x}).toTensor();
    at::manual_seed(5);
    const at::Tensor got = RunScheduledForward(*schedule, {x}).toTensor();
    EXPECT_TRUE(at::allclose(got, expected, 1e-4, 1e-5)) << path;
  }
}

}  // namespace
}  // namespace nimble::accelerate

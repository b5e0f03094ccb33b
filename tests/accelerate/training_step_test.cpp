// nimble::accelerate::TrainingStep. Without a GPU: the refusals that come before the device (a missing
// file, a torch.export program, CPU inputs, settings it cannot capture). With one (each such test skips
// without): the captured step against an eager training loop written here, on the same batches, with
// its own check and report; the trained module saved and loaded back; its memset nodes replaced or kept;
// the multi-stream capture's shared-memory carveout measured both ways, or as asked;
// a step that syncs with the host refused with its operator named and the process still usable; bad
// batches refused.
#include "nimble/accelerate/training_step.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/optim/sgd.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "nimble/accelerate/cuda_devices.h"

namespace nimble::accelerate {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device"

const std::string kExportData = std::string(NIMBLE_SOURCE_DIR) + "/tests/accelerate/data/export/";

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "training_" + name + "_" + std::to_string(::getpid()) + ".pt";
}

// A small CNN with batch norm (its statistics are buffers the step updates) and a classifier.
constexpr const char* kConvNet = R"(
def forward(self, x):
    y = torch.conv2d(x, self.w0, self.b0, [1, 1], [1, 1])
    y = torch.batch_norm(y, self.g, self.beta, self.rm, self.rv, self.training, 0.1, 1e-5, True)
    y = torch.relu(y)
    y = torch.adaptive_avg_pool2d(y, [1, 1]).flatten(1)
    return torch.linear(y, self.w1, self.b1)
)";

std::string SaveNet(const std::string& name, const std::string& source) {
  torch::jit::Module m("TrainNet");
  m.register_attribute("training", c10::BoolType::get(), true);
  at::manual_seed(7);
  m.register_parameter("w0", at::randn({8, 3, 3, 3}) * 0.3, false);
  m.register_parameter("b0", at::zeros({8}), false);
  m.register_parameter("g", at::ones({8}), false);
  m.register_parameter("beta", at::zeros({8}), false);
  m.register_parameter("w1", at::randn({10, 8}) * 0.3, false);
  m.register_parameter("b1", at::zeros({10}), false);
  m.register_buffer("rm", at::zeros({8}));
  m.register_buffer("rv", at::ones({8}));
  m.define(source);
  const std::string path = TempPath(name);
  m.save(path);
  return path;
}

std::vector<std::pair<at::Tensor, at::Tensor>> Batches(int count) {
  at::manual_seed(11);
  std::vector<std::pair<at::Tensor, at::Tensor>> batches;
  for (int i = 0; i < count; ++i) {
    batches.emplace_back(at::randn({4, 3, 8, 8}, at::kCUDA),
                         at::randint(10, {4}, at::TensorOptions(at::kCUDA).dtype(at::kLong)));
  }
  return batches;
}

TEST(TrainingStepTest, RefusesAMissingFileAndATorchExportProgramBeforeTheDevice) {
  const at::Tensor cpu = at::zeros({1, 3});
  auto missing = TrainingStep::Capture("/nonexistent/model.pt", {cpu}, at::zeros({1}, at::kLong));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/model.pt"), std::string::npos);
  auto exported = TrainingStep::Capture(kExportData + "half_mlp.pt2", {cpu}, at::zeros({1}, at::kLong));
  EXPECT_EQ(exported.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(exported.status().message().find("torch.export program"), std::string::npos)
      << exported.status().ToString();
  const std::string net = SaveNet("cpu", kConvNet);
  auto on_cpu = TrainingStep::Capture(net, {cpu}, at::zeros({1}, at::kLong));
  EXPECT_EQ(on_cpu.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(on_cpu.status().message().find("CUDA"), std::string::npos) << on_cpu.status().ToString();
  auto none = TrainingStep::Capture(net, {}, at::zeros({1}, at::kLong));
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  std::remove(net.c_str());
}

TEST(TrainingStepTest, CapturedStepsTrainAsAnEagerLoopDoes) {
  SKIP_WITHOUT_GPU();
  const std::string net = SaveNet("parity", kConvNet);
  const auto batches = Batches(20);
  TrainingOptions options;
  options.sgd.lr = 0.05;
  options.sgd.momentum = 0.9;
  options.sgd.weight_decay = 1e-4;
  options.check_steps = 5;
  options.timing_steps = 5;
  auto step = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  const TrainingReport& report = (*step)->report();
  EXPECT_EQ(report.check_steps, 5);
  EXPECT_LE(report.max_loss_difference, report.check_tolerance);
  EXPECT_LE(report.max_parameter_difference, report.check_tolerance);
  EXPECT_TRUE(report.check_warning.empty()) << report.check_warning;
  EXPECT_EQ(report.parameters, 8 * 27 + 8 + 8 + 8 + 80 + 10);
  EXPECT_GT(report.eager_ms, 0);
  EXPECT_GT(report.captured_ms, 0);

  // The eager loop a user would write, from the file's weights, on the same batches.
  torch::jit::Module eager = torch::jit::load(net, at::kCUDA);
  eager.train(true);
  std::vector<at::Tensor> params;
  for (at::Tensor p : eager.parameters()) params.push_back(p.requires_grad_(true));
  torch::optim::SGD sgd(params, torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-4));
  std::vector<double> eager_losses, captured_losses;
  for (const auto& [x, y] : batches) {
    sgd.zero_grad();
    at::Tensor loss = at::cross_entropy_loss(eager.forward({x}).toTensor(), y);
    loss.backward();
    sgd.step();
    eager_losses.push_back(loss.item<double>());
    auto captured = (*step)->Step({x}, y);
    ASSERT_TRUE(captured.ok()) << captured.status().ToString();
    captured_losses.push_back(captured->item<double>());
  }
  for (size_t i = 0; i < batches.size(); ++i) {
    EXPECT_NEAR(captured_losses[i], eager_losses[i], 1e-3 * std::max(1.0, std::fabs(eager_losses[i]))) << "step " << i;
  }
  EXPECT_LT(captured_losses.back(), captured_losses.front());  // it learns
  const std::string saved = TempPath("saved");
  ASSERT_TRUE((*step)->Save(saved).ok());
  torch::jit::Module trained = torch::jit::load(saved, at::kCUDA);
  std::vector<at::Tensor> trained_values, eager_values;
  for (const auto& p : trained.named_parameters()) trained_values.push_back(p.value);
  for (const auto& b : trained.named_buffers()) trained_values.push_back(b.value);
  for (const auto& p : eager.named_parameters()) eager_values.push_back(p.value);
  for (const auto& b : eager.named_buffers()) eager_values.push_back(b.value);  // batch norm's statistics
  ASSERT_EQ(trained_values.size(), eager_values.size());
  for (size_t i = 0; i < eager_values.size(); ++i) {
    EXPECT_TRUE(at::allclose(trained_values[i], eager_values[i], 1e-3, 1e-4)) << "tensor " << i;
  }
  std::remove(net.c_str());
  std::remove(saved.c_str());
}

// Three branches with batch norm in training mode (each with its statistics and step counter), summed.
constexpr const char* kBranchNet = R"(
def branch(self, x, w, rm, rv, seen):
    y = torch.conv2d(x, w, None, [1, 1], [1, 1])
    seen.add_(1)
    return torch.relu(torch.batch_norm(y, None, None, rm, rv, self.training, 0.1, 1e-5, True))

def forward(self, x):
    a = self.branch(x, self.w0, self.rm0, self.rv0, self.seen0)
    b = self.branch(x, self.w1, self.rm1, self.rv1, self.seen1)
    c = self.branch(x, self.w2, self.rm2, self.rv2, self.seen2)
    y = torch.adaptive_avg_pool2d(a + b + c, [1, 1]).flatten(1)
    return torch.linear(y, self.w3, self.b3)
)";

std::string SaveBranchNet(const std::string& name) {
  torch::jit::Module m("TrainBranchNet");
  m.register_attribute("training", c10::BoolType::get(), true);
  at::manual_seed(5);
  for (int i = 0; i < 3; ++i) {
    const std::string k = std::to_string(i);
    m.register_parameter("w" + k, at::randn({16, 3, 3, 3}) * 0.3, false);
    m.register_buffer("rm" + k, at::zeros({16}));
    m.register_buffer("rv" + k, at::ones({16}));
    m.register_buffer("seen" + k, at::zeros({}, at::kLong));
  }
  m.register_parameter("w3", at::randn({10, 16}) * 0.3, false);
  m.register_parameter("b3", at::zeros({10}), false);
  m.define(kBranchNet);
  const std::string path = TempPath(name);
  m.save(path);
  return path;
}

// The forward's three branches captured on three streams (autograd runs their backward there too):
// deterministic kernels on both sides, the step's own check against eager steps exact, and 12 captured
// steps as a torch::optim::SGD loop trains (within 1e-5: that update's arithmetic is ordered otherwise),
// batch norm's statistics and step counters included.
// Deterministic kernels for one test, set back however it ends.
struct DeterministicKernels {
  DeterministicKernels() {
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
    at::globalContext().setDeterministicCuDNN(true);
  }
  ~DeterministicKernels() {
    at::globalContext().setDeterministicAlgorithms(false, false);
    at::globalContext().setDeterministicCuDNN(false);
  }
};

TEST(TrainingStepTest, AForwardWithWidthIsCapturedOnStreamsAndTrainsAsEagerDoes) {
  SKIP_WITHOUT_GPU();
  DeterministicKernels deterministic;
  const std::string net = SaveBranchNet("branches");
  const auto batches = Batches(12);
  TrainingOptions options;
  options.sgd.lr = 0.05;
  options.sgd.momentum = 0.9;
  options.streams = TrainingStreams::kMulti;
  options.cudnn_benchmark = false;
  options.check_steps = 4;
  options.timing_steps = 3;
  options.choice_steps = 3;
  options.require_check = true;
  auto step = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  const TrainingReport& report = (*step)->report();
  EXPECT_EQ(report.mode, "aot-multi") << report.choice;
  EXPECT_EQ(report.streams, 3);
  EXPECT_EQ(report.forward_width, 3);
  EXPECT_GE(report.syncs, 2);
  EXPECT_GT(report.single_ms, 0);
  EXPECT_GT(report.multi_ms, 0);
  EXPECT_EQ(report.max_loss_difference, 0.0);
  EXPECT_EQ(report.max_parameter_difference, 0.0);

  torch::jit::Module eager = torch::jit::load(net, at::kCUDA);
  eager.train(true);
  std::vector<at::Tensor> params;
  for (at::Tensor p : eager.parameters()) params.push_back(p.requires_grad_(true));
  torch::optim::SGD sgd(params, torch::optim::SGDOptions(0.05).momentum(0.9));
  for (size_t i = 0; i < batches.size(); ++i) {
    const auto& [x, y] = batches[i];
    sgd.zero_grad();
    at::Tensor loss = at::cross_entropy_loss(eager.forward({x}).toTensor(), y);
    loss.backward();
    sgd.step();
    auto captured = (*step)->Step({x}, y);
    ASSERT_TRUE(captured.ok()) << captured.status().ToString();
    EXPECT_NEAR(captured->item<double>(), loss.item<double>(), 1e-5 * std::max(1.0, std::fabs(loss.item<double>())))
        << "step " << i;
  }
  const std::string saved = TempPath("branches_saved");
  ASSERT_TRUE((*step)->Save(saved).ok());
  torch::jit::Module trained = torch::jit::load(saved, at::kCUDA);
  for (const auto& p : eager.named_parameters()) {
    EXPECT_TRUE(at::allclose(trained.attr(p.name).toTensor(), p.value, 1e-4, 1e-5)) << p.name;
  }
  for (const auto& b : eager.named_buffers()) {
    EXPECT_TRUE(at::allclose(trained.attr(b.name).toTensor().to(at::kDouble), b.value.to(at::kDouble), 1e-4, 1e-5))
        << b.name;
  }
  EXPECT_EQ(trained.attr("seen1").toTensor().item<int64_t>(), static_cast<int64_t>(batches.size()));
  std::remove(net.c_str());
  std::remove(saved.c_str());
}

// A forward without width keeps one stream under kAuto, and says why.
TEST(TrainingStepTest, AForwardWithoutWidthKeepsOneStreamAndSaysWhy) {
  SKIP_WITHOUT_GPU();
  const std::string net = SaveNet("narrow", kConvNet);
  const auto batches = Batches(1);
  TrainingOptions options;
  options.check_steps = 1;
  options.timing_steps = 1;
  auto step = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ((*step)->report().mode, "aot-single");
  EXPECT_NE((*step)->report().choice.find("no width"), std::string::npos) << (*step)->report().choice;
  // Both single-stream captures, the module's forward and the lifted one, were timed.
  EXPECT_NE((*step)->report().choice.find("lifted forward"), std::string::npos) << (*step)->report().choice;
  EXPECT_NE((*step)->report().choice.find("module forward"), std::string::npos) << (*step)->report().choice;
  EXPECT_GT((*step)->report().single_ms, 0);
  std::remove(net.c_str());
}

// The step's memset nodes (backward kernels zero small buffers) run as kernels by default and stay memset
// nodes with keep_memset_nodes. With cuDNN's heuristic picks both captures hold the same memsets, and the
// two steps train alike from the same weights.
TEST(TrainingStepTest, MemsetNodesRunAsKernelsOrAreKeptAndTheStepsTrainAlike) {
  SKIP_WITHOUT_GPU();
  const std::string net = SaveNet("memsets", kConvNet);
  const auto batches = Batches(10);
  TrainingOptions options;
  options.cudnn_benchmark = false;
  options.streams = TrainingStreams::kSingle;
  options.check_steps = 3;
  options.timing_steps = 0;
  auto replaced = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  options.keep_memset_nodes = true;
  auto kept = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  const TrainingReport& r = (*replaced)->report();
  const TrainingReport& k = (*kept)->report();
  std::printf("  memset nodes: %d replaced, %d kept; with keep_memset_nodes %d kept\n", r.memset_nodes_replaced,
              r.memset_nodes_kept, k.memset_nodes_kept);
  EXPECT_EQ(k.memset_nodes_replaced, 0);
  EXPECT_EQ(k.memset_nodes_kept, r.memset_nodes_replaced + r.memset_nodes_kept);
  EXPECT_TRUE(r.check_warning.empty()) << r.check_warning;
  EXPECT_TRUE(k.check_warning.empty()) << k.check_warning;
  for (size_t i = 0; i < batches.size(); ++i) {
    auto a = (*replaced)->Step({batches[i].first}, batches[i].second);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    const double loss = a->item<double>();
    auto b = (*kept)->Step({batches[i].first}, batches[i].second);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_NEAR(loss, b->item<double>(), 1e-3 * std::max(1.0, std::fabs(loss))) << "step " << i;
  }
  std::remove(net.c_str());
}

// The multi-stream capture's kernel nodes without shared memory: measured by default with each kernel's
// own carveout and with 100 % (one capture, two executable graphs), the second kept only where more than
// kMinCarveoutGain faster; a carveout asked for is set on the capture and not measured. The carveout
// changes no arithmetic: with deterministic kernels all three steps train to the same losses (to 1e-6).
TEST(TrainingStepTest, TheMultiStreamCarveoutIsMeasuredBothWaysOrAsAskedAndTrainsAlike) {
  SKIP_WITHOUT_GPU();
  DeterministicKernels deterministic;
  const std::string net = SaveBranchNet("carveout");
  const auto batches = Batches(6);
  TrainingOptions options;
  options.streams = TrainingStreams::kMulti;
  options.cudnn_benchmark = false;
  options.check_steps = 2;
  options.timing_steps = 0;
  options.choice_steps = 5;
  options.require_check = true;
  auto measured = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  options.smem_carveout = 100;
  auto full = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  options.smem_carveout = kKeepCarveout;
  auto own = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  ASSERT_TRUE(measured.ok()) << measured.status().ToString();
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  const TrainingReport& m = (*measured)->report();
  std::printf("  %s\n", m.choice.c_str());
  ASSERT_EQ(m.mode, "aot-multi") << m.choice;
  EXPECT_GT(m.carveout_nodes, 0);
  ASSERT_GT(m.carveout_other_ms, 0);
  EXPECT_NE(m.choice.find("carveout"), std::string::npos) << m.choice;
  EXPECT_EQ(m.smem_carveout, m.multi_smem_carveout);  // the multi-stream capture was kept
  if (m.smem_carveout == 100) {
    EXPECT_LT(m.multi_ms, m.carveout_other_ms * (1 - kMinCarveoutGain));
  } else {
    EXPECT_EQ(m.smem_carveout, kKeepCarveout);
    EXPECT_GE(m.carveout_other_ms, m.multi_ms * (1 - kMinCarveoutGain));
  }
  for (const auto* r : {&(*full)->report(), &(*own)->report()}) {
    EXPECT_EQ(r->carveout_other_ms, 0.0) << r->choice;
    EXPECT_EQ(r->carveout_nodes, m.carveout_nodes);
  }
  EXPECT_EQ((*full)->report().smem_carveout, 100);
  EXPECT_EQ((*own)->report().smem_carveout, kKeepCarveout);
  for (size_t i = 0; i < batches.size(); ++i) {
    std::vector<double> losses;
    for (auto* step : {&*measured, &*full, &*own}) {
      auto loss = (*step)->Step({batches[i].first}, batches[i].second);
      ASSERT_TRUE(loss.ok()) << loss.status().ToString();
      losses.push_back(loss->item<double>());
    }
    EXPECT_NEAR(losses[0], losses[1], 1e-6 * std::max(1.0, std::fabs(losses[0]))) << "step " << i;
    EXPECT_NEAR(losses[0], losses[2], 1e-6 * std::max(1.0, std::fabs(losses[0]))) << "step " << i;
  }
  std::remove(net.c_str());
}

// Dropout draws its masks from the device's generator: the check runs eager and captured steps from the
// same random-number state, so a model with dropout checks as close as one without.
TEST(TrainingStepTest, TheCheckStartsEagerAndCapturedStepsFromOneRandomState) {
  SKIP_WITHOUT_GPU();
  const std::string net = SaveNet("dropout", R"(
def forward(self, x):
    y = torch.relu(torch.conv2d(x, self.w0, self.b0, [1, 1], [1, 1]))
    y = torch.dropout(torch.adaptive_avg_pool2d(y, [1, 1]).flatten(1), 0.5, self.training)
    return torch.linear(y, self.w1, self.b1)
)");
  const auto batches = Batches(1);
  TrainingOptions options;
  options.check_steps = 10;
  options.timing_steps = 0;
  options.sgd.lr = 0.05;
  auto step = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_TRUE((*step)->report().check_warning.empty()) << (*step)->report().check_warning;
  EXPECT_LE((*step)->report().max_loss_difference, 1e-4);
  std::remove(net.c_str());
}

TEST(TrainingStepTest, AStepThatSyncsWithTheHostIsRefusedAndTheProcessStaysUsable) {
  SKIP_WITHOUT_GPU();
  const std::string branchy = SaveNet("branchy", R"(
def forward(self, x):
    y = torch.linear(torch.adaptive_avg_pool2d(torch.conv2d(x, self.w0, self.b0), [1, 1]).flatten(1), self.w1, self.b1)
    if bool(y.sum() > 0):
        return y * self.g.sum()
    return y
)");
  const auto batches = Batches(1);
  auto refused = TrainingStep::Capture(branchy, {batches[0].first}, batches[0].second);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("cannot capture the training step"), std::string::npos)
      << refused.status().ToString();
  const std::string net = SaveNet("after_refusal", kConvNet);
  TrainingOptions options;
  options.timing_steps = 0;
  auto step = TrainingStep::Capture(net, {batches[0].first}, batches[0].second, options);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_TRUE((*step)->Step({batches[0].first}, batches[0].second).ok());
  std::remove(branchy.c_str());
  std::remove(net.c_str());
}

TEST(TrainingStepTest, BadBatchesAndSettingsAreRefusedNamingWhat) {
  SKIP_WITHOUT_GPU();
  const std::string net = SaveNet("bad", kConvNet);
  const auto batches = Batches(1);
  const auto& [x, y] = batches[0];
  TrainingOptions damped;
  damped.sgd.momentum = 0.9;
  damped.sgd.dampening = 0.1;
  EXPECT_EQ(TrainingStep::Capture(net, {x}, y, damped).status().code(), StatusCode::kInvalidArgument);
  TrainingOptions carveout;
  carveout.smem_carveout = 101;
  auto past = TrainingStep::Capture(net, {x}, y, carveout);
  EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(past.status().message().find("carveout 101"), std::string::npos) << past.status().ToString();
  auto float_target = TrainingStep::Capture(net, {x}, y.to(at::kFloat));
  EXPECT_EQ(float_target.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(float_target.status().message().find("int64"), std::string::npos);
  const std::string tuple_net = SaveNet("tuple", R"(
def forward(self, x):
    y = torch.linear(torch.adaptive_avg_pool2d(torch.conv2d(x, self.w0, self.b0), [1, 1]).flatten(1), self.w1, self.b1)
    return y, y
)");
  auto tuple = TrainingStep::Capture(tuple_net, {x}, y);
  EXPECT_EQ(tuple.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(tuple.status().message().find("not one tensor"), std::string::npos) << tuple.status().ToString();
  TrainingOptions options;
  options.timing_steps = 0;
  options.check_steps = 0;
  auto step = TrainingStep::Capture(net, {x}, y, options);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  auto wrong_shape = (*step)->Step({at::randn({2, 3, 8, 8}, at::kCUDA)}, y);
  EXPECT_EQ(wrong_shape.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_shape.status().message().find("2x3x8x8"), std::string::npos) << wrong_shape.status().ToString();
  EXPECT_EQ((*step)->Step({x, x}, y).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*step)->Step({x}, y.cpu()).status().code(), StatusCode::kInvalidArgument);
  std::remove(net.c_str());
  std::remove(tuple_net.c_str());
}

}  // namespace
}  // namespace nimble::accelerate

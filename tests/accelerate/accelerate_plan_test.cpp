// nimble-accelerate's workload from a run database: the recorded run (kernels attributed to ops) is
// found behind later runs that have the same graph but no kernels, the iteration of median length is
// the one simulated, and a database with no run of the model is NotFound, naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "accelerate_plan.h"
#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"
#include "test_models.h"

namespace nimble::workflow {
namespace {

OpGraph TwoOps() {
  OpGraph graph;
  graph.ops = {{OpId(0), "conv_0", "aten::conv2d", "[1,8,8,8]", 0}, {OpId(1), "relu_1", "aten::relu", "[1,8,8,8]", 0}};
  graph.edges = {{OpId(0), OpId(1), EdgeKind::kData}};
  return graph;
}

// Three iterations of 100, 300 and 200 us; in iteration i the conv runs (i + 1) * 10 us, the relu
// (i + 1) * 2 us, each one kernel.
Trace ThreeIterations(std::vector<KernelAttribution>* attribution) {
  Trace trace;
  const StringId iteration = trace.strings.Intern("iteration");
  const StringId name = trace.strings.Intern("k");
  const int64_t lengths[] = {100'000, 300'000, 200'000};
  int64_t start = 0;
  for (int i = 0; i < 3; ++i) {
    trace.ranges.push_back({start, start + lengths[i], ThreadId(1), iteration, StringId()});
    for (int op = 0; op < 2; ++op) {
      KernelRecord kernel;
      kernel.start_ns = start + 1000 + op * 50'000;
      kernel.end_ns = kernel.start_ns + (i + 1) * (op == 0 ? 10'000 : 2'000);
      kernel.name = kernel.short_name = name;
      kernel.grid = {1, 1, 1};
      kernel.block = {32, 1, 1};
      attribution->push_back({OpId(op), KernelIndex(static_cast<int64_t>(trace.kernels.size()))});
      trace.kernels.push_back(kernel);
    }
    start += lengths[i];
  }
  return trace;
}

void WriteRun(const std::string& db, RunMode mode, const OpGraph& graph, const Trace* trace,
              const std::vector<KernelAttribution>& attribution, bool tf32 = false, bool channels_last = false) {
  RunInfo run;
  run.model = "m.pt";
  run.mode = mode;
  auto writer = store::RunWriter::Create(db, run);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  if (trace != nullptr) {
    ASSERT_TRUE((*writer)->AppendTrace(*trace).ok());
  }
  ASSERT_TRUE((*writer)->WriteGraph(graph, attribution).ok());
  if (tf32) {
    ASSERT_TRUE((*writer)->AddStat({"profile.tf32_allowed", 1, Severity::kInfo, "TF32 convolutions"}).ok());
  }
  if (channels_last) {
    ASSERT_TRUE((*writer)->AddStat({"profile.channels_last", 1, Severity::kInfo, "channels_last"}).ok());
  }
  ASSERT_TRUE((*writer)->Commit().ok());
}

// WorkloadFromDatabase through a reader opened on `db`, as the workflow passes its open database.
StatusOr<MeasuredWorkload> WorkloadOf(const std::string& db, const OpGraph& graph, bool tf32,
                                      std::optional<bool> channels_last = std::nullopt) {
  NIMBLE_ASSIGN_OR_RETURN(auto reader, store::RunReader::Open(db));
  return WorkloadFromDatabase(*reader, graph, tf32, channels_last);
}

TEST(AcceleratePlanTest, WorkloadComesFromTheRecordedRunsMedianIteration) {
  const std::string db = testing::TestDir() + "/plan_workload.db";
  std::filesystem::remove(db);
  std::vector<KernelAttribution> attribution;
  const Trace trace = ThreeIterations(&attribution);
  WriteRun(db, RunMode::kEager, TwoOps(), &trace, attribution);
  WriteRun(db, RunMode::kAotSingle, TwoOps(), nullptr, {});  // as nimble-accelerate stores its results
  WriteRun(db, RunMode::kEager, TwoOps(), &trace, attribution, /*tf32=*/true);  // other convolution kernels
  StatusOr<MeasuredWorkload> workload = WorkloadOf(db, TwoOps(), /*tf32=*/false);
  ASSERT_TRUE(workload.ok()) << workload.status().ToString();
  ASSERT_EQ(workload->workload.op_kernels.size(), 2u);
  ASSERT_EQ(workload->workload.op_kernels[0].size(), 1u);
  // The median iteration by length is the third (200 us): its kernels ran 30 and 6 us.
  EXPECT_EQ(workload->workload.op_kernels[0][0].dur_ns, 30'000);
  EXPECT_EQ(workload->workload.op_kernels[1][0].dur_ns, 6'000);
  EXPECT_NE(workload->source.find("run 1"), std::string::npos) << workload->source;
  EXPECT_NE(workload->source.find("iteration 3 of 3"), std::string::npos) << workload->source;

  StatusOr<Plan> plan = MakePlan(TwoOps(), workload->workload, 8);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  analysis::PredictionOptions costs;
  costs.graph_launch_ns = 4'000;
  costs.graph_node_latency_ns = 500;
  ASSERT_TRUE(PredictPlan(&*plan, costs).ok());
  // The launch, then the two kernels back to back, the second 500 ns after the first.
  EXPECT_EQ(plan->prediction.aot_single_ns, 4'000 + 500 + 30'000 + 500 + 6'000);

  OpGraph other = TwoOps();
  other.ops[1].kind = "aten::sigmoid";
  StatusOr<MeasuredWorkload> missing = WorkloadOf(db, other, false);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(db), std::string::npos) << missing.status().message();
  EXPECT_EQ(MakePlan(other, analysis::Workload{}, 8).status().code(), StatusCode::kInvalidArgument);
}

TEST(AcceleratePlanTest, OnlyRunsOfTheSamePrecisionAreUsed) {
  const std::string db = testing::TestDir() + "/plan_tf32.db";
  std::filesystem::remove(db);
  std::vector<KernelAttribution> attribution;
  const Trace trace = ThreeIterations(&attribution);
  WriteRun(db, RunMode::kEager, TwoOps(), &trace, attribution, /*tf32=*/true);
  StatusOr<MeasuredWorkload> ieee = WorkloadOf(db, TwoOps(), /*tf32=*/false);
  EXPECT_EQ(ieee.status().code(), StatusCode::kNotFound);
  EXPECT_NE(ieee.status().message().find("--no-tf32"), std::string::npos) << ieee.status().message();
  StatusOr<MeasuredWorkload> tf32 = WorkloadOf(db, TwoOps(), /*tf32=*/true);
  ASSERT_TRUE(tf32.ok()) << tf32.status().ToString();
  EXPECT_NE(tf32->source.find("run 1"), std::string::npos) << tf32->source;
}

// A run recorded with the convolutions in channels_last weighs other kernels than a contiguous capture
// runs, and the other way round; a run that does not say was recorded contiguous.
TEST(AcceleratePlanTest, OnlyRunsOfTheSameConvolutionLayoutAreUsed) {
  const std::string db = testing::TestDir() + "/plan_layout.db";
  std::filesystem::remove(db);
  std::vector<KernelAttribution> attribution;
  const Trace trace = ThreeIterations(&attribution);
  WriteRun(db, RunMode::kEager, TwoOps(), &trace, attribution);
  auto workload = [&](bool channels_last) { return WorkloadOf(db, TwoOps(), /*tf32=*/false, channels_last); };
  EXPECT_TRUE(workload(false).ok());
  StatusOr<MeasuredWorkload> nhwc = workload(true);
  EXPECT_EQ(nhwc.status().code(), StatusCode::kNotFound);
  EXPECT_NE(nhwc.status().message().find("--memory-format channels_last"), std::string::npos)
      << nhwc.status().message();
  WriteRun(db, RunMode::kEager, TwoOps(), &trace, attribution, /*tf32=*/false, /*channels_last=*/true);
  StatusOr<MeasuredWorkload> now_nhwc = workload(true);
  ASSERT_TRUE(now_nhwc.ok()) << now_nhwc.status().ToString();
  EXPECT_NE(now_nhwc->source.find("run 2"), std::string::npos) << now_nhwc->source;
  StatusOr<MeasuredWorkload> contiguous = workload(false);
  ASSERT_TRUE(contiguous.ok());
  EXPECT_NE(contiguous->source.find("run 1"), std::string::npos) << contiguous->source;
}

// The memory budget's search over stream counts, with a fake capture: `limit` is the most streams
// whose capture fits, `reach` the most streams the packing can give below the start.
struct Search {
  int32_t limit = 0;
  int32_t reach = 1 << 20;
  std::vector<int32_t> tried;
  StatusOr<int32_t> Run(int32_t start) {
    return SearchStreamCounts(
        start, [&](int32_t most) { return std::min(most, reach); },
        [&](int32_t count) -> StatusOr<bool> {
          tried.push_back(count);
          return count <= limit;
        });
  }
};

TEST(AcceleratePlanTest, BudgetSearchHalvesThenBisectsToTheMostStreamsThatFit) {
  Search search{.limit = 7};
  StatusOr<int32_t> best = search.Run(11);
  ASSERT_TRUE(best.ok()) << best.status().ToString();
  EXPECT_EQ(*best, 7);
  EXPECT_EQ(search.tried, (std::vector<int32_t>{11, 5, 8, 6, 7}));
}

TEST(AcceleratePlanTest, BudgetSearchStopsAtAFirstFit) {
  Search search{.limit = 40};
  EXPECT_EQ(*search.Run(11), 11);
  EXPECT_EQ(search.tried, (std::vector<int32_t>{11}));
}

TEST(AcceleratePlanTest, BudgetSearchWithNoFitEndsAtTwoStreams) {
  Search search{.limit = 1};
  EXPECT_EQ(*search.Run(11), 0);
  EXPECT_EQ(search.tried, (std::vector<int32_t>{11, 5, 2}));
}

TEST(AcceleratePlanTest, BudgetSearchTriesOnlyCountsThePackingReaches) {
  Search search{.limit = 9, .reach = 3};  // the packing gives 3 streams for any count below 11
  EXPECT_EQ(*search.Run(11), 3);
  EXPECT_EQ(search.tried, (std::vector<int32_t>{11, 3}));
  Search single{.limit = 9, .reach = 1};  // ... or one stream: no multi-stream schedule
  EXPECT_EQ(*single.Run(11), 0);
  EXPECT_EQ(single.tried, (std::vector<int32_t>{11}));
}

TEST(AcceleratePlanTest, BudgetSearchPassesACaptureErrorOn) {
  StatusOr<int32_t> best = SearchStreamCounts(
      8, [](int32_t most) { return most; },
      [](int32_t) -> StatusOr<bool> { return FailedPrecondition("cannot capture"); });
  ASSERT_FALSE(best.ok());
  EXPECT_EQ(best.status().message(), "cannot capture");
}

// What the layout trial and --tf32 look for: any kind of convolution, its one-kernel epilogue included.
TEST(AcceleratePlanTest, ConvolutionsAreFoundByTheirKinds) {
  EXPECT_TRUE(HasConvolution(TwoOps()));
  OpGraph graph;
  graph.ops = {{OpId(0), "mm_0", "aten::mm", "[8,8]", 0}, {OpId(1), "gelu_1", "aten::gelu", "[8,8]", 0}};
  EXPECT_FALSE(HasConvolution(graph));
  for (const char* kind : {"aten::_convolution", "aten::cudnn_convolution_relu", "nimble::conv_epilogue_"}) {
    graph.ops[1].kind = kind;
    EXPECT_TRUE(HasConvolution(graph)) << kind;
  }
}

// The precision that picks the sharing model: by the weights' majority, TF32 float32 left unknown (never
// calibrated), and by the inputs only where no weights are known.
TEST(AcceleratePlanTest, ThePrecisionComesFromTheWeightsThenTheInputs) {
  using analysis::Precision;
  const std::vector<TensorSpec> half_in{{.shape = {1, 8}, .dtype = DType::kBFloat16}};
  const std::vector<TensorSpec> float_in{{.shape = {1, 8}, .dtype = DType::kFloat32}};
  const std::vector<TensorSpec> ids{{.shape = {1, 128}, .dtype = DType::kInt64}};
  EXPECT_EQ(ModelPrecision(10, 1000, ids, false), Precision::kHalf);  // a bfloat16 GPT-2 takes token ids
  EXPECT_EQ(ModelPrecision(1000, 10, half_in, false), Precision::kFloat32);  // the weights decide
  EXPECT_EQ(ModelPrecision(1000, 10, float_in, true), Precision::kUnknown);  // TF32: tensor cores
  EXPECT_EQ(ModelPrecision(10, 1000, float_in, true), Precision::kHalf);
  EXPECT_EQ(ModelPrecision(0, 0, half_in, false), Precision::kHalf);
  EXPECT_EQ(ModelPrecision(0, 0, float_in, false), Precision::kFloat32);
  EXPECT_EQ(ModelPrecision(0, 0, float_in, true), Precision::kUnknown);
  EXPECT_EQ(ModelPrecision(0, 0, ids, false), Precision::kUnknown);
  EXPECT_EQ(ModelPrecision(0, 0, {}, false), Precision::kUnknown);
}

}  // namespace
}  // namespace nimble::workflow

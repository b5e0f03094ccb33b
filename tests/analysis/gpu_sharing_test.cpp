#include "nimble/analysis/gpu_sharing.h"

#include <gtest/gtest.h>

#include <random>

#include "dag_testing.h"
#include "nimble/analysis/prediction.h"
#include "nimble/analysis/stream_assignment.h"

namespace nimble::analysis {
namespace {

TEST(GpuSharingTest, IdentityKeepsTheOccupancyShare) {
  const SharingModel identity;
  EXPECT_TRUE(identity.identity());
  for (double s : {0.0, 0.01, 0.3, 1.0}) EXPECT_DOUBLE_EQ(EffectiveShare(s, identity), s);
  EXPECT_DOUBLE_EQ(EffectiveShare(-0.5, identity), 0.0);
  EXPECT_DOUBLE_EQ(EffectiveShare(3.0, identity), 1.0);
}

TEST(GpuSharingTest, EffectiveShareIsMonotoneBetweenShareAndOneWithTheFloorAtZero) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 500; ++trial) {
    const SharingModel m{unit(rng), 0.05 + 0.95 * unit(rng), ""};
    EXPECT_NEAR(EffectiveShare(0.0, m), m.floor, 1e-12);
    EXPECT_NEAR(EffectiveShare(1.0, m), 1.0, 1e-12);
    const double a = unit(rng);
    const double b = unit(rng);
    const double lo = std::min(a, b);
    const double hi = std::max(a, b);
    EXPECT_LE(EffectiveShare(lo, m), EffectiveShare(hi, m) + 1e-12);
    EXPECT_GE(EffectiveShare(lo, m), lo - 1e-12);
    EXPECT_LE(EffectiveShare(hi, m), 1.0);
  }
}

// Crowding slows kernels below the knee, the smaller the more, and none from the knee up.
TEST(GpuSharingTest, CrowdingSlowsKernelsBelowTheKneeOnly) {
  SharingModel m{0.0, 1.0, "", Dispatch::kInOrder};
  EXPECT_FALSE(m.crowded());
  EXPECT_DOUBLE_EQ(CrowdedSlowdown(0.0, m), 1.0);
  m.crowding = 0.5;
  m.knee = 0.4;
  EXPECT_TRUE(m.crowded());
  EXPECT_FALSE(m.identity());
  EXPECT_DOUBLE_EQ(CrowdedSlowdown(0.0, m), 1.5);
  EXPECT_DOUBLE_EQ(CrowdedSlowdown(0.2, m), 1.25);
  EXPECT_DOUBLE_EQ(CrowdedSlowdown(0.4, m), 1.0);
  EXPECT_DOUBLE_EQ(CrowdedSlowdown(0.9, m), 1.0);
  EXPECT_DOUBLE_EQ(EffectiveShare(0.2, m), 0.2);  // it claims no more of the GPU
  m.source = "test";
  EXPECT_NE(SharingModelText(m).find("crowding 0.5 below share 0.4"), std::string::npos) << SharingModelText(m);
}

TEST(GpuSharingTest, TheCalibratedDevicesAreNamedAsCudaNamesThem) {
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    const std::optional<SharingModel> m = CalibratedSharing(name);
    ASSERT_TRUE(m.has_value()) << name;
    EXPECT_FALSE(m->identity());
    EXPECT_GT(m->floor, 0.0);
    EXPECT_LE(m->floor, 1.0);
    EXPECT_GT(m->exponent, 0.0);
    EXPECT_LE(m->exponent, 1.0);
    EXPECT_GE(m->crowding, 0.0);  // the bounds a calibration file's crowding is held to
    EXPECT_LE(m->crowding, 10.0);
    EXPECT_GE(m->knee, 0.0);
    EXPECT_LE(m->knee, 1.0);
    EXPECT_NE(m->source.find(name), std::string::npos);
    EXPECT_EQ(SharingFor(name), *m);
  }
}

// The H200 has a model per precision beside the one fitted on every precision; the H100 only the latter,
// which every precision then gets.
TEST(GpuSharingTest, ThePrecisionPicksTheDevicesModelWhereItHasOne) {
  const SharingModel any = CalibratedSharing("NVIDIA H200").value();
  const SharingModel float32 = CalibratedSharing("NVIDIA H200", Precision::kFloat32).value();
  const SharingModel half = CalibratedSharing("NVIDIA H200", Precision::kHalf).value();
  EXPECT_EQ(CalibratedSharing("NVIDIA H200", Precision::kUnknown).value(), any);
  EXPECT_FALSE(float32 == any);
  EXPECT_FALSE(half == any);
  EXPECT_FALSE(half == float32);
  EXPECT_NE(half.source.find("for half models"), std::string::npos) << half.source;
  EXPECT_NE(float32.source.find("for float32 models"), std::string::npos) << float32.source;
  EXPECT_EQ(any.source.find(" models"), std::string::npos) << any.source;
  // Large float32 kernels slow more beside others than half-precision ones: a larger claim at mid shares.
  EXPECT_GT(EffectiveShare(0.5, float32), EffectiveShare(0.5, half));
  const SharingModel h100 = CalibratedSharing("NVIDIA H100 80GB HBM3").value();
  for (Precision p : {Precision::kFloat32, Precision::kHalf}) {
    EXPECT_EQ(CalibratedSharing("NVIDIA H100 80GB HBM3", p).value(), h100);
    EXPECT_EQ(SharingFor("NVIDIA H200", p), CalibratedSharing("NVIDIA H200", p).value());
    EXPECT_TRUE(SharingFor("Imaginary GPU 9000", p).identity());
  }
}

TEST(GpuSharingTest, PrecisionNamesRoundTrip) {
  for (Precision p : {Precision::kUnknown, Precision::kFloat32, Precision::kHalf}) {
    EXPECT_EQ(ParsePrecision(PrecisionName(p)), p);
  }
  EXPECT_FALSE(ParsePrecision("bfloat16").has_value());
}

TEST(GpuSharingTest, DispatchNamesRoundTrip) {
  for (Dispatch d : {Dispatch::kShared, Dispatch::kInOrder}) EXPECT_EQ(ParseDispatch(DispatchName(d)), d);
  EXPECT_FALSE(ParseDispatch("fifo").has_value());
  EXPECT_FALSE(SharingModel(SharingModel{0, 1, "", Dispatch::kInOrder}).identity());
}

TEST(GpuSharingTest, UnknownDeviceIsUncalibratedAndSaysSo) {
  EXPECT_FALSE(CalibratedSharing("Imaginary GPU 9000").has_value());
  const SharingModel m = SharingFor("Imaginary GPU 9000");
  EXPECT_TRUE(m.identity());
  EXPECT_NE(m.source.find("no calibration for Imaginary GPU 9000"), std::string::npos);
  EXPECT_NE(SharingFor("").source.find("device unknown"), std::string::npos);
}

// Two independent chains of small kernels: alone on their streams they overlap completely (shares far
// below 1); a floor makes them slow each other down, never below the single-stream bound.
TEST(GpuSharingTest, TheMultiStreamPredictionSlowsWithSharingAndSingleStreamIsUntouched) {
  const Dag dag = testing::MustBuild(4, {{OpId(0), OpId(1)}, {OpId(2), OpId(3)}});
  Workload w;
  w.op_kernels.assign(4, {SimKernel{100000, 0.05}});
  StreamAssignment multi = AssignStreams(dag);
  ASSERT_EQ(multi.num_streams, 2);
  PredictionOptions options;
  options.graph_launch_ns = 0;
  options.graph_node_latency_ns = 0;
  auto base = Predict(dag, w, multi, options);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(base->aot_multi_ns, 200000);  // perfect overlap
  options.sharing = SharingModel{0.5, 1.0, ""};
  auto shared = Predict(dag, w, multi, options);
  ASSERT_TRUE(shared.ok());
  EXPECT_EQ(shared->aot_single_ns, base->aot_single_ns);
  EXPECT_EQ(shared->eager_ns, base->eager_ns);
  // Each now takes 0.525 of the GPU: together 1.05, so each runs at 1/1.05 of its speed.
  EXPECT_NEAR(static_cast<double>(shared->aot_multi_ns), 210000.0, 2.0);
  options.sharing = SharingModel{1.0, 1.0, ""};
  auto serial = Predict(dag, w, multi, options);
  ASSERT_TRUE(serial.ok());
  EXPECT_NEAR(static_cast<double>(serial->aot_multi_ns), static_cast<double>(base->aot_single_ns), 2.0);
}

}  // namespace
}  // namespace nimble::analysis

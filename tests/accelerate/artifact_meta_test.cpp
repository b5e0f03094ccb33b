// model.nimble's meta.json and its checks: encode/decode round trip, mismatched format, libtorch
// version and device each refused with a message that says what was expected, the recorded float32
// precision, and loading files that are not a model.nimble. Also the pre-capture refusal of
// uncapturable ops (data-dependent shapes, host reads, syncing copies either way), naming the op.
#include <gtest/gtest.h>

#include <string>

#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/capturability.h"
#include "nimble/accelerate/model_graph.h"
#include "test_models.h"

namespace nimble::accelerate {
namespace {

ArtifactMeta H100Meta() {
  ArtifactMeta meta;
  meta.nimble_version = "0.1.0";
  meta.torch_version = "2.11.0";
  meta.device_name = "NVIDIA H100 80GB HBM3";
  meta.compute_capability = "sm_90";
  meta.source_model = "inception_v3.pt";
  meta.mode = RunMode::kAotMulti;
  meta.inputs = {TensorSpec{.shape = {1, 3, 299, 299}}, TensorSpec{.shape = {1, 128}, .dtype = DType::kInt64, .low = 0, .high = 50256}};
  meta.schedule.num_streams = 2;
  meta.schedule.op_stream = {StreamId(0), StreamId(1), StreamId(0)};
  meta.schedule.syncs = {OpEdge{OpId(0), OpId(1), EdgeKind::kData}, OpEdge{OpId(1), OpId(2), EdgeKind::kData}};
  meta.figures = {{"measured_aot_multi_ms", 1.25}, {"predicted_aot_multi_ms", 1.2}};
  return meta;
}

ArtifactHost H100Host() { return {"0.1.0", "2.11.0", "NVIDIA H100 80GB HBM3", "sm_90"}; }

TEST(ArtifactMetaTest, RoundTrip) {
  const ArtifactMeta meta = H100Meta();
  StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta(EncodeArtifactMeta(meta), "m.nimble");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, meta);
  EXPECT_TRUE(CheckArtifactCompatible(meta, H100Host(), "m.nimble").ok());
}

// A seeded graph is written as format 3, which this nimble reads and nimbles that know 2 refuse by
// its number, before its unknown operator could fail the load.
TEST(ArtifactMetaTest, ASeededGraphIsFormat3) {
  ArtifactMeta meta = H100Meta();
  meta.format_version = kArtifactFormatVersionSeeded;
  const std::string text = EncodeArtifactMeta(meta);
  EXPECT_NE(text.find("\"format_version\": 3"), std::string::npos) << text;
  StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta(text, "m.nimble");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->format_version, 3);
  EXPECT_TRUE(CheckArtifactCompatible(*decoded, H100Host(), "m.nimble").ok());
}

// A branch capture's graph (CaptureOptions::branches) says so in format 4; an older format's
// "branches" key, which no nimble wrote, is not read as one.
TEST(ArtifactMetaTest, ABranchCaptureIsFormat4) {
  ArtifactMeta meta = H100Meta();
  meta.branches = true;
  meta.format_version = kArtifactFormatVersionBranches;
  const std::string text = EncodeArtifactMeta(meta);
  EXPECT_NE(text.find("\"format_version\": 4"), std::string::npos) << text;
  EXPECT_NE(text.find("\"branches\": true"), std::string::npos) << text;
  StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta(text, "m.nimble");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, meta);
  EXPECT_TRUE(CheckArtifactCompatible(*decoded, H100Host(), "m.nimble").ok());
  std::string older = text;
  older.replace(older.find("\"format_version\": 4"), 19, "\"format_version\": 3");
  StatusOr<ArtifactMeta> old = DecodeArtifactMeta(older, "m.nimble");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_FALSE(old->branches);
  EXPECT_FALSE(DecodeArtifactMeta(EncodeArtifactMeta(H100Meta()), "m.nimble")->branches);
}

// The carveout a graph was measured with (CaptureOptions::smem_carveout) is written only when one was
// asked, for the file and for each bucket, without a new format: a file without it means each kernel's
// own. A percentage out of range is refused naming the file.
TEST(ArtifactMetaTest, TheMeasuredCarveoutIsKeptAndAnAbsentOneMeansEachKernelsOwn) {
  ArtifactMeta meta = H100Meta();
  EXPECT_EQ(EncodeArtifactMeta(meta).find("smem_carveout"), std::string::npos);
  EXPECT_EQ(DecodeArtifactMeta(EncodeArtifactMeta(meta), "m.nimble")->smem_carveout, -1);
  meta.smem_carveout = 100;
  const std::string text = EncodeArtifactMeta(meta);
  EXPECT_NE(text.find("\"smem_carveout\": 100"), std::string::npos) << text;
  EXPECT_NE(text.find("\"format_version\": 1"), std::string::npos) << text;
  StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta(text, "m.nimble");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, meta);
  EXPECT_EQ(ArtifactBuckets(*decoded)[0].smem_carveout, 100);

  ArtifactBucket second = ArtifactBuckets(meta)[0];
  second.method = "forward_bucket_1";
  second.smem_carveout = -1;
  meta.buckets = {ArtifactBuckets(meta)[0], second};
  decoded = DecodeArtifactMeta(EncodeArtifactMeta(meta), "m.nimble");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->buckets[0].smem_carveout, 100);
  EXPECT_EQ(decoded->buckets[1].smem_carveout, -1);

  std::string bad = text;
  bad.replace(bad.find("\"smem_carveout\": 100"), 20, "\"smem_carveout\": 101");
  decoded = DecodeArtifactMeta(bad, "m.nimble");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(decoded.status().message().find("m.nimble"), std::string::npos) << decoded.status().message();
  EXPECT_NE(decoded.status().message().find("101"), std::string::npos) << decoded.status().message();
  for (const char* value : {"37.5", "\"100\"", "4294967396"}) {
    std::string odd = text;
    odd.replace(odd.find("\"smem_carveout\": 100"), 20, std::string("\"smem_carveout\": ") + value);
    decoded = DecodeArtifactMeta(odd, "m.nimble");
    ASSERT_FALSE(decoded.ok()) << value;
    EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss) << value;
  }
}

TEST(ArtifactMetaTest, BucketsRoundTripAsFormat2AndOneGraphStaysFormat1) {
  ArtifactMeta meta = H100Meta();
  EXPECT_NE(EncodeArtifactMeta(meta).find("\"format_version\": 1"), std::string::npos);
  ASSERT_EQ(ArtifactBuckets(meta).size(), 1u);
  EXPECT_EQ(ArtifactBuckets(meta)[0].method, "forward");
  EXPECT_EQ(ArtifactBuckets(meta)[0].inputs, meta.inputs);
  ArtifactBucket second{"forward_bucket_1", meta.inputs, RunMode::kAotSingle, {}, {{"measured_aot_single_ms", 2.5}}};
  second.inputs[0].shape[0] = 4;
  second.schedule.num_streams = 1;
  second.schedule.op_stream = {StreamId(0), StreamId(0), StreamId(0)};
  meta.buckets = {ArtifactBuckets(meta)[0], second};
  meta.format_version = 2;
  const std::string text = EncodeArtifactMeta(meta);
  EXPECT_NE(text.find("\"format_version\": 2"), std::string::npos) << text;
  StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta(text, "m.nimble");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, meta);
  EXPECT_EQ(ArtifactBuckets(*decoded).size(), 2u);
  EXPECT_TRUE(CheckArtifactCompatible(*decoded, H100Host(), "m.nimble").ok());
  // The first bucket is the module's forward; a file saying otherwise is refused.
  ArtifactMeta wrong = meta;
  wrong.buckets[0].method = "forward_bucket_0";
  decoded = DecodeArtifactMeta(EncodeArtifactMeta(wrong), "m.nimble");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(decoded.status().message().find("m.nimble"), std::string::npos);
}

TEST(ArtifactMetaTest, OtherDeviceIsRefusedNamingBoth) {
  ArtifactHost a100 = H100Host();
  a100.device_name = "NVIDIA A100-SXM4-40GB";
  a100.compute_capability = "sm_80";
  const Status status = CheckArtifactCompatible(H100Meta(), a100, "model.nimble");
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("model.nimble was built for NVIDIA H100 80GB HBM3 (sm_90), this is "
                                  "NVIDIA A100-SXM4-40GB (sm_80)"),
            std::string::npos)
      << status.message();
}

TEST(ArtifactMetaTest, OtherTorchOrFormatVersionIsRefused) {
  ArtifactHost host = H100Host();
  host.torch_version = "2.12.0";
  Status status = CheckArtifactCompatible(H100Meta(), host, "m.nimble");
  EXPECT_NE(status.message().find("built with libtorch 2.11.0, this is libtorch 2.12.0"), std::string::npos)
      << status.message();
  ArtifactMeta future = H100Meta();
  future.format_version = kArtifactFormatVersion + 1;
  StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta(EncodeArtifactMeta(future), "m.nimble");
  ASSERT_TRUE(decoded.ok());
  status = CheckArtifactCompatible(*decoded, H100Host(), "m.nimble");
  EXPECT_NE(status.message().find("has format version " + std::to_string(kArtifactFormatVersion + 1)),
            std::string::npos)
      << status.message();
}

TEST(ArtifactMetaTest, Float32PrecisionIsRecordedAndOlderFilesMeanIeee) {
  ArtifactMeta meta = H100Meta();
  EXPECT_EQ(meta.float32_precision, "ieee");
  meta.float32_precision = "tf32";
  const std::string text = EncodeArtifactMeta(meta);
  EXPECT_NE(text.find("\"float32_precision\": \"tf32\""), std::string::npos) << text;
  StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta(text, "m.nimble");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->float32_precision, "tf32");
  // A file written before the field existed: nimble-accelerate always checked with TF32 off.
  std::string older = EncodeArtifactMeta(H100Meta());
  const size_t field = older.find("\"float32_precision\"");
  ASSERT_NE(field, std::string::npos);
  older.erase(field, older.find('\n', field) + 1 - field);
  ASSERT_EQ(older.find("float32_precision"), std::string::npos);
  decoded = DecodeArtifactMeta(older, "m.nimble");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->float32_precision, "ieee");
}

TEST(ArtifactMetaTest, BadJsonIsDataLoss) {
  StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta("{\"format_version\": 1}", "m.nimble");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss);
}

TEST(ArtifactMetaTest, ModeIsWrittenByNameAndAnUnknownOneIsRefusedNamingIt) {
  const std::string text = EncodeArtifactMeta(H100Meta());
  const size_t field = text.find("\"mode\": \"aot-multi\"");
  ASSERT_NE(field, std::string::npos) << text;
  for (const std::string other : {"eager", "aot-triple", ""}) {
    std::string changed = text;
    changed.replace(field, std::string("\"mode\": \"aot-multi\"").size(), "\"mode\": \"" + other + "\"");
    StatusOr<ArtifactMeta> decoded = DecodeArtifactMeta(changed, "m.nimble");
    ASSERT_FALSE(decoded.ok()) << other;
    EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(decoded.status().message().find("m.nimble: nimble/meta.json names an unknown mode '" + other + "'"),
              std::string::npos)
        << decoded.status().message();
  }
}

TEST(ArtifactMetaTest, LoadingFilesThatAreNotArtifacts) {
  StatusOr<LoadedArtifact> missing = LoadArtifact(testing::TestDir() + "/none.nimble", "cpu");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  StatusOr<LoadedArtifact> plain = LoadArtifact(testing::SaveTestModel(testing::TestModel::kChain), "cpu");
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("not a model.nimble"), std::string::npos) << plain.status().message();
  StatusOr<LoadedArtifact> garbage = LoadArtifact(testing::WriteRandomBytes(512, 3), "cpu");
  EXPECT_EQ(garbage.status().code(), StatusCode::kDataLoss);
}

Status Capturable(const std::string& source) {
  StatusOr<ModelGraph> model = LoadModelGraph(testing::SaveModelFromSource(source, {}), {{2, 3}});
  if (!model.ok()) return model.status();
  return CheckCapturable(model->model);
}

TEST(CapturabilityTest, RefusesDataDependentShapesAndHostReadsNamingTheOp) {
  Status status = Capturable("def forward(self, x):\n    return torch.nonzero(torch.relu(x))\n");
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("aten::nonzero"), std::string::npos) << status.message();
  status = Capturable("def forward(self, x):\n    n = int(torch.sum(x))\n    return torch.relu(x) * n\n");
  EXPECT_NE(status.message().find("aten::Int"), std::string::npos) << status.message();
  status = Capturable("def forward(self, x):\n    return torch.relu(x).cpu()\n");
  EXPECT_NE(status.message().find("aten::cpu"), std::string::npos) << status.message();
}

// A CPU tensor copied to the GPU with non_blocking=False makes the host wait for the copy, which a
// capture cannot hold; `x.device` is the device of a GPU input, so it names a CUDA target. The same
// copy with non_blocking=True is queued on the stream and allowed.
TEST(CapturabilityTest, RefusesBlockingCopiesFromTheHostNamingTheOp) {
  Status status = Capturable("def forward(self, x):\n    s = torch.ones([3])\n    return torch.relu(x) * s.to(x.device)\n");
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("cannot capture aten::to"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("waits for the copy"), std::string::npos) << status.message();
  status = Capturable(
      "def forward(self, x):\n    s = torch.ones([3])\n    return torch.relu(x) * s.to(x.device, non_blocking=True)\n");
  EXPECT_TRUE(status.ok()) << status.ToString();
  status = Capturable("def forward(self, x):\n    s = torch.ones([3])\n    return torch.relu(x) * s.to(x)\n");
  EXPECT_NE(status.message().find("cannot capture aten::to"), std::string::npos) << status.message();
  // Copies that stay on one side are fine: a GPU tensor to the GPU, a host tensor to the host.
  status = Capturable("def forward(self, x):\n    s = torch.ones([3])\n    return torch.relu(x).to(x.device) * s.to(s.device)\n");
  EXPECT_TRUE(status.ok()) << status.ToString();
}

// A tensor made with `device=x.device` lives on the GPU: reading it on the host is a device sync.
// The same tensor made on the device of a host tensor stays host arithmetic.
TEST(CapturabilityTest, TensorsMadeOnTheInputsDeviceAreOnTheGpu) {
  Status status = Capturable(
      "def forward(self, x):\n    z = torch.zeros([2], device=x.device)\n    return torch.relu(x) * int(z.sum())\n");
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("cannot capture aten::Int"), std::string::npos) << status.message();
  status = Capturable(
      "def forward(self, x):\n    h = torch.scalar_tensor(x.size(0))\n    z = torch.zeros([2], device=h.device)\n"
      "    return torch.relu(x) * int(z.sum() + h)\n");
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(CapturabilityTest, AcceptsHostShapeArithmetic) {
  StatusOr<ModelGraph> model =
      LoadModelGraph(testing::SaveTestModel(testing::TestModel::kHostShapeMath), {{1, 3, 7, 9}});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_TRUE(CheckCapturable(model->model).ok()) << CheckCapturable(model->model).ToString();
  model = LoadModelGraph(testing::SaveTestModel(testing::TestModel::kForkJoin), {{1, 3, 8, 8}});
  ASSERT_TRUE(model.ok());
  EXPECT_TRUE(CheckCapturable(model->model).ok());
}

}  // namespace
}  // namespace nimble::accelerate

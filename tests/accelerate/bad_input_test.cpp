// Bad input gives a clear Status naming the file: no file, a file that is not a model, inputs that
// do not fit the model, a model with nothing to schedule.
#include <gtest/gtest.h>

#include "nimble/accelerate/model_graph.h"
#include "test_models.h"

namespace nimble::testing {

using namespace ::nimble::accelerate;  // NOLINT: the module under test
namespace {

const std::vector<std::vector<int64_t>> kImage = {{1, 3, 8, 8}};

// Expects `code` and a message holding the path and each of `fragments`.
void ExpectError(const std::string& path, const std::vector<std::vector<int64_t>>& shapes, StatusCode code,
                 const std::vector<std::string>& fragments, const FrontEndOptions& options = {}) {
  const Status status = LoadModelGraph(path, shapes, options).status();
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  for (const std::string& fragment : fragments) {
    EXPECT_NE(status.message().find(fragment), std::string::npos) << "missing '" << fragment << "' in " << status.message();
  }
}

TEST(BadInputTest, MissingFile) {
  ExpectError(TestDir() + "/no_such_model.pt", kImage, StatusCode::kNotFound, {"no_such_model.pt: no such file"});
}

TEST(BadInputTest, DirectoryInsteadOfFile) {
  ExpectError(TestDir(), kImage, StatusCode::kFailedPrecondition, {"not a regular file"});
}

TEST(BadInputTest, EmptyFile) {
  ExpectError(WriteEmptyFile(), kImage, StatusCode::kDataLoss, {"empty"});
}

TEST(BadInputTest, RandomBytes) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    ExpectError(WriteRandomBytes(1000 * seed, seed), kImage, StatusCode::kDataLoss, {"not a TorchScript archive"});
  }
}

TEST(BadInputTest, ZipHeaderThenGarbage) {
  ExpectError(WriteZipHeaderThenGarbage(), kImage, StatusCode::kDataLoss, {"corrupt"});
}

TEST(BadInputTest, TruncatedModel) {
  ExpectError(WriteTruncatedModel(), kImage, StatusCode::kDataLoss, {"corrupt or truncated"});
}

TEST(BadInputTest, ZipThatIsNotTorchScript) {
  ExpectError(WriteZipWithoutModel(), kImage, StatusCode::kFailedPrecondition, {"not a TorchScript module"});
}

TEST(BadInputTest, WrongInputRankNamesGivenShapeAndTheRejectingOp) {
  ExpectError(SaveTestModel(TestModel::kChain), {{3, 8}}, StatusCode::kInvalidArgument,
              {"[3,8]", "do not fit the model", "aten::conv2d", "Expected 3D (unbatched) or 4D (batched) input"});
}

TEST(BadInputTest, WrongInputSizeNamesGivenShapeAndExpectedOne) {
  // A 16x16 image flattens to 1024 features where the matmul weight expects 256.
  ExpectError(SaveTestModel(TestModel::kChain), {{1, 3, 16, 16}}, StatusCode::kInvalidArgument,
              {"[1,3,16,16]", "aten::matmul", "1x1024 and 256x10"});
}

TEST(BadInputTest, WrongChannelCount) {
  ExpectError(SaveTestModel(TestModel::kChain), {{1, 5, 8, 8}}, StatusCode::kInvalidArgument,
              {"[1,5,8,8]", "aten::conv2d", "to have 3 channels"});
}

TEST(BadInputTest, WrongInputCount) {
  ExpectError(SaveTestModel(TestModel::kTwoInputs), {{2, 3}}, StatusCode::kInvalidArgument,
              {"forward takes 2 input(s) (x, y) but 1 shape(s) were given"});
}

TEST(BadInputTest, NonPositiveDimension) {
  ExpectError(SaveTestModel(TestModel::kChain), {{1, 3, 0, 8}}, StatusCode::kInvalidArgument,
              {"[1,3,0,8]", "not positive"});
}

TEST(BadInputTest, ModelWithNoGpuOps) {
  ExpectError(SaveTestModel(TestModel::kViewsOnly), {{2, 3}}, StatusCode::kFailedPrecondition,
              {"no ops that launch GPU work", "aten::view", "aten::transpose"});
}

TEST(BadInputTest, UnknownDevice) {
  const Status status = LoadModelGraph(SaveTestModel(TestModel::kChain), kImage, {.device = "tpu:7"}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_NE(status.message().find("tpu:7"), std::string::npos) << status.message();
}

TEST(BadInputTest, CudaDeviceWithoutGpuIsUnavailable) {
  const std::string path = SaveTestModel(TestModel::kChain);
  StatusOr<ModelGraph> model = LoadModelGraph(path, kImage, {.device = "cuda"});
  if (model.ok()) GTEST_SKIP() << "this machine has a GPU; ModelGraphTest.CudaGraph covers it";
  EXPECT_EQ(model.status().code(), StatusCode::kUnavailable) << model.status().ToString();
  EXPECT_NE(model.status().message().find(path), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("no CUDA device"), std::string::npos) << model.status().message();
}

}  // namespace
}  // namespace nimble::testing

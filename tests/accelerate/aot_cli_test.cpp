// nimble-accelerate and nimble-run as a user runs them: usage errors exit 2, run-time errors exit 1
// with a message that says what is wrong (a missing model, no GPU on this machine). The no-GPU cases
// run only where there is none; the GPU end-to-end cases are in aot_gpu_test.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>

#include "nimble/accelerate/cuda_devices.h"
#include "test_models.h"

namespace nimble::accelerate {
namespace {

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr
};

Result RunTool(const std::string& tool, const std::string& args) {
  const std::string command = std::string(NIMBLE_BINARY_DIR) + "/cli/" + tool + " " + args + " 2>&1";
  Result result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) result.output += buffer.data();
  const int status = pclose(pipe);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TEST(AotCliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunTool("nimble-accelerate", "").code, 2);
  // --input missing: a TorchScript file records no input shapes.
  const Result no_input = RunTool("nimble-accelerate", testing::SaveTestModel(testing::TestModel::kForkJoin) + " -o out.nimble");
  EXPECT_EQ(no_input.code, 2);
  EXPECT_NE(no_input.output.find("--input is required"), std::string::npos) << no_input.output;
  EXPECT_NE(no_input.output.find("TorchScript file records no input shapes"), std::string::npos) << no_input.output;
  const Result bad_shape = RunTool("nimble-accelerate", "m.pt --input 1xax3 -o out.nimble");
  EXPECT_EQ(bad_shape.code, 2);
  EXPECT_NE(bad_shape.output.find("--input 1xax3: expected positive dimensions"), std::string::npos) << bad_shape.output;
  EXPECT_EQ(RunTool("nimble-accelerate", "m.pt --input 1x3x8x8 -o out.nimble --memory-ratio 0").code, 2);
  EXPECT_EQ(RunTool("nimble-accelerate", "m.pt --input 1x3x8x8 -o out.nimble --memory-budget -5").code, 2);
  // Two ways of freeing values read on another stream at once.
  const Result two_frees = RunTool("nimble-accelerate", "m.pt --input 1x3x8x8 -o out.nimble --keep-cross-stream-values "
                                                        "--record-cross-stream-values");
  EXPECT_EQ(two_frees.code, 2);
  EXPECT_NE(two_frees.output.find("excludes"), std::string::npos) << two_frees.output;
  // Buckets: given two ways at once, a size that is no batch size, a bucket that does not parse.
  const Result both = RunTool("nimble-accelerate", "m.pt --input 1x3x8x8 --batch-sizes 1,4 --bucket 2x3x8x8 -o out.nimble");
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.output.find("--batch-sizes and --bucket both give the buckets"), std::string::npos) << both.output;
  EXPECT_EQ(RunTool("nimble-accelerate", "m.pt --input 1x3x8x8 --batch-sizes 1,0 -o out.nimble").code, 2);
  const Result twice = RunTool("nimble-accelerate", "m.pt --input 1x3x8x8 --batch-sizes 2,4,2 -o out.nimble");
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.output.find("2 is given twice"), std::string::npos) << twice.output;
  EXPECT_EQ(RunTool("nimble-accelerate", "m.pt --bucket 1x3 --bucket 1x3 -o out.nimble").code, 2);
  EXPECT_EQ(RunTool("nimble-accelerate", "m.pt --bucket 1x3 --bucket 2x3,2x3 -o out.nimble").code, 2);
  const Result with_input = RunTool("nimble-accelerate", "m.pt --input 1x3 --bucket 2x3 --bucket 4x3 -o out.nimble");
  EXPECT_EQ(with_input.code, 2);
  EXPECT_NE(with_input.output.find("leave out --input"), std::string::npos) << with_input.output;
  const Result bad_bucket = RunTool("nimble-accelerate", "m.pt --bucket 2x3,2xb -o out.nimble");
  EXPECT_EQ(bad_bucket.code, 2);
  EXPECT_NE(bad_bucket.output.find("bucket '2x3,2xb'"), std::string::npos) << bad_bucket.output;
  EXPECT_EQ(RunTool("nimble-run", "").code, 2);
  EXPECT_EQ(RunTool("nimble-run", "m.nimble --iters 0").code, 2);
  EXPECT_EQ(RunTool("nimble-accelerate", "--help").code, 0);
}

TEST(AotCliTest, MissingModelExitsOneNamingIt) {
  const Result result = RunTool("nimble-accelerate", "/nonexistent/model.pt --input 1x3x8x8 -o out.nimble");
  EXPECT_EQ(result.code, 1);
  EXPECT_NE(result.output.find("/nonexistent/model.pt: no such file"), std::string::npos) << result.output;
  // With buckets to make from the program's signature, the missing file is still what is said.
  const Result buckets = RunTool("nimble-accelerate", "/nonexistent/model.pt2 --batch-sizes 1,2 -o out.nimble");
  EXPECT_EQ(buckets.code, 1);
  EXPECT_NE(buckets.output.find("/nonexistent/model.pt2: no such file"), std::string::npos) << buckets.output;
}

TEST(AotCliTest, ADumpDirectoryThatCannotBeMadeIsNamedBeforeTheDeviceIsAskedFor) {
  const std::string model = testing::SaveTestModel(testing::TestModel::kForkJoin);
  const std::string file = testing::TestDir() + "/a_file";
  std::ofstream(file) << "x";
  const Result result =
      RunTool("nimble-accelerate", model + " --input 1x3x8x8 -o " + testing::TestDir() + "/m.nimble --dump-graphs " + file + "/dots");
  EXPECT_EQ(result.code, 1);
  EXPECT_NE(result.output.find("--dump-graphs " + file + "/dots: not a directory that can be made"), std::string::npos)
      << result.output;
}

// A calibration file that is missing or damaged is a failure naming it (1, the tool's prefix), not usage (2).
TEST(AotCliTest, AMissingOrDamagedCalibrationIsNamedBeforeTheDeviceIsAskedFor) {
  const std::string model = testing::SaveTestModel(testing::TestModel::kForkJoin);
  const std::string out = " -o " + testing::TestDir() + "/m.nimble";
  const Result missing = RunTool("nimble-accelerate", model + " --input 1x3x8x8 --calibration /nonexistent/gpu.json" + out);
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.output.find("nimble-accelerate: error: /nonexistent/gpu.json: no such file"), std::string::npos)
      << missing.output;
  const std::string damaged = testing::TestDir() + "/damaged.json";
  std::ofstream(damaged) << "{\"kind\": \"nimble-sharing-calibration\", \"format\":";
  const Result bad = RunTool("nimble-accelerate", model + " --input 1x3x8x8 --calibration " + damaged + out);
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.output.find(damaged + ": not a JSON object"), std::string::npos) << bad.output;
}

TEST(AotCliTest, MissingArtifactIsNamedBeforeTheDeviceIsAskedFor) {
  const Result result = RunTool("nimble-run", "/nonexistent/model.nimble --iters 5");
  EXPECT_EQ(result.code, 1);
  EXPECT_NE(result.output.find("/nonexistent/model.nimble: no such file"), std::string::npos) << result.output;
}

TEST(AotCliTest, NoGpuExitsOneWithAClearMessage) {
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "this machine has a GPU";
  const std::string model = testing::SaveTestModel(testing::TestModel::kForkJoin);
  const Result accelerate = RunTool("nimble-accelerate", model + " --input 1x3x8x8 -o " + testing::TestDir() + "/m.nimble");
  EXPECT_EQ(accelerate.code, 1);
  EXPECT_NE(accelerate.output.find("nimble-accelerate: error: no CUDA device"), std::string::npos) << accelerate.output;
  // An artifact that exists gets as far as the device check.
  const std::string artifact = testing::TestDir() + "/present.nimble";
  std::ofstream(artifact) << "PK";
  const Result run = RunTool("nimble-run", artifact + " --iters 5");
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find("nimble-run: error: no CUDA device"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace nimble::accelerate

// `nimble-prof model.pt`: the argv shorthand, --input parsing, the default output, and the bad inputs
// that fail before a GPU is needed (no model file, a corrupt one, bad flags) or because there is none.
// The real binary runs here; tests/accelerate/model_profile_gpu_test.cpp covers the GPU side.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "command_runner.h"
#include "profile_command.h"
#if NIMBLE_MODEL_PROFILING
#include "nimble/accelerate/cuda_devices.h"
#endif

namespace nimble::cli {
namespace {

namespace fs = std::filesystem;
using nimble::testing::RunCommand;

const std::string kProf = std::string(NIMBLE_BINARY_DIR) + "/cli/nimble-prof";
const std::vector<std::string> kCommands = {"info", "record", "report", "profile"};

using Args = std::vector<std::string>;

TEST(ModelShorthandTest, AModelFileFirstMeansProfile) {
  EXPECT_EQ(RewriteModelShorthand({"nimble-prof", "m.pt", "--input", "1x3"}, kCommands),
            (Args{"nimble-prof", "profile", "m.pt", "--input", "1x3"}));
  for (const char* name : {"a/b.pth", "model.ts", "mobile.ptl"}) {
    EXPECT_EQ(RewriteModelShorthand({"nimble-prof", name}, kCommands), (Args{"nimble-prof", "profile", name}));
  }
}

TEST(ModelShorthandTest, AnExistingFileWithAnotherSuffixMeansProfileToo) {
  const fs::path file = fs::temp_directory_path() / ("nimble_shorthand_" + std::to_string(::getpid()) + ".model");
  std::ofstream(file) << "x";
  EXPECT_EQ(RewriteModelShorthand({"nimble-prof", file.string()}, kCommands),
            (Args{"nimble-prof", "profile", file.string()}));
  fs::remove(file);
  EXPECT_EQ(RewriteModelShorthand({"nimble-prof", file.string()}, kCommands), (Args{"nimble-prof", file.string()}));
}

TEST(ModelShorthandTest, SubcommandsOptionsAndNothingStayAsTheyAre) {
  for (const Args& args : {Args{"nimble-prof"}, Args{"nimble-prof", "report", "x.pt"}, Args{"nimble-prof", "--help"},
                           Args{"nimble-prof", "-o", "run.db", "--", "./app"}, Args{"nimble-prof", "profile", "m.pt"},
                           Args{"nimble-prof", "info", "run.db"}}) {
    EXPECT_EQ(RewriteModelShorthand(args, kCommands), args);
  }
}

class ProfileCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nimble_profile_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string File(const std::string& name, const std::string& bytes) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  testing::CommandResult Prof(const std::string& args) { return RunCommand(kProf + " " + args); }
  void Expect(const testing::CommandResult& r, int code, const std::string& fragment) {
    EXPECT_EQ(r.exit_code, code) << r.output;
    EXPECT_NE(r.output.find(fragment), std::string::npos) << "missing '" << fragment << "' in " << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "out.db")) << "a failed profile left a database";
  }
  std::string Out() const { return " -o " + (dir_ / "out.db").string(); }
  // Model files are read only where nimble-prof can profile; elsewhere the command says why it cannot.
  void ExpectModelError(const testing::CommandResult& r, const std::string& fragment) {
#if NIMBLE_MODEL_PROFILING
    Expect(r, 1, fragment);
#else
    Expect(r, 1, "built without model profiling");
#endif
  }
  fs::path dir_;
};

TEST_F(ProfileCommandTest, MissingModelFileIsNamed) {
  const std::string missing = (dir_ / "missing.pt").string();
  ExpectModelError(Prof(missing + " --input 1x3x8x8" + Out()), missing + ": no such file");
  ExpectModelError(Prof("profile " + missing + " --input 1x3x8x8" + Out()), missing + ": no such file");
}

TEST_F(ProfileCommandTest, CorruptOrEmptyModelFileIsNamed) {
  const std::string garbage = File("garbage.pt", std::string(300, '\x17'));
  ExpectModelError(Prof(garbage + " --input 1x3x8x8" + Out()), garbage + ": not a TorchScript archive");
  const std::string empty = File("empty.pt", "");
  ExpectModelError(Prof(empty + " --input 1x3x8x8" + Out()), "the file is empty");
}

TEST_F(ProfileCommandTest, BadFlagsAreUsageErrors) {
  const std::string model = File("m.pt", "PK\x03\x04 rest");
  Expect(Prof(model + Out()), 2, "--input is required");
  Expect(Prof(model + " --input 1x0x8" + Out()), 2, "--input 1x0x8: expected positive dimensions");
  Expect(Prof(model + " --input 1x3x8x8 --device cpu" + Out()), 2, "nimble-prof profiles GPU runs");
  Expect(Prof(model + " --input 1x3x8x8 --iters 0" + Out()), 2, "--iters");
  Expect(Prof(model + " --input 1x3x8x8 --timed-iters 0" + Out()), 2, "--timed-iters");
  // A well-formed -o whose directory is missing is a run-time failure, as for every tool.
  Expect(Prof(model + " --input 1x3x8x8 -o " + (dir_ / "no_dir" / "x.db").string()), 1, "does not exist");
}

// A .pt2 records its inputs: nimble-prof passes it on without --input (the model profiler reads its
// signature), where a TorchScript file is a usage error.
TEST_F(ProfileCommandTest, AProgramNeedsNoInputFlag) {
  const std::string program = std::string(NIMBLE_SOURCE_DIR) + "/tests/accelerate/data/export/cnn_branches.pt2";
  const auto r = Prof(program + Out());
  EXPECT_EQ(r.output.find("--input is required"), std::string::npos) << r.output;
}

TEST_F(ProfileCommandTest, ExistingFileThatIsNoDatabaseIsRefusedBeforeRunning) {
  const std::string model = File("m.pt", "PK\x03\x04 rest");
  const std::string notes = File("notes.db", "not a database at all, just text that is long enough");
  const auto r = Prof(model + " --input 1x3x8x8 -o " + notes);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot take a new run"), std::string::npos) << r.output;
}

TEST_F(ProfileCommandTest, WithoutAGpuSaysSoAndPointsToReport) {
#if NIMBLE_MODEL_PROFILING
  if (accelerate::CudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present";
  // A file that starts like a zip passes the file check; the device check comes next.
  const std::string model = File("m.pt", "PK\x03\x04 rest");
  const auto r = Prof(model + " --input 1x3x8x8" + Out());
  Expect(r, 1, "no CUDA device: nimble-prof model.pt needs a GPU; `nimble-prof report` works on recorded runs");
#else
  const std::string model = File("m.pt", "PK\x03\x04 rest");
  Expect(Prof(model + " --input 1x3x8x8" + Out()), 1, "built without model profiling");
#endif
}

}  // namespace
}  // namespace nimble::cli

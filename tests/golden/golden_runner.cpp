// Runs a golden case's steps in a scratch directory: nimble-prof through /bin/sh with stdout and
// stderr apart, the stored-results steps in this process.
#include "golden_runner.h"

#include <unistd.h>

#include <atomic>

#include "command_runner.h"
#include "golden_files.h"
#include "report_mask.h"
#include "stored_results.h"

namespace nimble::golden {
namespace {

namespace fs = std::filesystem;
using nimble::testing::JoinCommand;
using nimble::testing::RunCommand;
using nimble::testing::ShellQuote;

struct StepResult {
  std::string out;
  std::string err;
  int exit_code = 0;
};

// A directory of its own for every run, removed when the run ends, however it ends.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    static std::atomic<int> counter{0};
    root_ = fs::temp_directory_path() /
            ("nimble_golden_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + name);
    fs::remove_all(root_);
    fs::create_directories(work());
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  fs::path work() const { return root_ / "work"; }  // the steps' working directory
  fs::path stderr_file() const { return root_ / "stderr.txt"; }

 private:
  fs::path root_;
};

// The subshell keeps the step's own `2>` from being overridden by the runner's stderr redirection.
StepResult RunNimbleProf(const GoldenStep& step, const GoldenPaths& paths, const ScratchDir& dir) {
  std::vector<std::string> argv = {paths.nimble_prof.string()};
  argv.insert(argv.end(), step.args.begin(), step.args.end());
  const std::string line = "(cd " + ShellQuote(dir.work().string()) + " && " + JoinCommand(argv) + " 2> " +
                           ShellQuote(dir.stderr_file().string()) + ")";
  const auto result = RunCommand(line, /*stdout_only=*/true);
  return {result.output, ReadFile(dir.stderr_file()), result.exit_code};
}

StepResult RunOwnStep(const GoldenStep& step, const ScratchDir& dir) {
  const std::string db = (dir.work() / step.args.front()).string();
  if (step.program == "clear-results") {
    const Status s = ClearStoredResults(db);
    return {"", s.ok() ? "" : s.ToString() + "\n", s.ok() ? 0 : 1};
  }
  auto text = DescribeStoredResults(db);
  if (!text.ok()) return {"", text.status().ToString() + "\n", 1};
  return {*text, "", 0};
}

StatusOr<std::string> Captured(const GoldenCase& c, const GoldenStep& step, const StepResult& r) {
  const std::string where = "line " + std::to_string(c.line) + ", step '" + step.Line() + "'";
  if (c.capture == Capture::kAll) {
    return r.out + "--- stderr ---\n" + r.err + "--- exit code " + std::to_string(r.exit_code) + " ---\n";
  }
  if (r.exit_code != 0) {
    return Internal(where + " exited with " + std::to_string(r.exit_code) + "; stderr:\n" + r.err);
  }
  if (c.capture == Capture::kStdout) return r.out;
  const auto json = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Internal(where + " did not print JSON:\n" + r.out.substr(0, 400));
  return MaskedReportJson(json);
}

}  // namespace

StatusOr<std::string> RunGoldenCase(const GoldenCase& c, const GoldenPaths& paths) {
  const ScratchDir dir(c.TestName());
  if (!c.input.empty()) {
    const fs::path source = paths.inputs / c.input;
    std::error_code ec;
    fs::copy_file(source, dir.work() / c.input, ec);
    if (ec) return NotFound("input " + source.string() + ": " + ec.message());
  }
  std::string transcript;
  for (const GoldenStep& step : c.steps) {
    const StepResult result = step.program == "nimble-prof" ? RunNimbleProf(step, paths, dir) : RunOwnStep(step, dir);
    NIMBLE_ASSIGN_OR_RETURN(std::string captured, Captured(c, step, result));
    if (c.steps.size() > 1) transcript += "$ " + step.Line() + "\n";
    transcript += captured;
  }
  return transcript;
}

}  // namespace nimble::golden

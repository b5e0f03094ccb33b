#include "profile_command.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nimble::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kModelProfiler[] = "nimble-prof-model";

bool HasModelSuffix(const std::string& arg) {
  for (const char* suffix : {".pt", ".pth", ".ts", ".ptl"}) {
    if (arg.ends_with(suffix)) return true;
  }
  return false;
}

// nimble-prof-model next to this executable (or installed in ../libexec/nimble), empty if absent.
std::string FindModelProfiler() {
  std::error_code ec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& candidate : {exe_dir / kModelProfiler, exe_dir / ".." / "libexec" / "nimble" / kModelProfiler}) {
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// nimble-prof does not load libtorch (so that report, info and record start fast): a profile is run by
// nimble-prof-model, which gets the same arguments after they have been checked here.
int ExecModelProfiler(const ProfileArgs& args) {
  auto shapes = workflow::ParseInputSpecs(args.inputs);
  if (!shapes.ok()) return ReportError(shapes.status());
  workflow::ProfileOptions options = args.options;
  options.inputs = std::move(*shapes);
  if (Status s = workflow::CheckProfileOptions(options); !s.ok()) return ReportError(s);
  const std::string profiler = FindModelProfiler();
  if (profiler.empty()) {
    return ReportError(FailedPrecondition(
        "this nimble-prof was built without model profiling (it needs libtorch and CUDA): configure with "
        "-DNIMBLE_WITH_TORCH=ON -DNIMBLE_WITH_CUDA=ON; `nimble-prof report` works on recorded runs"));
  }
  std::vector<std::string> argv = args.argv;
  argv.front() = profiler;
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  ::setenv(kCommandLineEnv, args.options.command_line.c_str(), 1);
  ::execv(profiler.c_str(), raw.data());
  return ReportError(Internal("cannot run " + profiler + ": " + std::strerror(errno)));
}

}  // namespace

std::vector<std::string> RewriteModelShorthand(std::vector<std::string> argv, const std::vector<std::string>& commands) {
  if (argv.size() < 2) return argv;
  const std::string& first = argv[1];
  if (first.empty() || first.front() == '-') return argv;
  if (std::find(commands.begin(), commands.end(), first) != commands.end()) return argv;
  std::error_code ec;
  if (HasModelSuffix(first) || fs::is_regular_file(first, ec)) argv.insert(argv.begin() + 1, "profile");
  return argv;
}

void RegisterProfileCommand(CLI::App& app, Action& action, std::shared_ptr<const std::vector<std::string>> argv,
                            const std::string& command_line, ProfileRunner runner) {
  auto* cmd = app.add_subcommand("profile", "Profile a TorchScript (.pt) or torch.export (.pt2) model on the GPU: "
                                            "op-attributed kernels, idle gaps, critical path, optimal streams and "
                                            "predicted AoT speedup (also: nimble-prof model.pt --input ...)");
  auto args = std::make_shared<ProfileArgs>();
  workflow::ProfileOptions& o = args->options;
  o.command_line = command_line;
  cmd->add_option("model", o.model, "model file: torch.export.save (.pt2) or TorchScript (torch.jit.trace/script, then save)")->required();
  // One shape per --input, so that a positional after it stays the model.
  cmd->add_option("--input", args->inputs, "a model input, SHAPE[:DTYPE[:LOW..HIGH]], e.g. 1x3x224x224 or 1x128:int64; once per input "
                  "(default for a .pt2: the shapes and dtypes of its signature)")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", o.output, "run database (default: <model stem>.nimble.db here; "
                                           "an existing one gets a new run)");
  cmd->add_option("--iters", o.iters, "recorded iterations")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--timed-iters", o.timed_iters,
                  "iterations timed with the collector off, op by op and as module.forward: the latency")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "unrecorded iterations first (one runs even at 0: it checks outputs)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--device", o.device, "cuda or cuda:N")->capture_default_str();
  cmd->add_flag("--no-optimize", args->no_optimize, "skip conv-batchnorm folding and the tanh-GELU rewrite");
  cmd->add_flag("!--no-conv-epilogues", o.conv_epilogues,
                "keep ATen's separate kernels after each convolution (as nimble-accelerate --no-conv-epilogues; a "
                "recording weighs the ops of one choice only)");
  cmd->add_flag("--cuda-fusions", o.cuda_fusions,
                "fuse conv+add+relu into cuDNN calls (as nimble-accelerate --cuda-fusions; a recording weighs the "
                "ops of one choice only)");
  cmd->add_option("--memory-format", o.memory_format,
                  "the convolutions' layout, as nimble-accelerate --memory-format (auto, contiguous, channels_last)")
      ->check(CLI::IsMember({"auto", "contiguous", "channels_last"}))
      ->capture_default_str();
  cmd->add_flag("--no-tf32", args->no_tf32,
                "fp32 convolutions and matmuls without TF32, as nimble-accelerate runs them (needed for its --db)");
  cmd->add_option("--save-module", o.save_module,
                  "also write the module as profiled (frozen, optimized, specialized to the input shapes) "
                  "to this TorchScript file, for running the same graph elsewhere (with PyTorch's own operators "
                  "only: the convolution epilogues are then off)");
  cmd->add_flag("--json", args->json, "print the report as JSON instead of tables");
  cmd->add_option("--top", o.top_gaps, "number of longest idle gaps to list")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");
  if (!runner) runner = ExecModelProfiler;
  cmd->callback([&action, args, argv, runner] {
    args->argv = *argv;
    action = [args, runner] { return runner(*args); };
  });
}

}  // namespace nimble::cli

// `nimble-prof model.pt --input 1x3x224x224 [-o run.db] [--iters N --warmup W]` (also spelled
// `nimble-prof profile model.pt ...`): the flags of model profiling, and how a command runs it.
// nimble-prof checks the arguments and hands the command line to nimble-prof-model, the one executable
// that loads libtorch; nimble-prof-model runs it in-process (profile_run.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "nimble/workflow/profile_model.h"

namespace nimble::cli {

struct ProfileArgs {
  std::vector<std::string> argv;    // the whole command line, "profile" spelled out
  std::vector<std::string> inputs;  // as typed
  bool json = false;
  bool no_optimize = false;
  bool no_tf32 = false;
  bool quiet = false;
  workflow::ProfileOptions options;
};

using ProfileRunner = std::function<int(ProfileArgs&)>;

// The environment variable through which nimble-prof passes the user's command line to
// nimble-prof-model, which stores it with the run.
inline constexpr char kCommandLineEnv[] = "NIMBLE_PROF_COMMAND_LINE";

// `runner` empty: check the arguments, then exec nimble-prof-model with `argv` (an error naming what
// to build where it is missing).
// `argv` is read when the command runs (main fills it after the shorthand rewrite).
void RegisterProfileCommand(CLI::App& app, Action& action, std::shared_ptr<const std::vector<std::string>> argv,
                            const std::string& command_line, ProfileRunner runner = {});

// argv with "profile" inserted before argv[1] when that names a model rather than a subcommand: it
// ends in .pt, .pth, .ts or .ptl, or is an existing file, and is neither an option nor one of `commands`.
std::vector<std::string> RewriteModelShorthand(std::vector<std::string> argv, const std::vector<std::string>& commands);

}  // namespace nimble::cli

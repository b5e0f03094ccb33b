#include "nimble/collector/injection_options.h"

#include <charconv>
#include <string_view>

#include "nimble/collector/injection_env.h"

namespace nimble::collector {
namespace {

StatusOr<int64_t> ParseNonNegative(const char* name, std::string_view text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return InvalidArgument(std::string(name) + "='" + std::string(text) + "' is not a non-negative integer");
  }
  return value;
}

std::string_view Get(const EnvLookup& env, const char* name) {
  const char* value = env(name);
  return value != nullptr ? std::string_view(value) : std::string_view();
}

}  // namespace

StatusOr<InjectionOptions> ParseInjectionOptions(const EnvLookup& env) {
  InjectionOptions options;
  options.output_path = std::string(Get(env, env::kOutput));
  if (options.output_path.empty()) return InvalidArgument(std::string(env::kOutput) + " is not set");
  if (const std::string_view kinds = Get(env, env::kKinds); !kinds.empty()) {
    std::string bad;
    if (!ParseActivityKinds(kinds, options.session.kinds, bad)) {
      return InvalidArgument(std::string(env::kKinds) + ": unknown activity kind '" + bad + "'");
    }
  }
  options.session.iteration_range = std::string(Get(env, env::kIterationRange));
  options.session.capture_range = std::string(Get(env, env::kCaptureRange));
  if (const std::string_view graph = Get(env, env::kGraphTrace); !graph.empty()) {
    if (!ParseGraphTrace(graph, options.session.graph_trace)) {
      return InvalidArgument(std::string(env::kGraphTrace) + "='" + std::string(graph) + "': expected node or graph");
    }
  }
  if (const std::string_view stamps = Get(env, env::kKernelTimestamps); !stamps.empty()) {
    if (!ParseKernelTimestamps(stamps, options.session.kernel_timestamps)) {
      return InvalidArgument(std::string(env::kKernelTimestamps) + "='" + std::string(stamps) +
                             "': expected software or hardware");
    }
  }
  if (const std::string_view delay = Get(env, env::kStartDelayMs); !delay.empty()) {
    NIMBLE_ASSIGN_OR_RETURN(const int64_t ms, ParseNonNegative(env::kStartDelayMs, delay));
    options.session.start_delay = std::chrono::milliseconds(ms);
  }
  if (const std::string_view pid = Get(env, env::kTargetPid); !pid.empty()) {
    NIMBLE_ASSIGN_OR_RETURN(options.target_pid, ParseNonNegative(env::kTargetPid, pid));
  }
  // Graph-level tracing is switched on once, at the start: switching it on from an NVTX range
  // callback crashed the profiled program (CUDA 13.0, H100), and a start delay switches it the same way.
  if (options.session.graph_trace == GraphTrace::kGraph &&
      (options.session.start_delay.count() > 0 || !options.session.capture_range.empty())) {
    return InvalidArgument(std::string(env::kGraphTrace) + "=graph cannot be combined with " + env::kStartDelayMs +
                           " or " + env::kCaptureRange);
  }
  const std::string_view simulate = Get(env, env::kSimulateCuptiFailure);
  options.simulate_cupti_failure = !simulate.empty() && simulate != "0";
  return options;
}

}  // namespace nimble::collector

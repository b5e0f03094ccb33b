// The parts of model profiling that need no GPU: defaults, the pre-flight checks and the figures
// derived from the measurements.
#include <filesystem>

#include "nimble/core/median.h"
#include "nimble/store/run_reader.h"
#include "nimble/workflow/profile_model.h"
#include "profile_stats.h"

namespace nimble::workflow {

namespace fs = std::filesystem;

int64_t ProfileMeasurements::latency_ns() const { return Median(timed_wall_ns); }
int64_t ProfileMeasurements::recorded_ns() const { return Median(profiled_wall_ns); }

double ProfileResult::Speedup(double predicted_ms) const {
  return predicted_ms > 0 ? static_cast<double>(measured.latency_ns()) / 1e6 / predicted_ms : 0;
}

std::string DefaultProfileOutput(const std::string& model_path) {
  return fs::path(model_path).stem().string() + ".nimble.db";
}

Status CheckProfileOptions(const ProfileOptions& options) {
  std::error_code missing;  // the model first, before anything is loaded
  if (!fs::exists(options.model, missing)) {
    return missing ? FailedPrecondition(options.model + ": cannot be read: " + missing.message())
                   : NotFound(options.model + ": no such file");
  }
  // A .pt2 records its inputs (the model profiler reads them from its signature, or says why not).
  if (options.inputs.empty() && fs::path(options.model).extension() != ".pt2") {
    return InvalidArgument("--input is required: the shape of each model input, e.g. 1x3x224x224");
  }
  if (!options.device.starts_with("cuda")) {
    return InvalidArgument("--device " + options.device + ": nimble-prof profiles GPU runs; use cuda or cuda:N");
  }
  const std::string path = options.output.empty() ? DefaultProfileOutput(options.model) : options.output;
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) return FailedPrecondition("-o " + path + ": is a directory");
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::is_directory(dir, ec)) return FailedPrecondition("-o " + path + ": directory " + dir.string() + " does not exist");
  if (!fs::exists(p, ec)) return OkStatus();
  auto reader = store::RunReader::Open(path);
  return reader.ok() ? OkStatus() : reader.status().WithContext("-o " + path + " exists and cannot take a new run");
}

}  // namespace nimble::workflow

namespace nimble::workflow {

std::vector<StatEntry> ProfileStats(const ProfileOptions& options, const std::vector<StatEntry>& collector_stats,
                                    const ProfileMeasurements& m) {
  using enum Severity;
  std::vector<StatEntry> stats = collector_stats;
  for (StatEntry& s : m.attribution.ToStats()) stats.push_back(std::move(s));
  const bool matches = m.forward_diff >= 0 && m.forward_diff <= 1e-3;
  stats.push_back({"profile.eager_matches_forward", matches ? 1 : 0, matches ? kInfo : kWarning,
                   "largest |difference| of the node-by-node outputs from the model's forward: " +
                       std::to_string(m.forward_diff)});
  stats.push_back({"profile.tf32_allowed", options.tf32 ? 1 : 0, kInfo,
                   options.tf32 ? "cuDNN could use TF32 for fp32 convolutions (PyTorch's default)"
                                : "fp32 math in IEEE precision (--no-tf32), as nimble-accelerate runs"});
  stats.push_back({"profile.channels_last", m.channels_last ? 1 : 0, kInfo,
                   m.channels_last ? "convolutions in channels_last (--memory-format)" : "convolutions as the file holds them"});
  stats.push_back({"profile.warmup_median_wall_ns", Median(m.warmup_wall_ns), kInfo,
                   "median iteration wall time of the warmup, collector off (" + std::to_string(options.warmup) + ")"});
  stats.push_back({"profile.forward_latency_median_ns", Median(m.forward_ns), kInfo,
                   "median latency of the module's own forward (TorchScript interpreter, fusers off), collector off (" +
                       std::to_string(options.timed_iters) + ")"});
  stats.push_back({"profile.latency_median_ns", m.latency_ns(), kInfo,
                   "median iteration wall time, collector off: the latency per iteration (" +
                       std::to_string(options.timed_iters) + ")"});
  stats.push_back({"profile.profiled_median_wall_ns", m.recorded_ns(), kInfo,
                   "median iteration wall time, collector on"});
  return stats;
}

}  // namespace nimble::workflow

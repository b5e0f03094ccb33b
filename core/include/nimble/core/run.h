// A run: one recorded or accelerated execution stored in a run database, with what it measured.
// Plain aggregates shared by store (which persists them), analysis (which fills results) and the tools.
// Modes and severities are enums here; their names appear only where a run is stored or printed.
// No threading concerns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nimble/core/ids.h"

namespace nimble {

// How a run was executed. Declared in the order the viewer lists speedups: eager execution first,
// then the two schedules measured against it.
enum class RunMode {
  kProgram,    // "program": a CUDA program recorded by injection
  kEager,      // "eager": a model profiled op by op
  kAotSingle,  // "aot-single": the single-stream CUDA graph stored by the accelerate workflow
  kAotMulti,   // "aot-multi": the multi-stream CUDA graph stored by the accelerate workflow
};

// Ordered: a larger value is more severe.
enum class Severity { kInfo, kWarning, kError };

// The names run databases, model.nimble and the reports use; the Parse functions accept exactly these.
const char* RunModeName(RunMode mode);
std::optional<RunMode> ParseRunMode(std::string_view name);
const char* SeverityName(Severity severity);
std::optional<Severity> ParseSeverity(std::string_view name);

struct RunInfo {
  RunId id;
  std::string model;       // model file or program path
  std::string inputs;      // e.g. "1x3x224x224"
  std::string device;      // e.g. "NVIDIA H100 80GB HBM3"
  RunMode mode = RunMode::kProgram;
  std::string command;     // the command line that produced it
  int32_t iterations = 0;
  int32_t warmup = 0;
  int64_t created_unix_s = 0;
  friend bool operator==(const RunInfo&, const RunInfo&) = default;
};

// A named figure computed for a run (and optionally one window of it, e.g. an iteration).
struct Metric {
  std::string name;    // e.g. "gpu_active_ns"
  double value = 0;
  std::string unit;    // "ns", "ratio", "count", ...
  int32_t window = -1; // -1: whole run
  friend bool operator==(const Metric&, const Metric&) = default;
};

// Measured against predicted latency of one execution mode.
struct Speedup {
  RunMode mode = RunMode::kEager;
  double measured_ms = 0;    // median latency measured; 0 when not measured
  double predicted_ms = 0;   // simulated latency; 0 when not predicted
  double baseline_ms = 0;    // what the speedup is relative to
  friend bool operator==(const Speedup&, const Speedup&) = default;
};

// A data-quality count (dropped records, unmatched correlation ids...): counted, never silent.
struct StatEntry {
  std::string name;
  int64_t value = 0;
  Severity severity = Severity::kInfo;
  std::string description;
  friend bool operator==(const StatEntry&, const StatEntry&) = default;
};

}  // namespace nimble

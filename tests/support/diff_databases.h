// Run databases for the diff tests: a trace (with its op graph) written as a run by store::RunWriter,
// and a copy of a recorded run in which the kernels of one name take longer, everything after them
// shifted by the time they added (so iterations grow as they would on the GPU).
// Test-only; header-only, shared by the workflow and CLI tests. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"

namespace nimble::testing {

// Appends a run to `path` (created if missing); returns its id, or an invalid id on failure.
inline RunId WriteDiffRun(const std::string& path, const Trace& trace, const OpGraph* graph = nullptr,
                          const std::vector<KernelAttribution>& attribution = {}, RunMode mode = RunMode::kProgram) {
  RunInfo run;
  run.model = "synthetic";
  run.mode = mode;
  auto writer = store::RunWriter::Create(path, run);
  if (!writer.ok() || !(*writer)->AppendTrace(trace).ok()) return RunId();
  if (graph != nullptr && !(*writer)->WriteGraph(*graph, attribution).ok()) return RunId();
  const RunId id = (*writer)->run_id();
  return (*writer)->Commit().ok() ? id : RunId();
}

// `trace` with every kernel named `name` made `factor` times longer; every record is delayed by the
// time the slowed kernels that ended before it added.
inline Trace SlowKernels(Trace trace, const std::string& name, double factor) {
  const StringId id = trace.strings.Find(name);
  std::vector<std::pair<int64_t, int64_t>> added;  // (original end, extra ns)
  for (const KernelRecord& k : trace.kernels) {
    if (k.name == id || k.short_name == id) {
      added.emplace_back(k.end_ns, static_cast<int64_t>(static_cast<double>(k.dur_ns()) * (factor - 1.0)));
    }
  }
  std::sort(added.begin(), added.end());
  std::vector<int64_t> prefix(added.size() + 1, 0);
  for (size_t i = 0; i < added.size(); ++i) prefix[i + 1] = prefix[i] + added[i].second;
  auto shift = [&](int64_t t) {
    const auto upto = std::upper_bound(added.begin(), added.end(), std::pair(t, INT64_MAX));
    return t + prefix[static_cast<size_t>(upto - added.begin())];
  };
  auto move = [&](auto& records) {
    for (auto& r : records) r.start_ns = shift(r.start_ns), r.end_ns = shift(r.end_ns);
  };
  move(trace.kernels), move(trace.memcpys), move(trace.memsets), move(trace.syncs), move(trace.api_calls);
  move(trace.ranges), move(trace.overheads), move(trace.graph_launches);
  return trace;
}

// Run `run` of the recorded database `from`, its kernels named `name` slowed by `factor`, appended to
// `to` with its op graph; returns the new run's id (invalid on failure).
inline RunId CopySlowed(const std::string& from, RunId run, const std::string& to, const std::string& name,
                        double factor) {
  auto reader = store::RunReader::Open(from);
  if (!reader.ok()) return RunId();
  auto trace = (*reader)->LoadTrace(run);
  auto graph = (*reader)->LoadGraph(run);
  auto attribution = (*reader)->LoadAttribution(run);
  if (!trace.ok() || !graph.ok() || !attribution.ok()) return RunId();
  const Trace slowed = SlowKernels(std::move(*trace), name, factor);
  return WriteDiffRun(to, slowed, graph->ops.empty() ? nullptr : &*graph, *attribution, RunMode::kEager);
}

}  // namespace nimble::testing

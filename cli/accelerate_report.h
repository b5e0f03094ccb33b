// What nimble-accelerate measured and predicted, as one struct; the table it prints; the diagnosis
// when measurement and prediction disagree by more than 15%; and the records it stores in the run
// database (runs "aot-single" and "aot-multi"). Pure functions except StoreResults.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "nimble/analysis/prediction.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"

namespace nimble::cli {

struct ModeResult {
  std::string mode;              // "aot-single", "aot-multi"
  bool captured = false;
  StreamAssignment schedule;
  double median_ms = 0;
  double predicted_ms = 0;
  double max_rel_error = 0;
  int64_t capture_ns = 0;
  int64_t peak_memory_bytes = 0;
};

struct AccelerateResult {
  std::string model, inputs, device, command;
  int32_t num_ops = 0, width_streams = 0, iterations = 0;
  int64_t reduced_edges = 0;
  int32_t matched_edges = 0;
  std::string op_time_source;    // where the workload came from: a recorded run, or op-by-op timing
  analysis::PredictionOptions replay_costs;  // the launch and replay costs the prediction used
  std::string replay_cost_source;            // recorded on the device, or estimates and why
  double baseline_ms = 0;        // libtorch module.forward
  double predicted_eager_ms = 0;
  int64_t prep_ns = 0;           // assignment + rewrite + capture
  ModeResult single, multi;
  std::string chosen;            // the mode written to model.nimble
  std::string choice_reason;
};

// Lines saying which assumption failed for each mode whose measurement is off its prediction by
// more than 15%; empty when all agree.
std::vector<std::string> Diagnose(const AccelerateResult& result);

void PrintTable(const AccelerateResult& result, std::ostream& out);

// Appends runs "aot-single" and "aot-multi" (the captured ones) to `db`, with graph, assignment,
// metrics and speedups relative to the libtorch baseline.
Status StoreResults(const std::string& db, const AccelerateResult& result, const OpGraph& graph);

}  // namespace nimble::cli

#include "nimble/workflow/diff.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <utility>

#include "nimble/analysis/run_samples.h"
#include "nimble/workflow/report.h"

namespace nimble::workflow {
namespace {

// The run ids to compare; `same` when both sides are one database.
StatusOr<std::pair<RunId, RunId>> PickRuns(const store::RunReader& base, const store::RunReader& now, bool same,
                                           const DiffOptions& options) {
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<RunInfo> base_runs, base.Runs());
  if (base_runs.empty()) return NotFound(base.path() + ": the database holds no run");
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<RunInfo> new_runs, now.Runs());
  if (new_runs.empty()) return NotFound(now.path() + ": the database holds no run");
  if (same && options.base_run < 0 && options.new_run < 0) {
    if (base_runs.size() < 2) {
      return FailedPrecondition(base.path() + " holds one run only: a diff of one file needs two runs (name them "
                                              "with --base-run and --new-run) or a second database");
    }
    return std::pair(base_runs[base_runs.size() - 2].id, base_runs.back().id);
  }
  const RunId base_id = options.base_run >= 0 ? RunId(options.base_run) : base_runs.back().id;
  const RunId new_id = options.new_run >= 0 ? RunId(options.new_run) : new_runs.back().id;
  return std::pair(base_id, new_id);
}

// Everything one side's diff input points into. The report is the timeline part only (no graph):
// critical path, stream plan and prediction are not compared, and the viewer samples the same way.
struct LoadedSide {
  Trace trace;
  OpGraph graph;
  std::vector<KernelAttribution> attribution;
  RunReport report;
  std::string where;  // "base.db, run 3"
};

StatusOr<std::unique_ptr<LoadedSide>> LoadSide(const store::RunDatabase& db, RunId id, const DiffOptions& options) {
  const store::RunReader& reader = db.reader();
  auto side = std::make_unique<LoadedSide>();
  side->where = db.path() + ", run " + std::to_string(id.value());
  NIMBLE_ASSIGN_OR_RETURN(const RunInfo run, reader.Run(id));
  NIMBLE_ASSIGN_OR_RETURN(side->trace, reader.LoadTrace(id));
  NIMBLE_ASSIGN_OR_RETURN(side->graph, reader.LoadGraph(id));
  NIMBLE_ASSIGN_OR_RETURN(side->attribution, reader.LoadAttribution(id));
  ReportOptions report_options;
  report_options.run = id.value();
  report_options.store = false;
  report_options.iteration_range = options.iteration_range;
  NIMBLE_ASSIGN_OR_RETURN(side->report, BuildRunReport(run, side->trace, OpGraph(), {}, report_options, side->where));
  return side;
}

StatusOr<analysis::RunSamples> Sample(const LoadedSide& side, DiffSide& out, const std::string& path) {
  const bool graph = !side.graph.ops.empty();
  const analysis::RunDiffInput input{&side.trace, &side.report.report, graph ? &side.graph : nullptr,
                                     graph ? std::span<const KernelAttribution>(side.attribution)
                                           : std::span<const KernelAttribution>()};
  auto samples = analysis::SampleRun(input);
  if (!samples.ok()) return samples.status().WithContext(side.where);
  out.path = path;
  out.run = side.report.run;
  out.samples = samples->samples;
  out.iteration_range = samples->whole_run ? "" : side.report.iteration_range;
  out.has_graph = samples->has_graph;
  return samples;
}

std::vector<std::string> Warnings(const DiffResult& r, const LoadedSide& base, const LoadedSide& now) {
  std::vector<std::string> out = base.report.warnings;
  out.insert(out.end(), now.report.warnings.begin(), now.report.warnings.end());
  for (const auto* side : {&r.base, &r.now}) {
    if (!side->iteration_range.empty()) continue;
    out.push_back(std::string(side == &r.base ? "base" : "new") + " run (" + side->path + ", run " +
                  std::to_string(side->run.id.value()) +
                  ") has no iteration windows: it is one sample, so no spread is known and changes are judged by "
                  "their size alone");
  }
  if (!r.base.iteration_range.empty() && !r.now.iteration_range.empty() &&
      r.base.iteration_range != r.now.iteration_range) {
    out.push_back("the runs mark iterations differently ('" + r.base.iteration_range + "' against '" +
                  r.now.iteration_range + "'): the per-iteration figures may not be alike");
  }
  if (r.base.has_graph != r.now.has_graph) {
    out.push_back(std::string("only the ") + (r.base.has_graph ? "base" : "new") +
                  " run has an op graph: ops are not compared");
  }
  return out;
}

}  // namespace

StatusOr<DiffResult> Diff(const store::RunDatabase& base, const store::RunDatabase& now, const DiffOptions& options) {
  NIMBLE_ASSIGN_OR_RETURN(const auto ids, PickRuns(base.reader(), now.reader(), &base == &now, options));
  NIMBLE_ASSIGN_OR_RETURN(const auto base_side, LoadSide(base, ids.first, options));
  NIMBLE_ASSIGN_OR_RETURN(const auto new_side, LoadSide(now, ids.second, options));
  DiffResult result;
  result.rule = options.rule;
  NIMBLE_ASSIGN_OR_RETURN(const analysis::RunSamples base_samples, Sample(*base_side, result.base, base.path()));
  NIMBLE_ASSIGN_OR_RETURN(const analysis::RunSamples new_samples, Sample(*new_side, result.now, now.path()));
  result.diff = analysis::DiffSamples(base_samples, new_samples, options.rule);
  result.warnings = Warnings(result, *base_side, *new_side);
  return result;
}

StatusOr<DiffResult> DiffFiles(const std::string& base_path, const std::string& new_path, const DiffOptions& options) {
  NIMBLE_ASSIGN_OR_RETURN(const auto base, store::RunDatabase::Open(base_path, store::Access::kRead));
  std::error_code ec;
  if (std::filesystem::equivalent(base_path, new_path, ec)) return Diff(*base, *base, options);
  NIMBLE_ASSIGN_OR_RETURN(const auto now, store::RunDatabase::Open(new_path, store::Access::kRead));
  return Diff(*base, *now, options);
}

RegressionGate CheckRegression(const analysis::RunDiff& diff, double threshold_percent) {
  RegressionGate gate;
  gate.threshold_percent = threshold_percent;
  if (diff.iteration.change_ratio) gate.change_percent = *diff.iteration.change_ratio * 100.0;
  gate.significant = diff.iteration.significant;
  gate.spread_known = diff.iteration.spread_known;
  gate.within_noise = gate.spread_known && std::abs(diff.iteration.change_ns) <= diff.iteration.noise_ns;
  gate.failed = gate.change_percent.has_value() && *gate.change_percent > threshold_percent && gate.significant;
  return gate;
}

std::string RegressionGate::Describe() const {
  char buf[160];
  if (!change_percent) {
    std::snprintf(buf, sizeof buf, "regression gate: passed (the base run's iteration time is 0; nothing to compare "
                                   "against %g%%)", threshold_percent);
    return buf;
  }
  const bool above = *change_percent > threshold_percent;
  std::snprintf(buf, sizeof buf, "regression gate: %s (%+.1f%% %s %g%%%s)", failed ? "FAILED" : "passed",
                *change_percent, above ? ">" : "<=", threshold_percent,
                !above || failed ? (failed && !spread_known ? "; one sample, no spread known" : "")
                : within_noise   ? ", but within the runs' noise"
                                 : ", but below the minimum change");
  return buf;
}

}  // namespace nimble::workflow

#include "nimble/workflow/diff_json.h"

#include <string>

#include "nimble/analysis/idle_gaps.h"

namespace nimble::workflow {
namespace {

using nlohmann::json;

const char* PresenceName(analysis::Presence presence) {
  switch (presence) {
    case analysis::Presence::kBoth: return "both";
    case analysis::Presence::kOnlyBase: return "base_only";
    case analysis::Presence::kOnlyNew: return "new_only";
  }
  return "both";
}

json StatsJson(const analysis::SeriesStats& s) {
  return {{"median_ns", s.median_ns}, {"mad_ns", s.mad_ns}, {"samples", s.samples}};
}

json FigureJson(const analysis::FigureDiff& f) {
  json j = {{"name", f.name},
            {"base", StatsJson(f.base)},
            {"new", StatsJson(f.now)},
            {"change_ns", f.change_ns},
            {"change_percent", nullptr},
            {"noise_ns", f.noise_ns},
            {"spread_known", f.spread_known},
            {"significant", f.significant},
            {"verdict", std::string(analysis::DiffVerdictName(analysis::VerdictOf(f)))},
            {"presence", PresenceName(f.presence)}};
  if (f.change_ratio) j["change_percent"] = *f.change_ratio * 100.0;
  return j;
}

json FiguresJson(const std::vector<analysis::FigureDiff>& figures) {
  json a = json::array();
  for (const analysis::FigureDiff& f : figures) a.push_back(FigureJson(f));
  return a;
}

json SideJson(const DiffSide& side) {
  return {{"database", side.path},
          {"run", {{"id", side.run.id.value()},
                   {"mode", RunModeName(side.run.mode)},
                   {"model", side.run.model},
                   {"inputs", side.run.inputs},
                   {"device", side.run.device}}},
          {"iteration_range", side.iteration_range},
          {"samples", side.samples},
          {"op_graph", side.has_graph}};
}

}  // namespace

json DiffResultToJson(const DiffResult& result, const RegressionGate* gate) {
  const analysis::RunDiff& d = result.diff;
  json j;
  j["base"] = SideJson(result.base);
  j["new"] = SideJson(result.now);
  j["rule"] = {{"noise_mads", result.rule.noise_mads},
               {"min_change_ns", result.rule.min_change_ns},
               {"min_change_percent", result.rule.min_change_ratio * 100.0}};
  j["total"] = {{"iteration", FigureJson(d.iteration)}, {"gpu_active", FigureJson(d.active)},
                {"gpu_idle", FigureJson(d.idle)}};
  json causes = json::object();
  for (const analysis::FigureDiff& f : d.idle_by_cause) causes[f.name] = FigureJson(f);
  j["idle_by_cause"] = causes;
  j["kernels"] = FiguresJson(d.kernels);
  j["ops"] = d.ops_compared ? FiguresJson(d.ops) : json(nullptr);
  j["warnings"] = result.warnings;
  if (gate != nullptr) {
    j["gate"] = {{"threshold_percent", gate->threshold_percent},
                 {"change_percent", gate->change_percent ? json(*gate->change_percent) : json(nullptr)},
                 {"significant", gate->significant},
                 {"failed", gate->failed},
                 {"message", gate->Describe()}};
  }
  return j;
}

}  // namespace nimble::workflow

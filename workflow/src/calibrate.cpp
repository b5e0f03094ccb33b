#include "nimble/workflow/calibrate.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <utility>

#include "accelerate_plan.h"
#include "export_chrome_output.h"
#include "nimble/analysis/prediction.h"
#include "nimble/store/run_reader.h"
#include "nimble/workflow/input_spec.h"

namespace nimble::workflow {
namespace {

// 2: the model names its dispatch ("shared" or "in-order"); format 1 files, without it, read as shared.
// 3: the model names its crowding and knee (gpu_sharing.h); earlier files, without them, read as 0.
constexpr int kCalibrationFormat = 3;

std::optional<double> MetricValue(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& m : metrics) {
    if (m.name == name && m.window < 0) return m.value;
  }
  return std::nullopt;
}

int64_t Ns(double value) { return static_cast<int64_t>(std::llround(value)); }

// As nimble-accelerate stored it (0 unknown, 1 float32, 2 half: final, TF32's unknown included); a run
// stored before it was, from its inputs.
StatusOr<analysis::Precision> CasePrecision(const std::vector<Metric>& metrics, const std::string& inputs,
                                            const std::string& where) {
  if (const std::optional<double> stored = MetricValue(metrics, "sharing_precision")) {
    if (*stored != 0 && *stored != 1 && *stored != 2) {
      return DataLoss(where + ": sharing_precision " + std::to_string(*stored) + " is none of 0, 1 and 2");
    }
    return static_cast<analysis::Precision>(static_cast<int32_t>(*stored));
  }
  StatusOr<std::vector<TensorSpec>> specs = ParseBucketSpec(inputs);
  return specs.ok() ? ModelPrecision(0, 0, *specs, false) : analysis::Precision::kUnknown;
}

// A multi-stream run's measured latency and the replay costs stored with it; nullopt when any is missing.
std::optional<std::pair<int64_t, analysis::PredictionOptions>> StoredCosts(const std::vector<Metric>& metrics) {
  const auto latency = MetricValue(metrics, "latency_median_ns");
  const auto launch = MetricValue(metrics, "replay_launch_ns");
  const auto gap = MetricValue(metrics, "replay_kernel_gap_ns");
  const auto sync = MetricValue(metrics, "replay_sync_latency_ns");
  if (!latency || *latency <= 0 || !launch || !gap || !sync) return std::nullopt;
  analysis::PredictionOptions costs;
  costs.graph_launch_ns = Ns(*launch);
  costs.graph_node_latency_ns = Ns(*gap);
  costs.sync_latency_ns = Ns(*sync);
  costs.graph_extra_nodes_ns = Ns(MetricValue(metrics, "replay_memset_nodes_ns").value_or(0));  // 0: stored before
  return std::make_pair(Ns(*latency), costs);
}

// The single-stream run stored beside `multi` (same model and inputs), or none.
std::optional<RunInfo> SingleBeside(const std::vector<RunInfo>& runs, const RunInfo& multi) {
  for (const RunInfo& r : runs) {
    if (r.mode == RunMode::kAotSingle && r.model == multi.model && r.inputs == multi.inputs) return r;
  }
  return std::nullopt;
}

struct Loaded {
  analysis::SharingCase sim;
  CalibrationCase info;
};

// The case's single-stream replay beside it, and its kernels scaled to predict that replay where asked.
Status AnchorCase(const store::RunReader& reader, const std::vector<RunInfo>& runs, const RunInfo& run, bool anchor,
                  Loaded* c) {
  if (const auto single = SingleBeside(runs, run)) {
    NIMBLE_ASSIGN_OR_RETURN(std::vector<Metric> single_metrics, reader.LoadMetrics(single->id));
    c->info.single_measured_ns = Ns(MetricValue(single_metrics, "latency_median_ns").value_or(0));
  }
  if (!anchor) return OkStatus();
  StatusOr<analysis::AnchoredWorkload> anchored =
      c->info.single_measured_ns > 0
          ? analysis::AnchorToSingleStream(c->sim.dag, c->sim.workload, c->sim.costs, c->info.single_measured_ns)
          : FailedPrecondition("no single-stream replay stored beside it");
  if (anchored.ok()) {
    c->sim.workload = std::move(anchored->workload);
    c->info.duration_scale = anchored->scale;
  } else {
    c->info.not_anchored = anchored.status().message();
  }
  return OkStatus();
}

// One case per multi-stream run of `reader` with a latency, replay costs, a schedule and a recording of
// the same ops; the reason in `skipped` for each run that has not.
Status LoadCases(const store::RunReader& reader, const CalibrateOptions& options, std::vector<Loaded>* out,
                 std::vector<std::string>* skipped, std::string* device) {
  const std::string& path = reader.path();
  NIMBLE_ASSIGN_OR_RETURN(std::vector<RunInfo> runs, reader.Runs());
  bool any = false;
  for (const RunInfo& run : runs) {
    if (run.mode != RunMode::kAotMulti) continue;
    any = true;
    const std::string where = path + ", run " + std::to_string(run.id.value());
    NIMBLE_ASSIGN_OR_RETURN(std::vector<Metric> metrics, reader.LoadMetrics(run.id));
    const std::optional<std::pair<int64_t, analysis::PredictionOptions>> measured = StoredCosts(metrics);
    if (!measured) {
      skipped->push_back(where + ": no measured latency and replay costs (not stored by nimble-accelerate --db)");
      continue;
    }
    NIMBLE_ASSIGN_OR_RETURN(const analysis::Precision precision, CasePrecision(metrics, run.inputs, where));
    if (options.precision && precision != *options.precision) {
      skipped->push_back(where + ": a " + std::string(analysis::PrecisionName(precision)) + " model, not " +
                         std::string(analysis::PrecisionName(*options.precision)));
      continue;
    }
    NIMBLE_ASSIGN_OR_RETURN(std::optional<StreamAssignment> schedule, reader.LoadAssignment(run.id));
    if (!schedule || schedule->num_streams < 2) {
      skipped->push_back(where + ": no multi-stream schedule stored");
      continue;
    }
    NIMBLE_ASSIGN_OR_RETURN(OpGraph graph, reader.LoadGraph(run.id));
    StatusOr<MeasuredWorkload> workload = WorkloadFromDatabase(reader, graph, std::nullopt);
    if (!workload.ok()) {
      skipped->push_back(where + ": " + workload.status().message());
      continue;
    }
    if (!device->empty() && run.device != *device) {
      return InvalidArgument(where + " ran on " + run.device + ", the other cases on " + *device +
                             ": calibrate each device on its own");
    }
    *device = run.device;
    Loaded c;
    NIMBLE_ASSIGN_OR_RETURN(c.sim.dag, analysis::Dag::FromOpGraph(graph));
    if (schedule->op_stream.size() != graph.ops.size()) {
      return DataLoss(where + ": the stored schedule has " + std::to_string(schedule->op_stream.size()) +
                      " ops, the graph " + std::to_string(graph.ops.size()));
    }
    c.sim.name = std::filesystem::path(path).filename().string() + " (" + run.inputs + ")";
    c.sim.workload = std::move(workload->workload);
    c.sim.multi = std::move(*schedule);
    c.sim.measured_ns = measured->first;
    c.sim.costs = measured->second;
    c.info = {path, run.model, run.inputs, c.sim.multi.num_streams, static_cast<int32_t>(c.sim.multi.syncs.size()), 0,
              Ns(MetricValue(metrics, "predicted_latency_ns").value_or(0))};
    c.info.precision = precision;
    NIMBLE_RETURN_IF_ERROR(AnchorCase(reader, runs, run, options.anchor, &c));
    out->push_back(std::move(c));
  }
  if (!any) skipped->push_back(path + ": no aot-multi run (record one with nimble-accelerate --db)");
  return OkStatus();
}

// Format 3's "crowding" and "knee": both numbers, crowding >= 0 and knee in [0, 1]; earlier formats lack them.
Status ReadCrowding(const std::string& path, int64_t format, const nlohmann::json& m, analysis::SharingModel* model) {
  const bool has = m.contains("crowding") || m.contains("knee");
  if (format < 3) {
    if (has) return DataLoss(path + ": format " + std::to_string(format) + " has no \"crowding\" or \"knee\"");
    return OkStatus();
  }
  if (!m.contains("crowding") || !m["crowding"].is_number() || !m.contains("knee") || !m["knee"].is_number()) {
    return DataLoss(path + ": \"model\" needs numbers \"crowding\" and \"knee\" (format 3)");
  }
  model->crowding = m["crowding"].get<double>();
  model->knee = m["knee"].get<double>();
  if (!(model->crowding >= 0 && model->crowding <= 10) || !(model->knee >= 0 && model->knee <= 1)) {
    return DataLoss(path + ": \"crowding\" must lie in [0, 10] and \"knee\" in [0, 1]");
  }
  return OkStatus();
}

nlohmann::json ModelJson(const analysis::SharingModel& m) {
  return {{"floor", m.floor},
          {"exponent", m.exponent},
          {"dispatch", std::string(analysis::DispatchName(m.dispatch))},
          {"crowding", m.crowding},
          {"knee", m.knee}};
}

// Each case predicted by the device's built-in model for its precision (a calibrated device always has a
// model for every precision: its own or the one fitted on all).
Status EvaluateBuiltIn(const std::vector<analysis::SharingCase>& cases, CalibrateResult* result) {
  std::optional<analysis::SharingModel> common = analysis::CalibratedSharing(result->device, result->precision);
  if (!common) return OkStatus();
  EvaluatedModel built_in{*common, {}, {}};
  for (size_t i = 0; i < cases.size(); ++i) {
    built_in.case_models.push_back(
        analysis::CalibratedSharing(result->device, result->cases[i].precision).value_or(*common));
    NIMBLE_ASSIGN_OR_RETURN(std::vector<int64_t> predicted,
                            analysis::PredictCases(std::span(&cases[i], 1), built_in.case_models.back()));
    built_in.predicted_ns.push_back(predicted.front());
  }
  result->built_in = std::move(built_in);
  return OkStatus();
}

}  // namespace

StatusOr<CalibrateResult> Calibrate(const CalibrateOptions& options) {
  if (options.databases.empty()) return InvalidArgument("calibrate needs at least one run database");
  CalibrateResult result;
  result.anchor = options.anchor;
  std::optional<analysis::SharingModel> compare;
  if (!options.compare.empty()) {
    NIMBLE_ASSIGN_OR_RETURN(compare, LoadCalibration(options.compare));  // a bad file fails before any reading
  }
  std::vector<Loaded> loaded;
  for (const std::string& path : options.databases) {
    NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<store::RunReader> reader, store::RunReader::Open(path));
    NIMBLE_RETURN_IF_ERROR(LoadCases(*reader, options, &loaded, &result.skipped, &result.device));
  }
  if (loaded.empty()) {
    std::string why = "no database holds a multi-stream run to calibrate on";
    for (const std::string& s : result.skipped) why += "; " + s;
    return FailedPrecondition(why);
  }
  std::vector<analysis::SharingCase> cases;
  result.precision = loaded.front().info.precision;
  for (Loaded& c : loaded) {
    if (c.info.precision != result.precision) result.precision = analysis::Precision::kUnknown;
    result.cases.push_back(std::move(c.info));
    cases.push_back(std::move(c.sim));
  }
  NIMBLE_ASSIGN_OR_RETURN(result.fit, analysis::FitSharing(cases));
  const std::string which =
      result.precision == analysis::Precision::kUnknown ? "" : ", " + std::string(analysis::PrecisionName(result.precision));
  result.fit.model.source =
      "calibrated on " + result.device + " (" + std::to_string(cases.size()) + " recorded cases" + which + ")";
  NIMBLE_RETURN_IF_ERROR(EvaluateBuiltIn(cases, &result));
  if (compare) {
    NIMBLE_ASSIGN_OR_RETURN(std::vector<int64_t> predicted, analysis::PredictCases(cases, *compare));
    result.compared = EvaluatedModel{std::move(*compare), std::move(predicted)};
  }
  if (!options.output.empty()) {
    // Whole or not at all: written to <output>.partial, renamed on Commit, removed otherwise.
    NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<ChromeOutputFile> file, ChromeOutputFile::Create(options.output));
    NIMBLE_RETURN_IF_ERROR(file->Write(CalibrationToJson(result).dump(2) + "\n"));
    NIMBLE_RETURN_IF_ERROR(file->Commit());
  }
  return result;
}

nlohmann::json CalibrationToJson(const CalibrateResult& r) {
  const bool held_out = r.cases.size() > 1;
  nlohmann::json cases = nlohmann::json::array();
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const CalibrationCase& c = r.cases[i];
    const analysis::SharingCaseResult& f = r.fit.cases[i];
    nlohmann::json evaluated = nlohmann::json::object();
    if (r.built_in) evaluated["built_in_ns"] = r.built_in->predicted_ns[i];
    if (r.compared) evaluated["compared_ns"] = r.compared->predicted_ns[i];
    cases.push_back({{"database", c.database},
                     {"model", c.model},
                     {"inputs", c.inputs},
                     {"streams", c.streams},
                     {"syncs", c.syncs},
                     {"single_measured_ns", c.single_measured_ns},
                     {"measured_ns", f.measured_ns},
                     {"stored_predicted_ns", c.stored_predicted_ns},
                     {"duration_scale", c.duration_scale},
                     {"precision", std::string(analysis::PrecisionName(c.precision))},
                     {"not_anchored", c.not_anchored.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.not_anchored)},
                     {"uncalibrated_ns", f.uncalibrated_ns},
                     {"fitted_ns", f.fitted_ns},
                     // One case has no others to fit on: no held-out model or prediction.
                     {"held_out_ns", held_out ? nlohmann::json(f.held_out_ns) : nlohmann::json(nullptr)},
                     {"held_out_model", held_out ? ModelJson(f.held_out_model) : nlohmann::json(nullptr)}});
    cases.back().update(evaluated);
  }
  nlohmann::json out = {{"format", kCalibrationFormat},
                        {"kind", "nimble-sharing-calibration"},
                        {"device", r.device},
                        {"model", ModelJson(r.fit.model)},
                        {"precision", std::string(analysis::PrecisionName(r.precision))},
                        {"anchored", r.anchor},
                        {"tolerance", r.fit.tolerance},
                        {"source", r.fit.model.source},
                        {"cases", std::move(cases)},
                        {"skipped", r.skipped}};
  auto evaluated = [](const EvaluatedModel& e) {
    nlohmann::json j = ModelJson(e.model);
    j["source"] = e.model.source;
    return j;
  };
  if (r.built_in) {
    out["built_in_model"] = evaluated(*r.built_in);
    nlohmann::json by_precision = nlohmann::json::object();  // the one each case was predicted with
    for (size_t i = 0; i < r.cases.size(); ++i) {
      by_precision[std::string(analysis::PrecisionName(r.cases[i].precision))] = ModelJson(r.built_in->case_models[i]);
    }
    out["built_in_models"] = std::move(by_precision);
  }
  if (r.compared) out["compared_model"] = evaluated(*r.compared);
  return out;
}

StatusOr<analysis::SharingModel> LoadCalibration(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return NotFound(path + ": no such file");
  if (!std::filesystem::is_regular_file(path, error)) {
    return FailedPrecondition(path + ": not a calibration file (not a regular file)");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return PermissionDenied(path + ": cannot be opened");
  nlohmann::json j = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return DataLoss(path + ": not a JSON object");
  if (!j.contains("kind") || !j["kind"].is_string() || j["kind"].get<std::string>() != "nimble-sharing-calibration") {
    return DataLoss(path + ": not a calibration file (its \"kind\" is not \"nimble-sharing-calibration\")");
  }
  if (!j.contains("format") || !j["format"].is_number_integer() || j["format"].get<int64_t>() < 1 ||
      j["format"].get<int64_t>() > kCalibrationFormat) {
    return DataLoss(path + ": calibration format " + (j.contains("format") ? j["format"].dump() : "missing") +
                    ", this build reads formats 1 to " + std::to_string(kCalibrationFormat));
  }
  const nlohmann::json& m = j.contains("model") ? j["model"] : nlohmann::json();
  if (!m.is_object() || !m.contains("floor") || !m["floor"].is_number() || !m.contains("exponent") ||
      !m["exponent"].is_number()) {
    return DataLoss(path + ": \"model\" needs numbers \"floor\" and \"exponent\"");
  }
  analysis::SharingModel model{m["floor"].get<double>(), m["exponent"].get<double>(), ""};
  if (j["format"].get<int64_t>() >= 2) {
    const std::optional<analysis::Dispatch> dispatch =
        m.contains("dispatch") && m["dispatch"].is_string() ? analysis::ParseDispatch(m["dispatch"].get<std::string>())
                                                            : std::nullopt;
    if (!dispatch) {
      return DataLoss(path + ": \"model\" needs \"dispatch\": \"shared\" or \"in-order\", not " +
                      (m.contains("dispatch") ? m["dispatch"].dump() : std::string("none")));
    }
    model.dispatch = *dispatch;
  } else if (m.contains("dispatch")) {
    return DataLoss(path + ": format 1 has no \"dispatch\" (written by a later build as format 2?)");
  }
  NIMBLE_RETURN_IF_ERROR(ReadCrowding(path, j["format"].get<int64_t>(), m, &model));
  if (!(model.floor >= 0 && model.floor <= 1) || !(model.exponent > 0 && model.exponent <= 1)) {
    return DataLoss(path + ": \"floor\" must lie in [0, 1] and \"exponent\" in (0, 1]");
  }
  const std::string device = j.contains("device") && j["device"].is_string() ? j["device"].get<std::string>() : "";
  // "precision" (optional): what the cases computed in; the model is used as it is, whatever it says.
  std::string precision;
  if (j.contains("precision")) {
    if (!j["precision"].is_string() || !analysis::ParsePrecision(j["precision"].get<std::string>())) {
      return DataLoss(path + ": \"precision\" must be \"unknown\", \"float32\" or \"half\", not " +
                      j["precision"].dump());
    }
    if (j["precision"].get<std::string>() != "unknown") precision = j["precision"].get<std::string>();
  }
  const std::string about = device + (!device.empty() && !precision.empty() ? ", " : "") + precision;
  model.source = "calibration file " + path + (about.empty() ? "" : " (" + about + ")");
  return model;
}

}  // namespace nimble::workflow

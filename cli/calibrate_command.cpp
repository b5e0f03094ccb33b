#include "calibrate_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "nimble/workflow/calibrate.h"

namespace nimble::cli {
namespace {

struct CalibrateArgs {
  workflow::CalibrateOptions options;
  bool json = false;
};

std::string Cell(int64_t predicted_ns, int64_t measured_ns) {
  char text[48];
  std::snprintf(text, sizeof(text), "%.3f (%+.1f%%)", static_cast<double>(predicted_ns) / 1e6,
                100 * analysis::RelativeError(predicted_ns, measured_ns));
  return text;
}

// The device's built-in models the cases were predicted with, one line per precision among them.
void PrintBuiltIn(std::ostream& out, const workflow::CalibrateResult& r) {
  std::vector<analysis::Precision> seen;
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const analysis::Precision p = r.cases[i].precision;
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    out << "built in (" << analysis::PrecisionName(p) << " cases): "
        << analysis::SharingModelText(r.built_in->case_models[i]) << "\n";
  }
}

void PrintCalibration(std::ostream& out, const workflow::CalibrateResult& r) {
  const analysis::SharingModel& m = r.fit.model;
  char head[288];
  char crowding[64] = "";
  if (m.crowded()) std::snprintf(crowding, sizeof(crowding), ", crowding %g below share %g", m.crowding, m.knee);
  std::snprintf(head, sizeof(head),
                "GPU sharing calibrated on %s from %zu recorded multi-stream replay%s: floor %g, exponent %g, %s "
                "dispatch%s%s\n",
                r.device.c_str(), r.cases.size(), r.cases.size() == 1 ? "" : "s", m.floor, m.exponent,
                std::string(analysis::DispatchName(m.dispatch)).c_str(), crowding,
                m.identity() ? " (no change helps)" : "");
  out << head << "effective share = floor + (1 - floor) * occupancy share ^ exponent (in-order: the share averaged over "
                 "the grid's waves, kernels served in the order they started; shared: all slow alike); crowding: a kernel "
                 "of share s < knee runs 1 + crowding * (1 - s / knee) times slower while another runs; latencies in ms, "
                 "error against measured; fitted: the fewest cases beyond +-10 %, then the least mean error\n";
  if (r.anchor) {
    double low = 0, high = 0;
    int anchored = 0;
    std::string not_anchored;
    for (size_t i = 0; i < r.cases.size(); ++i) {
      const workflow::CalibrationCase& c = r.cases[i];
      if (!c.not_anchored.empty()) {
        not_anchored += "; " + r.fit.cases[i].name + ": " + c.not_anchored;
        continue;
      }
      low = anchored == 0 ? c.duration_scale : std::min(low, c.duration_scale);
      high = anchored == 0 ? c.duration_scale : std::max(high, c.duration_scale);
      ++anchored;
    }
    char line[160];
    std::snprintf(line, sizeof(line), "kernel durations anchored on each case's single-stream replay: %d of %zu cases",
                  anchored, r.cases.size());
    out << line;
    if (anchored > 0) {
      std::snprintf(line, sizeof(line), ", x%.3f to x%.3f", low, high);
      out << line;
    }
    out << (not_anchored.empty() ? "" : "; as recorded") << not_anchored << "\n";
  } else {
    out << "kernel durations as recorded (--no-anchor)\n";
  }
  out << "\n";
  // The columns: the uncalibrated model, the built-in and compared ones where there are, the fit, held out.
  struct Column {
    std::string title;
    std::vector<int64_t> predicted_ns;
    double sum = 0;
    double worst = 0;
  };
  std::vector<Column> columns(1, Column{"uncalibrated", {}});
  if (r.built_in) columns.push_back({"built in", r.built_in->predicted_ns});
  if (r.compared) columns.push_back({"compared", r.compared->predicted_ns});
  const size_t fitted = columns.size();
  columns.push_back({"fitted", {}});
  const bool held_out = r.cases.size() > 1;  // one case has no others to fit on
  if (held_out) columns.push_back({"held out", {}});
  for (const analysis::SharingCaseResult& f : r.fit.cases) {
    columns[0].predicted_ns.push_back(f.uncalibrated_ns);
    columns[fitted].predicted_ns.push_back(f.fitted_ns);
    if (held_out) columns[fitted + 1].predicted_ns.push_back(f.held_out_ns);
  }
  char cell[320];  // a case name can be long
  std::snprintf(cell, sizeof(cell), "%-40s %7s %9s", "case", "streams", "measured");
  out << cell;
  for (const Column& c : columns) {
    std::snprintf(cell, sizeof(cell), " %17s", c.title.c_str());
    out << cell;
  }
  out << "\n";
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const analysis::SharingCaseResult& f = r.fit.cases[i];
    std::snprintf(cell, sizeof(cell), "%-40s %7d %9.3f", f.name.c_str(), r.cases[i].streams,
                  static_cast<double>(f.measured_ns) / 1e6);
    out << cell;
    for (Column& c : columns) {
      std::snprintf(cell, sizeof(cell), " %17s", Cell(c.predicted_ns[i], f.measured_ns).c_str());
      out << cell;
      const double e = std::abs(analysis::RelativeError(c.predicted_ns[i], f.measured_ns));
      c.sum += e;
      c.worst = std::max(c.worst, e);
    }
    out << "\n";
  }
  const double n = static_cast<double>(r.cases.size());
  for (const bool mean : {true, false}) {
    std::snprintf(cell, sizeof(cell), "%-40s %7s %9s", mean ? "mean |error|" : "largest |error|", "", "");
    out << cell;
    for (const Column& c : columns) {
      std::snprintf(cell, sizeof(cell), " %16.1f%%", 100 * (mean ? c.sum / n : c.worst));
      out << cell;
    }
    out << "\n";
  }
  out << "\n";
  if (r.built_in) PrintBuiltIn(out, r);
  if (r.compared) out << "compared: " << analysis::SharingModelText(r.compared->model) << "\n";
  out << (held_out ? "held out: each case predicted by the model fitted on the other cases alone\n"
                   : "held out: not shown, a single case has no others to fit on\n");
}

int RunCalibrateCommand(const CalibrateArgs& args) {
  auto result = workflow::Calibrate(args.options);
  if (!result.ok()) return ReportError(result.status());
  if (args.json) {
    std::cout << workflow::CalibrationToJson(*result).dump(2) << "\n";
  } else {
    PrintCalibration(std::cout, *result);
    if (!args.options.output.empty()) std::cout << "wrote " << args.options.output << "\n";
  }
  for (const std::string& s : result->skipped) std::cerr << "nimble-prof: warning: skipped " << s << "\n";
  return kExitOk;
}

}  // namespace

void RegisterCalibrateCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("calibrate", "Fit how concurrent kernels share the GPU to multi-stream replays "
                                              "recorded by nimble-accelerate --db, for the prediction");
  auto args = std::make_shared<CalibrateArgs>();
  cmd->add_option("databases", args->options.databases, "run databases written by nimble-accelerate --db")
      ->required();
  cmd->add_option("-o,--output", args->options.output,
                  "calibration file to write (nimble-accelerate --calibration FILE reads it)");
  cmd->add_option("--compare", args->options.compare,
                  "a calibration file (calibrate -o) whose model also predicts every case, as it is");
  cmd->add_flag("--no-anchor", [args](int64_t) { args->options.anchor = false; },
                "predict each case from its kernels as recorded, not anchored on its single-stream replay (as "
                "nimble-accelerate predicted before 2026-11-28)");
  cmd->add_option_function<std::string>(
         "--precision",
         [args](const std::string& name) { args->options.precision = analysis::ParsePrecision(name); },
         "fit only the cases of models computing in this precision (as nimble-accelerate stored it, else from "
         "their inputs' dtypes), as the H200's float32 and half models were fitted")
      ->check(CLI::IsMember({"float32", "half", "unknown"}));
  cmd->add_flag("--json", args->json, "print JSON instead of the table");
  cmd->callback([&action, args] { action = [args] { return RunCalibrateCommand(*args); }; });
}

}  // namespace nimble::cli

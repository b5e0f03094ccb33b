#include "calibrate_command.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

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

void PrintCalibration(std::ostream& out, const workflow::CalibrateResult& r) {
  const analysis::SharingModel& m = r.fit.model;
  char head[224];
  std::snprintf(head, sizeof(head),
                "GPU sharing calibrated on %s from %zu recorded multi-stream replays: floor %g, exponent %g, %s "
                "dispatch%s\n",
                r.device.c_str(), r.cases.size(), m.floor, m.exponent, std::string(analysis::DispatchName(m.dispatch)).c_str(),
                m.identity() ? " (no change helps)" : "");
  out << head << "effective share = floor + (1 - floor) * occupancy share ^ exponent (in-order: the share averaged over "
                 "the grid's waves, kernels served in the order they started; shared: all slow alike); latencies in ms, "
                 "error against measured\n\n";
  char line[256];
  std::snprintf(line, sizeof(line), "%-40s %7s %9s %17s %17s %17s\n", "case", "streams", "measured", "uncalibrated",
                "fitted", "held out");
  out << line;
  double sum[3] = {0, 0, 0};
  double worst[3] = {0, 0, 0};
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const analysis::SharingCaseResult& f = r.fit.cases[i];
    std::snprintf(line, sizeof(line), "%-40s %7d %9.3f %17s %17s %17s\n", f.name.c_str(), r.cases[i].streams,
                  static_cast<double>(f.measured_ns) / 1e6, Cell(f.uncalibrated_ns, f.measured_ns).c_str(),
                  Cell(f.fitted_ns, f.measured_ns).c_str(), Cell(f.held_out_ns, f.measured_ns).c_str());
    out << line;
    const int64_t predicted[3] = {f.uncalibrated_ns, f.fitted_ns, f.held_out_ns};
    for (int k = 0; k < 3; ++k) {
      const double e = std::abs(analysis::RelativeError(predicted[k], f.measured_ns));
      sum[k] += e;
      worst[k] = std::max(worst[k], e);
    }
  }
  const double n = static_cast<double>(r.cases.size());
  std::snprintf(line, sizeof(line), "%-40s %7s %9s %16.1f%% %16.1f%% %16.1f%%\n", "mean |error|", "", "", 100 * sum[0] / n,
                100 * sum[1] / n, 100 * sum[2] / n);
  out << line;
  std::snprintf(line, sizeof(line), "%-40s %7s %9s %16.1f%% %16.1f%% %16.1f%%\n", "largest |error|", "", "",
                100 * worst[0], 100 * worst[1], 100 * worst[2]);
  out << line;
  out << "\nheld out: each case predicted by the model fitted on the other cases alone\n";
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
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args->options.output,
                  "calibration file to write (nimble-accelerate --calibration FILE reads it)");
  cmd->add_flag("--json", args->json, "print JSON instead of the table");
  cmd->callback([&action, args] { action = [args] { return RunCalibrateCommand(*args); }; });
}

}  // namespace nimble::cli

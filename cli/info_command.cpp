#include "info_command.h"

#include <iomanip>
#include <iostream>
#include <memory>

#include "nimble/store/run_database.h"
#include "nimble/workflow/info.h"

namespace nimble::cli {
namespace {

int RunInfoCommand(const std::string& path) {
  auto db = store::RunDatabase::Open(path, store::Access::kRead);
  if (!db.ok()) return ReportError(db.status());
  auto info = workflow::Info(**db);
  if (!info.ok()) return ReportError(info.status());
  const std::vector<RunInfo>* runs = &info->runs;
  const std::vector<store::TableCount>* counts = &info->tables;

  std::cout << path << ": schema version " << info->schema_version << ", " << runs->size() << " run(s)\n\n";
  std::cout << std::left << std::setw(5) << "run" << std::setw(12) << "mode" << std::setw(8) << "iters"
            << std::setw(16) << "inputs" << std::setw(28) << "device" << "model\n";
  for (const RunInfo& r : *runs) {
    std::cout << std::left << std::setw(5) << r.id.value() << std::setw(12) << RunModeName(r.mode) << std::setw(8)
              << r.iterations << std::setw(16) << (r.inputs.empty() ? "-" : r.inputs) << std::setw(28)
              << (r.device.empty() ? "-" : r.device) << r.model << "\n";
  }
  std::cout << "\n" << std::left << std::setw(40) << "table" << std::right << std::setw(12) << "rows" << "\n";
  for (const store::TableCount& c : *counts) {
    std::cout << std::left << std::setw(40) << (c.view ? c.table + " (view)" : c.table) << std::right << std::setw(12)
              << c.rows << "\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterInfoCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("info", "List the runs in a run database and the size of every table");
  auto path = std::make_shared<std::string>();
  cmd->add_option("database", *path, "run database (run.db)")->required();
  cmd->callback([&action, path] { action = [path] { return RunInfoCommand(*path); }; });
}

}  // namespace nimble::cli

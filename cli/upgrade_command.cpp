#include "upgrade_command.h"

#include <iostream>
#include <memory>

#include "nimble/workflow/upgrade.h"

namespace nimble::cli {

void RegisterUpgradeCommand(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("upgrade", "Upgrade a run database written by an older Nimble to this schema, in place");
  auto path = std::make_shared<std::string>();
  cmd->add_option("database", *path, "run database (run.db)")->required();
  cmd->callback([&action, path] {
    action = [path] {
      auto upgraded = workflow::Upgrade(*path);
      if (!upgraded.ok()) return ReportError(upgraded.status());
      if (upgraded->from == upgraded->to) {
        std::cout << *path << ": already at schema " << upgraded->to;
      } else {
        std::cout << *path << ": upgraded from schema " << upgraded->from << " to " << upgraded->to;
      }
      std::cout << "; " << upgraded->sealed_runs << " run(s) sealed with content digests\n";
      return kExitOk;
    };
  });
}

}  // namespace nimble::cli

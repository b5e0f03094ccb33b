// The info workflow: what a run database holds — its schema version, its runs and the size of every
// table — read through one open database. One thread.
#pragma once

#include <string>
#include <vector>

#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/store/run_database.h"

namespace nimble::workflow {

struct InfoResult {
  std::string path;
  int schema_version = 0;
  std::vector<RunInfo> runs;
  std::vector<store::TableCount> tables;
};

StatusOr<InfoResult> Info(const store::RunDatabase& db);

}  // namespace nimble::workflow

// The upgrade workflow: a run database of an older schema brought to this build's in place, all
// migrations in one transaction (the file is unchanged if any fails), after every run has passed the
// reader's checks; then runs without content digests are sealed (their content becomes the reference
// later reads verify). Reading never upgrades.
#pragma once

#include <string>

#include "nimble/core/status.h"

namespace nimble::workflow {

struct UpgradeResult {
  int from = 0;  // schema before
  int to = 0;    // schema after (this build's)
  int sealed_runs = 0;  // runs that got content digests
};

StatusOr<UpgradeResult> Upgrade(const std::string& path);

}  // namespace nimble::workflow

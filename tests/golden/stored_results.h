// The golden cases' own steps on what `nimble-prof report` stores: clear it first, so that a storing
// report that stores nothing cannot pass on results already in the sample database, and print it
// afterwards as text, so that the stored values are pinned like any other output.
#pragma once

#include <string>

#include "nimble/core/status.h"

namespace nimble::golden {

// Replaces every run's stored metrics and speedups by none and a stored stream assignment by an
// empty one (0 streams: the store has no call that removes one).
Status ClearStoredResults(const std::string& db);

// Every run's stored metrics, speedups and stream assignment, one item a line; numbers are written
// in their shortest exact form, so that a change in the last digit shows.
StatusOr<std::string> DescribeStoredResults(const std::string& db);

}  // namespace nimble::golden

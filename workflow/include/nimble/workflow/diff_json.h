// The JSON form of a run diff: the same figures as `nimble-prof diff` prints, raw nanoseconds, stable
// keys for scripts (CI gates read "total.iteration.significant" and "gate.failed"). The one JSON writer
// behind `nimble-prof diff --json`. Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "nimble/workflow/diff.h"

namespace nimble::workflow {

// {"base": side, "new": side, "rule": {...}, "total": {...}, "idle_by_cause": {...}, "kernels": [...],
//  "ops": [...] or null, "warnings": [...]}, and "gate" when `gate` is given.
nlohmann::json DiffResultToJson(const DiffResult& result, const RegressionGate* gate = nullptr);

}  // namespace nimble::workflow

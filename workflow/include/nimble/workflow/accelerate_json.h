// The JSON form of an accelerate result: every figure of `nimble-accelerate`'s table (measured and
// predicted latencies per mode, streams, syncs, output error, peak memory), the assignments, the choice
// and its reason, raw milliseconds and bytes under stable keys. The one writer behind
// `nimble-accelerate --json` and the Python package's AccelerateReport. Pure function.
#pragma once

#include <nlohmann/json.hpp>

#include "nimble/workflow/accelerate.h"

namespace nimble::workflow {

nlohmann::json AccelerateResultToJson(const AccelerateResult& result);

}  // namespace nimble::workflow

// The stats a model-profiling run stores beside the collector's own: attribution counts, whether the
// node-by-node run matched the model's forward, TF32, and the latencies measured. Private; pure.
#pragma once

#include <vector>

#include "nimble/core/run.h"
#include "nimble/workflow/profile_model.h"

namespace nimble::workflow {

std::vector<StatEntry> ProfileStats(const ProfileOptions& options, const std::vector<StatEntry>& collector_stats,
                                    const ProfileMeasurements& measured);

}  // namespace nimble::workflow

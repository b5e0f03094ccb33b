// Storing the accelerate workflow's results: runs "aot-single" and "aot-multi" (the captured ones),
// each with the graph, its assignment, metrics and speedups relative to the libtorch baseline, added
// to the run database; a mode whose replays were recorded is stored with its records. Private to the
// workflow; one thread.
#pragma once

#include <memory>
#include <vector>

#include "nimble/core/op_graph.h"
#include "nimble/store/run_database.h"
#include "nimble/workflow/accelerate.h"
#include "replay_recording.h"

namespace nimble::workflow {

// Fills result.stored_runs and result.recorded_runs. Modes without a recording are added to `db` as
// result runs; the recorded ones are then written as runs of their own with one writer each, after
// `db` is closed (reset), so that one connection writes the file at a time.
Status StoreResults(std::unique_ptr<store::RunDatabase>& db, AccelerateResult& result, const OpGraph& graph,
                    const std::vector<ReplayRecording>& recordings);

}  // namespace nimble::workflow

// Storing the accelerate workflow's results: runs "aot-single" and "aot-multi" (the captured ones),
// each with the graph, its assignment, metrics and speedups relative to the libtorch baseline, added
// to the open run database. Private to the workflow; one thread.
#pragma once

#include "nimble/core/op_graph.h"
#include "nimble/store/run_database.h"
#include "nimble/workflow/accelerate.h"

namespace nimble::workflow {

// Fills result.stored_runs.
Status StoreResults(store::RunDatabase& db, AccelerateResult& result, const OpGraph& graph);

}  // namespace nimble::workflow

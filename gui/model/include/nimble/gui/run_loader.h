// Loads runs for the viewer through store::TimelineReader (compact rows, kernels read by two threads
// over halves of the kernel index) and analysis (gap causes, critical path, stream assignment).
// Blocking: call it on a worker thread. Progress is reported on the calling thread only; `cancel`
// may be set from any thread and stops the load at the next batch with an error.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/gui/loaded_run.h"

namespace nimble::gui {

// fraction in [0, 1] of the whole load, and what is being done.
using ProgressFn = std::function<void(double fraction, std::string_view stage)>;

struct LoadOptions {
  int kernel_threads = 2;        // readers of the kernel table, each over a share of the kernel index
  int64_t min_kernels_per_thread = 200'000;  // below this a second reader costs more than it saves
  size_t longest_gaps = 200;     // longest gaps kept per device for the table
  bool diff_samples = false;     // also sample the run for a run diff (compare mode; reads the whole trace)
  ProgressFn progress;           // may be empty
  const std::atomic<bool>* cancel = nullptr;
};

// The runs of a database, in id order. Errors name the file ("not a Nimble run database", "written by
// a newer Nimble", ...).
StatusOr<std::vector<RunInfo>> ListRuns(const std::string& path);

StatusOr<LoadedRun> LoadRun(const std::string& path, RunId run, const LoadOptions& options = {});

}  // namespace nimble::gui

// The open database of one loaded run, kept so that full records (a kernel's details) are read through
// the reader that loaded the run rather than by reopening the file. The loader opens it on its worker
// thread and hands it over when the load ends, never touching it again; after that the UI thread and
// worker tasks may call it. store::TimelineReader allows one thread at a time: calls take a mutex.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "nimble/core/activity.h"
#include "nimble/core/ids.h"
#include "nimble/core/status.h"
#include "nimble/core/string_table.h"
#include "nimble/store/timeline_reader.h"

namespace nimble::gui {

class RunRecords {
 public:
  RunRecords(std::unique_ptr<store::TimelineReader> reader, RunId run);

  // The full record of one of the run's kernels; NotFound when it has no such kernel. Its StringIds
  // index strings().
  StatusOr<KernelRecord> LoadKernel(KernelIndex kernel) const;

  // Read when the file was opened and never changed since: no lock needed.
  const StringTable& strings() const { return reader_->strings(); }
  const std::string& path() const { return reader_->path(); }

 private:
  mutable std::mutex mutex_;  // guards reader_'s connection
  std::unique_ptr<store::TimelineReader> reader_;
  RunId run_;
};

}  // namespace nimble::gui

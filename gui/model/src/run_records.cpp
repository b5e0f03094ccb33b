#include "nimble/gui/run_records.h"

#include <utility>

namespace nimble::gui {

RunRecords::RunRecords(std::unique_ptr<store::TimelineReader> reader, RunId run)
    : reader_(std::move(reader)), run_(run) {}

StatusOr<KernelRecord> RunRecords::LoadKernel(KernelIndex kernel) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return reader_->LoadKernel(run_, kernel);
}

}  // namespace nimble::gui

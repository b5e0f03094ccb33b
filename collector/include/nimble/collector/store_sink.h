// A RecordSink that writes into a run database through nimble::store::RunWriter: chunks are appended
// as they come (the writer batches them into transactions), and Finish() adds devices, stats and the
// iteration count, then commits. Until the commit a new database is only "<path>.partial".
// Threading rule: one thread (the pipeline's) calls Consume/Finish; after a failed call the sink
// keeps counting what it could not store, so that the loss shows in the stats.
#pragma once

#include <memory>
#include <string>

#include "nimble/collector/record_sink.h"
#include "nimble/core/run.h"
#include "nimble/store/run_writer.h"

namespace nimble::collector {

class StoreSink : public RecordSink {
 public:
  // Starts a run in `path` (fills run.id). Fails when the path cannot be written.
  static StatusOr<std::unique_ptr<StoreSink>> Create(const std::string& path, RunInfo run);

  Status Consume(const ActivityChunk& chunk, const StringTable& strings) override;
  Status Finish(const SessionSummary& summary, const StringTable& strings) override;

  const RunInfo& run() const { return run_; }
  int64_t records_lost() const { return records_lost_; }

 private:
  StoreSink(std::unique_ptr<store::RunWriter> writer, RunInfo run);
  Status Append(const ActivityChunk& chunk, const StringTable& strings);

  std::unique_ptr<store::RunWriter> writer_;
  RunInfo run_;
  Status first_error_;
  int64_t records_lost_ = 0;
};

}  // namespace nimble::collector

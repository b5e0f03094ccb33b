// A RecordSink that gathers everything into an in-memory Trace: for in-process use (a caller that
// analyses its own run) and for tests. The trace is complete once Finish() has returned.
// Threading rule: filled by the pipeline thread; read trace() only after the session stopped.
#pragma once

#include <vector>

#include "nimble/collector/record_sink.h"
#include "nimble/core/trace.h"

namespace nimble::collector {

class TraceSink : public RecordSink {
 public:
  Status Consume(const ActivityChunk& chunk, const StringTable& strings) override;
  Status Finish(const SessionSummary& summary, const StringTable& strings) override;

  const Trace& trace() const { return trace_; }
  const SessionSummary& summary() const { return summary_; }
  bool finished() const { return finished_; }

 private:
  Trace trace_;
  SessionSummary summary_;
  bool finished_ = false;
};

}  // namespace nimble::collector

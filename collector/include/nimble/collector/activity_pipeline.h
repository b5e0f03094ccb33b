// Moves completed CUPTI buffers off CUPTI's thread: Submit() only queues the buffer; a pipeline
// thread converts it (RecordConverter), hands the chunk to the sink and recycles the buffer. So the
// buffer-completed callback never waits on conversion or SQLite. The queue is bounded by the
// BufferPool's cap: at most max_buffers exist.
// Threading rule: Submit() from any thread; Start/Finish from the owning thread, once each.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "nimble/collector/buffer_pool.h"
#include "nimble/collector/device_properties.h"
#include "nimble/collector/record_converter.h"
#include "nimble/collector/record_sink.h"

namespace nimble::collector {

class ActivityPipeline {
 public:
  ActivityPipeline(RecordSink& sink, BufferPool& pool, ConverterOptions options);
  ~ActivityPipeline();
  ActivityPipeline(const ActivityPipeline&) = delete;
  ActivityPipeline& operator=(const ActivityPipeline&) = delete;

  void Start();
  // Queues a buffer CUPTI completed (`valid_bytes` of records); the pipeline releases it to the pool.
  void Submit(uint8_t* buffer, size_t valid_bytes);
  // Converts everything queued, joins the thread, and finishes the sink with the converter's stats
  // merged into `stats` (buffer-side counts the session kept) plus `extra` entries.
  Status Finish(CollectorStats stats, std::vector<StatEntry> extra, std::vector<DeviceDescription> devices);

  // Records converted so far (for progress; racy by design, read from any thread).
  int64_t records_converted() const;

 private:
  struct Pending {
    uint8_t* buffer;
    size_t valid_bytes;
  };
  void Run();
  void Process(const Pending& pending);
  SessionSummary Summarize(const CollectorStats& buffer_stats, std::vector<StatEntry> extra,
                           const std::vector<DeviceDescription>& devices);

  RecordSink& sink_;
  BufferPool& pool_;
  RecordConverter converter_;
  ActivityChunk chunk_;
  Status sink_status_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  int64_t records_converted_ = 0;
  std::thread thread_;
};

}  // namespace nimble::collector

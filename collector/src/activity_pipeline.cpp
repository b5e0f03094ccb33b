#include "nimble/collector/activity_pipeline.h"

namespace nimble::collector {

ActivityPipeline::ActivityPipeline(RecordSink& sink, BufferPool& pool, ConverterOptions options)
    : sink_(sink), pool_(pool), converter_(std::move(options)) {}

ActivityPipeline::~ActivityPipeline() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ActivityPipeline::Start() { thread_ = std::thread([this] { Run(); }); }

void ActivityPipeline::Submit(uint8_t* buffer, size_t valid_bytes) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(Pending{buffer, valid_bytes});
  }
  cv_.notify_one();
}

int64_t ActivityPipeline::records_converted() const {
  std::lock_guard lock(mu_);
  return records_converted_;
}

void ActivityPipeline::Run() {
  while (true) {
    Pending next{};
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything submitted has been converted
      next = queue_.front();
      queue_.pop_front();
    }
    Process(next);
  }
}

void ActivityPipeline::Process(const Pending& pending) {
  const int64_t records = converter_.ConvertBuffer(pending.buffer, pending.valid_bytes, chunk_);
  pool_.Release(pending.buffer);
  if (!chunk_.empty()) {
    if (!sink_status_.ok()) {
      // The sink failed before: count what it cannot take instead of retrying on a broken writer.
      converter_.mutable_stats().records_lost_in_sink += static_cast<int64_t>(chunk_.size());
    } else if (Status s = sink_.Consume(chunk_, converter_.strings()); !s.ok()) {
      sink_status_ = s;
      converter_.mutable_stats().records_lost_in_sink += static_cast<int64_t>(chunk_.size());
    }
    chunk_.clear();
  }
  std::lock_guard lock(mu_);
  records_converted_ += records;
}

Status ActivityPipeline::Finish(CollectorStats buffer_stats, std::vector<StatEntry> extra,
                                std::vector<DeviceDescription> devices) {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  } else {
    while (true) {  // never started: convert on this thread
      Pending next{};
      {
        std::lock_guard lock(mu_);
        if (queue_.empty()) break;
        next = queue_.front();
        queue_.pop_front();
      }
      Process(next);
    }
  }
  converter_.Finish();
  const SessionSummary summary = Summarize(buffer_stats, std::move(extra), devices);
  const Status finished = sink_.Finish(summary, converter_.strings());
  return sink_status_.ok() ? finished : sink_status_;
}

SessionSummary ActivityPipeline::Summarize(const CollectorStats& buffer_stats, std::vector<StatEntry> extra,
                                           const std::vector<DeviceDescription>& devices) {
  CollectorStats stats = converter_.stats();
  stats.buffers_refused = buffer_stats.buffers_refused;
  stats.peak_buffers_outstanding = buffer_stats.peak_buffers_outstanding;
  stats.cupti_dropped_records = buffer_stats.cupti_dropped_records;
  SessionSummary summary;
  summary.stats = stats.ToEntries();
  for (StatEntry& e : extra) summary.stats.push_back(std::move(e));
  for (const DeviceDescription& d : devices) {
    DeviceInfo info = d.info;
    info.name = converter_.mutable_strings().Intern(d.name);
    summary.devices.push_back(info);
  }
  summary.iterations = static_cast<int32_t>(stats.iterations);
  return summary;
}

}  // namespace nimble::collector

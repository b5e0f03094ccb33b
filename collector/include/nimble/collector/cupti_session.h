// A CUPTI Activity API session: enables the chosen activity kinds, feeds CUPTI fixed-size buffers
// from a capped pool, hands completed buffers to an ActivityPipeline (conversion and storage off
// CUPTI's thread), and on Stop() forces a flush, counts dropped records, reads device properties and
// finishes the sink. At most one session per process (CUPTI's buffer callbacks are process-wide, and
// a process has one CUPTI callback subscriber, which the session owns when it needs one: NVTX range
// callbacks for a capture range, the driver's end of initialisation for hardware kernel timestamps).
// Threading rule: Start/Stop from one thread; CUPTI calls back on its own and on application threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nimble/collector/activity_kinds.h"
#include "nimble/collector/activity_pipeline.h"
#include "nimble/collector/buffer_pool.h"
#include "nimble/collector/record_sink.h"
#include "nimble/core/status.h"

struct CUpti_Subscriber_st;  // CUpti_SubscriberHandle, without CUPTI's headers here

namespace nimble::collector {

class CaptureGate;

struct SessionOptions {
  ActivityKindSet kinds = ActivityKindSet::All();
  size_t buffer_bytes = size_t{4} << 20;  // per CUPTI buffer: ~19k kernel records
  int32_t max_buffers = 64;               // cap on buffers outstanding (256 MiB at the default size)
  std::string iteration_range;            // NVTX range name counted as iterations
  std::chrono::milliseconds start_delay{0};
  std::string capture_range;              // capture only while an NVTX range of this name is open
  GraphTrace graph_trace = GraphTrace::kNode;  // records per graph node, or one per graph launch
  KernelTimestamps kernel_timestamps = KernelTimestamps::kSoftware;  // hardware: where CUPTI offers it
  // Detach CUPTI from the process once stopped (cuptiFinalize), so that the program's later work runs
  // uninstrumented; the stat collector.cupti_left_attached says whether it did not.
  bool detach_at_stop = false;
};

class CuptiSession {
 public:
  // Starts collecting into `sink`, which must outlive the session.
  static StatusOr<std::unique_ptr<CuptiSession>> Start(SessionOptions options, RecordSink& sink);
  // Stops (ignoring the result) if Stop() was not called.
  ~CuptiSession();
  CuptiSession(const CuptiSession&) = delete;
  CuptiSession& operator=(const CuptiSession&) = delete;

  // Flushes everything CUPTI holds, finishes the sink with stats, devices and `extra` stats, and
  // returns the sink's result. Only the first call does the work; later calls return its result.
  Status Stop(std::vector<StatEntry> extra = {});

  const SessionOptions& options() const { return options_; }

  // Called by the file-local CUPTI trampolines in cupti_session.cpp only.
  void OnBufferRequested(uint8_t** buffer, size_t* size);
  void OnBufferCompleted(uint8_t* buffer, size_t valid_bytes);
  void OnNvtxCallback(uint32_t cbid, const void* data);
  void OnDriverInitialized();

 private:
  CuptiSession(SessionOptions options, RecordSink& sink);
  Status Begin();
  Status SetGatedKinds(bool enable);
  void OnCaptureChange(bool capturing);
  void CountDropped();
  void NoteError(const Status& status);
  Status Subscribe(bool nvtx_ranges, bool driver_init);
  void Unsubscribe();
  bool ResolveHardwareTimestamps();  // false while CUPTI cannot answer yet
  bool EndHardwareRequest();         // closes a pending request; whether hardware timestamps are on
  void AddTimestampStats(std::vector<StatEntry>& extra);

  // Hardware kernel timestamps: CUPTI answers only once the driver has initialised, so a request made
  // before that stays pending until CUPTI_CBID_RESOURCE_CU_INIT_FINISHED.
  enum class HardwareTimestamps : uint8_t { kNotRequested, kPending, kOn, kRefused };

  SessionOptions options_;
  BufferPool pool_;
  ActivityPipeline pipeline_;
  std::unique_ptr<CaptureGate> gate_;
  std::atomic<int64_t> cupti_dropped_{0};
  bool kinds_enabled_ = false;  // the gated kinds; switched only under the gate's lock or after it stopped
  CUpti_Subscriber_st* subscriber_ = nullptr;
  std::mutex hardware_mu_;
  HardwareTimestamps hardware_ = HardwareTimestamps::kNotRequested;
  std::string hardware_refusal_;  // CUPTI's answer when kRefused
  std::mutex error_mu_;
  int64_t cupti_errors_ = 0;  // failed CUPTI calls after Start (counted into the stats)
  std::string first_error_;
  std::mutex stop_mu_;
  bool stopped_ = false;
  Status stop_status_;
};

}  // namespace nimble::collector

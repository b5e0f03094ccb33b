// Decides when a session captures: after an optional start delay, and, with a capture range, only
// while an NVTX range of that name is open on some thread (watched through CUPTI's NVTX callbacks,
// which need NVTX_INJECTION64_PATH = libcupti; the session owns the one CUPTI subscriber a process may
// have and hands them to OnNvtx). Calls `on_change(capturing)` whenever that flips.
// Thread-safe: NVTX callbacks arrive on application threads, the delay fires on the gate's thread;
// on_change is called under the gate's lock, so calls are serialized. Private to the collector.
#pragma once

#include <cupti.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <unordered_set>

#include "nimble/core/status.h"

namespace nimble::collector {

class CaptureGate {
 public:
  using OnChange = std::function<void(bool capturing)>;

  CaptureGate(std::chrono::milliseconds start_delay, std::string capture_range, OnChange on_change);
  ~CaptureGate();
  CaptureGate(const CaptureGate&) = delete;
  CaptureGate& operator=(const CaptureGate&) = delete;

  // Whether to capture from the start (no delay and no capture range).
  bool capturing_at_start() const { return start_delay_.count() <= 0 && capture_range_.empty(); }
  // Whether it needs the NVTX range callbacks RangeCallbacks() lists (it has a capture range).
  bool watches_ranges() const { return !capture_range_.empty(); }
  static std::span<const CUpti_CallbackId> RangeCallbacks();
  // Arms the delay timer.
  Status Start();
  // Stops watching; no on_change call happens after it returns. Idempotent.
  void Stop();
  // One NVTX callback (domain CUPTI_CB_DOMAIN_NVTX) from the session's subscriber; ignored after Stop().
  void OnNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data);

 private:
  void OnRangeEvent(CUpti_CallbackId cbid, const void* params, const void* return_value);
  void Update();  // with mu_ held

  const std::chrono::milliseconds start_delay_;
  const std::string capture_range_;
  OnChange on_change_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool delay_elapsed_ = false;
  int64_t open_ranges_ = 0;                      // capture-range instances open right now
  std::unordered_set<uint64_t> open_start_ids_;  // nvtxRangeStart ids of open capture ranges
  bool capturing_ = false;
  bool stopped_ = false;
  std::thread delay_thread_;
};

}  // namespace nimble::collector

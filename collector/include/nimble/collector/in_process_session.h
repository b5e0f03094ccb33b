// In-process profiling of a program's own GPU work (nimble-prof model.pt): a CUPTI session into memory,
// external correlation ids pushed around units of work, timestamps on the records' clock. CUPTI-free
// header. One session per process, never alongside torch.profiler. Threading rule: Start/Stop from one
// thread; Push/Pop on the thread that launches the work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/collector/activity_kinds.h"
#include "nimble/core/run.h"
#include "nimble/core/status.h"
#include "nimble/core/trace.h"

namespace nimble::collector {

// ExternalCorrelation::external_kind of the ids pushed by PushExternalId (CUPTI's CUSTOM0 kind).
inline constexpr int32_t kPushedCorrelationKind = 3;

struct InProcessOptions {
  // Kernels and copies for the timeline, API and sync records for the causes of idle gaps, external
  // correlation for attribution. NVTX needs NVTX_INJECTION64_PATH, which an in-process caller lacks.
  // Every API call is recorded, though most are not launches: recording launches only, through
  // CUPTI 13.0's per-call switches (cuptiActivityEnableRuntimeApi), left every kernel of a torch
  // process unattributed (H100, 2026-11-21).
  ActivityKindSet kinds = DefaultKinds();
  size_t buffer_bytes = size_t{4} << 20;
  int32_t max_buffers = 64;

  static ActivityKindSet DefaultKinds() {
    ActivityKindSet kinds = ActivityKindSet::All();
    kinds.erase(ActivityKind::kNvtx);
    kinds.erase(ActivityKind::kOverhead);
    return kinds;
  }
};

// What a session recorded: the trace (strings, devices and every record) and the collector's stats.
struct InProcessRecording {
  Trace trace;
  std::vector<StatEntry> stats;
};

class InProcessSession {
 public:
  // Fails with FailedPrecondition when two different libcupti files are mapped into the process (the
  // collector and the framework must share one), or when another session is active; Unavailable when
  // CUPTI refuses (no device, no permission).
  static StatusOr<std::unique_ptr<InProcessSession>> Start(InProcessOptions options = {});
  // Stops, discarding the recording, if Stop() was not called.
  ~InProcessSession();
  InProcessSession(const InProcessSession&) = delete;
  InProcessSession& operator=(const InProcessSession&) = delete;

  // GPU work this thread launches until the matching Pop carries `external_id` (any value but 0).
  Status PushExternalId(uint64_t external_id);
  Status PopExternalId();
  // Now, on the clock of the activity records (cuptiGetTimestamp).
  StatusOr<int64_t> NowNs() const;

  // Flushes and stops; the recording holds every record with `extra` added to the stats. Once only.
  StatusOr<InProcessRecording> Stop(std::vector<StatEntry> extra = {});

  // The libcupti files mapped into this process, as /proc/self/maps names them (canonical paths).
  static std::vector<std::string> MappedCuptiLibraries();

 private:
  struct Impl;
  explicit InProcessSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nimble::collector

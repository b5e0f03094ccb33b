// Helpers for the analysis tests: hand-built activity records for synthetic timelines (times in ns).
#pragma once

#include "nimble/core/trace.h"

namespace nimble::analysis::testing {

inline KernelRecord Kernel(int64_t start_ns, int64_t end_ns, int64_t stream = 7, int64_t correlation = -1,
                           int32_t device = 0) {
  KernelRecord k;
  k.start_ns = start_ns;
  k.end_ns = end_ns;
  k.device = DeviceId(device);
  k.stream = StreamId(stream);
  k.correlation = CorrelationId(correlation);
  k.grid = {1, 1, 1};
  k.block = {128, 1, 1};
  return k;
}

inline ApiCallRecord LaunchCall(int64_t start_ns, int64_t end_ns, int64_t correlation) {
  ApiCallRecord a;
  a.start_ns = start_ns;
  a.end_ns = end_ns;
  a.correlation = CorrelationId(correlation);
  a.thread = ThreadId(1);
  return a;
}

inline MemcpyRecord Copy(int64_t start_ns, int64_t end_ns, CopyKind kind, int64_t stream = 7, int32_t device = 0) {
  MemcpyRecord c;
  c.start_ns = start_ns;
  c.end_ns = end_ns;
  c.device = DeviceId(device);
  c.stream = StreamId(stream);
  c.copy_kind = kind;
  c.bytes = 4096;
  return c;
}

inline SyncRecord Sync(int64_t start_ns, int64_t end_ns, int32_t device = 0) {
  SyncRecord s;
  s.start_ns = start_ns;
  s.end_ns = end_ns;
  s.device = DeviceId(device);
  s.kind = SyncKind::kStreamSynchronize;
  return s;
}

inline DeviceInfo SmallGpu() {
  DeviceInfo d;
  d.id = DeviceId(0);
  d.sm_count = 10;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.max_registers_per_sm = 65536;
  d.max_shared_bytes_per_sm = 100 * 1024;
  d.max_threads_per_block = 1024;
  return d;
}

}  // namespace nimble::analysis::testing

// Activity records: what happened on the GPU and in the CUDA API, in nanoseconds since the epoch
// of the recording clock. Converters (collector) and readers (store) produce these; analysis reads them.
// Invariant: start_ns <= end_ns. Plain aggregates; no threading concerns.
#pragma once

#include <cstdint>

#include "nimble/core/ids.h"

namespace nimble {

struct Dim3 {
  int32_t x = 1, y = 1, z = 1;
  int64_t count() const { return int64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

struct KernelRecord {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceId device;
  ContextId context;
  StreamId stream;
  CorrelationId correlation;
  StringId name;          // demangled name
  StringId short_name;    // without parameters, as nsys' shortName
  Dim3 grid;
  Dim3 block;
  int32_t registers_per_thread = 0;
  int32_t static_shared_bytes = 0;
  int32_t dynamic_shared_bytes = 0;
  int64_t graph_node_id = 0;  // non-zero when replayed from a CUDA graph
  int64_t graph_id = 0;
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const KernelRecord&, const KernelRecord&) = default;
};

// Where a copy or set reads and writes (CUPTI's memory kinds, folded).
enum class MemoryKind : int32_t { kUnknown = 0, kPageable = 1, kPinned = 2, kDevice = 3, kArray = 4, kManaged = 5, kDeviceStatic = 6, kManagedStatic = 7 };
enum class CopyKind : int32_t { kUnknown = 0, kHtoD = 1, kDtoH = 2, kHtoA = 3, kAtoH = 4, kAtoA = 5, kAtoD = 6, kDtoA = 7, kDtoD = 8, kHtoH = 9, kPtoP = 10 };

struct MemcpyRecord {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceId device;
  ContextId context;
  StreamId stream;
  CorrelationId correlation;
  int64_t bytes = 0;
  CopyKind copy_kind = CopyKind::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  int64_t graph_node_id = 0;
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const MemcpyRecord&, const MemcpyRecord&) = default;
};

struct MemsetRecord {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceId device;
  ContextId context;
  StreamId stream;
  CorrelationId correlation;
  int64_t bytes = 0;
  int32_t value = 0;
  MemoryKind mem_kind = MemoryKind::kUnknown;
  int64_t graph_node_id = 0;
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const MemsetRecord&, const MemsetRecord&) = default;
};

// One launch of a whole CUDA graph, recorded at graph level (`nimble-prof record --graph-trace graph`):
// from its first node's start to its last node's end, with the nodes themselves not recorded.
struct GraphLaunchRecord {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceId device;
  ContextId context;
  StreamId stream;            // the stream the graph was launched into
  CorrelationId correlation;  // the launching API call's
  int64_t graph_id = 0;
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const GraphLaunchRecord&, const GraphLaunchRecord&) = default;
};

// A host thread blocked on the GPU (CUPTI synchronization records).
enum class SyncKind : int32_t { kUnknown = 0, kEventSynchronize = 1, kStreamWaitEvent = 2, kStreamSynchronize = 3, kContextSynchronize = 4 };

struct SyncRecord {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceId device;
  ContextId context;
  StreamId stream;  // invalid for context-wide syncs
  CorrelationId correlation;
  SyncKind kind = SyncKind::kUnknown;
  int64_t event_id = 0;
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const SyncRecord&, const SyncRecord&) = default;
};

enum class ApiKind : int32_t { kRuntime = 0, kDriver = 1 };

// A CUDA runtime or driver API call on a host thread.
struct ApiCallRecord {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  ApiKind kind = ApiKind::kRuntime;
  ThreadId thread;
  int32_t process = 0;
  CorrelationId correlation;
  StringId name;       // e.g. "cudaLaunchKernel_v7000"
  int32_t callback_id = 0;
  int32_t return_value = 0;
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const ApiCallRecord&, const ApiCallRecord&) = default;
};

// An NVTX push/pop or start/end range (an instantaneous mark has start_ns == end_ns).
struct NvtxRange {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  ThreadId thread;
  StringId text;
  StringId domain;
  int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const NvtxRange&, const NvtxRange&) = default;
};

// Links a CUPTI correlation id to an id of the caller's (e.g. an op of the model).
struct ExternalCorrelation {
  CorrelationId correlation;
  int64_t external_id = 0;
  int32_t external_kind = 0;
  friend bool operator==(const ExternalCorrelation&, const ExternalCorrelation&) = default;
};

// Time CUPTI itself spent (buffer flushes, instrumentation) on a host thread.
struct OverheadRecord {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  ThreadId thread;
  StringId kind;
  friend bool operator==(const OverheadRecord&, const OverheadRecord&) = default;
};

// What a device can hold at once; used to estimate how much of the GPU a kernel occupies.
struct DeviceInfo {
  DeviceId id;
  StringId name;
  int32_t compute_major = 0;
  int32_t compute_minor = 0;
  int32_t sm_count = 0;
  int32_t max_threads_per_sm = 0;
  int32_t max_blocks_per_sm = 0;
  int32_t max_registers_per_sm = 0;
  int32_t max_shared_bytes_per_sm = 0;
  int32_t max_threads_per_block = 0;
  int64_t global_memory_bytes = 0;
  int32_t core_clock_khz = 0;
  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

}  // namespace nimble

// Hand-built CUPTI records and buffers, laid out as CUPTI lays them out (records packed one after
// another at their own size), so converters are tested and benchmarked without a GPU.
// Header-only; a builder is a plain value owned by one thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "nimble/collector/cupti_records.h"

namespace nimble::collector::synthetic {

class RecordBuffer {
 public:
  // Appends a copy of `record` and returns the buffer's size in bytes.
  template <typename Record>
  size_t Add(const Record& record) {
    static_assert(std::is_trivially_copyable_v<Record> && sizeof(Record) % kRecordAlignment == 0);
    const size_t offset = bytes_;
    bytes_ += sizeof(Record);
    words_.resize((bytes_ + 7) / 8);
    std::memcpy(data() + offset, &record, sizeof(Record));
    return bytes_;
  }
  uint8_t* data() { return reinterpret_cast<uint8_t*>(words_.data()); }
  size_t size() const { return bytes_; }
  void clear() {
    words_.clear();
    bytes_ = 0;
  }

 private:
  std::vector<uint64_t> words_;  // 8-byte storage keeps records aligned like CUPTI's
  size_t bytes_ = 0;
};

inline KernelRecordV Kernel(uint64_t start_ns, uint64_t end_ns, uint32_t stream, uint32_t correlation,
                            const char* mangled_name, uint64_t graph_node_id = 0) {
  KernelRecordV k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start_ns;
  k.end = end_ns;
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = stream;
  k.correlationId = correlation;
  k.name = mangled_name;
  k.gridX = 80;
  k.gridY = k.gridZ = 1;
  k.blockX = 256;
  k.blockY = k.blockZ = 1;
  k.registersPerThread = 32;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 2048;
  k.graphNodeId = graph_node_id;
  k.graphId = graph_node_id != 0 ? 7 : 0;
  return k;
}

// One launch of a whole graph, recorded at graph level (GRAPH_TRACE), on device 0, context 1.
inline GraphTraceRecordV GraphTrace(uint64_t start_ns, uint64_t end_ns, uint32_t stream, uint32_t correlation,
                                    uint32_t graph_id) {
  GraphTraceRecordV g{};
  g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  g.start = start_ns;
  g.end = end_ns;
  g.deviceId = 0;
  g.contextId = 1;
  g.streamId = stream;
  g.correlationId = correlation;
  g.graphId = graph_id;
  g.endDeviceId = 0;
  g.endContextId = 1;
  return g;
}

inline ApiRecordV Api(CUpti_ActivityKind kind, CUpti_CallbackId cbid, uint64_t start_ns, uint64_t end_ns,
                      uint32_t correlation, uint32_t thread = 1234) {
  ApiRecordV a{};
  a.kind = kind;
  a.cbid = cbid;
  a.start = start_ns;
  a.end = end_ns;
  a.processId = 4321;
  a.threadId = thread;
  a.correlationId = correlation;
  return a;
}

inline MarkerRecordV Marker(CUpti_ActivityFlag flag, uint32_t id, uint64_t timestamp_ns, const char* name,
                            uint32_t thread = 1234, const char* domain = nullptr) {
  MarkerRecordV m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = flag;
  m.timestamp = timestamp_ns;
  m.id = id;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.processId = 4321;
  m.objectId.pt.threadId = thread;
  m.name = name;
  m.domain = domain;
  return m;
}

}  // namespace nimble::collector::synthetic

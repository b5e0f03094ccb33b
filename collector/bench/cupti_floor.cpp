// libnimble_cupti_floor.so: what CUPTI itself costs, for attributing the collector's overhead.
// Loaded through CUDA_INJECTION64_PATH like libnimble_inject.so, it enables the same activity kinds
// (NIMBLE_FLOOR_KINDS=kernel or all) but hands every completed buffer straight back to CUPTI unread:
// no conversion, no pipeline thread, no database. bench/collector_overhead.sh runs the launch loops
// under it next to `nimble-prof record`; the difference is what the collector adds above CUPTI.
// At exit it flushes and prints "cupti_floor: buffers=N dropped=M" (records CUPTI dropped).
//
// For measuring CUPTI's own settings (bench/cupti_settings.sh):
//  - NIMBLE_FLOOR_KINDS=graph enables graph-level tracing (CUPTI_ACTIVITY_KIND_GRAPH_TRACE) alone, and
//    kernel+graph enables it next to the per-kernel records;
//  - NIMBLE_FLOOR_ATTRS, a comma-separated list, sets activity attributes before anything is enabled:
//    pinned (timestamp buffers in pinned host memory), zeroed (CUPTI is handed zeroed buffers, so it
//    need not clear them on the launching thread), shared (one activity buffer for all threads
//    instead of one per thread), devbuf=BYTES (device buffer size), prealloc=N (device buffers made
//    up front), poollimit=N (device buffer limit);
//  - NIMBLE_FLOOR_COUNT=1 walks every completed buffer and prints the number of records of each kind.
#include <cupti.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

constexpr size_t kBufferBytes = size_t{4} << 20;  // as the collector's default
constexpr size_t kAlignment = 8;

std::mutex g_mu;
std::vector<uint8_t*> g_free;  // buffers CUPTI gave back, reused as the collector's pool reuses them
std::atomic<long> g_buffers{0};
std::atomic<size_t> g_dropped{0};
std::atomic<bool> g_failed{false};
bool g_zeroed = false;  // CUPTI expects zeroed buffers (NIMBLE_FLOOR_ATTRS=zeroed)
bool g_count = false;   // NIMBLE_FLOOR_COUNT=1
constexpr size_t kKinds = 64;
std::array<std::atomic<long>, kKinds> g_records{};  // records per CUpti_ActivityKind, when counting

bool Check(CUptiResult r, const char* call) {
  if (r == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown error";
  std::fprintf(stderr, "cupti_floor: %s failed: %s\n", call, text);
  g_failed = true;
  return false;
}

void CUPTIAPI Requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  std::lock_guard lock(g_mu);
  if (!g_free.empty()) {
    *buffer = g_free.back();
    g_free.pop_back();
  } else {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferBytes));
    if (*buffer != nullptr && g_zeroed) std::memset(*buffer, 0, kBufferBytes);
  }
  *size = *buffer != nullptr ? kBufferBytes : 0;
}

void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  size_t dropped = 0;
  if (Check(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), "cuptiActivityGetNumDroppedRecords")) {
    g_dropped += dropped;
  }
  if (buffer == nullptr) return;
  ++g_buffers;
  if (g_count) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      const auto kind = static_cast<size_t>(record->kind);
      ++g_records[kind < kKinds ? kind : 0];
    }
  }
  // Cleared here, on CUPTI's thread, so that a reused buffer is zeroed as CUPTI was told it would be.
  if (g_zeroed) std::memset(buffer, 0, valid);
  std::lock_guard lock(g_mu);
  g_free.push_back(buffer);
}

void AtExit() {
  Check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  std::fprintf(stderr, "cupti_floor: buffers=%ld dropped=%zu%s\n", g_buffers.load(), g_dropped.load(),
               g_failed ? " (a CUPTI call failed)" : "");
  if (!g_count) return;
  std::string counts;
  for (size_t kind = 0; kind < kKinds; ++kind) {
    if (g_records[kind] > 0) counts += " kind" + std::to_string(kind) + "=" + std::to_string(g_records[kind].load());
  }
  std::fprintf(stderr, "cupti_floor: records%s\n", counts.empty() ? " none" : counts.c_str());
}

template <typename T>
bool SetAttribute(CUpti_ActivityAttribute attribute, T value, const char* name) {
  size_t size = sizeof(value);
  return Check(cuptiActivitySetAttribute(attribute, &size, &value), name);
}

// Applies NIMBLE_FLOOR_ATTRS; false (after a message) on a token it does not know.
bool ApplyAttributes(const char* list) {
  std::string rest = list != nullptr ? list : "";
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string token = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    const size_t eq = token.find('=');
    const std::string key = token.substr(0, eq);
    const size_t number = eq == std::string::npos ? 0 : std::strtoull(token.c_str() + eq + 1, nullptr, 10);
    if (key == "pinned") {
      SetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, uint8_t{1}, "HOST_PINNED");
    } else if (key == "zeroed") {
      g_zeroed = SetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, uint8_t{1}, "ZEROED_OUT_ACTIVITY_BUFFER");
    } else if (key == "shared") {
      SetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, uint8_t{0}, "PER_THREAD_ACTIVITY_BUFFER");
    } else if (key == "devbuf" && number > 0) {
      SetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, number, "DEVICE_BUFFER_SIZE");
    } else if (key == "prealloc" && number > 0) {
      SetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, number, "DEVICE_BUFFER_PRE_ALLOCATE_VALUE");
    } else if (key == "poollimit" && number > 0) {
      SetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, number, "DEVICE_BUFFER_POOL_LIMIT");
    } else if (!key.empty()) {
      std::fprintf(stderr, "cupti_floor: unknown NIMBLE_FLOOR_ATTRS entry '%s'\n", token.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) return 1;
  const char* kinds = std::getenv("NIMBLE_FLOOR_KINDS");
  const std::string k = kinds != nullptr ? kinds : "";
  const bool all = k == "all", graph = k == "graph" || k == "kernel+graph";
  const bool kernel = k == "kernel" || k == "kernel+graph" || all;
  if (!all && !graph && !kernel) {
    std::fprintf(stderr, "cupti_floor: set NIMBLE_FLOOR_KINDS to kernel, all, graph or kernel+graph\n");
    return 1;
  }
  const char* count = std::getenv("NIMBLE_FLOOR_COUNT");
  g_count = count != nullptr && std::strcmp(count, "1") == 0;
  // Attributes first: the per-thread buffer setting must precede the callbacks.
  if (!ApplyAttributes(std::getenv("NIMBLE_FLOOR_ATTRS"))) return 1;
  if (!Check(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), "cuptiSetThreadIdType") ||
      !Check(cuptiActivityRegisterCallbacks(&Requested, &Completed), "cuptiActivityRegisterCallbacks")) {
    return 1;
  }
  // The kinds `nimble-prof record --kinds all` enables (collector/src/cupti_session.cpp).
  const CUpti_ActivityKind every[] = {
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,   CUPTI_ACTIVITY_KIND_MEMSET,
      CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER,   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_MARKER,
  };
  for (CUpti_ActivityKind kind : every) {
    if (!all && !(kernel && kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) continue;
    Check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  }
  if (graph) Check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE), "cuptiActivityEnable(GRAPH_TRACE)");
  std::atexit(&AtExit);
  return 1;
}

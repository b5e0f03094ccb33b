// libnimble_cupti_floor.so: what CUPTI itself costs, for attributing the collector's overhead.
// Loaded through CUDA_INJECTION64_PATH like libnimble_inject.so, it enables the same activity kinds
// (NIMBLE_FLOOR_KINDS=kernel or all) but hands every completed buffer straight back to CUPTI unread:
// no conversion, no pipeline thread, no database. bench/collector_overhead.sh runs the launch loops
// under it next to `nimble-prof record`; the difference is what the collector adds above CUPTI.
// At exit it flushes and prints "cupti_floor: buffers=N dropped=M" (records CUPTI dropped).
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace {

constexpr size_t kBufferBytes = size_t{4} << 20;  // as the collector's default
constexpr size_t kAlignment = 8;

std::mutex g_mu;
std::vector<uint8_t*> g_free;  // buffers CUPTI gave back, reused as the collector's pool reuses them
std::atomic<long> g_buffers{0};
std::atomic<size_t> g_dropped{0};
std::atomic<bool> g_failed{false};

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
  }
  *size = *buffer != nullptr ? kBufferBytes : 0;
}

void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) {
  size_t dropped = 0;
  if (Check(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), "cuptiActivityGetNumDroppedRecords")) {
    g_dropped += dropped;
  }
  if (buffer == nullptr) return;
  ++g_buffers;
  std::lock_guard lock(g_mu);
  g_free.push_back(buffer);
}

void AtExit() {
  Check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  std::fprintf(stderr, "cupti_floor: buffers=%ld dropped=%zu%s\n", g_buffers.load(), g_dropped.load(),
               g_failed ? " (a CUPTI call failed)" : "");
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) return 1;
  const char* kinds = std::getenv("NIMBLE_FLOOR_KINDS");
  const bool all = kinds != nullptr && std::strcmp(kinds, "all") == 0;
  if (kinds == nullptr || (!all && std::strcmp(kinds, "kernel") != 0)) {
    std::fprintf(stderr, "cupti_floor: set NIMBLE_FLOOR_KINDS to kernel or all\n");
    return 1;
  }
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
    if (!all && kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    Check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  }
  std::atexit(&AtExit);
  return 1;
}

// GPU memory of one phase of work (an eager forward, a warm-up and capture), as PyTorch's caching
// allocator counts it: the peak of the bytes handed to tensors (allocated) and of the bytes the
// allocator holds from the driver (reserved), both above what was resident when the phase began
// (weights, input buffers, other graphs' pools), and what the phase still holds at its end.
// The window starts from an emptied cache, so blocks cached by earlier phases do not hide the
// phase's own segments. Plain C++ header; one window per device at a time, from one thread.
#pragma once

#include <cstdint>

#include "nimble/core/status.h"

namespace nimble::accelerate {

struct MemoryUse {
  int64_t peak_allocated_bytes = 0;  // tensors' bytes at the phase's peak, above the resident ones
  int64_t peak_reserved_bytes = 0;   // the allocator's segments at the phase's peak, above the resident ones
  int64_t held_bytes = 0;            // reserved bytes still held at the end (a captured graph's pool)
};

class MemoryWindow {
 public:
  // Waits for the device, returns cached free blocks to the driver (unless `release_cache` is false),
  // resets the peaks and samples the resident bytes. Unavailable without a CUDA device; Internal when
  // the allocator refuses.
  static StatusOr<MemoryWindow> Begin(int device, bool release_cache = true);
  // Returns the cached free blocks of the phase so far to the driver (after a wait): a warm-up's
  // cache cannot serve a capture, whose allocations come from the graph's private pool. Does nothing
  // in a window begun without releasing the cache.
  Status ReleaseCache() const;
  // The phase's use so far (the window may be read more than once).
  StatusOr<MemoryUse> Read() const;

 private:
  MemoryWindow(int device, bool release_cache, int64_t allocated, int64_t reserved)
      : device_(device), release_cache_(release_cache), resident_allocated_(allocated), resident_reserved_(reserved) {}
  int device_;
  bool release_cache_;
  int64_t resident_allocated_;
  int64_t resident_reserved_;
};

}  // namespace nimble::accelerate

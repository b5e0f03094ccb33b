// The caching allocator's requests of one captured run, op by op: what the memory prediction
// (analysis/memory_prediction.h) replays under another stream assignment. Recorded by the
// single-stream capture (accelerate/aot_graph.h); plain data.
#pragma once

#include <cstdint>
#include <vector>

namespace nimble {

struct AllocationEvent {
  enum class Kind : uint8_t { kAlloc, kFree };
  Kind kind = Kind::kAlloc;
  int32_t op = -1;     // the op whose region it fell in: from that op's start to the next op's (-1: before the first)
  int64_t block = 0;   // identifies the allocation; its free names the same block
  int64_t bytes = 0;   // the size asked for (an alloc); the free repeats it
  friend bool operator==(const AllocationEvent&, const AllocationEvent&) = default;
};

struct AllocationTrace {
  std::vector<AllocationEvent> events;  // in the order the allocator saw them
  int64_t segment_bytes = 0;            // segments the capture reserved in its pool (the trace's own outcome)
  bool complete = false;                // every event was recorded (false: the trace must not be used)
};

}  // namespace nimble

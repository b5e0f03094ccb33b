// The memory pool a capture of a stream assignment will reserve, predicted before capturing it: the
// single-stream capture's allocator requests (core/allocation_trace.h), op by op, replayed through a
// model of PyTorch's caching allocator with each op's requests on its assigned stream.
//
// The allocator model (CachingAllocatorModel) keeps what decides how many bytes a capture reserves:
// requests rounded up to 512 bytes; requests up to 1 MiB served from 2 MiB segments, larger ones from
// 20 MiB segments, and from 10 MiB on a segment of their own rounded up to 2 MiB; best fit among the
// free blocks of the same stream and size class (a freed block is reused only by the stream that
// allocated it); a block split when the rest is at least 512 bytes (small) or above 1 MiB (large);
// neighbours merged on free; no segment returned during the capture.
//
// The replay (PredictGraphPool): a block allocated and freed within one op's region is freed where it
// was; a block that outlives its op is an output. An output whose readers (data edges) all run on its
// producer's stream is freed where the single-stream run freed it; one read on another stream is
// freed at its release point (core/release_points.h), as the stream rewrite releases it, or never
// (held to the end) where the assignment has none. An output the rewrite records instead of releasing
// (a view may share it) is modelled the same way: with graph_capture_record_stream_reuse the allocator
// reuses a recorded block once the capture orders every use before the new allocation, which on the
// producer's stream is from the release point on. Pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "nimble/core/allocation_trace.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"

namespace nimble::analysis {

class CachingAllocatorModel {
 public:
  // A new block of at least `bytes` for `stream`; returns its id (never reused).
  int64_t Allocate(int32_t stream, int64_t bytes);
  // InvalidArgument for an id never allocated or freed already.
  Status Free(int64_t id);

  int64_t reserved_bytes() const { return reserved_; }       // segments, all streams
  int64_t allocated_bytes() const { return allocated_; }     // blocks in use (rounded sizes)
  int64_t peak_allocated_bytes() const { return peak_allocated_; }
  int32_t segments() const { return segments_; }

  // Starts the peaks over from what is in use now (after seeding: a seed reserves, it is not used).
  void ResetPeaks();

  // Per stream: the segments it reserved (small and large pools together) and the most bytes its blocks
  // held at once. A stream that never allocated is absent.
  struct StreamUse {
    int64_t segment_bytes = 0;
    int64_t peak_allocated_bytes = 0;
  };
  const std::map<int32_t, StreamUse>& stream_use() const { return stream_use_; }

  static int64_t RoundedSize(int64_t bytes);
  static int64_t SegmentSize(int64_t rounded);

  // Walks every segment: its blocks tile it (addresses contiguous, links consistent), no two free
  // neighbours are left unmerged, each free block is listed once under its stream and size class, and
  // the block sizes add up to reserved_bytes() and, for blocks in use, to allocated_bytes(). Internal
  // with the first violation; for tests.
  Status CheckInvariants() const;

 private:
  struct Block {
    int64_t addr = 0;
    int64_t size = 0;
    int32_t stream = 0;
    bool small = false;
    bool free = true;
    int64_t prev = -1;  // neighbours in the segment (block indices), -1: none
    int64_t next = -1;
  };
  using FreeKey = std::pair<int64_t, int64_t>;  // (size, addr)
  std::set<FreeKey>& FreeSet(int32_t stream, bool small) { return free_[{stream, small}]; }
  int64_t Split(int64_t block, int64_t size);

  std::map<int32_t, StreamUse> stream_use_;
  std::map<int32_t, int64_t> stream_allocated_;
  std::vector<Block> blocks_;
  std::vector<std::pair<int64_t, int64_t>> segments_list_;  // (first block, bytes) per segment
  std::map<int64_t, int64_t> by_addr_;                     // addr -> block index, free blocks
  std::map<std::pair<int32_t, bool>, std::set<FreeKey>> free_;
  std::map<int64_t, int64_t> live_;                        // id -> block index
  int64_t next_id_ = 0;
  int64_t next_addr_ = 0;
  int64_t reserved_ = 0;
  int64_t allocated_ = 0;
  int64_t peak_allocated_ = 0;
  int32_t segments_ = 0;
};

struct PoolPrediction {
  int64_t segment_bytes = 0;         // what the capture reserves in its pool (and the graph keeps)
  int64_t peak_allocated_bytes = 0;  // most bytes in use at once (rounded block sizes)
  int64_t held_bytes = 0;            // still in use at the end: outputs, and values never released
  int32_t segments = 0;
  // Where the segments go, per stream (index: the schedule's stream; zeros for one that never
  // allocated). The sum of the streams' own peaks is what the pool would take if each stream's blocks
  // were packed with no rounding and no fragmentation, since a freed block serves only its own stream:
  // segment_bytes - streams_peak_sum() is segment rounding and fragmentation, streams_peak_sum() -
  // peak_allocated_bytes the cost of keeping each stream's blocks to itself.
  std::vector<CachingAllocatorModel::StreamUse> streams;
  int64_t streams_peak_sum() const {
    int64_t sum = 0;
    for (const auto& s : streams) sum += s.peak_allocated_bytes;
    return sum;
  }
};

// `trace` must be complete and come from a run of `graph` (events name ops of it or -1, in op order);
// `schedule` must cover `graph` (streams in range, syncs pointing forward). InvalidArgument otherwise,
// or for a trace that frees a block twice or never allocated it.
// `seed_bytes` (empty, or one entry per stream of `schedule`, each 0 or more): a block of that many
// bytes allocated and freed on the stream before the first request, as nimble::seed_pool does at the
// start of a capture (accelerate/stream_rewrite.h, RewriteOptions::pool_seeds).
StatusOr<PoolPrediction> PredictGraphPool(const AllocationTrace& trace, const OpGraph& graph,
                                          const StreamAssignment& schedule, const std::vector<int64_t>& seed_bytes = {});

// Seeding a stream's pool with one segment sized to what it will need saves the 20 MiB segments
// that its 1-10 MiB requests would each start, and the ones fragmentation adds: a request from 10 MiB
// on gets a segment of its own rounded to 2 MiB, and once freed that segment serves the stream's later
// requests, split as they need. Each stream's segments depend on its own requests alone, so the
// choice is made per stream: among seeds from 10 MiB up to the segments the stream reserves unseeded,
// in 2 MiB steps, the one that leaves it the fewest segment bytes, or none where no seed saves any.
struct PoolSeeds {
  std::vector<int64_t> bytes;  // per stream of the schedule, 0: not seeded
  PoolPrediction unseeded;
  PoolPrediction seeded;       // == unseeded where no stream is seeded
  bool any() const {
    for (int64_t b : bytes) {
      if (b > 0) return true;
    }
    return false;
  }
};
StatusOr<PoolSeeds> ChoosePoolSeeds(const AllocationTrace& trace, const OpGraph& graph, const StreamAssignment& schedule);

// A capture on one stream, replayed as it was recorded: a branch capture's own trace
// (accelerate/branch_capture.h), whose requests all come from its one capture stream in the order the
// allocator saw them; the ops the events name are not looked at. A block of `seed_bytes` is allocated
// and freed first (0: none), as nimble::seed_pool does. InvalidArgument for an incomplete trace, a
// negative seed, or a block freed twice or before it was allocated.
StatusOr<PoolPrediction> ReplayOneStream(const AllocationTrace& trace, int64_t seed_bytes = 0);

// The seed for that one stream, chosen as ChoosePoolSeeds chooses each stream's: the one that leaves
// the fewest segment bytes, 0 where none saves any.
struct OneStreamSeed {
  int64_t bytes = 0;
  PoolPrediction unseeded;
  PoolPrediction seeded;  // == unseeded when bytes is 0
};
StatusOr<OneStreamSeed> ChooseOneStreamSeed(const AllocationTrace& trace);

}  // namespace nimble::analysis

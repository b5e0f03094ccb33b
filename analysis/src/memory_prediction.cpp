#include "nimble/analysis/memory_prediction.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "nimble/core/release_points.h"

namespace nimble::analysis {
namespace {

constexpr int64_t kMinBlock = 512;             // every request is rounded up to a multiple of this
constexpr int64_t kSmallRequest = 1 << 20;     // up to this a request is small
constexpr int64_t kSmallSegment = 2 << 20;     // small requests' segment
constexpr int64_t kLargeSegment = 20 << 20;    // large requests' segment below kOwnSegment
constexpr int64_t kOwnSegment = 10 << 20;      // from this on a request gets a segment of its own...
constexpr int64_t kOwnSegmentRound = 2 << 20;  // ...rounded up to this

int64_t RoundUp(int64_t value, int64_t unit) { return (value + unit - 1) / unit * unit; }

// The seeds worth trying for a stream whose segments take `largest` bytes unseeded: from 10 MiB (a
// smaller one serves no request its own segment would not) up to below `largest`, at most 64 of them,
// evenly spaced in 2 MiB steps or wider.
std::vector<int64_t> SeedCandidates(int64_t largest) {
  std::vector<int64_t> seeds;
  const int64_t step = std::max(kOwnSegmentRound, RoundUp((largest - kOwnSegment) / 64 + 1, kOwnSegmentRound));
  for (int64_t seed = kOwnSegment; seed < largest; seed += step) seeds.push_back(seed);
  return seeds;
}

}  // namespace

int64_t CachingAllocatorModel::RoundedSize(int64_t bytes) {
  return bytes < kMinBlock ? kMinBlock : RoundUp(bytes, kMinBlock);
}

int64_t CachingAllocatorModel::SegmentSize(int64_t rounded) {
  if (rounded <= kSmallRequest) return kSmallSegment;
  if (rounded < kOwnSegment) return kLargeSegment;
  return RoundUp(rounded, kOwnSegmentRound);
}

// Cuts `size` bytes off the front of free block `index` when the rest is worth keeping as a free block;
// returns the index of the block that serves the request.
int64_t CachingAllocatorModel::Split(int64_t index, int64_t size) {
  const int64_t rest = blocks_[static_cast<size_t>(index)].size - size;
  const bool small = blocks_[static_cast<size_t>(index)].small;
  if (small ? rest < kMinBlock : rest <= kSmallRequest) return index;
  Block remainder = blocks_[static_cast<size_t>(index)];
  remainder.addr += size;
  remainder.size = rest;
  remainder.free = true;
  remainder.prev = index;
  const auto rem = static_cast<int64_t>(blocks_.size());
  if (remainder.next >= 0) blocks_[static_cast<size_t>(remainder.next)].prev = rem;
  blocks_.push_back(remainder);
  Block& served = blocks_[static_cast<size_t>(index)];
  served.size = size;
  served.next = rem;
  FreeSet(remainder.stream, remainder.small).insert({remainder.size, remainder.addr});
  by_addr_[remainder.addr] = rem;
  return index;
}

int64_t CachingAllocatorModel::Allocate(int32_t stream, int64_t bytes) {
  const int64_t rounded = RoundedSize(std::max<int64_t>(bytes, 0));
  const bool small = rounded <= kSmallRequest;
  std::set<FreeKey>& free = FreeSet(stream, small);
  int64_t index = -1;
  if (auto it = free.lower_bound({rounded, std::numeric_limits<int64_t>::min()}); it != free.end()) {
    index = by_addr_.at(it->second);
    by_addr_.erase(it->second);
    free.erase(it);
  } else {
    Block segment;
    segment.addr = next_addr_;
    segment.size = SegmentSize(rounded);
    segment.stream = stream;
    segment.small = small;
    next_addr_ += segment.size;
    reserved_ += segment.size;
    stream_use_[stream].segment_bytes += segment.size;
    ++segments_;
    index = static_cast<int64_t>(blocks_.size());
    segments_list_.emplace_back(index, segment.size);
    blocks_.push_back(segment);
  }
  index = Split(index, rounded);
  Block& block = blocks_[static_cast<size_t>(index)];
  block.free = false;
  allocated_ += block.size;
  peak_allocated_ = std::max(peak_allocated_, allocated_);
  int64_t& on_stream = stream_allocated_[stream];
  on_stream += block.size;
  StreamUse& use = stream_use_[stream];
  use.peak_allocated_bytes = std::max(use.peak_allocated_bytes, on_stream);
  const int64_t id = next_id_++;
  live_[id] = index;
  return id;
}

void CachingAllocatorModel::ResetPeaks() {
  peak_allocated_ = allocated_;
  for (auto& [stream, use] : stream_use_) use.peak_allocated_bytes = stream_allocated_[stream];
}

Status CachingAllocatorModel::Free(int64_t id) {
  auto it = live_.find(id);
  if (it == live_.end()) return InvalidArgument("block " + std::to_string(id) + " is not allocated");
  int64_t index = it->second;
  live_.erase(it);
  blocks_[static_cast<size_t>(index)].free = true;
  allocated_ -= blocks_[static_cast<size_t>(index)].size;
  stream_allocated_[blocks_[static_cast<size_t>(index)].stream] -= blocks_[static_cast<size_t>(index)].size;
  // Merge with free neighbours of the same segment (the survivor is the lower address).
  auto absorb = [&](int64_t low, int64_t high) {
    Block& a = blocks_[static_cast<size_t>(low)];
    const Block& b = blocks_[static_cast<size_t>(high)];
    a.size += b.size;
    a.next = b.next;
    if (b.next >= 0) blocks_[static_cast<size_t>(b.next)].prev = low;
  };
  auto unlist = [&](int64_t i) {
    const Block& b = blocks_[static_cast<size_t>(i)];
    FreeSet(b.stream, b.small).erase({b.size, b.addr});
    by_addr_.erase(b.addr);
  };
  if (const int64_t next = blocks_[static_cast<size_t>(index)].next; next >= 0 && blocks_[static_cast<size_t>(next)].free) {
    unlist(next);
    absorb(index, next);
  }
  if (const int64_t prev = blocks_[static_cast<size_t>(index)].prev; prev >= 0 && blocks_[static_cast<size_t>(prev)].free) {
    unlist(prev);
    absorb(prev, index);
    index = prev;
  }
  const Block& merged = blocks_[static_cast<size_t>(index)];
  FreeSet(merged.stream, merged.small).insert({merged.size, merged.addr});
  by_addr_[merged.addr] = index;
  return OkStatus();
}

Status CachingAllocatorModel::CheckInvariants() const {
  int64_t reserved = 0, allocated = 0;
  size_t free_blocks = 0;
  std::map<int32_t, int64_t> stream_reserved, stream_allocated;
  for (const auto& [first, bytes] : segments_list_) {
    reserved += bytes;
    stream_reserved[blocks_[static_cast<size_t>(first)].stream] += bytes;
    int64_t covered = 0;
    int64_t previous = -1;
    for (int64_t i = first; i >= 0; i = blocks_[static_cast<size_t>(i)].next) {
      const Block& b = blocks_[static_cast<size_t>(i)];
      const Block& head = blocks_[static_cast<size_t>(first)];
      if (b.prev != previous) return Internal("block " + std::to_string(i) + ": its prev link is broken");
      if (b.addr != head.addr + covered) return Internal("block " + std::to_string(i) + " does not follow its neighbour");
      if (b.stream != head.stream || b.small != head.small) return Internal("block " + std::to_string(i) + " left its segment's pool");
      if (b.free) {
        ++free_blocks;
        if (previous >= 0 && blocks_[static_cast<size_t>(previous)].free) {
          return Internal("free blocks " + std::to_string(previous) + " and " + std::to_string(i) + " were not merged");
        }
        auto listed = free_.find({b.stream, b.small});
        if (listed == free_.end() || listed->second.count({b.size, b.addr}) == 0) {
          return Internal("free block " + std::to_string(i) + " is not listed");
        }
        auto at = by_addr_.find(b.addr);
        if (at == by_addr_.end() || at->second != i) return Internal("free block " + std::to_string(i) + " is not found by address");
      } else {
        allocated += b.size;
        stream_allocated[b.stream] += b.size;
      }
      covered += b.size;
      previous = i;
    }
    if (covered != bytes) return Internal("a segment's blocks cover " + std::to_string(covered) + " of its " + std::to_string(bytes) + " bytes");
  }
  size_t listed = 0;
  for (const auto& [key, set] : free_) listed += set.size();
  if (listed != free_blocks || by_addr_.size() != free_blocks) return Internal("free lists hold blocks that no segment has");
  if (reserved != reserved_) return Internal("segments add up to " + std::to_string(reserved) + ", not " + std::to_string(reserved_));
  if (allocated != allocated_) return Internal("blocks in use add up to " + std::to_string(allocated) + ", not " + std::to_string(allocated_));
  for (const auto& [stream, use] : stream_use_) {
    if (use.segment_bytes != stream_reserved[stream]) {
      return Internal("stream " + std::to_string(stream) + "'s segments add up to " + std::to_string(stream_reserved[stream]) +
                      ", not " + std::to_string(use.segment_bytes));
    }
    const auto held = stream_allocated_.find(stream);
    const int64_t counted = held == stream_allocated_.end() ? 0 : held->second;
    if (counted != stream_allocated[stream]) {
      return Internal("stream " + std::to_string(stream) + "'s blocks in use add up to " +
                      std::to_string(stream_allocated[stream]) + ", not " + std::to_string(counted));
    }
    if (use.peak_allocated_bytes < counted || use.peak_allocated_bytes > peak_allocated_) {
      return Internal("stream " + std::to_string(stream) + "'s peak is out of range");
    }
  }
  return OkStatus();
}

StatusOr<PoolPrediction> PredictGraphPool(const AllocationTrace& trace, const OpGraph& graph,
                                          const StreamAssignment& schedule, const std::vector<int64_t>& seed_bytes) {
  if (!trace.complete) return InvalidArgument("memory prediction: the allocation trace is incomplete");
  if (!seed_bytes.empty() && static_cast<int64_t>(seed_bytes.size()) != schedule.num_streams) {
    return InvalidArgument("memory prediction: " + std::to_string(seed_bytes.size()) + " pool seeds for " +
                           std::to_string(schedule.num_streams) + " streams");
  }
  for (const int64_t seed : seed_bytes) {
    if (seed < 0) return InvalidArgument("memory prediction: a pool seed of " + std::to_string(seed) + " bytes");
  }
  const auto n = static_cast<int64_t>(graph.ops.size());
  if (static_cast<int64_t>(schedule.op_stream.size()) != n) {
    return InvalidArgument("memory prediction: the schedule covers " + std::to_string(schedule.op_stream.size()) +
                           " ops, the graph has " + std::to_string(n));
  }
  for (const StreamId s : schedule.op_stream) {
    if (s.value() < 0 || s.value() >= schedule.num_streams) {
      return InvalidArgument("memory prediction: an op is assigned stream " + std::to_string(s.value()) + " of " +
                             std::to_string(schedule.num_streams));
    }
  }
  for (const OpEdge& sync : schedule.syncs) {
    if (sync.src.value() < 0 || sync.src.value() >= sync.dst.value() || sync.dst.value() >= n) {
      return InvalidArgument("memory prediction: a sync from op " + std::to_string(sync.src.value()) + " to op " +
                             std::to_string(sync.dst.value()) + " does not point forward within the graph's " +
                             std::to_string(n) + " ops");
    }
  }
  const std::vector<AllocationEvent>& events = trace.events;
  // Each block's allocation and free (event indices), and the first event of each op's region.
  struct Life {
    int64_t alloc = -1;
    int64_t free = -1;
  };
  std::unordered_map<int64_t, Life> lives;
  std::vector<int64_t> region_start(static_cast<size_t>(n) + 1, static_cast<int64_t>(events.size()));
  int32_t region = -1;
  for (size_t i = 0; i < events.size(); ++i) {
    const AllocationEvent& e = events[i];
    if (e.op < -1 || e.op >= n) {
      return InvalidArgument("memory prediction: trace event " + std::to_string(i) + " names op " + std::to_string(e.op) +
                             " of " + std::to_string(n));
    }
    if (e.op < region) {
      return InvalidArgument("memory prediction: trace event " + std::to_string(i) + " of op " + std::to_string(e.op) +
                             " comes after op " + std::to_string(region) + "'s");
    }
    for (int32_t r = region + 1; r <= e.op; ++r) region_start[static_cast<size_t>(r)] = static_cast<int64_t>(i);
    region = e.op;
    Life& life = lives[e.block];
    if (e.kind == AllocationEvent::Kind::kAlloc) {
      if (life.alloc >= 0) return InvalidArgument("memory prediction: block " + std::to_string(e.block) + " allocated twice");
      life.alloc = static_cast<int64_t>(i);
    } else {
      if (life.alloc < 0 || life.free >= 0) {
        return InvalidArgument("memory prediction: block " + std::to_string(e.block) + " freed " +
                               (life.alloc < 0 ? "before it was allocated" : "twice"));
      }
      life.free = static_cast<int64_t>(i);
    }
  }
  const std::vector<std::vector<size_t>> readers = DataReaders(graph);
  const std::vector<int64_t> points = ReleasePoints(graph, schedule);
  auto stream_of = [&](int32_t op) { return op >= 0 ? schedule.op_stream[static_cast<size_t>(op)].value() : 0; };
  // Actions keyed by position: an event at index i has key 2i; a free moved to the start of op q's
  // region has key 2 * region_start[q] - 1, ahead of that region's first event.
  struct Action {
    int64_t key;
    bool alloc;
    int64_t block;
  };
  std::vector<Action> actions;
  actions.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const AllocationEvent& e = events[i];
    const auto key = static_cast<int64_t>(2 * i);
    if (e.kind == AllocationEvent::Kind::kAlloc) {
      actions.push_back({key, true, e.block});
      continue;
    }
    const int32_t producer = events[static_cast<size_t>(lives[e.block].alloc)].op;
    if (producer < 0 || producer == e.op) {
      actions.push_back({key, false, e.block});
      continue;
    }
    const int32_t stream = stream_of(producer);
    const std::vector<size_t>& read = readers[static_cast<size_t>(producer)];
    const bool crosses = std::any_of(read.begin(), read.end(), [&](size_t r) {
      return stream_of(static_cast<int32_t>(r)) != stream;
    });
    if (!crosses) {
      actions.push_back({key, false, e.block});
    } else if (const int64_t point = points[static_cast<size_t>(producer)]; point >= e.op) {
      actions.push_back({2 * region_start[static_cast<size_t>(point)] - 1, false, e.block});
    } else if (point >= 0) {
      actions.push_back({key, false, e.block});  // the run freed it after its release point: a view outlived it
    }
    // No release point: no later op of the producer's stream is ordered after every reader, so the
    // allocator never hands the block out again in this capture (it reuses a block recorded on other
    // streams only once the capture orders those uses before the new one).
  }
  std::stable_sort(actions.begin(), actions.end(), [](const Action& a, const Action& b) { return a.key < b.key; });
  CachingAllocatorModel model;
  for (size_t stream = 0; stream < seed_bytes.size(); ++stream) {
    if (seed_bytes[stream] > 0) NIMBLE_RETURN_IF_ERROR(model.Free(model.Allocate(static_cast<int32_t>(stream), seed_bytes[stream])));
  }
  model.ResetPeaks();
  std::unordered_map<int64_t, int64_t> ids;
  for (const Action& a : actions) {
    if (a.alloc) {
      const AllocationEvent& e = events[static_cast<size_t>(a.key / 2)];
      ids[a.block] = model.Allocate(stream_of(e.op), e.bytes);
    } else {
      auto it = ids.find(a.block);
      if (it == ids.end()) return Internal("memory prediction: a free came before its allocation");
      NIMBLE_RETURN_IF_ERROR(model.Free(it->second));
      ids.erase(it);
    }
  }
  PoolPrediction prediction{model.reserved_bytes(), model.peak_allocated_bytes(), model.allocated_bytes(),
                            model.segments(), {}};
  prediction.streams.resize(static_cast<size_t>(schedule.num_streams));
  for (const auto& [stream, use] : model.stream_use()) prediction.streams[static_cast<size_t>(stream)] = use;
  return prediction;
}

StatusOr<PoolSeeds> ChoosePoolSeeds(const AllocationTrace& trace, const OpGraph& graph, const StreamAssignment& schedule) {
  PoolSeeds seeds;
  NIMBLE_ASSIGN_OR_RETURN(seeds.unseeded, PredictGraphPool(trace, graph, schedule));
  const size_t n = seeds.unseeded.streams.size();
  seeds.bytes.assign(n, 0);
  std::vector<int64_t> best(n);
  int64_t largest = 0;
  for (size_t s = 0; s < n; ++s) {
    best[s] = seeds.unseeded.streams[s].segment_bytes;
    largest = std::max(largest, best[s]);
  }
  // Every stream tries the same seed at once: they do not affect one another.
  for (const int64_t seed : SeedCandidates(largest)) {
    std::vector<int64_t> trial(n, 0);
    for (size_t s = 0; s < n; ++s) {
      if (seed < seeds.unseeded.streams[s].segment_bytes) trial[s] = seed;
    }
    NIMBLE_ASSIGN_OR_RETURN(const PoolPrediction p, PredictGraphPool(trace, graph, schedule, trial));
    for (size_t s = 0; s < n; ++s) {
      if (trial[s] > 0 && p.streams[s].segment_bytes < best[s]) {
        best[s] = p.streams[s].segment_bytes;
        seeds.bytes[s] = seed;
      }
    }
  }
  seeds.seeded = seeds.unseeded;
  if (seeds.any()) {
    NIMBLE_ASSIGN_OR_RETURN(seeds.seeded, PredictGraphPool(trace, graph, schedule, seeds.bytes));
  }
  return seeds;
}

StatusOr<PoolPrediction> ReplayOneStream(const AllocationTrace& trace, int64_t seed_bytes) {
  if (!trace.complete) return InvalidArgument("memory replay: the allocation trace is incomplete");
  if (seed_bytes < 0) return InvalidArgument("memory replay: a pool seed of " + std::to_string(seed_bytes) + " bytes");
  CachingAllocatorModel model;
  if (seed_bytes > 0) NIMBLE_RETURN_IF_ERROR(model.Free(model.Allocate(0, seed_bytes)));
  model.ResetPeaks();
  std::unordered_map<int64_t, int64_t> ids;  // the trace's live blocks -> the model's
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const AllocationEvent& e = trace.events[i];
    if (e.kind == AllocationEvent::Kind::kAlloc) {
      if (!ids.emplace(e.block, model.Allocate(0, e.bytes)).second) {
        return InvalidArgument("memory replay: trace event " + std::to_string(i) + " allocates block " +
                               std::to_string(e.block) + ", which is in use");
      }
      continue;
    }
    const auto it = ids.find(e.block);
    if (it == ids.end()) {
      return InvalidArgument("memory replay: trace event " + std::to_string(i) + " frees block " + std::to_string(e.block) +
                             ", which is not in use");
    }
    NIMBLE_RETURN_IF_ERROR(model.Free(it->second));
    ids.erase(it);
  }
  PoolPrediction replay{model.reserved_bytes(), model.peak_allocated_bytes(), model.allocated_bytes(), model.segments(), {}};
  replay.streams.resize(1);
  if (const auto use = model.stream_use().find(0); use != model.stream_use().end()) replay.streams[0] = use->second;
  return replay;
}

StatusOr<OneStreamSeed> ChooseOneStreamSeed(const AllocationTrace& trace) {
  OneStreamSeed seed;
  NIMBLE_ASSIGN_OR_RETURN(seed.unseeded, ReplayOneStream(trace));
  seed.seeded = seed.unseeded;
  for (const int64_t bytes : SeedCandidates(seed.unseeded.segment_bytes)) {
    NIMBLE_ASSIGN_OR_RETURN(PoolPrediction p, ReplayOneStream(trace, bytes));
    if (p.segment_bytes < seed.seeded.segment_bytes) {
      seed.bytes = bytes;
      seed.seeded = std::move(p);
    }
  }
  return seed;
}

}  // namespace nimble::analysis

#include "nimble/analysis/memory_prediction.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace nimble::analysis {
namespace {

constexpr int64_t kMiB = 1 << 20;

TEST(CachingAllocatorModelTest, RoundsRequestsAndSizesSegmentsByClass) {
  EXPECT_EQ(CachingAllocatorModel::RoundedSize(1), 512);
  EXPECT_EQ(CachingAllocatorModel::RoundedSize(512), 512);
  EXPECT_EQ(CachingAllocatorModel::RoundedSize(513), 1024);
  EXPECT_EQ(CachingAllocatorModel::SegmentSize(kMiB), 2 * kMiB);
  EXPECT_EQ(CachingAllocatorModel::SegmentSize(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(CachingAllocatorModel::SegmentSize(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(CachingAllocatorModel::SegmentSize(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(CachingAllocatorModel::SegmentSize(11 * kMiB + 1), 12 * kMiB);
}

TEST(CachingAllocatorModelTest, SmallBlocksShareASegmentOnOneStreamButNotAcrossStreams) {
  CachingAllocatorModel one;
  one.Allocate(0, 600 * 1024);
  one.Allocate(0, 600 * 1024);
  one.Allocate(0, 600 * 1024);  // 3 x 600 KiB: 1.76 MiB of one 2 MiB segment
  EXPECT_EQ(one.segments(), 1);
  EXPECT_EQ(one.reserved_bytes(), 2 * kMiB);
  CachingAllocatorModel two;
  two.Allocate(0, 600 * 1024);
  two.Allocate(1, 600 * 1024);
  EXPECT_EQ(two.segments(), 2);
  EXPECT_EQ(two.reserved_bytes(), 4 * kMiB);
}

TEST(CachingAllocatorModelTest, AFreedBlockServesItsOwnStreamOnly) {
  CachingAllocatorModel model;
  const int64_t a = model.Allocate(0, 4 * kMiB);  // a 20 MiB segment, split: 16 MiB left free
  ASSERT_TRUE(model.Free(a).ok());                 // merged back: one free 20 MiB block on stream 0
  model.Allocate(1, 4 * kMiB);                     // fits that block, but it is stream 0's
  EXPECT_EQ(model.segments(), 2);
  model.Allocate(0, 18 * kMiB);                    // stream 0's block serves its own stream
  EXPECT_EQ(model.segments(), 2);
  EXPECT_EQ(model.reserved_bytes(), 40 * kMiB);
  EXPECT_TRUE(model.CheckInvariants().ok());
}

TEST(CachingAllocatorModelTest, NeighboursMergeSoThatALargerRequestFitsAgain) {
  CachingAllocatorModel model;
  const int64_t a = model.Allocate(0, 6 * kMiB);
  const int64_t b = model.Allocate(0, 6 * kMiB);
  model.Allocate(0, 6 * kMiB);  // 18 of the segment's 20 MiB
  ASSERT_TRUE(model.Free(a).ok());
  ASSERT_TRUE(model.Free(b).ok());
  model.Allocate(0, 12 * kMiB);  // the merged 12 MiB at the front
  EXPECT_EQ(model.segments(), 1);
  EXPECT_FALSE(model.Free(a).ok());  // freed already
  EXPECT_FALSE(model.Free(99).ok());
}

TEST(CachingAllocatorModelTest, EachStreamKeepsItsOwnSegmentsAndPeak) {
  CachingAllocatorModel model;
  const int64_t a = model.Allocate(0, 3 * kMiB);
  const int64_t b = model.Allocate(1, 100);
  ASSERT_TRUE(model.Free(a).ok());
  model.Allocate(0, 2 * kMiB);  // stream 0's freed block again: its peak stays 3 MiB
  model.Allocate(1, 100);
  ASSERT_TRUE(model.Free(b).ok());
  ASSERT_EQ(model.stream_use().size(), 2u);
  EXPECT_EQ(model.stream_use().at(0).segment_bytes, 20 * kMiB);
  EXPECT_EQ(model.stream_use().at(0).peak_allocated_bytes, 3 * kMiB);
  EXPECT_EQ(model.stream_use().at(1).segment_bytes, 2 * kMiB);
  EXPECT_EQ(model.stream_use().at(1).peak_allocated_bytes, 1024);
  EXPECT_TRUE(model.CheckInvariants().ok());
}

TEST(CachingAllocatorModelTest, AllocatedBytesTrackBlocksAndPeak) {
  CachingAllocatorModel model;
  const int64_t a = model.Allocate(0, 100);
  EXPECT_EQ(model.allocated_bytes(), 512);
  const int64_t b = model.Allocate(0, 3 * kMiB);
  ASSERT_TRUE(model.Free(a).ok());
  ASSERT_TRUE(model.Free(b).ok());
  EXPECT_EQ(model.allocated_bytes(), 0);
  EXPECT_EQ(model.peak_allocated_bytes(), 512 + 3 * kMiB);
}

// Random requests and frees on three streams: after every step each segment is tiled by its blocks,
// free neighbours are merged, free blocks are listed, and the books add up (CheckInvariants); reserved
// bytes only grow, and each request gets at least its rounded size.
TEST(CachingAllocatorModelTest, RandomSequencesKeepTheBooks) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    CachingAllocatorModel model;
    std::vector<int64_t> live;
    int64_t reserved = 0;
    for (int step = 0; step < 300; ++step) {
      if (!live.empty() && rng() % 2 == 0) {
        const size_t k = rng() % live.size();
        ASSERT_TRUE(model.Free(live[k]).ok());
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        const auto bytes = static_cast<int64_t>(rng() % static_cast<uint64_t>(rng() % 3 == 0 ? 24 * kMiB : 2 * kMiB));
        const int64_t before = model.allocated_bytes();
        live.push_back(model.Allocate(static_cast<int32_t>(rng() % 3), bytes));
        EXPECT_GE(model.allocated_bytes() - before, CachingAllocatorModel::RoundedSize(bytes));
      }
      const Status books = model.CheckInvariants();
      ASSERT_TRUE(books.ok()) << "trial " << trial << ", step " << step << ": " << books.ToString();
      EXPECT_GE(model.reserved_bytes(), reserved);
      reserved = model.reserved_bytes();
    }
    for (int64_t id : live) ASSERT_TRUE(model.Free(id).ok());
    EXPECT_EQ(model.allocated_bytes(), 0);
    EXPECT_TRUE(model.CheckInvariants().ok());
  }
}

// Op 0 makes x; ops 1 and 2 read it and make y and z; op 3 reads y and makes u; op 4 reads u and z.
// Every output is 5 MiB; ops 1 and 2 also use a 2 MiB workspace inside their own region. In the
// single-stream run x dies after op 2, y after op 3, u and z after op 4; w is the graph's output.
struct Diamond {
  OpGraph graph;
  AllocationTrace trace;
};

Diamond MakeDiamond() {
  Diamond d;
  for (int32_t i = 0; i < 5; ++i) d.graph.ops.push_back({OpId(i), "op" + std::to_string(i), "aten::k", "", 0});
  d.graph.edges = {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(1), OpId(3)}, {OpId(3), OpId(4)}, {OpId(2), OpId(4)}};
  using K = AllocationEvent::Kind;
  const int64_t out = 5 * kMiB, ws = 2 * kMiB;
  d.trace.events = {
      {K::kAlloc, 0, 1, out},                                                                         // x
      {K::kAlloc, 1, 2, out}, {K::kAlloc, 1, 10, ws}, {K::kFree, 1, 10, ws},                          // y
      {K::kAlloc, 2, 3, out}, {K::kAlloc, 2, 11, ws}, {K::kFree, 2, 11, ws}, {K::kFree, 2, 1, out},   // z; x dead
      {K::kAlloc, 3, 4, out}, {K::kFree, 3, 2, out},                                                  // u; y dead
      {K::kAlloc, 4, 5, out}, {K::kFree, 4, 4, out}, {K::kFree, 4, 3, out},                           // w; u, z dead
  };
  d.trace.complete = true;
  return d;
}

StreamAssignment OnStreams(std::vector<int32_t> streams, std::vector<OpEdge> syncs) {
  StreamAssignment a;
  for (int32_t s : streams) a.op_stream.push_back(StreamId(s));
  a.num_streams = *std::max_element(streams.begin(), streams.end()) + 1;
  a.syncs = std::move(syncs);
  return a;
}

TEST(MemoryPredictionTest, OneStreamReplaysTheTraceAsItWas) {
  const Diamond d = MakeDiamond();
  const auto p = PredictGraphPool(d.trace, d.graph, OnStreams({0, 0, 0, 0, 0}, {}));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  // One 20 MiB segment only because freed blocks are reused: x's for u, y's for w, the workspaces' twice
  // (without reuse the 29 MiB of requests would need a second segment).
  EXPECT_EQ(p->segments, 1);
  EXPECT_EQ(p->segment_bytes, 20 * kMiB);
  EXPECT_EQ(p->peak_allocated_bytes, 3 * 5 * kMiB + 2 * kMiB);  // x, y, z and op 2's workspace
  EXPECT_EQ(p->held_bytes, 5 * kMiB);                            // w
  ASSERT_EQ(p->streams.size(), 1u);
  EXPECT_EQ(p->streams[0].segment_bytes, 20 * kMiB);
  EXPECT_EQ(p->streams[0].peak_allocated_bytes, p->peak_allocated_bytes);
}

TEST(MemoryPredictionTest, ASideStreamReservesItsOwnSegmentAndHoldsCrossStreamValuesToTheReleasePoint) {
  const Diamond d = MakeDiamond();
  // Op 2 on stream 1, synced after op 0 and before op 4. x is read across streams: the first op of
  // stream 0 ordered after op 2 is op 4, so x lives through op 3 (u cannot take its block). z, read on
  // stream 0, has no later op of stream 1 to be released before: held to the end.
  const StreamAssignment two = OnStreams({0, 0, 1, 0, 0}, {{OpId(0), OpId(2)}, {OpId(2), OpId(4)}});
  const auto p = PredictGraphPool(d.trace, d.graph, two);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->segments, 2);  // z and its workspace on stream 1's own segment
  EXPECT_EQ(p->segment_bytes, 40 * kMiB);
  EXPECT_EQ(p->peak_allocated_bytes, 4 * 5 * kMiB);  // x, y, z and u during op 3
  EXPECT_EQ(p->held_bytes, 2 * 5 * kMiB);            // w, and z never released
  // Per stream: stream 0 peaks at x, y and u (op 3), stream 1 at z and its workspace; each keeps a 20
  // MiB segment of its own, so their peaks add up to more than the schedule's peak at any one time.
  ASSERT_EQ(p->streams.size(), 2u);
  EXPECT_EQ(p->streams[0].segment_bytes, 20 * kMiB);
  EXPECT_EQ(p->streams[1].segment_bytes, 20 * kMiB);
  EXPECT_EQ(p->streams[0].peak_allocated_bytes, 3 * 5 * kMiB);
  EXPECT_EQ(p->streams[1].peak_allocated_bytes, 5 * kMiB + 2 * kMiB);
  EXPECT_EQ(p->streams_peak_sum(), 22 * kMiB);
  // All on stream 1 but op 0: x crosses to every reader, and no op of stream 0 follows, so it is held
  // too; stream 1 reuses its own blocks as the single stream did.
  const StreamAssignment side = OnStreams({0, 1, 1, 1, 1}, {{OpId(0), OpId(1)}});
  const auto q = PredictGraphPool(d.trace, d.graph, side);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->segments, 2);
  EXPECT_EQ(q->held_bytes, 2 * 5 * kMiB);  // x and w
}

// Seeds, worked by hand on the two-stream diamond. Stream 1 (z held to the end, its 2 MiB workspace)
// fits in a 10 MiB seed: z splits it, the workspace takes 2 of the 5 MiB left. Stream 0 holds x, y and
// the workspace (12 MiB) during op 1 and x, y and u during op 3 (u takes the 6 MiB left whole: a 1 MiB
// rest is not split off), then w takes x's place: a 16 MiB seed serves it; with 14, u finds 4 MiB and
// starts a 20 MiB segment; with 10, the workspace does.
TEST(MemoryPredictionTest, SeedsArePickedPerStreamToTheSmallestThatServesIt) {
  const Diamond d = MakeDiamond();
  const StreamAssignment two = OnStreams({0, 0, 1, 0, 0}, {{OpId(0), OpId(2)}, {OpId(2), OpId(4)}});
  const auto ten = PredictGraphPool(d.trace, d.graph, two, {10 * kMiB, 10 * kMiB});
  ASSERT_TRUE(ten.ok()) << ten.status().ToString();
  EXPECT_EQ(ten->streams[1].segment_bytes, 10 * kMiB);
  EXPECT_EQ(ten->streams[0].segment_bytes, 30 * kMiB);  // the workspace starts a 20 MiB segment
  // A seed reserves; it is not in use: stream 1's peak is z and its workspace, as unseeded.
  EXPECT_EQ(ten->streams[1].peak_allocated_bytes, 5 * kMiB + 2 * kMiB);
  EXPECT_EQ(ten->peak_allocated_bytes, 4 * 5 * kMiB);
  const auto fourteen = PredictGraphPool(d.trace, d.graph, two, {14 * kMiB, 0});
  ASSERT_TRUE(fourteen.ok());
  EXPECT_EQ(fourteen->streams[0].segment_bytes, 34 * kMiB);
  EXPECT_EQ(fourteen->streams[1].segment_bytes, 20 * kMiB);  // unseeded
  const auto sixteen = PredictGraphPool(d.trace, d.graph, two, {16 * kMiB, 0});
  ASSERT_TRUE(sixteen.ok());
  EXPECT_EQ(sixteen->streams[0].segment_bytes, 16 * kMiB);
  const auto seeds = ChoosePoolSeeds(d.trace, d.graph, two);
  ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
  EXPECT_EQ(seeds->bytes, (std::vector<int64_t>{16 * kMiB, 10 * kMiB}));
  EXPECT_EQ(seeds->unseeded.segment_bytes, 40 * kMiB);
  EXPECT_EQ(seeds->seeded.segment_bytes, 26 * kMiB);
  EXPECT_TRUE(seeds->any());
  // Requests of 1 MiB and less come from 2 MiB segments whatever the seed: nothing to choose.
  Diamond small = MakeDiamond();
  for (AllocationEvent& e : small.trace.events) e.bytes = 256 * 1024;
  const auto none = ChoosePoolSeeds(small.trace, small.graph, two);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->any());
  EXPECT_EQ(none->seeded.segment_bytes, none->unseeded.segment_bytes);
  // One seed per stream, none negative.
  EXPECT_FALSE(PredictGraphPool(d.trace, d.graph, two, {10 * kMiB}).ok());
  EXPECT_FALSE(PredictGraphPool(d.trace, d.graph, two, {-1, 0}).ok());
}

// The diamond's requests at random sizes, on each of its schedules: the chosen seeds never leave a
// stream more segment bytes than unseeded, are 0 or from 10 MiB in 2 MiB steps, and the prediction
// with them is the one ChoosePoolSeeds reports.
TEST(MemoryPredictionTest, ChosenSeedsNeverCostAStreamMore) {
  std::mt19937_64 rng(11);
  const std::vector<StreamAssignment> schedules = {
      OnStreams({0, 0, 0, 0, 0}, {}),
      OnStreams({0, 0, 1, 0, 0}, {{OpId(0), OpId(2)}, {OpId(2), OpId(4)}}),
      OnStreams({0, 1, 1, 1, 1}, {{OpId(0), OpId(1)}}),
      OnStreams({0, 1, 2, 1, 0}, {{OpId(0), OpId(1)}, {OpId(0), OpId(2)}, {OpId(2), OpId(4)}, {OpId(3), OpId(4)}})};
  for (int trial = 0; trial < 200; ++trial) {
    Diamond d = MakeDiamond();
    std::map<int64_t, int64_t> size;  // a block's free repeats its allocation's size
    for (AllocationEvent& e : d.trace.events) {
      if (e.kind == AllocationEvent::Kind::kAlloc) size[e.block] = 256 * 1024 + static_cast<int64_t>(rng() % (14 * kMiB));
      e.bytes = size[e.block];
    }
    for (const StreamAssignment& schedule : schedules) {
      const auto seeds = ChoosePoolSeeds(d.trace, d.graph, schedule);
      ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
      ASSERT_EQ(seeds->bytes.size(), static_cast<size_t>(schedule.num_streams));
      for (size_t s = 0; s < seeds->bytes.size(); ++s) {
        const int64_t seed = seeds->bytes[s];
        EXPECT_TRUE(seed == 0 || (seed >= 10 * kMiB && seed % (2 * kMiB) == 0)) << seed;
        EXPECT_LE(seeds->seeded.streams[s].segment_bytes, seeds->unseeded.streams[s].segment_bytes) << "stream " << s;
        if (seed > 0) {
          EXPECT_LT(seeds->seeded.streams[s].segment_bytes, seeds->unseeded.streams[s].segment_bytes);
        }
      }
      const auto again = PredictGraphPool(d.trace, d.graph, schedule, seeds->bytes);
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(again->segment_bytes, seeds->seeded.segment_bytes);
    }
  }
}

TEST(MemoryPredictionTest, RefusesTracesThatDoNotFitTheGraphOrSchedule) {
  Diamond d = MakeDiamond();
  EXPECT_FALSE(PredictGraphPool(d.trace, d.graph, OnStreams({0, 0, 0}, {})).ok());
  EXPECT_FALSE(PredictGraphPool(d.trace, d.graph, OnStreams({0, 0, 1, 0, 0}, {{OpId(2), OpId(0)}})).ok());  // backwards
  AllocationTrace bad = d.trace;
  bad.complete = false;
  EXPECT_FALSE(PredictGraphPool(bad, d.graph, OnStreams({0, 0, 0, 0, 0}, {})).ok());
  bad = d.trace;
  bad.events.push_back({AllocationEvent::Kind::kFree, 4, 1, 0});  // x freed twice
  EXPECT_FALSE(PredictGraphPool(bad, d.graph, OnStreams({0, 0, 0, 0, 0}, {})).ok());
  bad = d.trace;
  bad.events[0].op = 7;
  EXPECT_FALSE(PredictGraphPool(bad, d.graph, OnStreams({0, 0, 0, 0, 0}, {})).ok());
  bad = d.trace;
  std::swap(bad.events[0], bad.events[1]);  // op 1's event before op 0's
  EXPECT_FALSE(PredictGraphPool(bad, d.graph, OnStreams({0, 0, 0, 0, 0}, {})).ok());
}

// A one-stream replay follows the trace as recorded: on the diamond (ops in order) it is the
// single-stream prediction; in a branch capture's order (ops out of order) it still replays.
TEST(MemoryReplayTest, OneStreamReplayIsTheSingleStreamPredictionAndIgnoresOpOrder) {
  Diamond d = MakeDiamond();
  const auto predicted = PredictGraphPool(d.trace, d.graph, OnStreams({0, 0, 0, 0, 0}, {}));
  const auto replayed = ReplayOneStream(d.trace);
  ASSERT_TRUE(predicted.ok() && replayed.ok()) << replayed.status().ToString();
  EXPECT_EQ(replayed->segment_bytes, predicted->segment_bytes);
  EXPECT_EQ(replayed->peak_allocated_bytes, predicted->peak_allocated_bytes);
  EXPECT_EQ(replayed->held_bytes, predicted->held_bytes);
  EXPECT_EQ(replayed->segments, predicted->segments);
  for (AllocationEvent& e : d.trace.events) e.op = 4 - e.op;
  const auto reversed = ReplayOneStream(d.trace);
  ASSERT_TRUE(reversed.ok()) << reversed.status().ToString();
  EXPECT_EQ(reversed->segment_bytes, predicted->segment_bytes);
}

// Three 8 MiB values live at once start two 20 MiB segments; one 24 MiB seed holds them all (each
// request splits the seed, leaving more than 1 MiB), while 22 MiB leaves the third a new segment.
TEST(MemoryReplayTest, TheSeedIsTheSmallestThatServesTheRecordedRequests) {
  using K = AllocationEvent::Kind;
  AllocationTrace trace;
  trace.events = {{K::kAlloc, 3, 1, 8 * kMiB}, {K::kAlloc, 1, 2, 8 * kMiB}, {K::kAlloc, 2, 3, 8 * kMiB},
                  {K::kFree, 2, 1, 8 * kMiB},  {K::kFree, 2, 2, 8 * kMiB},  {K::kAlloc, 0, 4, 12 * kMiB}};
  trace.complete = true;
  const auto unseeded = ReplayOneStream(trace);
  ASSERT_TRUE(unseeded.ok()) << unseeded.status().ToString();
  EXPECT_EQ(unseeded->segment_bytes, 40 * kMiB);
  EXPECT_EQ(unseeded->peak_allocated_bytes, 24 * kMiB);
  EXPECT_EQ(unseeded->held_bytes, 20 * kMiB);
  const auto short_seed = ReplayOneStream(trace, 22 * kMiB);
  ASSERT_TRUE(short_seed.ok());
  EXPECT_EQ(short_seed->segment_bytes, 42 * kMiB);
  const auto seed = ChooseOneStreamSeed(trace);
  ASSERT_TRUE(seed.ok()) << seed.status().ToString();
  EXPECT_EQ(seed->bytes, 24 * kMiB);
  EXPECT_EQ(seed->seeded.segment_bytes, 24 * kMiB);  // the 12 MiB request takes the first two's place
  EXPECT_EQ(seed->seeded.peak_allocated_bytes, 24 * kMiB);
  EXPECT_EQ(seed->unseeded.segment_bytes, 40 * kMiB);
  // Requests of 1 MiB and less come from 2 MiB segments whatever the seed.
  for (AllocationEvent& e : trace.events) e.bytes = kMiB / 2;
  const auto none = ChooseOneStreamSeed(trace);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->bytes, 0);
  EXPECT_EQ(none->seeded.segment_bytes, none->unseeded.segment_bytes);
}

TEST(MemoryReplayTest, RefusesTracesItCannotReplay) {
  using K = AllocationEvent::Kind;
  AllocationTrace trace;
  trace.events = {{K::kAlloc, 0, 1, kMiB}, {K::kFree, 0, 1, kMiB}};
  trace.complete = true;
  EXPECT_TRUE(ReplayOneStream(trace).ok());
  EXPECT_FALSE(ReplayOneStream(trace, -1).ok());
  AllocationTrace bad = trace;
  bad.complete = false;
  EXPECT_FALSE(ReplayOneStream(bad).ok());
  EXPECT_FALSE(ChooseOneStreamSeed(bad).ok());
  bad = trace;
  bad.events.push_back({K::kFree, 0, 1, kMiB});  // freed twice
  EXPECT_FALSE(ReplayOneStream(bad).ok());
  bad = trace;
  bad.events.insert(bad.events.begin() + 1, {K::kAlloc, 0, 1, kMiB});  // allocated while in use
  EXPECT_FALSE(ReplayOneStream(bad).ok());
  bad = trace;
  bad.events.erase(bad.events.begin());  // freed, never allocated
  EXPECT_FALSE(ReplayOneStream(bad).ok());
}

}  // namespace
}  // namespace nimble::analysis

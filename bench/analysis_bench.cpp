// Scale of the schedule analysis on random layered DAGs of 1k, 10k and 100k ops (2-3 in-edges per op
// from the previous three layers): transitive reduction + matching + stream assignment + critical path,
// and the width (logical concurrency) on top. Peak RSS of the process is reported as a counter; it only
// grows, so run sizes in ascending order (as registered) or one filter per process.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <random>
#include <vector>

#include "nimble/analysis/concurrency.h"
#include "nimble/analysis/critical_path.h"
#include "nimble/analysis/matching.h"
#include "nimble/analysis/stream_assignment.h"
#include "nimble/analysis/transitive_reduction.h"

namespace nimble::analysis {
namespace {

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Ops in layers of `width`; each op past the first layer draws 2 or 3 sources from the previous three
// layers, and an op left without a successor gets one in the next layer, as every op of a model feeds
// its output. With `long_edges`, one op in ten also depends on a uniformly random earlier op.
Dag LayeredDag(int32_t num_ops, int32_t width, bool long_edges, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&rng](int32_t first, int32_t end) { return first + static_cast<int32_t>(rng() % static_cast<uint64_t>(end - first)); };
  std::vector<OpEdge> edges;
  std::vector<uint8_t> has_successor(static_cast<size_t>(num_ops), 0);
  for (int32_t v = width; v < num_ops; ++v) {
    const int32_t layer = v / width;
    const int32_t degree = 2 + static_cast<int32_t>(rng() % 2);
    for (int32_t d = 0; d < degree; ++d) edges.push_back({OpId(pick(std::max(0, layer - 3) * width, layer * width)), OpId(v)});
    if (long_edges && rng() % 10 == 0) edges.push_back({OpId(pick(0, layer * width)), OpId(v)});
  }
  for (const OpEdge& e : edges) has_successor[static_cast<size_t>(e.src.value())] = 1;
  for (int32_t v = 0; v < num_ops; ++v) {
    const int32_t next_first = (v / width + 1) * width;
    if (has_successor[static_cast<size_t>(v)] == 0 && next_first < num_ops) {
      edges.push_back({OpId(v), OpId(pick(next_first, std::min(num_ops, next_first + width)))});
    }
  }
  return std::move(Dag::FromEdges(num_ops, edges)).value();  // repeated edges collapse here
}

std::vector<int64_t> RandomWeights(int32_t num_ops) {
  std::mt19937_64 rng(99);
  std::vector<int64_t> w(static_cast<size_t>(num_ops));
  for (auto& x : w) x = 1000 + static_cast<int64_t>(rng() % 100000);
  return w;
}

// Reduction + Hopcroft-Karp + assignment + critical path: what a stream assignment needs.
void BM_ScheduleAnalysis(benchmark::State& state) {
  const Dag dag = LayeredDag(static_cast<int32_t>(state.range(0)), static_cast<int32_t>(state.range(1)),
                             state.range(2) != 0, 42);
  const std::vector<int64_t> weights = RandomWeights(dag.num_nodes());
  StreamAssignment assignment;
  int64_t reduced_edges = 0;
  int64_t critical_ns = 0;
  for (auto _ : state) {
    const Dag reduced = TransitiveReduction(dag);
    const Matching matching = MaximumMatching(reduced);
    assignment = AssignStreams(reduced, matching);
    critical_ns = ComputeCriticalPath(dag, weights)->length_ns;
    reduced_edges = reduced.num_edges();
    benchmark::DoNotOptimize(critical_ns);
  }
  state.counters["edges"] = static_cast<double>(dag.num_edges());
  state.counters["reduced_edges"] = static_cast<double>(reduced_edges);
  state.counters["streams"] = assignment.num_streams;
  state.counters["syncs"] = static_cast<double>(assignment.syncs.size());
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}

// The reduction alone: the step that needs the blocked closure.
void BM_TransitiveReduction(benchmark::State& state) {
  const Dag dag = LayeredDag(static_cast<int32_t>(state.range(0)), static_cast<int32_t>(state.range(1)),
                             state.range(2) != 0, 42);
  int64_t kept = 0;
  for (auto _ : state) {
    kept = TransitiveReduction(dag).num_edges();
    benchmark::DoNotOptimize(kept);
  }
  state.counters["reduced_edges"] = static_cast<double>(kept);
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}

// Logical concurrency (min-flow width) from the reduction and its matching, which are not timed.
void BM_Width(benchmark::State& state) {
  const Dag dag = LayeredDag(static_cast<int32_t>(state.range(0)), static_cast<int32_t>(state.range(1)),
                             state.range(2) != 0, 42);
  const Dag reduced = TransitiveReduction(dag);
  const Matching matching = MaximumMatching(reduced);
  int32_t width = 0;
  for (auto _ : state) {
    width = ComputeConcurrency(reduced, matching).width;
    benchmark::DoNotOptimize(width);
  }
  state.counters["width"] = width;
  state.counters["streams"] = dag.num_nodes() - matching.size;
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}

// Our Hopcroft-Karp against Boost's Edmonds matching on the same reduced graph.
void BM_Matching(benchmark::State& state) {
  const Dag reduced = TransitiveReduction(LayeredDag(static_cast<int32_t>(state.range(0)),
                                                     static_cast<int32_t>(state.range(1)), false, 42));
  const auto algorithm = state.range(2) == 0 ? MatchingAlgorithm::kHopcroftKarp : MatchingAlgorithm::kBoostEdmonds;
  int32_t size = 0;
  for (auto _ : state) {
    size = MaximumMatching(reduced, algorithm).size;
    benchmark::DoNotOptimize(size);
  }
  state.SetLabel(state.range(2) == 0 ? "hopcroft-karp" : "boost-edmonds");
  state.counters["matched"] = size;
}

// Args: ops, ops per layer, long edges (0/1).
BENCHMARK(BM_ScheduleAnalysis)
    ->ArgNames({"ops", "layer", "long"})
    ->Args({1000, 32, 0})->Args({10000, 32, 0})->Args({100000, 32, 0})
    ->Args({10000, 1024, 0})->Args({100000, 1024, 0})
    ->Args({100000, 32, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransitiveReduction)
    ->ArgNames({"ops", "layer", "long"})
    ->Args({1000, 32, 0})->Args({10000, 32, 0})->Args({100000, 32, 0})->Args({100000, 32, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Width)
    ->ArgNames({"ops", "layer", "long"})
    ->Args({1000, 32, 0})->Args({10000, 32, 0})->Args({100000, 32, 0})
    ->Args({100000, 1024, 0})->Args({100000, 32, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Matching)
    ->ArgNames({"ops", "layer", "boost"})
    ->Args({10000, 32, 0})->Args({10000, 32, 1})->Args({100000, 32, 0})->Args({100000, 32, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nimble::analysis

BENCHMARK_MAIN();

// The content half of the schema-synthetic exports: the sample run and random ones.
#include <algorithm>
#include <climits>
#include <set>
#include <vector>

#include "make_nsys_fixture.h"

namespace nimble::store::testing {
namespace {

constexpr int64_t kMainThread = 4243;
constexpr int64_t kCuptiNoEvent = 0xFFFFFFFF;

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

template <typename Record>
void SortByStart(std::vector<Record>& records) {
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return a.start_ns < b.start_ns; });
}

void SortAll(Trace& t) {
  SortByStart(t.kernels);
  SortByStart(t.memcpys);
  SortByStart(t.memsets);
  SortByStart(t.syncs);
  SortByStart(t.graph_launches);
  SortByStart(t.api_calls);
  SortByStart(t.ranges);
}

// The launching call of GPU work: a runtime call on the main thread.
ApiCallRecord Call(Trace& t, const char* name, int64_t start_ns, int64_t end_ns, int64_t correlation,
                   int32_t return_value = 0) {
  ApiCallRecord a;
  a.start_ns = start_ns;
  a.end_ns = end_ns;
  a.kind = std::string_view(name).rfind("cuda", 0) == 0 ? ApiKind::kRuntime : ApiKind::kDriver;
  a.thread = ThreadId(kMainThread);
  a.process = 4242;
  a.correlation = CorrelationId(correlation);
  a.name = t.strings.Intern(name);
  a.return_value = return_value;
  return a;
}

KernelRecord Kernel(Trace& t, const char* name, int64_t start_ns, int64_t end_ns, int64_t stream,
                    int64_t correlation, Dim3 grid, Dim3 block, int32_t registers) {
  KernelRecord k;
  k.start_ns = start_ns;
  k.end_ns = end_ns;
  k.device = DeviceId(0);
  k.context = ContextId(1);
  k.stream = StreamId(stream);
  k.correlation = CorrelationId(correlation);
  k.name = t.strings.Intern(std::string("void ") + name + "<float>(float const*, float*, int)");
  k.short_name = t.strings.Intern(name);
  k.grid = grid;
  k.block = block;
  k.registers_per_thread = registers;
  return k;
}

// Setup: a driver allocation, an HtoD copy on stream 13 and a memset on stream 14.
void AddSetup(Trace& t) {
  t.api_calls.push_back(Call(t, "cuMemAlloc_v2", 400'000, 450'000, 1));
  t.api_calls.push_back(Call(t, "cudaMemcpyAsync_v3020", 500'000, 505'000, 2));
  MemcpyRecord copy;
  copy.start_ns = 506'000;
  copy.end_ns = 540'000;
  copy.device = DeviceId(0);
  copy.context = ContextId(1);
  copy.stream = StreamId(13);
  copy.correlation = CorrelationId(2);
  copy.bytes = int64_t{1} << 20;
  copy.copy_kind = CopyKind::kHtoD;
  copy.src_kind = MemoryKind::kPinned;
  copy.dst_kind = MemoryKind::kDevice;
  t.memcpys.push_back(copy);
  t.api_calls.push_back(Call(t, "cudaMemsetAsync_v3020", 541'000, 543'000, 3));
  MemsetRecord set;
  set.start_ns = 545'000;
  set.end_ns = 550'000;
  set.device = DeviceId(0);
  set.context = ContextId(1);
  set.stream = StreamId(14);
  set.correlation = CorrelationId(3);
  set.bytes = 4096;
  set.value = 0;
  set.mem_kind = MemoryKind::kDevice;
  t.memsets.push_back(set);
}

// Three iterations, each an NVTX range of the "train" domain around a gemm on stream 13 and a relu on
// stream 14 that overlap.
void AddIterations(Trace& t) {
  int64_t correlation = 10;
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t base = 1'000'000 + i * 100'000;
    t.ranges.push_back(NvtxRange{base, base + 90'000, ThreadId(kMainThread), t.strings.Intern("iteration"),
                                 t.strings.Intern("train")});
    t.api_calls.push_back(Call(t, "cudaLaunchKernel_v7000", base + 1'000, base + 3'000, correlation));
    t.kernels.push_back(Kernel(t, "gemm", base + 5'000, base + 25'000, 13, correlation++, {128, 2, 1}, {256, 1, 1}, 96));
    t.kernels.back().static_shared_bytes = 16384;
    t.kernels.back().dynamic_shared_bytes = 32768;
    t.api_calls.push_back(Call(t, "cudaLaunchKernel_v7000", base + 3'500, base + 5'500, correlation));
    t.kernels.push_back(Kernel(t, "relu", base + 8'000, base + 18'000, 14, correlation++, {1024, 1, 1}, {128, 1, 1}, 16));
  }
}

// A CUDA graph of two kernels launched once into stream 13, a stream synchronization, a query that
// finds the stream busy (cudaErrorNotReady, 600), and a mark in the default domain.
void AddGraphAndSync(Trace& t) {
  t.api_calls.push_back(Call(t, "cudaGraphLaunch_v10000", 1'400'000, 1'405'000, 100));
  t.kernels.push_back(Kernel(t, "graph_conv", 1'410'000, 1'430'000, 13, 100, {64, 1, 1}, {512, 1, 1}, 64));
  t.kernels.back().graph_id = 7;
  t.kernels.back().graph_node_id = 1;
  t.kernels.push_back(Kernel(t, "graph_add", 1'431'000, 1'440'000, 13, 100, {32, 1, 1}, {256, 1, 1}, 24));
  t.kernels.back().graph_id = 7;
  t.kernels.back().graph_node_id = 2;
  t.api_calls.push_back(Call(t, "cudaStreamSynchronize_v3020", 1'406'000, 1'441'000, 101));
  SyncRecord sync;
  sync.start_ns = 1'406'500;
  sync.end_ns = 1'440'500;
  sync.device = DeviceId(0);
  sync.context = ContextId(1);
  sync.stream = StreamId(13);
  sync.correlation = CorrelationId(101);
  sync.kind = SyncKind::kStreamSynchronize;
  sync.event_id = kCuptiNoEvent;
  t.syncs.push_back(sync);
  t.api_calls.push_back(Call(t, "cudaStreamQuery_v3020", 1'442'000, 1'442'500, 102, 600));
  t.ranges.push_back(NvtxRange{1'450'000, 1'450'000, ThreadId(kMainThread), t.strings.Intern("checkpoint"), StringId()});
}

// Random records within the fixture's constraints, with start times distinct across the whole trace.
class RandomRecords {
 public:
  RandomRecords(std::mt19937_64& rng, Trace& t) : rng_(rng), t_(t) {}

  int64_t U(int64_t lo, int64_t hi) { return Uniform(rng_, lo, hi); }
  int64_t Start() {
    int64_t s = 0;
    do s = U(-1'000'000, int64_t{1} << 45);
    while (!used_.insert(s).second);
    return s;
  }
  StringId Text() {
    static const std::vector<std::string> kNames = {"k", "void gemm<float, 128>(float const*, float*, int)",
                                                    "ядро_κ_😀", "it's \"quoted\"; DROP TABLE StringIds;",
                                                    std::string(2000, 'x')};
    return t_.strings.Intern(kNames[static_cast<size_t>(U(0, 4))] + std::to_string(U(0, 5)));
  }
  template <typename Record>
  void Gpu(Record& r) {
    r.start_ns = Start();
    r.end_ns = r.start_ns + U(0, 1'000'000);
    r.device = DeviceId(static_cast<int32_t>(U(0, 3)));
    r.context = ContextId(U(0, INT32_MAX - 1));
    r.stream = StreamId(U(0, int64_t{1} << 40));
    if (U(0, 7) != 0) r.correlation = CorrelationId(U(0, int64_t{1} << 40));
  }
  int32_t I32(int64_t lo, int64_t hi) { return static_cast<int32_t>(U(lo, hi)); }

  void AddDevice(int32_t ordinal) {
    t_.devices.push_back(DeviceInfo{DeviceId(ordinal), U(0, 3) ? Text() : StringId(), I32(5, 10), I32(0, 9),
                                    I32(1, 200), 32 * I32(1, 64), I32(1, 32), 65536, I32(0, 1 << 18), 1024,
                                    U(0, int64_t{1} << 40), I32(0, 3'000'000)});
  }
  void AddKernel() {
    KernelRecord k;
    Gpu(k);
    k.name = Text();
    k.short_name = Text();
    k.grid = {I32(1, INT32_MAX), I32(1, 65535), 1};
    k.block = {I32(1, 1024), 1, I32(1, 64)};
    k.registers_per_thread = I32(0, 255);
    k.static_shared_bytes = I32(0, 49152);
    k.dynamic_shared_bytes = I32(0, 1 << 20);
    if (U(0, 2) == 0) {
      k.graph_id = U(1, 1000);
      k.graph_node_id = U(1, int64_t{1} << 40);
    }
    t_.kernels.push_back(k);
  }
  void AddCopies() {
    MemcpyRecord m;
    Gpu(m);
    m.bytes = U(0, int64_t{1} << 40);
    m.copy_kind = static_cast<CopyKind>(U(0, 10));
    m.src_kind = static_cast<MemoryKind>(U(0, 7));
    m.dst_kind = static_cast<MemoryKind>(U(0, 7));
    m.graph_node_id = U(0, 1) * U(1, 1000);
    t_.memcpys.push_back(m);
    MemsetRecord s;
    Gpu(s);
    s.value = I32(INT32_MIN, INT32_MAX);
    s.bytes = U(0, int64_t{1} << 40);
    s.mem_kind = static_cast<MemoryKind>(U(0, 7));
    t_.memsets.push_back(s);
  }
  void AddSyncAndGraph() {
    SyncRecord y;
    Gpu(y);
    y.kind = static_cast<SyncKind>(U(0, 4));
    if (y.kind != SyncKind::kStreamSynchronize && y.kind != SyncKind::kStreamWaitEvent) y.stream = StreamId();
    y.event_id = U(0, kCuptiNoEvent);
    t_.syncs.push_back(y);
    GraphLaunchRecord g;
    Gpu(g);
    if (U(0, 5) == 0) {
      g.device = DeviceId();
      g.context = ContextId();
    }
    g.graph_id = U(0, 1000);
    t_.graph_launches.push_back(g);
  }
  void AddHost() {
    ApiCallRecord a = Call(t_, U(0, 1) ? "cuLaunchKernel" : "cudaLaunchKernel_v7000", Start(), 0, 0,
                           I32(INT32_MIN, INT32_MAX));
    a.end_ns = a.start_ns + U(0, 100'000);
    a.thread = ThreadId(U(1, (1 << 24) - 1));
    a.correlation = U(0, 7) ? CorrelationId(U(0, int64_t{1} << 40)) : CorrelationId();
    t_.api_calls.push_back(a);
    NvtxRange r;
    r.start_ns = Start();
    r.end_ns = U(0, 4) == 0 ? r.start_ns : r.start_ns + U(1, 1'000'000);
    r.thread = ThreadId(U(1, (1 << 24) - 1));
    r.text = U(0, 5) ? Text() : StringId();
    if (U(0, 2) != 0) r.domain = t_.strings.Intern(U(0, 1) ? "domain ✓" : "train");
    t_.ranges.push_back(r);
  }

 private:
  std::mt19937_64& rng_;
  Trace& t_;
  std::set<int64_t> used_;
};

}  // namespace

NsysFixture SampleNsysFixture() {
  NsysFixture f;
  Trace& t = f.trace;
  t.devices.push_back(DeviceInfo{DeviceId(0), t.strings.Intern("NVIDIA H100 80GB HBM3"), 9, 0, 132, 2048, 32, 65536,
                                 233472, 1024, int64_t{85'520'809'984}, 1'980'000});
  AddSetup(t);
  AddIterations(t);
  AddGraphAndSync(t);
  SortAll(t);
  return f;
}

NsysFixture RandomNsysFixture(std::mt19937_64& rng, int scale) {
  NsysFixture f;
  RandomRecords random(rng, f.trace);
  const int32_t devices = static_cast<int32_t>(random.U(0, 2));
  for (int32_t d = 0; d < devices; ++d) random.AddDevice(d);
  for (int i = 0; i < scale; ++i) {
    random.AddKernel();
    random.AddCopies();
    random.AddSyncAndGraph();
    random.AddHost();
  }
  SortAll(f.trace);
  f.shuffle_seed = rng();
  return f;
}

}  // namespace nimble::store::testing

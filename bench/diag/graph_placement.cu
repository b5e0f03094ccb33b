// Where a small grid's blocks land when, inside a CUDA graph, it is dispatched while another branch's short
// kernel is draining, as in ResNet-50 float32's multi-stream replay (layer4's first 3x3 convolution, 32
// blocks of 64 threads, 92 registers, 6528 bytes of dynamic shared memory, dispatched 0.9 us before the
// downsample's bias add, 392 blocks of 128 threads, ends). A graph: a root kernel, then on one branch a
// one-block delay of d us and the chain kernel (the convolution's stand-in), on the other a drain kernel of
// 392 blocks whose blocks spin 1-3 us. Every block of both writes its SM, start and end (globaltimer), so
// each replay says how many SMs were free of drain blocks when the chain's first block started, and how
// the chain's blocks were spread. Variants: the chain with 256 or 6528 bytes of dynamic shared memory; the
// drain kernel with its default shared-memory carveout, with the largest carveout preferred through its
// function attribute, with 8 KiB of dynamic shared memory, and with a carveout set on its graph node (or
// on every kernel node) through the launch attribute.
//     nvcc -O2 -arch=sm_90 -o graph_placement bench/diag/graph_placement.cu && ./graph_placement
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

#include "block_clock.cuh"
#include "cuda_check.h"

namespace {

struct Blocks {
  unsigned* sm;
  unsigned long long* start;
  unsigned long long* end;
};

__device__ void Record(const Blocks& b, unsigned long long t0) {
  if (threadIdx.x == 0) {
    b.sm[blockIdx.x] = SmId();
    b.start[blockIdx.x] = t0;
    b.end[blockIdx.x] = GlobalNs();
  }
}

__global__ void Delay(unsigned long long ns) {
  const unsigned long long t0 = GlobalNs();
  while (GlobalNs() - t0 < ns) {
  }
}

// Blocks spin 1-3 us, spread by block index, so the kernel drains over a few microseconds as an
// elementwise kernel's blocks do.
__global__ void Drain(Blocks b) {
  const unsigned long long t0 = GlobalNs();
  const unsigned long long spin = 1000 + (blockIdx.x * 7919u) % 2000;
  while (GlobalNs() - t0 < spin) {
  }
  __syncthreads();
  Record(b, t0);
}

// Four dependent FMA chains a thread; writes its dynamic shared memory (at least 64 floats) so the
// allocation is real.
__global__ void Chain(int iters, float* sink, Blocks b) {
  extern __shared__ float smem[];
  const unsigned long long t0 = GlobalNs();
  float a0 = threadIdx.x * 1e-3f, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  const float m = 1.0001f, c = 1e-4f;
  for (int i = 0; i < iters; ++i) {
    a0 = fmaf(a0, m, c);
    a1 = fmaf(a1, m, c);
    a2 = fmaf(a2, m, c);
    a3 = fmaf(a3, m, c);
  }
  smem[threadIdx.x] = a0 + a1 + a2 + a3;
  __syncthreads();
  if (smem[(threadIdx.x + 1) % blockDim.x] == 12345.f) sink[threadIdx.x] = a0;  // keeps the chain alive
  Record(b, t0);
}

struct DeviceBlocks {
  Blocks d;
  int n;
  explicit DeviceBlocks(int count) : n(count) {
    CHECK(cudaMalloc(&d.sm, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d.start, n * sizeof(unsigned long long)));
    CHECK(cudaMalloc(&d.end, n * sizeof(unsigned long long)));
  }
  void Read(std::vector<unsigned>& sm, std::vector<unsigned long long>& s, std::vector<unsigned long long>& e) const {
    sm.resize(n);
    s.resize(n);
    e.resize(n);
    CHECK(cudaMemcpy(sm.data(), d.sm, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(s.data(), d.start, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(e.data(), d.end, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  }
};

struct Replay {
  double chain_us;        // first block start to last block end
  double offset_us;       // chain's first block start minus the drain's last block end
  int free_sms;           // SMs with no drain block running when the chain's first block started
  int chain_sms;          // SMs the chain's blocks ran on
  int most_per_sm;
};

// What runs beside the chain, and how the shared-memory carveout is asked for: through the drain kernel's
// function attribute, or through the graph's kernel nodes (the launch attribute, a percentage; -1: not set).
struct Variant {
  const char* name;
  bool drain;
  int drain_smem;
  int func_carveout;
  int drain_node_carveout;
  int all_nodes_carveout;
};

void SetNodeCarveouts(cudaGraph_t graph, const Variant& v) {
  size_t n = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeKernel) continue;
    cudaKernelNodeParams params;
    CHECK(cudaGraphKernelNodeGetParams(node, &params));
    const bool is_drain = params.func == reinterpret_cast<void*>(Drain);
    const int percent = v.all_nodes_carveout >= 0 ? v.all_nodes_carveout : (is_drain ? v.drain_node_carveout : -1);
    if (percent < 0) continue;
    cudaKernelNodeAttrValue value{};
    value.sharedMemCarveout = static_cast<unsigned>(percent);
    CHECK(cudaGraphKernelNodeSetAttribute(node, cudaKernelNodeAttributePreferredSharedMemoryCarveout, &value));
  }
}

struct Setup {
  int sm_count, chain_blocks, iters;
  float* sink;
  DeviceBlocks* chain;
  DeviceBlocks* drain;
  cudaStream_t s0, s1;
};

Replay Measure(const Setup& st, int chain_smem, const Variant& v, double delay_us, int reps, std::vector<Replay>& out) {
  CHECK(cudaFuncSetAttribute(Drain, cudaFuncAttributePreferredSharedMemoryCarveout, v.func_carveout));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(st.s0, cudaStreamCaptureModeThreadLocal));
  Delay<<<1, 32, 0, st.s0>>>(0);
  CHECK(cudaEventRecord(fork, st.s0));
  CHECK(cudaStreamWaitEvent(st.s1, fork, 0));
  Delay<<<1, 32, 0, st.s0>>>(static_cast<unsigned long long>(delay_us * 1e3));
  Chain<<<st.chain_blocks, 64, chain_smem, st.s0>>>(st.iters, st.sink, st.chain->d);
  if (v.drain) Drain<<<st.drain->n, 128, v.drain_smem, st.s1>>>(st.drain->d);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(join, st.s1));
  CHECK(cudaStreamWaitEvent(st.s0, join, 0));
  CHECK(cudaStreamEndCapture(st.s0, &graph));
  SetNodeCarveouts(graph, v);
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  out.clear();
  std::vector<unsigned> csm, dsm;
  std::vector<unsigned long long> cs, ce, ds, de;
  for (int r = 0; r <= reps; ++r) {
    CHECK(cudaGraphLaunch(exec, st.s0));
    CHECK(cudaStreamSynchronize(st.s0));
    if (r == 0) continue;  // warm-up
    st.chain->Read(csm, cs, ce);
    Replay p{};
    const unsigned long long first = *std::min_element(cs.begin(), cs.end());
    p.chain_us = (*std::max_element(ce.begin(), ce.end()) - first) / 1e3;
    std::vector<int> per(1024, 0);
    for (unsigned id : csm) ++per[id % 1024];
    p.chain_sms = static_cast<int>(std::set<unsigned>(csm.begin(), csm.end()).size());
    p.most_per_sm = *std::max_element(per.begin(), per.end());
    p.free_sms = st.sm_count;
    if (v.drain) {
      st.drain->Read(dsm, ds, de);
      std::set<unsigned> busy;
      for (size_t i = 0; i < dsm.size(); ++i)
        if (ds[i] <= first && first < de[i]) busy.insert(dsm[i]);
      p.free_sms = st.sm_count - static_cast<int>(busy.size());
      p.offset_us = (static_cast<double>(first) - *std::max_element(de.begin(), de.end())) / 1e3;
    }
    out.push_back(p);
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  std::vector<Replay> sorted = out;
  std::sort(sorted.begin(), sorted.end(), [](const Replay& a, const Replay& b) { return a.chain_us < b.chain_us; });
  return sorted[sorted.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 40000;
  const int reps = 9;
  Setup st{};
  CHECK(cudaDeviceGetAttribute(&st.sm_count, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, Chain));
  std::printf("%s, %d SMs; chain: 32 blocks of 64 threads, %d registers, %d FMAs a chain; drain: 392 blocks "
              "of 128 threads\n", prop.name, st.sm_count, attr.numRegs, iters);
  st.chain_blocks = 32;
  st.iters = iters;
  CHECK(cudaMalloc(&st.sink, 1024 * sizeof(float)));
  DeviceBlocks chain(32), drain(392);
  st.chain = &chain;
  st.drain = &drain;
  CHECK(cudaStreamCreateWithFlags(&st.s0, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&st.s1, cudaStreamNonBlocking));
  const Variant variants[] = {
      {"no drain kernel", false, 0, -1, -1, -1},
      {"drain, default carveout", true, 0, -1, -1, -1},
      {"drain, function carveout 100 %", true, 0, 100, -1, -1},
      {"drain, 8 KiB dynamic shared", true, 8 * 1024, -1, -1, -1},
      {"drain node carveout 0 %", true, 0, -1, 0, -1},
      {"drain node carveout 10 %", true, 0, -1, 10, -1},
      {"drain node carveout 25 %", true, 0, -1, 25, -1},
      {"drain node carveout 50 %", true, 0, -1, 50, -1},
      {"drain node carveout 100 %", true, 0, -1, 100, -1},
      {"every node carveout 100 %", true, 0, -1, -1, 100},
  };
  std::vector<Replay> all;
  for (int smem : {256, 6528}) {
    for (const Variant& v : variants) {
      for (double d : {0.0, 1.0, 2.0, 4.0}) {
        if (!v.drain && d > 0) continue;
        const Replay m = Measure(st, smem, v, d, reps, all);
        int fewest = st.sm_count, most = 0;
        for (const Replay& r : all) {
          fewest = std::min(fewest, r.chain_sms);
          most = std::max(most, r.most_per_sm);
        }
        std::printf("chain %4d B shared, %-31s delay %1.0f us: chain median %7.1f us on %3d SMs (fewest %3d, "
                    "most on one %2d); at its start %+6.2f us from the drain's end, %3d SMs free\n",
                    smem, v.name, d, m.chain_us, m.chain_sms, fewest, most, m.offset_us, m.free_sms);
        std::printf("    each replay (us, SMs, most on one, offset, free SMs):");
        for (const Replay& r : all)
          std::printf(" %.0f/%d/%d/%+.1f/%d", r.chain_us, r.chain_sms, r.most_per_sm, r.offset_us, r.free_sms);
        std::printf("\n");
      }
    }
  }
  return 0;
}

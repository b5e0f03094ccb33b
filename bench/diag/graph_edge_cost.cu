// What a cross-stream dependency costs inside a CUDA graph replay, timed without any tracing: a chain of
// N tiny kernels captured on one stream, against the same chain whose consecutive kernels alternate
// over S streams (each kernel waits on the previous one's event, so every link crosses streams), and
// against fork-join diamonds of width S (one kernel forks to S, they join back). The median replay time
// of each graph over R replays, and the cost per crossing edge relative to the one-stream chain.
//     nvcc -O2 -arch=sm_90 -o graph_edge_cost bench/diag/graph_edge_cost.cu && ./graph_edge_cost
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

__global__ void Tiny(float* x, int spin) {
  float a = x[threadIdx.x];
  for (int i = 0; i < spin; ++i) a = a * 1.0001f + 1e-4f;
  x[threadIdx.x] = a;
}

struct Graph {
  cudaGraphExec_t exec = nullptr;
};

Graph EndCapture(cudaStream_t origin) {
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(origin, &g));
  Graph out;
  CHECK(cudaGraphInstantiate(&out.exec, g, 0));
  CHECK(cudaGraphDestroy(g));
  return out;
}

// Kernel k runs on stream k % streams; it waits on kernel k-1's event when the stream changes.
Graph Chain(int n, int streams, float* buf, int spin, std::vector<cudaStream_t>& s, std::vector<cudaEvent_t>& ev) {
  CHECK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeThreadLocal));
  for (int k = 0; k < n; ++k) {
    const int cur = k % streams;
    if (k > 0 && cur != (k - 1) % streams) CHECK(cudaStreamWaitEvent(s[cur], ev[(k - 1) % ev.size()], 0));
    Tiny<<<1, 32, 0, s[cur]>>>(buf + 32 * cur, spin);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(ev[k % ev.size()], s[cur]));
  }
  // join every stream back to the origin
  for (int j = 1; j < streams; ++j) {
    CHECK(cudaEventRecord(ev[0], s[j]));
    CHECK(cudaStreamWaitEvent(s[0], ev[0], 0));
  }
  return EndCapture(s[0]);
}

// `blocks` fork-join diamonds: one kernel on stream 0, then `width` kernels, one per stream, then a join.
Graph Diamonds(int blocks, int width, float* buf, int spin, std::vector<cudaStream_t>& s,
               std::vector<cudaEvent_t>& ev) {
  CHECK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeThreadLocal));
  for (int b = 0; b < blocks; ++b) {
    Tiny<<<1, 32, 0, s[0]>>>(buf, spin);
    CHECK(cudaEventRecord(ev[0], s[0]));
    for (int j = 1; j < width; ++j) {
      CHECK(cudaStreamWaitEvent(s[j], ev[0], 0));
      Tiny<<<1, 32, 0, s[j]>>>(buf + 32 * j, spin);
      CHECK(cudaEventRecord(ev[j], s[j]));
    }
    Tiny<<<1, 32, 0, s[0]>>>(buf, spin);
    for (int j = 1; j < width; ++j) CHECK(cudaStreamWaitEvent(s[0], ev[j], 0));
  }
  return EndCapture(s[0]);
}

double MedianUs(const Graph& g, cudaStream_t s, int reps) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 20; ++i) CHECK(cudaGraphLaunch(g.exec, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaGraphLaunch(g.exec, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 96;
  const int reps = 200;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  float* buf;
  CHECK(cudaMalloc(&buf, 32 * 64 * sizeof(float)));
  CHECK(cudaMemset(buf, 0, 32 * 64 * sizeof(float)));
  std::vector<cudaStream_t> s(32);
  for (auto& x : s) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  std::vector<cudaEvent_t> ev(64);
  for (auto& e : ev) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  std::printf("%s; chains of %d one-block kernels, median of %d timed replays each (no tracing)\n", prop.name, n,
              reps);
  for (int spin : {0, 2000}) {
    const Graph one = Chain(n, 1, buf, spin, s, ev);
    const double base = MedianUs(one, s[0], reps);
    std::printf("kernel spin %d: one stream %.1f us (%.2f us a kernel)\n", spin, base, base / n);
    for (int streams : {2, 4, 8, 13, 16, 24}) {
      const Graph g = Chain(n, streams, buf, spin, s, ev);
      const double t = MedianUs(g, s[0], reps);
      std::printf("  chain over %2d streams: %8.1f us, %+.2f us per crossing edge (%d edges)\n", streams, t,
                  (t - base) / (n - 1), n - 1);
      CHECK(cudaGraphExecDestroy(g.exec));
    }
    for (int width : {2, 4, 8, 13}) {
      const int blocks = n / (width + 1);
      const Graph d = Diamonds(blocks, width, buf, spin, s, ev);
      const double t = MedianUs(d, s[0], reps);
      std::printf("  %2d diamonds of width %2d: %8.1f us; their %d kernels on one stream would take %.1f us "
                  "at %.2f us a kernel\n",
                  blocks, width, t, blocks * (width + 1), base / n * blocks * (width + 1), base / n);
      CHECK(cudaGraphExecDestroy(d.exec));
    }
    CHECK(cudaGraphExecDestroy(one.exec));
  }
  return 0;
}

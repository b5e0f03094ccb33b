// A multi-stream schedule captured on one CUDA stream: each schedule stream becomes a branch of the
// captured graph (the capture's dependency set is switched per branch with
// cudaStreamUpdateCaptureDependencies), so the replay runs the branches concurrently as a multi-stream
// capture would, while the caching allocator sees a single stream and reuses a freed block for any
// branch. That reuse is made safe here: every allocation in the capture's pool that lands on memory a
// branch freed gets that branch's dependencies at the free (and those of each branch that recorded a
// use of the block) added before its first kernel is captured. The capture stream's one cuBLAS
// workspace is shared by every branch, so the GEMM ops are chained one after another.
//
// Correctness rests on the stream rewrite's release rule (stream_rewrite.h): a value is freed on a
// stream already ordered after every reader, or its reads are recorded (nimble::record_stream). One
// BranchCapture per capture, on the capturing thread; the allocator and dispatcher hooks act only
// while it is installed on that thread.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "freed_ranges.h"

namespace nimble::accelerate {

class BranchCapture {
 public:
  using Nodes = std::vector<cudaGraphNode_t>;

  // Begins on `stream`, which is capturing: every branch starts from the stream's current
  // dependencies. Installs the hooks on this thread. Throws c10::Error naming a failed CUDA call.
  BranchCapture(cudaStream_t stream, int32_t branches);
  ~BranchCapture();
  BranchCapture(const BranchCapture&) = delete;
  BranchCapture& operator=(const BranchCapture&) = delete;

  // The schedule's operators (custom_ops.cpp); each throws c10::Error on a CUDA failure or one the
  // hooks met (they cannot throw where they run).
  void Switch(int32_t branch);
  void Record(int64_t event);
  void Wait(int64_t event);
  void RecordUse(const void* block);
  // nimble::seed_pool: allocates and frees `bytes` on the capture stream unseen by the hooks, so that
  // the pool starts with one segment of that size, which no work has used.
  void Seed(size_t bytes);
  // The stream's dependencies become every branch's: the capture ends after all of them. Uninstalls.
  void Join();

  // Hooks: the caching allocator's trace entries on this thread, and GEMM ops starting and ending.
  void OnAlloc(uintptr_t address, size_t bytes) noexcept;
  void OnFree(uintptr_t address, size_t bytes) noexcept;
  void OnGemm(bool begin) noexcept;
  cudaStream_t stream() const { return stream_; }

  // Counters for CaptureStats: allocations that waited for another branch's free, and the edges added.
  int64_t reused_blocks() const { return reused_blocks_; }
  int64_t hazard_edges() const { return hazard_edges_; }

 private:
  Nodes Dependencies();  // the stream's current dependency set
  void SetDependencies(const Nodes& nodes, bool add);
  void Check() const;  // throws the first hook failure
  void Uninstall() noexcept;

  cudaStream_t stream_;
  int32_t current_ = 0;
  std::vector<Nodes> tails_;   // per branch, its dependency set while another branch is current
  std::vector<Nodes> events_;  // per event, the dependencies it recorded
  std::vector<uint8_t> recorded_;  // per event, whether it was recorded
  FreedRanges<cudaGraphNode_t> freed_;  // what an allocation of freed memory must follow
  std::unordered_map<uintptr_t, std::vector<int32_t>> uses_;  // branches that recorded a use, per block
  std::unordered_map<uintptr_t, int32_t> allocated_on_;  // live blocks: the branch that allocated them
  Nodes gemm_;  // the last GEMM op's end: the next one follows it
  int32_t gemm_depth_ = 0;
  int64_t reused_blocks_ = 0, hazard_edges_ = 0;
  std::string error_;
  uint64_t gemm_callback_ = 0;
  bool installed_ = false;
  bool seeding_ = false;
  BranchCapture* previous_ = nullptr;
};

}  // namespace nimble::accelerate

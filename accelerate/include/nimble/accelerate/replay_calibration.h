// Small CUDA graphs that show what a replay costs on this device beyond its kernels: a chain of spin
// kernels (about 1 us each) and a chain of fork-join diamonds over two streams, recorded by a collector
// (analysis::MeasureReplayCosts reads them); the chain timed against one twice as long (the launch) and
// against itself with a memset before each kernel (memset and fill nodes). One thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nimble/core/status.h"

namespace nimble::accelerate {

class ReplayCalibration {
 public:
  // Captures the chains and the diamonds on `device` ("cuda" or "cuda:N"), each of about `kernels`
  // kernels; the memset chains are made by MemsetNodeCosts.
  // Unavailable without that device; Internal naming the CUDA call that failed.
  static StatusOr<std::unique_ptr<ReplayCalibration>> Create(const std::string& device, int32_t kernels = 48);
  ~ReplayCalibration();
  ReplayCalibration(const ReplayCalibration&) = delete;
  ReplayCalibration& operator=(const ReplayCalibration&) = delete;

  // Launches each graph `times` times on an idle GPU (waiting for every replay), so that each launch
  // shows its own latency.
  Status Replay(int32_t times);

  // The fixed cost of one replay as AotGraph times a model's replays (between two CUDA events on an
  // idle GPU), with no collector attached: the chain and a chain twice as long are each timed `times`
  // times, and the cost is 2 T(n) - T(2n) of their medians (kernels and gaps cancel). ns, at least 0.
  StatusOr<int64_t> LaunchLatency(int32_t times);

  // What one small memset node adds to a replay between two kernels, and one fill kernel node replacing
  // it (memset_nodes.h): the chain with a 4-byte memset before each of its n kernels, as captured and
  // rewritten, each timed `times` times against the chain without a collector; each cost is
  // (T(marked) - T(chain)) / n of their medians. ns, at least 0. On failure the runtime's last error is
  // cleared, and the other costs stand.
  struct NodeCosts {
    int64_t fill_ns = 0;
    int64_t memset_ns = 0;
  };
  StatusOr<NodeCosts> MemsetNodeCosts(int32_t times);

 private:
  struct Impl;
  StatusOr<NodeCosts> TimeMemsetNodes(int32_t times);
  explicit ReplayCalibration(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nimble::accelerate

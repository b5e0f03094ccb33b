// Runs a loaded model as libtorch would without scheduling: the frozen graph node by node on the
// current stream, each op's nodes bracketed for an OpObserver. Folded nodes run in the bracket of the
// next op (trailing ones in the last op's), so every node, and every kernel, lies in one bracket.
// Not thread-safe: one runner, one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/op_observer.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

struct EagerOptions {
  uint64_t seed = 0;  // of the random float inputs
};

class EagerRunner {
 public:
  // Makes random float inputs of the model's input shapes on its device, once: every iteration reads
  // the same inputs. InvalidArgument when the shapes do not fit the forward signature.
  static StatusOr<std::unique_ptr<EagerRunner>> Create(const ModelGraph& model, const EagerOptions& options = {});
  ~EagerRunner();
  EagerRunner(const EagerRunner&) = delete;
  EagerRunner& operator=(const EagerRunner&) = delete;

  // One forward pass, then a wait for the device. Returns its wall time in ns (steady clock, from the
  // first node to the end of the wait). `observer` may be null. A node that throws gives an error
  // naming the model file and the node; the bracket it was in is closed first.
  StatusOr<int64_t> RunIteration(OpObserver* observer);

  // Runs the module's own forward (the TorchScript interpreter) on the same inputs and returns the
  // largest absolute difference from the outputs of the last RunIteration: the node-by-node run must
  // compute what the model computes. FailedPrecondition before any iteration.
  StatusOr<double> MaxDifferenceFromForward();

  int32_t num_ops() const;
  // Graph nodes run inside each op's bracket (the op's own node and the folded ones it carries).
  const std::vector<int32_t>& nodes_per_op() const;
  const LoadedModel& model() const;

 private:
  struct Impl;
  explicit EagerRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nimble::accelerate

// What TrainingStep holds (TrainingStep::State) and the steps its capture and its choice between
// captures share: training_step.cpp captures, checks and times; training_choice.cpp makes the candidate
// captures and keeps the fastest. Private to accelerate/src.
#pragma once

#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/jit/api/module.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aot_graph_impl.h"
#include "foreach_sgd.h"
#include "memset_nodes.h"
#include "nimble/accelerate/training_step.h"
#include "nimble/core/status.h"
#include "torch_errors.h"
#include "training_schedule.h"

namespace nimble::accelerate {

// One capture of the step: its graph, memory pool, loss and the gradients its backward writes.
struct StepCapture {
  std::unique_ptr<CapturedGraph> graph;
  MemsetRewrite memsets;
  int32_t carveout = kKeepCarveout;  // asked of its kernel nodes without shared memory
  int32_t carveout_nodes = 0;        // those nodes
  c10::MempoolId_t pool{0, 0};
  at::Tensor loss;
  std::vector<at::Tensor> grads;
};

struct TrainingStep::State {
  TrainingOptions options;
  TrainingReport report;
  torch::jit::Module module;
  std::vector<at::Tensor> parameters, buffers;
  std::unique_ptr<ForeachSgd> sgd;
  std::optional<c10::cuda::CUDAStream> stream;       // the capture's
  std::optional<c10::cuda::CUDAStream> last_stream;  // the last Step's
  std::vector<at::Tensor> inputs;               // static buffers the graph reads
  at::Tensor target;
  at::Tensor loss;  // the graph's output
  c10::MempoolId_t pool{0, 0};
  std::unique_ptr<TrainingSchedule> schedule;  // the multi-stream forward, where planned
  MemsetRewrite memsets;                       // the graph's
  int32_t carveout = kKeepCarveout;            // the graph's, and its nodes without shared memory
  int32_t carveout_nodes = 0;
  std::unique_ptr<CapturedGraph> graph;  // last: destroyed first

  ~State() {
    if (graph != nullptr) (void)cudaDeviceSynchronize();
  }
};

// Runs `body` and turns a libtorch exception into a status naming the model and `what` (Unavailable when
// out of GPU memory).
template <typename Body>
auto Guarded(const TrainingStep::State& s, const std::string& what, Body body) -> decltype(body()) {
  try {
    return body();
  } catch (const c10::OutOfMemoryError& e) {
    return Unavailable(s.report.model_path + ": " + what + ": out of GPU memory: " + TorchMessage(e));
  } catch (const std::exception& e) {
    return FailedPrecondition(s.report.model_path + ": " + what + ": " + TorchMessage(e));
  }
}

// zero_grad (in place, so that gradients the capture holds stay where they are), forward, loss,
// backward, SGD. `scheduled`: the multi-stream forward, its side streams joined after backward.
StatusOr<at::Tensor> EagerStep(TrainingStep::State& s, const std::vector<at::Tensor>& inputs,
                               const at::Tensor& target, bool scheduled = false);

// Captures the step (`scheduled`: with the state's planned forward) into the state's graph and pool,
// its memset nodes rewritten and a carveout asked for set (TrainingOptions::smem_carveout), and
// instantiates it. FailedPrecondition naming the failed operator.
Status CaptureGraph(TrainingStep::State& s, bool scheduled = false);

// The current capture taken out of the state, its gradients with it (the parameters' are unset), and
// put back.
StepCapture Park(TrainingStep::State& s);
void Unpark(TrainingStep::State& s, StepCapture c);

// With the module's own single-stream capture made: captures the lifted forward on one stream and,
// where it has width, on several, times them all and keeps one (training_choice.cpp).
Status ChooseCapture(TrainingStep& step, TrainingStep::State& s);

}  // namespace nimble::accelerate

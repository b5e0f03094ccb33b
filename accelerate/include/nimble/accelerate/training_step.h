// nimble::accelerate::TrainingStep: a whole training step of a TorchScript model (forward, loss, backward
// and an SGD update) captured ahead of time into one CUDA graph, then replayed for each batch, the batch
// copied into the capture's static buffers. It is the C++ side of the Python package's
// nimble.accelerate_training. Before Capture returns, captured steps are checked against eager steps
// from the same weights and batches, and both are timed; the module is then left with the weights it
// was loaded with.
//
// Every parameter of the module is trained. The model's forward must return one tensor, and must run
// the same kernels for every batch of the example's shapes: a step that synchronizes with the host (an
// optimizer that reads a step count on the host, data-dependent control flow, .item()) cannot be
// captured, and Capture says which operator failed. SGD's settings are fixed at capture, as a CUDA
// graph's scalars are. The forward is captured as the module runs it and, lifted into a graph Nimble
// plans (batch norm's step counters added in one kernel after it), on one stream and, where it has width,
// on several (autograd runs each backward op on its forward op's stream); the fastest capture is kept, the
// multi-stream one only when more than 3 % faster, as nimble.accelerate_training chooses.
//
// This header names at::Tensor without including libtorch: callers include ATen themselves. Not
// thread-safe: one step, one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/smem_carveout.h"
#include "nimble/core/status.h"

namespace at {
class Tensor;
}

namespace nimble::accelerate {

enum class TrainingLoss {
  kCrossEntropy,  // the output's logits against int64 class indices (at::cross_entropy_loss, mean)
  kMse,           // the output against a target of its shape (at::mse_loss, mean)
};

// SGD's settings, updated as torch.optim.SGD(foreach=True) does (a few multi-tensor kernels per step,
// the arithmetic of torch::optim::SGD). Momentum buffers start at zero, which is PyTorch's first step
// when dampening is 0; a dampening other than 0 with momentum is refused.
struct SgdSettings {
  double lr = 0.01;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
};

// Which captures are made and measured.
enum class TrainingStreams {
  kAuto,    // the single-stream captures; multi-stream too where the forward has width, kept if more than
            // 3 % faster than the fastest single-stream one
  kSingle,  // one stream only (the module's forward and the lifted one, the faster kept)
  kMulti,   // the multi-stream capture, wherever the forward has width (single-stream where it has none)
};

struct TrainingOptions {
  TrainingLoss loss = TrainingLoss::kCrossEntropy;
  SgdSettings sgd;
  // Eager steps on the example batch before the capture: cuDNN's choices, the momentum buffers.
  int32_t warmup_steps = 3;
  // Captured against eager steps from the same weights on the example batch, as nimble.accelerate_training
  // checks; 0: no check.
  int32_t check_steps = 3;
  // Largest relative difference the check passes (losses: max |a - b| / max |b|; parameters: relative
  // L2 distance over all of them). 0: by the parameters' dtype, 1e-3 float32, 1e-2 float16, 5e-2 bfloat16.
  double check_tolerance = 0;
  // A difference above the tolerance: true, Capture fails (FailedPrecondition naming both differences);
  // false, it is said in TrainingReport::check_warning, as the Python package warns. cuDNN's
  // non-deterministic kernels alone move eager training apart over steps (bench/results/training.md).
  bool require_check = false;
  // Steps timed for each of eager and captured (wall clock over the steps, after a device sync); 0: none.
  int32_t timing_steps = 20;
  // cuDNN times its algorithms during the warm-up (at::globalContext().setBenchmarkCuDNN, process-wide,
  // for eager and captured steps alike), as nimble.accelerate_training does by default.
  bool cudnn_benchmark = true;
  TrainingStreams streams = TrainingStreams::kAuto;
  // Most streams of the multi-stream forward; 0: as many as the assignment asks; 1: one stream, whatever
  // `streams` says.
  int32_t max_streams = 0;
  // Steps timed per capture to choose between them (two rounds each, wall clock after a device sync).
  int32_t choice_steps = 30;
  // Leave each capture's memset nodes as they are; by default the small ones become kernels
  // (memset_nodes.h), as AotGraph's captures do.
  bool keep_memset_nodes = false;
  // The shared-memory carveout asked for on the kernel nodes that use no shared memory
  // (nimble/accelerate/smem_carveout.h). kMeasureCarveout: the multi-stream capture is timed with each
  // kernel's own and with kTriedCarveout (one capture, instantiated twice) and the second kept only
  // where more than kMinCarveoutGain faster, as nimble-accelerate chooses; a percentage (0-100) or
  // kKeepCarveout is asked of every capture.
  int32_t smem_carveout = kMeasureCarveout;
};

struct TrainingReport {
  std::string model_path;
  int64_t parameters = 0;  // elements trained
  int32_t check_steps = 0;
  double check_tolerance = 0;
  double max_loss_difference = 0;       // relative, over the check's steps
  double max_parameter_difference = 0;  // relative L2 distance after the check's steps
  std::string check_warning;            // a difference above the tolerance, said; empty when within
  int32_t timing_steps = 0;
  double eager_ms = 0;     // one step: zero_grad, forward, loss, backward, optimizer step
  double captured_ms = 0;  // one step: the batch copied in, the graph replayed
  int64_t capture_ns = 0;
  // The schedule kept: "aot-single" or "aot-multi", the forward it runs ("module": as the module runs
  // it; "lifted": the planned graph), its streams and syncs, and why (every capture's time).
  std::string mode = "aot-single";
  std::string forward = "module";
  int32_t streams = 1;
  int32_t syncs = 0;
  std::string choice;
  // The forward's op graph and its logical concurrency (0 where it was not planned), the multi-stream
  // schedule's streams and syncs, the fastest single-stream capture's and the multi-stream capture's
  // step times measured for the choice (0: not made).
  int32_t forward_ops = 0;
  int32_t forward_width = 0;
  int32_t multi_streams = 0;
  int32_t multi_syncs = 0;
  double single_ms = 0;
  double multi_ms = 0;
  // The kept capture's memset nodes replaced by kernels and those left as they were (memset_nodes.h).
  int32_t memset_nodes_replaced = 0;
  int32_t memset_nodes_kept = 0;
  // The kept capture's carveout on its kernel nodes without shared memory (-1: each kernel's own) and
  // how many there are; the multi-stream capture's carveout (kept or not) and its step time with the
  // carveout it was not kept with (0: not measured, as when one is asked for or none of its nodes is
  // without shared memory).
  int32_t smem_carveout = -1;
  int32_t carveout_nodes = 0;
  int32_t multi_smem_carveout = -1;
  double carveout_other_ms = 0;
};

class TrainingStep {
 public:
  // Loads the TorchScript module at `model_path` onto the device of `example_inputs` (CUDA tensors; the
  // target on the same device) in training mode, warms up, captures, checks and times. Errors:
  // NotFound / DataLoss for the file; FailedPrecondition for a torch.export program (.pt2: an inference
  // graph without trainable parameters), no CUDA device, a capture that fails (naming the operator) or,
  // with require_check, a check beyond its tolerance; InvalidArgument for inputs, settings or a
  // forward that does not return one tensor.
  static StatusOr<std::unique_ptr<TrainingStep>> Capture(const std::string& model_path,
                                                          const std::vector<at::Tensor>& example_inputs,
                                                          const at::Tensor& example_target,
                                                          const TrainingOptions& options = {});
  ~TrainingStep();
  TrainingStep(const TrainingStep&) = delete;
  TrainingStep& operator=(const TrainingStep&) = delete;

  // One step on this batch, on the caller's current CUDA stream (after the last call's stream, when
  // that differs): the inputs and target copied into the static buffers, the graph replayed. Returns
  // the loss, a 0-dim tensor on the device that the next Step overwrites (clone it to keep it). InvalidArgument naming the tensor and both values when a count,
  // device, dtype or shape differs from the example's; nothing is launched then.
  StatusOr<at::Tensor> Step(const std::vector<at::Tensor>& inputs, const at::Tensor& target);

  // Saves the module with its current (trained) weights, as TorchScript; waits for the device first.
  Status Save(const std::string& path) const;

  const TrainingReport& report() const;

  struct State;

 private:
  explicit TrainingStep(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace nimble::accelerate

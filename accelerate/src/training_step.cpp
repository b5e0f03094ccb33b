// Capture of a whole training step: the module's forward through TorchScript with autograd on, the
// loss, backward, and SGD's update (foreach_sgd.h), recorded on a stream of our own into one CUDA graph
// whose memory pool holds every temporary and the gradients (they are unset before the capture, so
// backward writes them rather than adding to them, and each replay writes them again). Checking and
// timing run eager steps on the same module and optimizer: the gradients are then the captured ones,
// zeroed in place before each eager backward. Small memset nodes become kernels (memset_nodes.h).
// The forward is also lifted into a planned graph (training_schedule.h) and captured with it on one
// stream and, where it has width, on several; the fastest capture is kept (training_choice.cpp).
#include "nimble/accelerate/training_step.h"

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/grad_mode.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <optional>

#include "aot_graph_impl.h"
#include "failed_op_tracker.h"
#include "foreach_sgd.h"
#include "memset_nodes.h"
#include "module_save.h"
#include "smem_carveout.h"
#include "tensor_checks.h"
#include "torch_errors.h"
#include "training_schedule.h"
#include "training_settings.h"
#include "training_step_state.h"

namespace nimble::accelerate {

namespace {

using Clock = std::chrono::steady_clock;

// The module's forward as eager PyTorch runs it: TorchScript's graph optimizations (autodiff subgraphs
// with their symbolic gradients, fusion) off, so that eager and captured steps run eager autograd's
// ops. (The captured step's time did not change with them on: bench/results/training.md.)
// With `scheduled`, the multi-stream forward (training_schedule.h), which runs the same ops.
StatusOr<at::Tensor> Forward(TrainingStep::State& s, const std::vector<at::Tensor>& inputs, bool scheduled = false) {
  torch::jit::GraphOptimizerEnabledGuard eager_autograd(false);
  std::vector<c10::IValue> args(inputs.begin(), inputs.end());
  c10::IValue out = scheduled ? RunScheduledForward(*s.schedule, inputs) : s.module.forward(std::move(args));
  if (!out.isTensor()) {
    return InvalidArgument(s.report.model_path + ": forward returns " + out.tagKind() +
                           ", not one tensor: training needs a single output for the loss");
  }
  return out.toTensor();
}

at::Tensor Loss(const TrainingStep::State& s, const at::Tensor& output, const at::Tensor& target) {
  if (s.options.loss == TrainingLoss::kMse) return at::mse_loss(output, target);
  return at::cross_entropy_loss(output, target);
}

struct Snapshot {
  std::vector<at::Tensor> parameters, buffers;
};

Snapshot Take(const TrainingStep::State& s) {
  at::NoGradGuard no_grad;
  Snapshot snap;
  for (const at::Tensor& p : s.parameters) snap.parameters.push_back(p.detach().clone());
  for (const at::Tensor& b : s.buffers) snap.buffers.push_back(b.detach().clone());
  return snap;
}

// Back to `snap` in place (the graph holds these tensors), momentum buffers at zero.
void Restore(TrainingStep::State& s, const Snapshot& snap) {
  at::NoGradGuard no_grad;
  for (size_t i = 0; i < s.parameters.size(); ++i) s.parameters[i].copy_(snap.parameters[i]);
  for (size_t i = 0; i < s.buffers.size(); ++i) s.buffers[i].copy_(snap.buffers[i]);
  s.sgd->ZeroMomentum();
}

double Tolerance(const TrainingStep::State& s) {
  if (s.options.check_tolerance > 0) return s.options.check_tolerance;
  const at::ScalarType dtype = s.parameters.empty() ? at::kFloat : s.parameters.front().scalar_type();
  if (dtype == at::kHalf) return 1e-2;
  if (dtype == at::kBFloat16) return 5e-2;
  return 1e-3;
}

// The step's state made from the examples (optimizer, static buffers, the capture's stream), the weights
// as loaded kept in `loaded`, and the eager warm-up on the capture's stream.
Status WarmUp(TrainingStep::State& s, const std::vector<at::Tensor>& example_inputs, const at::Tensor& example_target,
              Snapshot* loaded) {
  for (at::Tensor& p : s.parameters) p.requires_grad_(true);
  s.sgd = std::make_unique<ForeachSgd>(s.parameters, s.options.sgd.lr, s.options.sgd.momentum,
                                        s.options.sgd.weight_decay, s.options.sgd.nesterov);
  for (const at::Tensor& t : example_inputs) s.inputs.push_back(t.detach().clone());
  s.target = example_target.detach().clone();
  s.stream = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, example_inputs[0].device().index());
  *loaded = Take(s);
  c10::cuda::device_synchronize();  // the copies above ran on the caller's stream
  // Warm-up on the capture stream, as the capture will run (cuDNN's and cuBLAS's choices, momentum).
  c10::cuda::CUDAStreamGuard guard(*s.stream);
  NIMBLE_ASSIGN_OR_RETURN(const at::Tensor output, Forward(s, s.inputs));
  if (s.options.loss == TrainingLoss::kCrossEntropy && output.dim() < 2) {
    return InvalidArgument(s.report.model_path + ": cross-entropy needs logits of shape [batch, classes], forward " +
                           "returns " + TensorText(output));
  }
  for (int32_t i = 0; i < s.options.warmup_steps; ++i) {
    NIMBLE_RETURN_IF_ERROR(EagerStep(s, s.inputs, s.target).status());
  }
  c10::cuda::device_synchronize();
  return OkStatus();
}

// `check_steps` captured and eager steps on the example batch, each from `start` and from the same
// random-number state (dropout's masks: a replay draws from the device's generator where it stands, as
// eager ops do).
Status Check(TrainingStep& step, TrainingStep::State& s, const Snapshot& start) {
  const int32_t n = s.options.check_steps;
  at::Generator generator = at::cuda::detail::getDefaultCUDAGenerator(s.stream->device_index());
  at::Tensor rng;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    rng = generator.get_state();
  }
  auto run = [&](bool captured) -> StatusOr<std::pair<std::vector<double>, std::vector<at::Tensor>>> {
    Restore(s, start);
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_state(rng);
    }
    std::vector<double> losses;
    for (int32_t i = 0; i < n; ++i) {
      at::Tensor loss;
      if (captured) {
        NIMBLE_ASSIGN_OR_RETURN(loss, step.Step(s.inputs, s.target));
      } else {
        NIMBLE_ASSIGN_OR_RETURN(loss, EagerStep(s, s.inputs, s.target));
      }
      losses.push_back(loss.item<double>());
    }
    std::vector<at::Tensor> params;
    for (const at::Tensor& p : s.parameters) params.push_back(p.detach().clone());
    return std::make_pair(std::move(losses), std::move(params));
  };
  NIMBLE_ASSIGN_OR_RETURN(auto captured, run(true));
  NIMBLE_ASSIGN_OR_RETURN(auto eager, run(false));
  double largest = 0, diff = 0;
  for (size_t i = 0; i < eager.first.size(); ++i) {
    largest = std::max(largest, std::fabs(eager.first[i]));
    diff = std::max(diff, std::fabs(captured.first[i] - eager.first[i]));
  }
  TrainingReport& r = s.report;
  r.check_steps = n;
  r.check_tolerance = Tolerance(s);
  r.max_loss_difference = largest > 0 ? diff / largest : diff;
  r.max_parameter_difference = RelativeL2Distance(captured.second, eager.second);
  if (std::isfinite(r.max_loss_difference) && std::isfinite(r.max_parameter_difference) &&
      r.max_loss_difference <= r.check_tolerance && r.max_parameter_difference <= r.check_tolerance) {
    return OkStatus();
  }
  char text[200];
  std::snprintf(text, sizeof text, "losses differ by %.3g and parameters by %.3g (relative), above %.3g",
                r.max_loss_difference, r.max_parameter_difference, r.check_tolerance);
  r.check_warning = r.model_path + ": after " + std::to_string(n) +
                    " steps the captured training step differs from eager training: " + text;
  return s.options.require_check ? FailedPrecondition(r.check_warning) : OkStatus();
}

Status Time(TrainingStep& step, TrainingStep::State& s) {
  const int32_t n = s.options.timing_steps;
  // A batch of its own, as a training loop hands one in: Step copies it into the buffers.
  std::vector<at::Tensor> batch;
  for (const at::Tensor& t : s.inputs) batch.push_back(t.clone());
  const at::Tensor target = s.target.clone();
  auto seconds = [&](bool captured) -> StatusOr<double> {
    c10::cuda::device_synchronize();
    const Clock::time_point start = Clock::now();
    for (int32_t i = 0; i < n; ++i) {
      if (captured) {
        NIMBLE_RETURN_IF_ERROR(step.Step(batch, target).status());
      } else {
        NIMBLE_RETURN_IF_ERROR(EagerStep(s, batch, target).status());
      }
    }
    c10::cuda::device_synchronize();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  NIMBLE_ASSIGN_OR_RETURN(const double eager, seconds(false));
  NIMBLE_ASSIGN_OR_RETURN(const double captured, seconds(true));
  s.report.timing_steps = n;
  s.report.eager_ms = eager * 1e3 / n;
  s.report.captured_ms = captured * 1e3 / n;
  return OkStatus();
}

}  // namespace

StatusOr<at::Tensor> EagerStep(TrainingStep::State& s, const std::vector<at::Tensor>& inputs,
                               const at::Tensor& target, bool scheduled) {
  s.sgd->ZeroGrad(/*set_to_none=*/false);
  NIMBLE_ASSIGN_OR_RETURN(at::Tensor output, Forward(s, inputs, scheduled));
  at::Tensor loss = Loss(s, output, target);
  loss.backward();
  if (scheduled) JoinSideStreams(*s.schedule);
  s.sgd->Step();
  return loss.detach();
}

Status CaptureGraph(TrainingStep::State& s, bool scheduled) {
  s.sgd->ZeroGrad(/*set_to_none=*/true);
  c10::cuda::device_synchronize();
  s.pool = at::cuda::graph_pool_handle();
  s.graph = std::make_unique<CapturedGraph>(/*keep_graph=*/true);  // for the memset rewrite
  c10::cuda::CUDAStreamGuard guard(*s.stream);
  FailedOpTracker failed_op;
  try {
    s.graph->capture_begin(s.pool);
    StatusOr<at::Tensor> output = Forward(s, s.inputs, scheduled);
    if (!output.ok()) throw std::runtime_error(output.status().message());
    at::Tensor loss = Loss(s, *output, s.target);
    loss.backward();
    if (scheduled) JoinSideStreams(*s.schedule);  // backward work autograd queued on the side streams
    s.sgd->Step();
    s.graph->capture_end();
    s.loss = loss.detach();
  } catch (const std::exception& e) {
    const std::string op = failed_op.op().empty() ? "" : failed_op.op() + " failed: ";
    if (scheduled) {
      try {
        JoinSideStreams(*s.schedule);  // so that the capture can end; an invalidated one refuses, and ends anyway
      } catch (const std::exception&) {
      }
    }
    AbandonGraphCapture(*s.stream, s.graph, s.pool);
    return FailedPrecondition(s.report.model_path + ": cannot capture the training step into a CUDA graph: " + op +
                              TorchMessage(e));
  }
  StatusOr<MemsetRewrite> memsets = RewriteMemsetNodes(s.graph->raw_cuda_graph(), s.options.keep_memset_nodes);
  if (!memsets.ok()) return {memsets.status().code(), s.report.model_path + ": " + memsets.status().message()};
  s.memsets = *memsets;
  // A carveout asked for goes on every capture; measured, the multi-stream one gets an alternate later.
  s.carveout = s.options.smem_carveout == kMeasureCarveout ? kKeepCarveout : s.options.smem_carveout;
  StatusOr<int32_t> carveout = SetKernelCarveout(s.graph->raw_cuda_graph(), s.carveout);
  if (!carveout.ok()) return {carveout.status().code(), s.report.model_path + ": " + carveout.status().message()};
  s.carveout_nodes = *carveout;
  return Guarded(s, "instantiating the captured step", [&]() -> Status {
    s.graph->instantiate();
    return OkStatus();
  });
}

StepCapture Park(TrainingStep::State& s) {
  StepCapture c;
  c.graph = std::move(s.graph);
  c.memsets = s.memsets;
  c.carveout = s.carveout;
  c.carveout_nodes = s.carveout_nodes;
  c.pool = s.pool;
  c.loss = s.loss;
  for (at::Tensor& p : s.parameters) {
    c.grads.push_back(p.grad());
    p.mutable_grad() = at::Tensor();
  }
  return c;
}

void Unpark(TrainingStep::State& s, StepCapture c) {
  s.graph = std::move(c.graph);
  s.memsets = c.memsets;
  s.carveout = c.carveout;
  s.carveout_nodes = c.carveout_nodes;
  s.pool = c.pool;
  s.loss = c.loss;
  for (size_t i = 0; i < s.parameters.size(); ++i) s.parameters[i].mutable_grad() = c.grads[i];
}

StatusOr<std::unique_ptr<TrainingStep>> TrainingStep::Capture(const std::string& model_path,
                                                               const std::vector<at::Tensor>& example_inputs,
                                                               const at::Tensor& example_target,
                                                               const TrainingOptions& options) {
  NIMBLE_RETURN_IF_ERROR(CheckModelFile(model_path));
  NIMBLE_RETURN_IF_ERROR(CheckSettings(model_path, example_inputs, example_target, options));
  const c10::Device device = example_inputs[0].device();
  NIMBLE_ASSIGN_OR_RETURN(torch::jit::Module module, LoadForTraining(model_path, device));
  auto s = std::make_unique<State>();
  s->options = options;
  s->report.model_path = model_path;
  s->module = std::move(module);
  for (const at::Tensor& p : s->module.parameters()) {
    s->parameters.push_back(p);
    s->report.parameters += p.numel();
  }
  for (const at::Tensor& b : s->module.buffers()) s->buffers.push_back(b);
  if (s->parameters.empty()) return InvalidArgument(model_path + ": the module has no parameters to train");
  c10::cuda::CUDAGuard device_guard(device);
  at::globalContext().setBenchmarkCuDNN(options.cudnn_benchmark);
  const Clock::time_point start = Clock::now();
  Snapshot loaded;  // the weights as loaded: what checking and timing start from, and what the module keeps
  NIMBLE_RETURN_IF_ERROR(Guarded(*s, "the eager training step failed",
                                 [&] { return WarmUp(*s, example_inputs, example_target, &loaded); }));
  NIMBLE_RETURN_IF_ERROR(CaptureGraph(*s));
  std::unique_ptr<TrainingStep> step(new TrainingStep(std::move(s)));
  State& state = *step->state_;
  NIMBLE_RETURN_IF_ERROR(Guarded(state, "choosing the capture failed", [&] { return ChooseCapture(*step, state); }));
  state.report.capture_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  state.report.memset_nodes_replaced = state.memsets.replaced;
  state.report.memset_nodes_kept = state.memsets.kept;
  state.report.smem_carveout = state.carveout;
  state.report.carveout_nodes = state.carveout_nodes;
  if (options.check_steps > 0) {
    NIMBLE_RETURN_IF_ERROR(Guarded(state, "the check against eager training failed",
                                   [&] { return Check(*step, state, loaded); }));
  }
  if (options.timing_steps > 0) {
    NIMBLE_RETURN_IF_ERROR(Guarded(state, "timing failed", [&] { return Time(*step, state); }));
  }
  NIMBLE_RETURN_IF_ERROR(Guarded(state, "restoring the loaded weights failed", [&] {
    Restore(state, loaded);
    c10::cuda::device_synchronize();
    return OkStatus();
  }));
  return step;
}

TrainingStep::TrainingStep(std::unique_ptr<State> state) : state_(std::move(state)) {}
TrainingStep::~TrainingStep() = default;

const TrainingReport& TrainingStep::report() const { return state_->report; }

StatusOr<at::Tensor> TrainingStep::Step(const std::vector<at::Tensor>& inputs, const at::Tensor& target) {
  State& s = *state_;
  if (inputs.size() != s.inputs.size()) {
    return InvalidArgument("the step takes " + std::to_string(s.inputs.size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    NIMBLE_RETURN_IF_ERROR(CheckAgainstBuffer(s.report.model_path + ": input " + std::to_string(i), inputs[i],
                                              s.inputs[i]));
  }
  NIMBLE_RETURN_IF_ERROR(CheckAgainstBuffer(s.report.model_path + ": the target", target, s.target));
  return Guarded(s, "the replay failed", [&]() -> StatusOr<at::Tensor> {
    at::NoGradGuard no_grad;
    c10::cuda::CUDAGuard device(s.stream->device_index());
    // Two steps on different streams would race on the buffers, gradients and weights: a call on a new
    // stream first waits for the last call's.
    const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(s.stream->device_index());
    if (s.last_stream && *s.last_stream != current) {
      at::cuda::CUDAEvent last_done;
      last_done.record(*s.last_stream);
      last_done.block(current);
    }
    s.last_stream = current;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].is_same(s.inputs[i])) s.inputs[i].copy_(inputs[i]);
    }
    if (!target.is_same(s.target)) s.target.copy_(target);
    s.graph->replay();
    return s.loss;
  });
}

Status TrainingStep::Save(const std::string& path) const {
  try {
    c10::cuda::device_synchronize();
  } catch (const std::exception& e) {
    return Internal(path + ": cannot save the trained module: " + TorchMessage(e));
  }
  return SaveModuleWhole(state_->module, path, "cannot save the trained module");
}

}  // namespace nimble::accelerate

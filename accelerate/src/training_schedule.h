// The multi-stream forward of a training step (training_step.cpp): the forward of a TorchScript module in
// training mode turned into a graph the stream rewrite takes, planned on streams and rewritten.
//
// The module is not frozen (its parameters must stay leaves that autograd differentiates, and batch
// norm's statistics must stay the module's buffers that the step updates in place). Instead the forward
// is inlined and every attribute it reads is lifted: each tensor attribute (parameters, buffers) becomes
// an input of the graph, read in this order after the batch; every other attribute (training, momentum,
// eps, None) becomes a constant, and constant propagation removes the branches on them. What is left of
// control flow in torchvision's models is batch norm's checks of the input's rank and that a batch has
// more than one value per channel: branches with no outputs where one side raises and the other does
// nothing, and the loop over the input's size that feeds one. Both are dropped. That is sound here because
// the step runs at the example's shapes only and its eager warm-up, the unchanged module, passed the same
// checks at those shapes: a condition that reads no device value (the single-stream capture, made first,
// has shown the step has no host sync) depends only on shapes and attributes, which the capture fixes.
// Any other control flow refuses the schedule.
//
// Autograd then runs each backward op on the stream its forward op ran on. Cross-stream values are
// marked as used on the reader's stream (CrossStreamFree::kAfterLastReader): autograd keeps saved tensors
// past the forward and frees them during backward, so releasing on the producer's stream would not be
// safe. One thread; the result keeps the module's tensors.
#pragma once

#include <torch/csrc/jit/api/module.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/stream_rewrite.h"
#include "nimble/core/status.h"
#include "stream_context.h"

namespace nimble::accelerate {

struct TrainingSchedule {
  ScheduledModel scheduled;          // forward(self, batch..., state...) with the nimble:: stream operators
  std::vector<at::Tensor> state;     // the module's tensors the graph reads after the batch, in input order
  // Step counters taken out of the graph (batch norm's num_batches_tracked): each group is added its
  // amount after the forward.
  std::vector<std::pair<int64_t, std::vector<at::Tensor>>> increments;
  std::unique_ptr<StreamContext> context;  // null on the CPU, where the stream operators do nothing
  int32_t ops = 0;                   // ops of the forward's op graph
  int32_t width = 0;                 // its logical concurrency
  int32_t streams = 0;
  int32_t syncs = 0;
};

// Plans `module`'s forward (training mode, on the device of `example_inputs`) on at most `max_streams`
// streams (0: as many as the plan asks; 1: the lifted forward on one stream, whatever its width).
// FailedPrecondition naming the file and the reason where the forward cannot be scheduled (control flow
// other than shape checks, an input that is not a tensor) or, unless max_streams is 1, has no width to
// schedule: the caller keeps a single-stream step then.
StatusOr<TrainingSchedule> ScheduleTrainingForward(const torch::jit::Module& module,
                                                   const std::vector<at::Tensor>& example_inputs,
                                                   const std::string& path, int32_t max_streams);

// The forward as scheduled: `inputs` then the schedule's state, run with its streams (stream 0 the
// caller's current stream) under autograd with TorchScript's graph optimizations off, as the
// single-stream step runs the module. Side streams are joined into the caller's stream on return; work
// autograd queues on them later (the backward) is not: JoinSideStreams after backward.
c10::IValue RunScheduledForward(TrainingSchedule& schedule, const std::vector<at::Tensor>& inputs);

// Makes the current stream wait for all work queued so far on the schedule's side streams.
void JoinSideStreams(TrainingSchedule& schedule);

}  // namespace nimble::accelerate

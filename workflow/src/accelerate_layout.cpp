// The accelerate session's layout step: a model whose half-precision convolutions include depthwise
// ones (under --memory-format auto), or any model with convolutions (under measure), is recorded in
// both layouts, and the layout whose kernels take less GPU time is captured. Which one wins depends on
// the model (accelerate/src/conv_layout.h): cuDNN's kernels for one layout, ATen's or a slower GEMM for the other.
#include <string>
#include <utility>

#include "accelerate_session.h"
#include "nimble/workflow/format.h"

namespace nimble::workflow {
namespace {

int64_t KernelNs(const analysis::Workload& workload) {
  int64_t total = 0;
  for (const auto& kernels : workload.op_kernels) {
    for (const analysis::SimKernel& kernel : kernels) total += kernel.dur_ns;
  }
  return total;
}

std::string Ms(int64_t ns) { return FormatMs(static_cast<double>(ns) / 1e6) + " ms"; }

}  // namespace

void Session::AdoptModel() {
  result_.channels_last = model_.channels_last;
  result_.conv_epilogues = model_.conv_epilogues;
  result_.num_ops = static_cast<int32_t>(model_.graph.ops.size());
}

Status Session::ChooseLayout() {
  const bool trial = measure_layout_ || (model_.layout_open && !model_.channels_last);
  if (!trial) return OkStatus();
  const std::string why = measure_layout_ ? "--memory-format measure"
                                          : "half-precision convolutions, some depthwise, where no rule tells the faster";
  if (!HasConvolution(model_.graph)) {  // nothing to choose: not worth a recording
    progress_.Warning(why + ": the model has no convolution, so both layouts are the same; kept contiguous");
    return OkStatus();
  }
  if (!args_.record_kernels) {
    progress_.Warning(why + ": the layouts are chosen by recording the model in both, which --no-record rules out; kept " +
                      std::string(model_.channels_last ? "channels_last" : "contiguous"));
    return OkStatus();
  }
  const bool started_nhwc = model_.channels_last;
  accelerate::FrontEndOptions options = front_end_;
  options.memory_format = started_nhwc ? accelerate::MemoryFormat::kContiguous : accelerate::MemoryFormat::kChannelsLast;
  progress_.Step(why + ": recording the model in both layouts to keep the faster");
  StatusOr<MeasuredWorkload> first = RecordWorkload(false);
  if (!first.ok()) {
    progress_.Warning("recording the model failed (" + first.status().message() + "); layout kept as it is");
    return OkStatus();
  }
  StatusOr<ModelGraph> other = accelerate::LoadModelGraph(args_.model, specs_, options);
  if (!other.ok() || (!started_nhwc && !other->channels_last)) {
    const std::string reason = other.ok() ? std::string("no convolution to convert") : other.status().message();
    progress_.Warning(std::string(started_nhwc ? "contiguous: " : "channels_last: ") + reason + "; layout kept as it is");
    layout_workload_ = std::move(*first);
    return OkStatus();
  }
  std::swap(model_, *other);
  StatusOr<MeasuredWorkload> second = RecordWorkload(false);
  if (!second.ok()) {
    std::swap(model_, *other);
    progress_.Warning("recording the model in the other layout failed (" + second.status().message() +
                      "); layout kept as it is");
    layout_workload_ = std::move(*first);
    return OkStatus();
  }
  MeasuredWorkload& contiguous = started_nhwc ? *second : *first;
  MeasuredWorkload& nhwc = started_nhwc ? *first : *second;
  const int64_t contiguous_ns = KernelNs(contiguous.workload);
  const int64_t nhwc_ns = KernelNs(nhwc.workload);
  const bool keep_nhwc = nhwc_ns < contiguous_ns;
  if (model_.channels_last != keep_nhwc) std::swap(model_, *other);
  layout_workload_ = std::move(keep_nhwc ? nhwc : contiguous);
  result_.layout_choice = "contiguous " + Ms(contiguous_ns) + ", channels_last " + Ms(nhwc_ns) +
                          " of kernels per iteration: " + (keep_nhwc ? "channels_last" : "contiguous");
  progress_.Step("memory format: " + result_.layout_choice);
  AdoptModel();
  return OkStatus();
}

}  // namespace nimble::workflow

// The accelerate session's layout step (--memory-format measure): a model whose half-precision
// convolutions include depthwise ones is recorded in both layouts, and the layout whose kernels take
// less GPU time is captured. Which one wins depends on the model (accelerate/src/conv_layout.h):
// cuDNN's kernels for one layout, ATen's or a slower GEMM for the other.
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
  if (!measure_layout_ || !model_.layout_open || model_.channels_last) return OkStatus();
  if (!args_.record_kernels) {
    progress_.Warning("--memory-format measure records the model in both layouts, which --no-record rules out; "
                      "kept contiguous");
    return OkStatus();
  }
  progress_.Step("half-precision convolutions, some depthwise: recording the model in both layouts to keep the "
                 "faster (--memory-format measure)");
  StatusOr<MeasuredWorkload> contiguous = RecordWorkload(false);
  if (!contiguous.ok()) {
    progress_.Warning("recording the model contiguous failed (" + contiguous.status().message() + "); kept contiguous");
    return OkStatus();
  }
  accelerate::FrontEndOptions options = front_end_;
  options.memory_format = accelerate::MemoryFormat::kChannelsLast;
  StatusOr<ModelGraph> other = accelerate::LoadModelGraph(args_.model, specs_, options);
  if (!other.ok() || !other->channels_last) {
    const std::string why = other.ok() ? std::string("no convolution to convert") : other.status().message();
    progress_.Warning("channels_last: " + why + "; kept contiguous");
    layout_workload_ = std::move(*contiguous);
    return OkStatus();
  }
  std::swap(model_, *other);
  StatusOr<MeasuredWorkload> nhwc = RecordWorkload(false);
  if (!nhwc.ok()) {
    std::swap(model_, *other);
    progress_.Warning("recording the model channels_last failed (" + nhwc.status().message() + "); kept contiguous");
    layout_workload_ = std::move(*contiguous);
    return OkStatus();
  }
  const int64_t contiguous_ns = KernelNs(contiguous->workload);
  const int64_t nhwc_ns = KernelNs(nhwc->workload);
  if (nhwc_ns < contiguous_ns) {
    layout_workload_ = std::move(*nhwc);
  } else {
    std::swap(model_, *other);
    layout_workload_ = std::move(*contiguous);
  }
  result_.layout_choice = "contiguous " + Ms(contiguous_ns) + ", channels_last " + Ms(nhwc_ns) +
                          " of kernels per iteration: " + (model_.channels_last ? "channels_last" : "contiguous");
  progress_.Step("memory format: " + result_.layout_choice);
  AdoptModel();
  return OkStatus();
}

}  // namespace nimble::workflow

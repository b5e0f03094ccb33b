#include "nimble/analysis/op_weights.h"

#include <algorithm>
#include <string>

namespace nimble::analysis {
namespace {

bool StartsIn(const KernelSpan& k, const std::optional<TimeWindow>& window) {
  return !window.has_value() || (k.start_ns >= window->start_ns && k.start_ns < window->end_ns);
}

Status CheckAttribution(const KernelAttribution& a, int32_t num_ops, size_t num_kernels) {
  if (a.op.value() < 0 || a.op.value() >= num_ops) {
    return InvalidArgument("kernel attribution names op " + std::to_string(a.op.value()) + ", but the graph has " +
                           std::to_string(num_ops) + " ops");
  }
  if (a.kernel.value() < 0 || a.kernel.value() >= static_cast<int64_t>(num_kernels)) {
    return InvalidArgument("kernel attribution of op " + std::to_string(a.op.value()) + " names kernel " +
                           std::to_string(a.kernel.value()) + ", which the trace does not have");
  }
  return OkStatus();
}

}  // namespace

std::optional<TimeWindow> WeighingWindow(std::span<const TimeWindow> iterations) {
  if (iterations.empty()) return std::nullopt;
  return iterations.back();
}

StatusOr<OpKernels> WeighOps(int32_t num_ops, std::span<const KernelAttribution> attribution,
                             std::span<const KernelSpan> kernels, std::optional<TimeWindow> window) {
  OpKernels out;
  const auto ops = static_cast<size_t>(std::max(num_ops, 0));
  out.op_time_ns.assign(ops, 0);
  out.offsets.assign(ops + 1, 0);
  // Counted first, then placed: one array for every op's kernels rather than a vector per op.
  for (const KernelAttribution& a : attribution) {
    NIMBLE_RETURN_IF_ERROR(CheckAttribution(a, num_ops, kernels.size()));
    if (!StartsIn(kernels[static_cast<size_t>(a.kernel.value())], window)) continue;
    ++out.offsets[static_cast<size_t>(a.op.value()) + 1];
  }
  for (size_t v = 0; v < ops; ++v) out.offsets[v + 1] += out.offsets[v];
  out.kernels.resize(out.offsets.back());
  std::vector<size_t> next(out.offsets.begin(), out.offsets.end() - 1);
  for (const KernelAttribution& a : attribution) {
    const KernelSpan& k = kernels[static_cast<size_t>(a.kernel.value())];
    if (!StartsIn(k, window)) continue;
    const auto v = static_cast<size_t>(a.op.value());
    out.kernels[next[v]++] = a.kernel;
    out.op_time_ns[v] += k.dur_ns();
  }
  const auto by_start = [&](KernelIndex a, KernelIndex b) {
    return kernels[static_cast<size_t>(a.value())].start_ns < kernels[static_cast<size_t>(b.value())].start_ns;
  };
  for (size_t v = 0; v < ops; ++v) {
    const auto first = out.kernels.begin() + static_cast<std::ptrdiff_t>(out.offsets[v]);
    const auto last = out.kernels.begin() + static_cast<std::ptrdiff_t>(out.offsets[v + 1]);
    // Attribution comes in kernel index order, which is mostly start order: check before sorting.
    if (!std::is_sorted(first, last, by_start)) std::stable_sort(first, last, by_start);
  }
  if (!attribution.empty()) out.device = kernels[static_cast<size_t>(attribution.front().kernel.value())].device;
  return out;
}

std::vector<KernelSpan> KernelSpans(const Trace& trace) {
  std::vector<KernelSpan> out;
  out.reserve(trace.kernels.size());
  for (const KernelRecord& k : trace.kernels) out.push_back({k.start_ns, k.end_ns, k.device, k.stream});
  return out;
}

}  // namespace nimble::analysis

// The end of a Kineto import: correlation ids recovered from launch flows, kernels without a launch
// counted, times moved to the trace's base, records in time order, and what the source lacks as stats.
#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "kineto_converter.h"

namespace nimble::workflow {
namespace {

// "import.skipped_category.<cat>": keep stat names to a plain alphabet.
std::string StatSuffix(const std::string& s) {
  std::string out = s.empty() ? std::string("(empty)") : s.substr(0, 48);
  for (char& c : out) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!plain) c = '_';
  }
  return out;
}

template <typename Records>
void SortByStart(Records& records) {
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
}

template <typename Records>
bool Shift(Records& records, int64_t by) {
  for (auto& r : records) {
    if (__builtin_add_overflow(r.start_ns, by, &r.start_ns) || __builtin_add_overflow(r.end_ns, by, &r.end_ns)) return false;
  }
  return true;
}

}  // namespace

void KinetoConverter::Stat(const std::string& name, int64_t value, Severity severity, const std::string& description) {
  stats_.push_back(StatEntry{name, value, severity, description});
}

void KinetoConverter::Absorb(KinetoConverter&& part) {
  const std::vector<std::string>& theirs = part.trace_.strings.strings();
  std::vector<StringId> to_ours(theirs.size());
  for (size_t i = 0; i < theirs.size(); ++i) to_ours[i] = trace_.strings.Intern(theirs[i]);
  auto map = [&](StringId id) { return id.valid() ? to_ours[static_cast<size_t>(id.value())] : id; };
  Trace& from = part.trace_;
  for (KernelRecord& k : from.kernels) k.name = map(k.name), k.short_name = map(k.short_name);
  for (ApiCallRecord& a : from.api_calls) a.name = map(a.name);
  for (NvtxRange& r : from.ranges) r.text = map(r.text), r.domain = map(r.domain);
  for (OverheadRecord& o : from.overheads) o.kind = map(o.kind);
  for (DeviceInfo& d : from.devices) d.name = map(d.name);
  auto append = [](auto& to, auto& more) { to.insert(to.end(), more.begin(), more.end()); };
  append(trace_.kernels, from.kernels);
  append(trace_.memcpys, from.memcpys);
  append(trace_.memsets, from.memsets);
  append(trace_.syncs, from.syncs);
  append(trace_.api_calls, from.api_calls);
  append(trace_.ranges, from.ranges);
  append(trace_.external_correlations, from.external_correlations);
  append(trace_.overheads, from.overheads);
  append(trace_.devices, from.devices);
  append(flow_ends_, part.flow_ends_);
  if (part.has_base_) base_ns_ = part.base_ns_, has_base_ = true;
  iterations_ += part.iterations_;
  sync_events_ += part.sync_events_;
  negative_durations_ += part.negative_durations_;
  unknown_copy_kinds_ += part.unknown_copy_kinds_;
  if (lacking_ == 0) lacking_example_ = part.lacking_example_;
  lacking_ += part.lacking_;
  for (const auto& [cat, n] : part.skipped_categories_) skipped_categories_[cat] += n;
  for (const auto& [ph, n] : part.skipped_phases_) skipped_phases_[ph] += n;
}

StatusOr<ImportedTrace> KinetoConverter::Finish(int64_t events_read) {
  RecoverCorrelations();
  CountUnlaunched();
  NIMBLE_RETURN_IF_ERROR(ShiftToBaseTime());
  SortRecords();
  AddStats(events_read);
  ImportedTrace out;
  out.run = MakeRun();
  out.stats = std::move(stats_);
  out.iteration_range = iterations_ > 0 ? trace_.strings.Get(profiler_step_) : std::string();
  out.source_format = "kineto-json";
  out.trace = std::move(trace_);
  return out;
}

void KinetoConverter::RecoverCorrelations() {
  // A flow's "f" end binds to the GPU record that starts where it is (pid = device, tid = stream, ts).
  const bool needed = std::any_of(trace_.kernels.begin(), trace_.kernels.end(),
                                  [](const KernelRecord& k) { return !k.correlation.valid(); });
  if (!needed || flow_ends_.empty()) return;
  auto key = [](const FlowEnd& f) { return std::tie(f.pid, f.tid, f.ts_ns); };
  std::sort(flow_ends_.begin(), flow_ends_.end(), [&](const FlowEnd& a, const FlowEnd& b) { return key(a) < key(b); });
  for (KernelRecord& k : trace_.kernels) {
    if (k.correlation.valid()) continue;
    const FlowEnd probe{k.device.value(), k.stream.value(), k.start_ns, 0};
    auto it = std::lower_bound(flow_ends_.begin(), flow_ends_.end(), probe,
                               [&](const FlowEnd& a, const FlowEnd& b) { return key(a) < key(b); });
    if (it != flow_ends_.end() && key(*it) == key(probe)) {
      k.correlation = CorrelationId(it->id);
      ++kernels_from_flows_;
    }
  }
}

void KinetoConverter::CountUnlaunched() {
  std::vector<int64_t> launched;
  launched.reserve(trace_.api_calls.size());
  for (const ApiCallRecord& a : trace_.api_calls) {
    if (a.correlation.valid()) launched.push_back(a.correlation.value());
  }
  std::sort(launched.begin(), launched.end());
  for (const KernelRecord& k : trace_.kernels) {
    if (!k.correlation.valid() || !std::binary_search(launched.begin(), launched.end(), k.correlation.value())) {
      ++unlaunched_kernels_;
    }
  }
}

Status KinetoConverter::ShiftToBaseTime() {
  if (!has_base_ || base_ns_ == 0) return OkStatus();
  const bool ok = Shift(trace_.kernels, base_ns_) && Shift(trace_.memcpys, base_ns_) &&
                  Shift(trace_.memsets, base_ns_) && Shift(trace_.syncs, base_ns_) &&
                  Shift(trace_.api_calls, base_ns_) && Shift(trace_.ranges, base_ns_) &&
                  Shift(trace_.overheads, base_ns_);
  if (!ok) {
    return DataLoss(path_ + ": \"baseTimeNanoseconds\" (" + std::to_string(base_ns_) +
                    ") plus the events' times does not fit in 64-bit nanoseconds");
  }
  return OkStatus();
}

void KinetoConverter::SortRecords() {
  SortByStart(trace_.kernels);
  SortByStart(trace_.memcpys);
  SortByStart(trace_.memsets);
  SortByStart(trace_.syncs);
  SortByStart(trace_.api_calls);
  SortByStart(trace_.ranges);
  SortByStart(trace_.overheads);
}

void KinetoConverter::AddStats(int64_t events_read) {
  Stat("import.events_read", events_read, Severity::kInfo, "events in the trace's traceEvents");
  if (iterations_ > 0) Stat("import.iterations", iterations_, Severity::kInfo, "ProfilerStep#N ranges (torch.profiler steps)");
  if (!trace_.kernels.empty() && sync_events_ == 0) {
    Stat("import.no_sync_records", 1, Severity::kWarning,
         "the trace has no cuda_sync events (newer torch.profiler records them with "
         "experimental_config=_ExperimentalConfig(enable_cuda_sync_events=True)): no idle gap can be attributed to "
         "a synchronization");
  }
  // Devices that ran work but have no deviceProperties entry: no SM limits, so no occupancy estimate.
  std::vector<DeviceId> active;
  for (const KernelRecord& k : trace_.kernels) active.push_back(k.device);
  std::sort(active.begin(), active.end());
  active.erase(std::unique(active.begin(), active.end()), active.end());
  const int64_t without = std::count_if(active.begin(), active.end(), [&](DeviceId d) {
    return std::none_of(trace_.devices.begin(), trace_.devices.end(), [&](const DeviceInfo& i) { return i.id == d; });
  });
  if (without > 0) {
    Stat("import.no_device_properties", without, Severity::kWarning,
         trace_.devices.empty() ? "the trace has no deviceProperties: kernel occupancy and the prediction's GPU share "
                                  "cannot be estimated"
                                : "devices that ran kernels but have no deviceProperties entry: no occupancy for them");
  }
  if (unlaunched_kernels_ > 0) {
    Stat("import.kernels_without_launch", unlaunched_kernels_, Severity::kWarning,
         "kernels whose launching CUDA runtime/driver call is not in the trace (no cuda_runtime event with their "
         "correlation id): idle gaps before them cannot be blamed on a late launch");
  }
  if (kernels_from_flows_ > 0) {
    Stat("import.kernels_correlated_by_flow", kernels_from_flows_, Severity::kInfo,
         "kernels without args.correlation whose launch was found through their ac2g flow");
  }
  if (lacking_ > 0) {
    Stat("import.events_missing_fields", lacking_, Severity::kWarning,
         "events kept without an argument Kineto usually writes (device, stream, correlation, grid and block, "
         "bytes; device and stream then come from pid and tid); " + lacking_example_);
  }
  if (negative_durations_ > 0) {
    Stat("import.negative_durations", negative_durations_, Severity::kWarning, "events skipped because dur < 0");
  }
  if (unknown_copy_kinds_ > 0) {
    Stat("import.unknown_copy_kinds", unknown_copy_kinds_, Severity::kWarning,
         "gpu_memcpy events whose name is not 'Memcpy <kind> (<src> -> <dst>)': copy kind unknown, counted as host copies");
  }
  for (const auto& [cat, count] : skipped_categories_) {
    const bool display_only = cat == "Trace";  // Kineto's own span markers for its viewer
    Stat("import.skipped_category." + StatSuffix(cat), count, display_only ? Severity::kInfo : Severity::kWarning,
         "complete (\"X\") events of category '" + cat.substr(0, 80) + "', which Nimble does not read");
  }
  for (const auto& [ph, count] : skipped_phases_) {
    const bool durations = ph == "B" || ph == "E" || ph == "b" || ph == "e";
    Stat("import.skipped_phase." + StatSuffix(ph), count, durations ? Severity::kWarning : Severity::kInfo,
         "events of phase '" + ph.substr(0, 16) + "' (" +
             (durations ? "begin/end pairs, which torch.profiler does not write; not read"
                        : "instants, metadata, counters or other flows; not needed") + ")");
  }
}

RunInfo KinetoConverter::MakeRun() const {
  RunInfo run;
  run.model = path_;
  run.mode = RunMode::kProgram;
  run.command = "nimble-prof import " + path_;
  run.iterations = static_cast<int32_t>(iterations_);
  if (has_base_) run.created_unix_s = base_ns_ / 1'000'000'000;
  // The device that ran the most kernels names the run.
  std::unordered_map<int32_t, int64_t> kernels_on;
  for (const KernelRecord& k : trace_.kernels) ++kernels_on[k.device.value()];
  const DeviceInfo* best = nullptr;
  for (const DeviceInfo& d : trace_.devices) {
    if (best == nullptr || kernels_on[d.id.value()] > kernels_on[best->id.value()]) best = &d;
  }
  if (best != nullptr) run.device = trace_.strings.Get(best->name);
  return run;
}

}  // namespace nimble::workflow

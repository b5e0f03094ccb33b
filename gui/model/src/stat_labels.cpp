#include "nimble/gui/stat_labels.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "nimble/gui/ruler_ticks.h"

namespace nimble::gui {
namespace {

using U = StatUnit;

// Sorted by key (the static_assert below checks), so that a lookup is a binary search.
constexpr std::array<StatLabelEntry, 77> kLabels = {{
    {"attribution.by_external_id", "Kernels attributed by op id"},
    {"attribution.by_launch_time", "Kernels attributed by launch time"},
    {"attribution.foreign_ids", "Kernels with an unknown op id"},
    {"attribution.kernel_ns", "GPU time of all kernels", U::kNanoseconds},
    {"attribution.kernels", "Kernels to attribute"},
    {"attribution.unattributed", "Kernels without an op"},
    {"attribution.unattributed_ns", "GPU time without an op", U::kNanoseconds},
    {"collector.buffer_bytes", "CUPTI record bytes", U::kBytes},
    {"collector.buffer_errors", "Unreadable CUPTI buffers"},
    {"collector.buffers_completed", "CUPTI buffers delivered"},
    {"collector.buffers_refused", "CUPTI buffers refused"},
    {"collector.cupti_errors", "Failed CUPTI calls"},
    {"collector.cupti_left_attached", "CUPTI left attached", U::kFlag},
    {"collector.cupti_library", "CUPTI libraries loaded"},
    {"collector.device_query_failed", "Device query failed", U::kFlag},
    {"collector.dropped_records", "Records dropped by CUPTI"},
    {"collector.hardware_timestamps_refused", "Hardware timestamps refused", U::kFlag},
    {"collector.incomplete_records", "Records without timestamps"},
    {"collector.iterations", "Iterations recorded"},
    {"collector.kernel_timestamps", "Hardware kernel timestamps", U::kFlag},
    {"collector.other_markers", "Other NVTX markers"},
    {"collector.peak_buffers_outstanding", "Most CUPTI buffers held"},
    {"collector.records.driver_api", "Driver API records"},
    {"collector.records.external_correlation", "External correlation records"},
    {"collector.records.graph_launch", "Graph launch records"},
    {"collector.records.kernel", "Kernel records"},
    {"collector.records.memcpy", "Memory copy records"},
    {"collector.records.memset", "Memory set records"},
    {"collector.records.nvtx_range", "NVTX ranges from CUPTI"},
    {"collector.records.overhead", "CUPTI overhead records"},
    {"collector.records.runtime_api", "Runtime API records"},
    {"collector.records.sync", "Synchronization records"},
    {"collector.records_lost_in_sink", "Records the database lost"},
    {"collector.status", "Program ended by", U::kSignal},
    {"collector.unknown_kind_records", "Records of an unknown kind"},
    {"collector.unmatched_marker_ends", "NVTX ends without a start"},
    {"collector.unmatched_marker_starts", "NVTX ranges left open"},
    {"import.events_missing_fields", "Events missing a field"},
    {"import.events_read", "Events read"},
    {"import.incomplete_device_properties", "Devices with partial properties"},
    {"import.iterations", "Iterations marked"},
    {"import.kernels_correlated_by_flow", "Kernels linked by a flow"},
    {"import.kernels_without_launch", "Kernels without a launch"},
    {"import.multiple_processes", "Processes in the trace"},
    {"import.negative_durations", "Events with negative length"},
    {"import.no_api_calls", "No API calls in the source", U::kFlag},
    {"import.no_device_properties", "No device properties", U::kFlag},
    {"import.no_gpu_activity", "No GPU activity in the trace", U::kFlag},
    {"import.no_kernels", "No kernels in the source", U::kFlag},
    {"import.no_memcpys", "No copies in the source", U::kFlag},
    {"import.no_memsets", "No memsets in the source", U::kFlag},
    {"import.no_nvtx", "No NVTX ranges in the source", U::kFlag},
    {"import.no_sync_records", "No sync records in the trace", U::kFlag},
    {"import.no_syncs", "No syncs in the source", U::kFlag},
    {"import.nsys_schema_version", "Nsight Systems export schema"},
    {"import.skipped_api_calls", "API calls skipped"},
    {"import.skipped_category", "Events of other categories"},
    {"import.skipped_devices", "Devices skipped"},
    {"import.skipped_graph_launches", "Graph launches skipped"},
    {"import.skipped_kernels", "Kernels skipped"},
    {"import.skipped_memcpys", "Copies skipped"},
    {"import.skipped_memsets", "Memsets skipped"},
    {"import.skipped_nvtx_domains", "NVTX domains skipped"},
    {"import.skipped_nvtx_ranges", "NVTX ranges skipped"},
    {"import.skipped_phase", "Events of other phases"},
    {"import.skipped_syncs", "Syncs skipped"},
    {"import.unknown_copy_kinds", "Copies of unknown kind"},
    {"import.unknown_enum_values", "Unknown enum values"},
    {"import.unlinked_kernels", "Kernels with no launch call"},
    {"profile.channels_last", "Convolutions channels-last (NHWC)", U::kFlag},
    {"profile.eager_matches_forward", "Op-by-op run matches forward", U::kFlag},
    {"profile.forward_latency_median_ns", "Forward latency (median)", U::kNanoseconds},
    {"profile.latency_median_ns", "Latency (median)", U::kNanoseconds},
    {"profile.profiled_median_wall_ns", "Iteration, collector on (median)", U::kNanoseconds},
    // Written by earlier profilers; the bundled samples/recorded/inception_v3.db holds it.
    {"profile.recorded_every_api_call", "Recorded with every API call", U::kFlag},
    {"profile.tf32_allowed", "TF32 convolutions allowed", U::kFlag},
    {"profile.warmup_median_wall_ns", "Warmup iteration (median)", U::kNanoseconds},
}};
static_assert(std::is_sorted(kLabels.begin(), kLabels.end(), [](const auto& a, const auto& b) { return a.key < b.key; }));

// "recorded_every_api_call" -> "recorded every api call": '_' and '.' become single spaces, trimmed.
std::string Words(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != '_' && c != '.') out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// "profile.recorded_every_api_call" -> "Profile: recorded every api call".
std::string Readable(std::string_view key) {
  const size_t dot = key.find('.');
  const std::string head = Words(key.substr(0, dot));
  const std::string rest = dot == std::string_view::npos ? std::string() : Words(key.substr(dot + 1));
  std::string out = head.empty() || rest.empty() ? head + rest : head + ": " + rest;
  if (out.empty()) return "(unnamed stat)";
  out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

std::string Grouped(int64_t value) {
  const std::string digits = std::to_string(value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value));
  std::string out = value < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += "\u202f";  // narrow no-break space
    out += digits[i];
  }
  return out;
}

std::string Bytes(int64_t value) {
  const double magnitude = std::abs(static_cast<double>(value));
  if (magnitude < 1024) return Grouped(value) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double scaled = static_cast<double>(value) / 1024;
  size_t u = 0;
  while (std::abs(scaled) >= 1024 && u + 1 < std::size(units)) {
    scaled /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), std::abs(scaled) >= 100 ? "%.0f %s" : std::abs(scaled) >= 10 ? "%.1f %s" : "%.2f %s",
                scaled, units[u]);
  return buf;
}

}  // namespace

std::span<const StatLabelEntry> KnownStatLabels() { return kLabels; }

StatLabel LabelStat(std::string_view key) {
  const auto& table = kLabels;
  const auto it = std::lower_bound(table.begin(), table.end(), key,
                                   [](const StatLabelEntry& e, std::string_view k) { return e.key < k; });
  if (it != table.end() && it->key == key) return {std::string(it->label), it->unit, true};
  return {Readable(key), StatUnit::kCount, false};
}

std::string FormatStatValue(int64_t value, StatUnit unit) {
  switch (unit) {
    case StatUnit::kCount: return Grouped(value);
    case StatUnit::kNanoseconds: return FormatDuration(static_cast<double>(value));
    case StatUnit::kBytes: return Bytes(value);
    case StatUnit::kFlag: return value != 0 ? "yes" : "no";
    case StatUnit::kSignal: return value == 0 ? "its own exit" : "signal " + std::to_string(value);
  }
  return Grouped(value);
}

}  // namespace nimble::gui

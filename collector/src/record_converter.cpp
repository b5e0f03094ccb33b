#include "nimble/collector/record_converter.h"

#include "nimble/collector/activity_conversions.h"

namespace nimble::collector {

RecordConverter::RecordConverter(ConverterOptions options) : options_(std::move(options)) {
  stats_.iteration_range = options_.iteration_range;
  if (!options_.iteration_range.empty()) iteration_text_ = strings_.Intern(options_.iteration_range);
}

void RecordConverter::Convert(const ActivityRecord& record, ActivityChunk& out) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
      ConvertKernel(reinterpret_cast<const KernelRecordV&>(record), out);
      return;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& in = reinterpret_cast<const MemcpyRecordV&>(record);
      if (!HasValidTimes(in.start, in.end)) break;
      out.memcpys.push_back(ToMemcpyRecord(in));
      ++stats_.memcpys;
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& in = reinterpret_cast<const MemsetRecordV&>(record);
      if (!HasValidTimes(in.start, in.end)) break;
      out.memsets.push_back(ToMemsetRecord(in));
      ++stats_.memsets;
      return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto& in = reinterpret_cast<const SyncRecordV&>(record);
      if (!HasValidTimes(in.start, in.end)) break;
      out.syncs.push_back(ToSyncRecord(in));
      ++stats_.syncs;
      return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      ConvertApi(reinterpret_cast<const ApiRecordV&>(record), ApiKind::kRuntime, out);
      return;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      ConvertApi(reinterpret_cast<const ApiRecordV&>(record), ApiKind::kDriver, out);
      return;
    case CUPTI_ACTIVITY_KIND_MARKER:
      ConvertMarker(reinterpret_cast<const MarkerRecordV&>(record), out);
      return;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      out.external_correlations.push_back(
          ToExternalCorrelation(reinterpret_cast<const ExternalCorrelationRecordV&>(record)));
      ++stats_.external_correlations;
      return;
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      const auto& in = reinterpret_cast<const GraphTraceRecordV&>(record);
      if (!HasValidTimes(in.start, in.end)) break;
      out.graph_launches.push_back(ToGraphLaunchRecord(in));
      ++stats_.graph_launches;
      return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto& in = reinterpret_cast<const OverheadRecordV&>(record);
      if (!HasValidTimes(in.start, in.end)) break;
      out.overheads.push_back(ToOverheadRecord(in, strings_));
      ++stats_.overheads;
      return;
    }
    default:
      ++stats_.unknown_kind_records;
      return;
  }
  ++stats_.incomplete_records;  // reached only by a `break` above: a record without valid times
}

int64_t RecordConverter::ConvertBuffer(uint8_t* buffer, size_t valid_bytes, ActivityChunk& out) {
  int64_t records = 0;
  CUpti_Activity* record = nullptr;
  while (true) {
    const CUptiResult result = cuptiActivityGetNextRecord(buffer, valid_bytes, &record);
    if (result == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // the normal end of a buffer
    if (result != CUPTI_SUCCESS) {
      ++stats_.buffer_errors;  // the rest of this buffer cannot be walked
      break;
    }
    Convert(*record, out);
    ++records;
  }
  ++stats_.buffers_completed;
  stats_.buffer_bytes_delivered += static_cast<int64_t>(valid_bytes);
  return records;
}

void RecordConverter::Finish() { stats_.unmatched_marker_starts += markers_.CloseOpen(); }

void RecordConverter::ConvertKernel(const KernelRecordV& in, ActivityChunk& out) {
  if (!HasValidTimes(in.start, in.end)) {
    ++stats_.incomplete_records;
    return;
  }
  out.kernels.push_back(ToKernelRecord(in, kernel_names_));
  ++stats_.kernels;
}

void RecordConverter::ConvertApi(const ApiRecordV& in, ApiKind kind, ActivityChunk& out) {
  if (!HasValidTimes(in.start, in.end)) {
    ++stats_.incomplete_records;
    return;
  }
  out.api_calls.push_back(ToApiCallRecord(in, kind, ApiName(kind, in.cbid)));
  ++(kind == ApiKind::kRuntime ? stats_.runtime_calls : stats_.driver_calls);
}

void RecordConverter::ConvertMarker(const MarkerRecordV& in, ActivityChunk& out) {
  const ThreadId thread = ThreadOf(in.objectKind, in.objectId);
  const auto ts = static_cast<int64_t>(in.timestamp);
  const StringId domain = in.domain != nullptr ? strings_.Intern(in.domain) : StringId();
  if (in.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    NvtxRange mark;
    mark.start_ns = mark.end_ns = ts;
    mark.thread = thread;
    mark.text = strings_.Intern(in.name != nullptr ? in.name : "");
    mark.domain = domain;
    EmitRange(mark, out);
  } else if (in.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    markers_.Start(in.id, ts, thread, strings_.Intern(in.name != nullptr ? in.name : ""), domain);
  } else if (in.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    if (auto range = markers_.End(in.id, ts)) EmitRange(*range, out);
  } else {
    ++stats_.other_markers;  // NVTX sync markers: no range to draw
  }
  stats_.unmatched_marker_ends = markers_.unmatched_ends();
}

void RecordConverter::EmitRange(const NvtxRange& range, ActivityChunk& out) {
  out.ranges.push_back(range);
  ++stats_.nvtx_ranges;
  if (iteration_text_.valid() && range.text == iteration_text_) ++stats_.iterations;
}

StringId RecordConverter::ApiName(ApiKind kind, uint32_t cbid) {
  constexpr uint32_t kMaxCachedCbid = 1 << 16;  // CUPTI's ids are in the hundreds; a wild one is not cached
  const auto lookup = [&] {
    const CUpti_CallbackDomain domain =
        kind == ApiKind::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr) return strings_.Intern(name);
    return strings_.Intern((kind == ApiKind::kRuntime ? "runtime_cbid_" : "driver_cbid_") + std::to_string(cbid));
  };
  if (cbid >= kMaxCachedCbid) return lookup();
  std::vector<StringId>& names = kind == ApiKind::kRuntime ? runtime_names_ : driver_names_;
  if (cbid >= names.size()) names.resize(cbid + 1);
  if (!names[cbid].valid()) names[cbid] = lookup();
  return names[cbid];
}

}  // namespace nimble::collector

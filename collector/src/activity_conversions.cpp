#include "nimble/collector/activity_conversions.h"

#include <climits>

namespace nimble::collector {

CopyKind ToCopyKind(uint32_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return CopyKind::kHtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return CopyKind::kDtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return CopyKind::kHtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return CopyKind::kAtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return CopyKind::kAtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return CopyKind::kAtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return CopyKind::kDtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return CopyKind::kDtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return CopyKind::kHtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return CopyKind::kPtoP;
    default: return CopyKind::kUnknown;
  }
}

MemoryKind ToMemoryKind(uint32_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return MemoryKind::kPageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MemoryKind::kPinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return MemoryKind::kArray;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return MemoryKind::kManaged;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return MemoryKind::kDeviceStatic;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return MemoryKind::kManagedStatic;
    default: return MemoryKind::kUnknown;
  }
}

SyncKind ToSyncKind(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return SyncKind::kEventSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return SyncKind::kStreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return SyncKind::kStreamSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return SyncKind::kContextSynchronize;
    default: return SyncKind::kUnknown;
  }
}

std::string_view OverheadKindName(CUpti_ActivityOverheadKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "driver_compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "cupti_buffer_flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "cupti_instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "cupti_resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "runtime_triggered_module_loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING: return "lazy_function_loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL: return "command_buffer_full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "activity_buffer_request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT: return "uvm_activity_init";
    default: return "unknown";
  }
}

ThreadId ThreadOf(CUpti_ActivityObjectKind kind, const CUpti_ActivityObjectKindId& id) {
  if (kind == CUPTI_ACTIVITY_OBJECT_THREAD || kind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    return ThreadId(static_cast<int64_t>(id.pt.threadId));
  }
  return {};
}

namespace {

// The fields every GPU activity record shares: its interval, device, context, stream and correlation id.
template <typename CuptiRecord, typename Record>
void CopyGpuActivity(const CuptiRecord& in, Record& out) {
  out.start_ns = static_cast<int64_t>(in.start);
  out.end_ns = static_cast<int64_t>(in.end);
  out.device = DeviceId(static_cast<int32_t>(in.deviceId));
  out.context = ContextId(in.contextId);
  out.stream = StreamId(in.streamId);
  out.correlation = CorrelationId(in.correlationId);
}

}  // namespace

KernelRecord ToKernelRecord(const KernelRecordV& in, KernelNameCache& names) {
  const KernelNameIds ids = names.Lookup(in.name);
  KernelRecord out;
  CopyGpuActivity(in, out);
  out.name = ids.name;
  out.short_name = ids.short_name;
  out.grid = Dim3{in.gridX, in.gridY, in.gridZ};
  out.block = Dim3{in.blockX, in.blockY, in.blockZ};
  out.registers_per_thread = in.registersPerThread;
  out.static_shared_bytes = in.staticSharedMemory;
  out.dynamic_shared_bytes = in.dynamicSharedMemory;
  out.graph_node_id = static_cast<int64_t>(in.graphNodeId);
  out.graph_id = in.graphId;
  return out;
}

MemcpyRecord ToMemcpyRecord(const MemcpyRecordV& in) {
  MemcpyRecord out;
  CopyGpuActivity(in, out);
  out.bytes = static_cast<int64_t>(in.bytes);
  out.copy_kind = ToCopyKind(in.copyKind);
  out.src_kind = ToMemoryKind(in.srcKind);
  out.dst_kind = ToMemoryKind(in.dstKind);
  out.graph_node_id = static_cast<int64_t>(in.graphNodeId);
  return out;
}

MemsetRecord ToMemsetRecord(const MemsetRecordV& in) {
  MemsetRecord out;
  CopyGpuActivity(in, out);
  out.bytes = static_cast<int64_t>(in.bytes);
  out.value = static_cast<int32_t>(in.value);
  out.mem_kind = ToMemoryKind(in.memoryKind);
  out.graph_node_id = static_cast<int64_t>(in.graphNodeId);
  return out;
}

GraphLaunchRecord ToGraphLaunchRecord(const GraphTraceRecordV& in) {
  GraphLaunchRecord out;
  out.start_ns = static_cast<int64_t>(in.start);
  out.end_ns = static_cast<int64_t>(in.end);
  // The device and context of the graph's first node; CUPTI writes INT_MAX there when the graph
  // starts with a host node, which names no device.
  if (in.deviceId != static_cast<uint32_t>(INT_MAX)) out.device = DeviceId(in.deviceId);
  if (in.contextId != static_cast<uint32_t>(INT_MAX)) out.context = ContextId(in.contextId);
  out.stream = StreamId(in.streamId);
  out.correlation = CorrelationId(in.correlationId);
  out.graph_id = in.graphId;
  return out;
}

SyncRecord ToSyncRecord(const SyncRecordV& in) {
  SyncRecord out;
  out.start_ns = static_cast<int64_t>(in.start);
  out.end_ns = static_cast<int64_t>(in.end);
  // CUPTI's synchronization records name a context and stream but no device.
  out.context = ContextId(in.contextId);
  out.kind = ToSyncKind(in.type);
  // Only stream syncs and stream waits belong to a stream; event and context syncs do not.
  if (out.kind == SyncKind::kStreamSynchronize || out.kind == SyncKind::kStreamWaitEvent) {
    out.stream = StreamId(in.streamId);
  }
  out.correlation = CorrelationId(in.correlationId);
  out.event_id = in.cudaEventId;
  return out;
}

ApiCallRecord ToApiCallRecord(const ApiRecordV& in, ApiKind kind, StringId name) {
  ApiCallRecord out;
  out.start_ns = static_cast<int64_t>(in.start);
  out.end_ns = static_cast<int64_t>(in.end);
  out.kind = kind;
  out.thread = ThreadId(static_cast<int64_t>(in.threadId));
  out.process = static_cast<int32_t>(in.processId);
  out.correlation = CorrelationId(in.correlationId);
  out.name = name;
  out.callback_id = static_cast<int32_t>(in.cbid);
  out.return_value = static_cast<int32_t>(in.returnValue);
  return out;
}

ExternalCorrelation ToExternalCorrelation(const ExternalCorrelationRecordV& in) {
  ExternalCorrelation out;
  out.correlation = CorrelationId(in.correlationId);
  out.external_id = static_cast<int64_t>(in.externalId);
  out.external_kind = static_cast<int32_t>(in.externalKind);
  return out;
}

OverheadRecord ToOverheadRecord(const OverheadRecordV& in, StringTable& strings) {
  OverheadRecord out;
  out.start_ns = static_cast<int64_t>(in.start);
  out.end_ns = static_cast<int64_t>(in.end);
  out.thread = ThreadOf(in.objectKind, in.objectId);
  out.kind = strings.Intern(OverheadKindName(in.overheadKind));
  return out;
}

}  // namespace nimble::collector

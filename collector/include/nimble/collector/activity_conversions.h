// Pure functions from one CUPTI record (the versions named in cupti_records.h) to one core record.
// CUPTI timestamps are nanoseconds already; ids are widened, enums folded into core's.
// No state beyond the string tables passed in; no threading concerns of their own.
#pragma once

#include <cstdint>
#include <string_view>

#include "nimble/collector/cupti_records.h"
#include "nimble/collector/kernel_names.h"
#include "nimble/core/activity.h"
#include "nimble/core/string_table.h"

namespace nimble::collector {

// CUPTI leaves timestamps at 0 when it could not time an activity (e.g. a forced flush before the
// GPU finished it). Such records are counted, not stored.
inline bool HasValidTimes(uint64_t start_ns, uint64_t end_ns) { return start_ns != 0 && end_ns >= start_ns; }

CopyKind ToCopyKind(uint32_t cupti_copy_kind);
MemoryKind ToMemoryKind(uint32_t cupti_memory_kind);
SyncKind ToSyncKind(CUpti_ActivitySynchronizationType type);
std::string_view OverheadKindName(CUpti_ActivityOverheadKind kind);

KernelRecord ToKernelRecord(const KernelRecordV& in, KernelNameCache& names);
MemcpyRecord ToMemcpyRecord(const MemcpyRecordV& in);
MemsetRecord ToMemsetRecord(const MemsetRecordV& in);
SyncRecord ToSyncRecord(const SyncRecordV& in);
// `name` is the interned callback name (e.g. "cudaLaunchKernel_v7000").
ApiCallRecord ToApiCallRecord(const ApiRecordV& in, ApiKind kind, StringId name);
ExternalCorrelation ToExternalCorrelation(const ExternalCorrelationRecordV& in);
OverheadRecord ToOverheadRecord(const OverheadRecordV& in, StringTable& strings);
GraphLaunchRecord ToGraphLaunchRecord(const GraphTraceRecordV& in);

// The host thread a marker or overhead record belongs to, or an invalid id when it names no thread.
ThreadId ThreadOf(CUpti_ActivityObjectKind kind, const CUpti_ActivityObjectKindId& id);

}  // namespace nimble::collector

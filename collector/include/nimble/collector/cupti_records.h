// The one place that names CUPTI's versioned record structs: a CUPTI upgrade that bumps a struct
// version (Kernel10 -> Kernel11) changes only the aliases below, and the converters follow.
// Verified against CUDA 13.0's cupti_activity.h. Types only; no threading concerns.
#pragma once

#include <cupti.h>

namespace nimble::collector {

using ActivityRecord = CUpti_Activity;                         // common header: kind only
using KernelRecordV = CUpti_ActivityKernel10;                  // CONCURRENT_KERNEL and KERNEL
using MemcpyRecordV = CUpti_ActivityMemcpy6;                   // MEMCPY
using MemsetRecordV = CUpti_ActivityMemset4;                   // MEMSET
using ApiRecordV = CUpti_ActivityAPI;                          // RUNTIME and DRIVER
using SyncRecordV = CUpti_ActivitySynchronization2;            // SYNCHRONIZATION
using MarkerRecordV = CUpti_ActivityMarker2;                   // MARKER (NVTX)
using ExternalCorrelationRecordV = CUpti_ActivityExternalCorrelation;  // EXTERNAL_CORRELATION
using OverheadRecordV = CUpti_ActivityOverhead3;               // OVERHEAD
using GraphTraceRecordV = CUpti_ActivityGraphTrace2;           // GRAPH_TRACE (graph-level tracing)

// Buffers handed to CUPTI must be aligned like its records.
inline constexpr size_t kRecordAlignment = 8;

}  // namespace nimble::collector

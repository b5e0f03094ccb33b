// What Kineto encodes in event names, decoded: the copy kind and memory kinds of "Memcpy HtoD (Pageable
// -> Device)", the memory kind of "Memset (Device)", the kind of a "cuda_sync" event ("Event Sync"...),
// and a kernel's short name (nsys' shortName: no return type, namespace, template arguments or
// parameters). Pure functions.
#pragma once

#include "nimble/core/kernel_name.h"
#include <optional>
#include <string>
#include <string_view>

#include "nimble/core/activity.h"

namespace nimble::workflow {

struct CopyKinds {
  CopyKind copy_kind = CopyKind::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
};

// nullopt when `name` is not of that form or names a kind CUPTI does not have.
std::optional<CopyKinds> ParseMemcpyName(std::string_view name);
std::optional<MemoryKind> ParseMemsetName(std::string_view name);
// "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"; kUnknown otherwise.
SyncKind ParseSyncKind(std::string_view name);

using ::nimble::ShortKernelName;  // core/kernel_name.h: kernel names from traces get the collector's short names

}  // namespace nimble::workflow

// The enums of torch.export's serialized schema (torch/_export/serde/schema.py) and their c10
// counterparts. The schema numbers its enums independently of c10 (FLOAT is 7 there, 6 in c10), so
// every serialized dtype, layout and memory format goes through these tables. Pure functions.
#pragma once

#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>

namespace nimble::accelerate {

// Schema major versions this reader understands. A major bump renames or removes fields; minors
// only add optional ones, which the reader ignores.
inline constexpr int64_t kExportSchemaMajor = 8;

// nullopt for UNKNOWN and numbers the schema does not define.
std::optional<c10::ScalarType> ExportScalarType(int64_t serialized);
std::optional<c10::Layout> ExportLayout(int64_t serialized);
std::optional<c10::MemoryFormat> ExportMemoryFormat(int64_t serialized);

}  // namespace nimble::accelerate

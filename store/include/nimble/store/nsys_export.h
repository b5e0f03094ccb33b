// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`) into an ImportedTrace: kernels,
// copies, memsets, synchronizations, CUDA runtime and driver calls, NVTX ranges and GPU properties.
// The input is never written: it is opened immutable and nothing is created beside it. Every error
// names the file (and the table and column where one is at fault). Stateless functions; any thread.
#pragma once

#include <string>

#include "nimble/core/imported_trace.h"
#include "nimble/core/status.h"

namespace nimble::store {

// The export schema versions this build reads ("major.minor.micro" in META_DATA_EXPORT's
// EXPORT_SCHEMA_VERSION): major 3, minor kNsysSchemaMinorMin to kNsysSchemaMinorMax, any micro (micro
// versions only add tables and columns). A minor change may rename or retype columns, so a newer one
// is refused rather than read on trust.
inline constexpr int kNsysSchemaMajor = 3;
inline constexpr int kNsysSchemaMinorMin = 1;   // 3.1.x: the oldest version with the tables read here (nsys 2023.2)
inline constexpr int kNsysSchemaMinorMax = 28;  // 3.28.x: the newest published schema reference (nsys 2026.4)

// True when `path` is a SQLite file with the tables of an Nsight Systems export (StringIds and one of
// the export's metadata or activity tables) and is not a Nimble run database, which shares the
// export's table names for its activity tables. False for anything else, including unreadable files.
bool LooksLikeNsysExport(const std::string& path);

// Reads the whole export. Tables the export lacks are warnings in `stats` ("import.no_kernels"...),
// rows with impossible values are skipped and counted ("import.skipped_kernels"...). Errors: NotFound,
// DataLoss (not SQLite, truncated, corrupt), FailedPrecondition (a Nimble run database, another SQLite
// file, an unknown schema version, a table without a column the schema requires).
StatusOr<ImportedTrace> ReadNsysExport(const std::string& path);

}  // namespace nimble::store

// Writes SCHEMA-SYNTHETIC Nsight Systems exports for the tests: SQLite files laid out as the published
// export schema (table and column names, types and NOT NULL constraints of the schema reference,
// version 3.28) holding content the test chooses, given as the Trace the reader should return. No
// real export is involved: the profiling machine's nsys cannot write one. Single-threaded test code.
#pragma once

#include <cstdint>
#include <random>
#include <set>
#include <string>

#include "nimble/core/status.h"
#include "nimble/core/trace.h"

namespace nimble::store::testing {

enum class MetaTable { kMetaDataExport, kExportMetaData, kNone };

struct NsysFixture {
  // What the export holds, in Nimble's terms and in the order ReadNsysExport returns it: each kind by
  // start, devices by id. Constraints of the export's form: API calls and ranges on threads below 2^24 of process
  // `pid`, callback ids 0, driver calls named "cu..." and runtime calls "cuda..."; sync streams only on
  // stream syncs and waits; device limits with max_threads_per_sm a multiple of 32.
  Trace trace;
  int64_t pid = 4242;                    // every record's process (globalPid / globalTid)
  int64_t machine_bits = int64_t{1} << 48;  // what nsys keeps above the process in a GlobalId
  std::string schema_version = "3.28.1";
  std::string product_version = "2026.4.1.0";
  MetaTable meta_table = MetaTable::kMetaDataExport;
  int64_t session_start_utc_ns = 1'780'000'000'123'456'789;
  std::set<std::string> omit_tables;     // tables not written at all, as nsys omits tables it has no data for
  bool not_null_constraints = true;      // false lets a test store NULL where the schema forbids it
  uint64_t shuffle_seed = 0;             // non-zero: rows are inserted in a shuffled order
};

// The sample run: two streams of kernels with their cudaLaunchKernel calls, an HtoD copy, a memset, a
// stream synchronization, three NVTX "iteration" ranges in a named domain and a mark, and a CUDA
// graph's two kernels launched by cudaGraphLaunch, on one H100.
NsysFixture SampleNsysFixture();

// A random export of about `scale` records of each kind, within the constraints above, with distinct
// start times within each kind.
NsysFixture RandomNsysFixture(std::mt19937_64& rng, int scale);

// Writes `fixture` to `path` (which must not exist).
Status WriteNsysFixture(const std::string& path, const NsysFixture& fixture);

}  // namespace nimble::store::testing

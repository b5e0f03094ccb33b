// Checks that keep a damaged run database from producing a confident, wrong report. On open for
// reading: SQLite's quick_check where the file is small enough for it to be cheap, then Nimble's own
// structural checks that need no scan of the activity tables. When a run's kernels are loaded: every
// kernel_time_blocks row against the kernels it summarises (a changed start or end shows there), and
// kernel attribution against the run's ops and kernels. Every failure is DataLoss naming the file and
// what is inconsistent. Private to the store; one thread per Database.
#pragma once

#include <cstdint>
#include <span>

#include "nimble/core/activity.h"
#include "nimble/core/ids.h"
#include "nimble/core/op_graph.h"
#include "sqlite_db.h"

namespace nimble::store {

// Files up to this size get PRAGMA quick_check on every open for reading: it reads every page, about
// 2.5 ms per MiB on the 2-core development VM (bench/results/store_integrity.md), so 64 MiB costs
// about 0.2 s. Larger files get the structural checks only.
inline constexpr int64_t kQuickCheckMaxBytes = int64_t{64} << 20;

Status CheckOnOpen(Database& db, int64_t file_bytes);

// `kernels` are all of `run`'s kernels in kernelIndex order.
Status CheckKernelTimeBlocks(Database& db, RunId run, std::span<const KernelRecord> kernels);

// Each op exists in the run's graph; where the run has kernels, each attributed kernel exists and is
// attributed once.
Status CheckAttribution(Database& db, RunId run, std::span<const KernelAttribution> attribution);

}  // namespace nimble::store

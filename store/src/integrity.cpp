#include "integrity.h"

#include <algorithm>
#include <string>
#include <vector>

#include "nimble/store/schema.h"

namespace nimble::store {
namespace {

Status Inconsistent(const Database& db, const std::string& what) {
  return DataLoss(db.path() + ": the file is damaged or inconsistent: " + what +
                  " (nothing was reported from it; a copy recorded again, or restored, reads fine)");
}

// SQLite's own check of every page: b-tree structure, free lists, records against their indexes.
Status QuickCheck(Database& db) {
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare("PRAGMA quick_check(5)"));
  std::string problems;
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
    if (!has_row) break;
    const std::string line = q.ColumnText(0);
    if (line != "ok") problems += (problems.empty() ? "" : "; ") + line;
  }
  if (problems.empty()) return OkStatus();
  return Inconsistent(db, "SQLite's quick_check found: " + problems);
}

// Block rows that cannot be right whatever the kernels are, and blocks of runs that do not exist.
Status CheckBlockRows(Database& db) {
  if (!db.TableExists("kernel_time_blocks")) return OkStatus();
  const std::string per_block = std::to_string(kKernelsPerTimeBlock);
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT runId, firstKernelIndex FROM kernel_time_blocks WHERE firstKernelIndex < 0 OR firstKernelIndex % " +
      per_block + " != 0 OR lastKernelIndex < firstKernelIndex OR lastKernelIndex >= firstKernelIndex + " +
      per_block + " OR maxEnd < minStart OR runId NOT IN (SELECT runId FROM runs) LIMIT 1"));
  NIMBLE_ASSIGN_OR_RETURN(bool bad, q.Step());
  if (!bad) return OkStatus();
  return Inconsistent(db, "kernel_time_blocks row of run " + std::to_string(q.ColumnInt(0)) + " at kernel " +
                              std::to_string(q.ColumnInt(1)) + " is malformed or names a run that does not exist");
}

struct Block {
  int64_t first = 0, last = 0, min_start = 0, max_end = 0;
};

}  // namespace

Status CheckOnOpen(Database& db, int64_t file_bytes) {
  if (file_bytes <= kQuickCheckMaxBytes) NIMBLE_RETURN_IF_ERROR(QuickCheck(db));
  return CheckBlockRows(db);
}

Status CheckKernelTimeBlocks(Database& db, RunId run, std::span<const KernelRecord> kernels) {
  if (!db.TableExists("kernel_time_blocks")) return OkStatus();
  std::vector<Block> stored;
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT firstKernelIndex, lastKernelIndex, minStart, maxEnd FROM kernel_time_blocks WHERE runId = ? "
      "ORDER BY firstKernelIndex"));
  q.BindInt(1, run.value());
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, q.Step());
    if (!has_row) break;
    stored.push_back({q.ColumnInt(0), q.ColumnInt(1), q.ColumnInt(2), q.ColumnInt(3)});
  }
  const std::string where = "run " + std::to_string(run.value()) + ": ";
  const auto n = static_cast<int64_t>(kernels.size());
  const int64_t expected_blocks = (n + kKernelsPerTimeBlock - 1) / kKernelsPerTimeBlock;
  if (static_cast<int64_t>(stored.size()) != expected_blocks) {
    return Inconsistent(db, where + std::to_string(n) + " kernels, but " + std::to_string(stored.size()) +
                                " kernel_time_blocks rows (" + std::to_string(expected_blocks) + " expected)");
  }
  for (int64_t b = 0; b < expected_blocks; ++b) {
    const int64_t first = b * kKernelsPerTimeBlock;
    const int64_t last = std::min(n, first + kKernelsPerTimeBlock) - 1;
    Block actual{first, last, kernels[static_cast<size_t>(first)].start_ns, kernels[static_cast<size_t>(first)].end_ns};
    for (int64_t k = first; k <= last; ++k) {
      const KernelRecord& kernel = kernels[static_cast<size_t>(k)];
      if (kernel.end_ns < kernel.start_ns) {
        return Inconsistent(db, where + "kernel " + std::to_string(k) + " ends before it starts");
      }
      actual.min_start = std::min(actual.min_start, kernel.start_ns);
      actual.max_end = std::max(actual.max_end, kernel.end_ns);
    }
    const Block& s = stored[static_cast<size_t>(b)];
    if (s.first != actual.first || s.last != actual.last || s.min_start != actual.min_start ||
        s.max_end != actual.max_end) {
      return Inconsistent(db, where + "kernels " + std::to_string(first) + " to " + std::to_string(last) +
                                  " span [" + std::to_string(actual.min_start) + ", " +
                                  std::to_string(actual.max_end) + "] ns, but their kernel_time_blocks row says [" +
                                  std::to_string(s.min_start) + ", " + std::to_string(s.max_end) + "] for kernels " +
                                  std::to_string(s.first) + " to " + std::to_string(s.last));
    }
  }
  return OkStatus();
}

Status CheckAttribution(Database& db, RunId run, std::span<const KernelAttribution> attribution) {
  if (attribution.empty()) return OkStatus();
  NIMBLE_ASSIGN_OR_RETURN(Statement ops, db.Prepare("SELECT count(*) FROM ops WHERE runId = ?"));
  ops.BindInt(1, run.value());
  NIMBLE_ASSIGN_OR_RETURN(bool has_row, ops.Step());
  const int64_t num_ops = has_row ? ops.ColumnInt(0) : 0;
  NIMBLE_ASSIGN_OR_RETURN(Statement end, db.Prepare(
      "SELECT coalesce(max(lastKernelIndex) + 1, 0) FROM kernel_time_blocks WHERE runId = ?"));
  end.BindInt(1, run.value());
  NIMBLE_ASSIGN_OR_RETURN(has_row, end.Step());
  const int64_t num_kernels = has_row ? end.ColumnInt(0) : 0;
  const std::string where = "run " + std::to_string(run.value()) + ": op_kernels ";
  std::vector<bool> seen(static_cast<size_t>(num_kernels), false);
  for (const KernelAttribution& a : attribution) {
    if (a.op.value() < 0 || a.op.value() >= num_ops) {
      return Inconsistent(db, where + "names op " + std::to_string(a.op.value()) + " of " + std::to_string(num_ops));
    }
    const int64_t k = a.kernel.value();
    if (num_kernels == 0) continue;  // results written without records: the analysis checks them against its trace
    if (k < 0 || k >= num_kernels) {
      return Inconsistent(db, where + "names kernel " + std::to_string(k) + " of " + std::to_string(num_kernels));
    }
    if (seen[static_cast<size_t>(k)]) {
      return Inconsistent(db, where + "attributes kernel " + std::to_string(k) + " to two ops");
    }
    seen[static_cast<size_t>(k)] = true;
  }
  return OkStatus();
}

}  // namespace nimble::store

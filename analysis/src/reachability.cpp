#include "nimble/analysis/reachability.h"

#include <algorithm>
#include <cassert>

namespace nimble::analysis {

BlockedClosure::BlockedClosure(const Dag& dag, int64_t budget_bytes) : dag_(dag) {
  const int64_t n = std::max<int32_t>(dag.num_nodes(), 1);
  // A row of w words costs 8w bytes and there are at most n rows.
  const int64_t words = std::max<int64_t>(1, budget_bytes / (8 * n));
  block_columns_ = static_cast<int32_t>(std::min<int64_t>(words * 64, ((n + 63) / 64) * 64));
  num_blocks_ = static_cast<int32_t>((dag.num_nodes() + block_columns_ - 1) / block_columns_);
  // Later blocks need more rows: one allocation of the largest block avoids holding two while growing.
  rows_.reserve(static_cast<size_t>(dag.num_nodes()) * static_cast<size_t>(block_columns_ / 64));
}

int32_t BlockedClosure::block_begin(int32_t block) const { return block * block_columns_; }

int32_t BlockedClosure::block_end(int32_t block) const {
  return std::min(dag_.num_nodes(), (block + 1) * block_columns_);
}

void BlockedClosure::ComputeBlock(int32_t block, const LongPathVisitor& visit) {
  begin_ = block_begin(block);
  end_ = block_end(block);
  words_per_row_ = static_cast<size_t>((end_ - begin_ + 63) / 64);
  // Nodes at positions >= end_ reach nothing in this block, so they need no row.
  rows_.assign(static_cast<size_t>(end_) * words_per_row_, 0);
  const auto order = dag_.topological_order();
  for (int32_t p = end_ - 1; p >= 0; --p) {
    const int32_t u = order[static_cast<size_t>(p)];
    std::span<uint64_t> row = Row(p);
    // Columns at or left of p are never reached from u: skip their words.
    const size_t first_word = p + 1 > begin_ ? static_cast<size_t>(p + 1 - begin_) >> 6 : 0;
    for (int32_t w : dag_.successors(u)) {
      const int32_t q = dag_.topological_position(w);
      if (q >= end_) continue;
      const std::span<uint64_t> child = Row(q);
      for (size_t i = first_word; i < words_per_row_; ++i) row[i] |= child[i];
    }
    if (visit) visit(u, BitRow(row, begin_));
    for (int32_t w : dag_.successors(u)) {
      const int32_t q = dag_.topological_position(w);
      if (q < begin_ || q >= end_) continue;
      const auto bit = static_cast<uint32_t>(q - begin_);
      row[bit >> 6] |= uint64_t{1} << (bit & 63);
    }
  }
}

bool BlockedClosure::Reaches(int32_t u, int32_t v) const {
  const int32_t p = dag_.topological_position(u);
  const int32_t q = dag_.topological_position(v);
  assert(q >= begin_ && q < end_ && "v must lie in the computed block");
  if (p >= end_ || q <= p) return false;
  const std::span<const uint64_t> row(rows_.data() + static_cast<size_t>(p) * words_per_row_, words_per_row_);
  return BitRow(row, begin_).Test(q);
}

}  // namespace nimble::analysis

// Reachability as bitsets over one block of columns (topological positions) at a time: the whole
// closure of 100 000 ops would take 1.25 GB, blocks keep the peak within a budget at O(E * n / 64) work.
// Invariant: a row only has bits right of its node's position. One block at a time; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "nimble/analysis/dag.h"

namespace nimble::analysis {

// One row of a block: bit (p - begin) set means the node at topological position p is reached.
class BitRow {
 public:
  BitRow(std::span<const uint64_t> words, int32_t begin_position) : words_(words), begin_(begin_position) {}
  // `position` must lie in the block.
  bool Test(int32_t position) const {
    const auto bit = static_cast<uint32_t>(position - begin_);
    return (words_[bit >> 6] >> (bit & 63)) & 1;
  }

 private:
  std::span<const uint64_t> words_;
  int32_t begin_;
};

class BlockedClosure {
 public:
  // Splits the columns into blocks of at least 64 so that one block takes at most `budget_bytes`
  // (or 8 bytes per node, if the budget is smaller).
  BlockedClosure(const Dag& dag, int64_t budget_bytes);

  int32_t num_blocks() const { return num_blocks_; }
  int32_t block_begin(int32_t block) const;  // first topological position of the block
  int32_t block_end(int32_t block) const;    // one past the last

  // Called once per node, in reverse topological order, with the block's columns that the node reaches
  // through paths of two or more edges (an edge u -> v is redundant exactly when v is among them).
  using LongPathVisitor = std::function<void(int32_t node, const BitRow& reached_by_long_paths)>;
  // Computes the rows of `block`, replacing the previous block's.
  void ComputeBlock(int32_t block, const LongPathVisitor& visit = {});

  // Whether u reaches v through at least one edge; v's position must lie in the computed block.
  bool Reaches(int32_t u, int32_t v) const;
  // Bytes held by the current block's rows.
  int64_t memory_bytes() const { return static_cast<int64_t>(rows_.capacity() * sizeof(uint64_t)); }

 private:
  std::span<uint64_t> Row(int32_t position) {
    return {rows_.data() + static_cast<size_t>(position) * words_per_row_, words_per_row_};
  }

  const Dag& dag_;
  int32_t block_columns_ = 64;
  int32_t num_blocks_ = 0;
  int32_t begin_ = 0;  // computed block
  int32_t end_ = 0;
  size_t words_per_row_ = 0;
  std::vector<uint64_t> rows_;  // row of the node at position p, for p < end_
};

}  // namespace nimble::analysis

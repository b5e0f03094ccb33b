// Maps kernel launch configurations (grid, block, registers, shared memory) to ids of the database's
// kernel_launch_configs table, so that a kernel row stores one id instead of nine columns. Attaching
// reads the table once; a configuration the cache lacks is then new and is appended, inside the
// transaction of the batch that first uses it; if that transaction rolls back, the mapping forgets
// it again. The table has no UNIQUE index to keep up to date: a configuration is stored once per
// writer, and a duplicate row (two processes appending to one file at once) would be harmless, as
// every row holds the values it names. Single-threaded, like the writer that owns it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "nimble/core/activity.h"
#include "sqlite_db.h"

namespace nimble::store {

class LaunchConfigCache {
 public:
  // Reads the table's configurations and prepares the insert on `db`.
  Status Attach(Database& db);
  void Detach();

  // Sets ids[i] to the id of kernels[i]'s configuration, inserting the configurations the table
  // lacks; call inside the batch's transaction.
  Status Resolve(const std::vector<KernelRecord>& kernels, std::vector<int64_t>& ids);
  // The transaction committed: the configurations inserted in it are now permanent.
  void Commit() { added_in_batch_.clear(); }
  // The transaction rolled back: forget the configurations it inserted.
  void Rollback();

 private:
  using Key = std::array<int32_t, 9>;
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  static Key KeyOf(const KernelRecord& k);
  StatusOr<int64_t> Insert(const Key& key);

  std::unordered_map<Key, int64_t, KeyHash> ids_;
  std::vector<Key> added_in_batch_;  // inserted by the open transaction
  Database* db_ = nullptr;
  Statement insert_;
};

}  // namespace nimble::store

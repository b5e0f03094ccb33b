#include "launch_config_cache.h"

#include <string>

namespace nimble::store {
namespace {

constexpr const char* kConfigColumns =
    "gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory";

}  // namespace

size_t LaunchConfigCache::KeyHash::operator()(const Key& key) const {
  uint64_t h = 0;
  for (int32_t v : key) {  // each value mixed into every bit (the splitmix64 finalizer)
    h = (h ^ static_cast<uint32_t>(v)) + 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
  }
  return static_cast<size_t>(h);
}

LaunchConfigCache::Key LaunchConfigCache::KeyOf(const KernelRecord& k) {
  return {k.grid.x,  k.grid.y,  k.grid.z, k.block.x, k.block.y, k.block.z, k.registers_per_thread,
          k.static_shared_bytes, k.dynamic_shared_bytes};
}

Status LaunchConfigCache::Attach(Database& db) {
  const std::string columns = kConfigColumns;
  NIMBLE_ASSIGN_OR_RETURN(insert_, db.Prepare("INSERT INTO kernel_launch_configs (" + columns +
                                              ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  // Re-read on every attach: another writer may have added configurations since.
  ids_.clear();
  added_in_batch_.clear();
  NIMBLE_ASSIGN_OR_RETURN(Statement all, db.Prepare("SELECT id, " + columns + " FROM kernel_launch_configs"));
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, all.Step());
    if (!has_row) break;
    Key key;
    for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<int32_t>(all.ColumnInt(static_cast<int>(i) + 1));
    ids_.emplace(key, all.ColumnInt(0));  // the first of duplicates, should there be any
  }
  db_ = &db;
  return OkStatus();
}

void LaunchConfigCache::Detach() {
  db_ = nullptr;
  insert_ = Statement();
}

StatusOr<int64_t> LaunchConfigCache::Insert(const Key& key) {
  for (size_t i = 0; i < key.size(); ++i) insert_.BindInt(static_cast<int>(i) + 1, key[i]);
  NIMBLE_RETURN_IF_ERROR(insert_.Run());
  added_in_batch_.push_back(key);
  return sqlite3_last_insert_rowid(db_->handle());
}

Status LaunchConfigCache::Resolve(const std::vector<KernelRecord>& kernels, std::vector<int64_t>& ids) {
  ids.resize(kernels.size());
  Key last{};
  int64_t last_id = -1;  // consecutive kernels often share a configuration
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Key key = KeyOf(kernels[i]);
    if (last_id < 0 || key != last) {
      auto it = ids_.find(key);
      if (it == ids_.end()) {
        NIMBLE_ASSIGN_OR_RETURN(int64_t id, Insert(key));
        it = ids_.emplace(key, id).first;
      }
      last = key;
      last_id = it->second;
    }
    ids[i] = last_id;
  }
  return OkStatus();
}

void LaunchConfigCache::Rollback() {
  for (const Key& key : added_in_batch_) ids_.erase(key);
  added_in_batch_.clear();
}

}  // namespace nimble::store

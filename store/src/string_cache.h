// Maps the caller's StringIds (indexes into its StringTable) to ids of the database's StringIds
// table, so that each distinct string is looked up or inserted once per writer, not once per record.
// A string first seen in a batch is written inside that batch's transaction; if the transaction
// rolls back, the mapping forgets it again. Single-threaded, like the writer that owns it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nimble/core/string_table.h"
#include "sqlite_db.h"

namespace nimble::store {

class StringCache {
 public:
  // Prepares the look-up statements on `db`; the mapping survives a detach and re-attach to the same
  // file (after Commit() moves it into place).
  Status Attach(Database& db);
  void Detach();

  // InvalidArgument unless `id` is invalid (stored as NULL) or names a string of `strings`.
  static Status Check(StringId id, const StringTable& strings, std::string_view what);

  // Remembers the text of a checked `id` not yet mapped, to be written by ResolvePending().
  void Note(StringId id, const StringTable& strings) {
    if (!id.valid()) return;
    const auto index = static_cast<size_t>(id.value());
    if (index >= db_ids_.size()) db_ids_.resize(strings.size(), kUnknown);
    if (db_ids_[index] == kUnknown) AddPending(id, strings);
  }

  // Looks up or inserts every pending string; call inside the batch's transaction.
  Status ResolvePending();
  // The transaction committed: the strings resolved in it are now permanent.
  void Commit() { resolved_in_batch_.clear(); }
  // The transaction rolled back: forget what it resolved, and whatever was pending.
  void Rollback();

  // Binds the database id of a noted `id` (NULL for an invalid id). Valid after ResolvePending().
  void Bind(Statement& stmt, int index, StringId id) const {
    if (id.valid()) stmt.BindInt(index, DbId(id));
    else stmt.BindNull(index);
  }
  // The database id of a noted, valid `id`. Valid after ResolvePending().
  int64_t DbId(StringId id) const { return db_ids_[static_cast<size_t>(id.value())]; }

 private:
  static constexpr int64_t kUnknown = -1;  // not seen by this writer
  static constexpr int64_t kPending = -2;  // text kept in pending_, not yet in the database

  void AddPending(StringId id, const StringTable& strings);

  std::vector<int64_t> db_ids_;                          // indexed by the caller's StringId
  std::vector<std::pair<int32_t, std::string>> pending_;  // caller id, text
  std::vector<int32_t> resolved_in_batch_;                // caller ids resolved by the open transaction
  Statement find_;
  Statement insert_;
};

}  // namespace nimble::store

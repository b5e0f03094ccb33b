#include "string_cache.h"

namespace nimble::store {

Status StringCache::Attach(Database& db) {
  NIMBLE_ASSIGN_OR_RETURN(find_, db.Prepare("SELECT id FROM StringIds WHERE value = ?"));
  NIMBLE_ASSIGN_OR_RETURN(insert_, db.Prepare("INSERT INTO StringIds (value) VALUES (?) RETURNING id"));
  return OkStatus();
}

void StringCache::Detach() {
  find_ = Statement();
  insert_ = Statement();
}

Status StringCache::Check(StringId id, const StringTable& strings, std::string_view what) {
  if (!id.valid() || static_cast<size_t>(id.value()) < strings.size()) return OkStatus();
  return InvalidArgument(std::string(what) + " refers to string id " + std::to_string(id.value()) +
                         ", but the string table holds " + std::to_string(strings.size()) + " strings");
}

void StringCache::AddPending(StringId id, const StringTable& strings) {
  db_ids_[static_cast<size_t>(id.value())] = kPending;
  pending_.emplace_back(id.value(), strings.Get(id));
}

Status StringCache::ResolvePending() {
  for (const auto& [caller_id, text] : pending_) {
    find_.BindText(1, text);
    NIMBLE_ASSIGN_OR_RETURN(bool found, find_.Step());
    Statement& source = found ? find_ : insert_;
    if (!found) {
      insert_.BindText(1, text);
      NIMBLE_ASSIGN_OR_RETURN(bool inserted, insert_.Step());
      if (!inserted) return Internal("inserting string \"" + text + "\" returned no id");
    }
    db_ids_[static_cast<size_t>(caller_id)] = source.ColumnInt(0);
    source.Reset();
    resolved_in_batch_.push_back(caller_id);
  }
  pending_.clear();
  return OkStatus();
}

void StringCache::Rollback() {
  for (int32_t caller_id : resolved_in_batch_) db_ids_[static_cast<size_t>(caller_id)] = kUnknown;
  for (const auto& pending : pending_) db_ids_[static_cast<size_t>(pending.first)] = kUnknown;
  resolved_in_batch_.clear();
  pending_.clear();
}

}  // namespace nimble::store

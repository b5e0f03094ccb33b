#include "nimble/core/string_table.h"

#include <cassert>

namespace nimble {

StringId StringTable::Intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return StringId(it->second);
  const auto id = static_cast<int32_t>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), id);
  return StringId(id);
}

StringId StringTable::Find(std::string_view s) const {
  if (auto it = index_.find(s); it != index_.end()) return StringId(it->second);
  return {};
}

const std::string& StringTable::Get(StringId id) const {
  static const std::string kEmpty;
  if (!id.valid()) return kEmpty;
  assert(static_cast<size_t>(id.value()) < strings_.size());
  return strings_[static_cast<size_t>(id.value())];
}

}  // namespace nimble

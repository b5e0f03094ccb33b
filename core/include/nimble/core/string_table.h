// Interned strings (kernel names, API names, NVTX texts): records hold a StringId, not a string.
// Ids are dense and stable: the i-th distinct string interned gets StringId(i).
// Not thread-safe; one owner (a Trace, a converter) at a time.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "nimble/core/ids.h"

namespace nimble {

class StringTable {
 public:
  // Returns the id of `s`, adding it if new.
  StringId Intern(std::string_view s);
  // Returns the id of `s` if present, else an invalid id.
  StringId Find(std::string_view s) const;
  // The string of a valid id from this table; "" for an invalid id.
  const std::string& Get(StringId id) const;

  size_t size() const { return strings_.size(); }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> strings_;
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> index_;
};

}  // namespace nimble

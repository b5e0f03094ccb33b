// Turns CUPTI's mangled kernel names into the two names a KernelRecord carries: the demangled
// name and the short name (nimble::ShortKernelName, core/kernel_name.h).
// KernelNameCache remembers each distinct name pointer CUPTI hands out, so the converter demangles a
// kernel once, not once per launch. Not thread-safe: owned by one converter.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "nimble/core/ids.h"
#include "nimble/core/kernel_name.h"
#include "nimble/core/string_table.h"

namespace nimble::collector {

// The demangled name, or `mangled` itself when it is not a C++ mangled name.
std::string DemangleKernelName(const char* mangled);

struct KernelNameIds {
  StringId name;
  StringId short_name;
};

class KernelNameCache {
 public:
  explicit KernelNameCache(StringTable& strings) : strings_(strings) {}

  // Ids of the names for CUPTI's `mangled` (nullptr gives an "<unknown>" kernel).
  KernelNameIds Lookup(const char* mangled);

 private:
  struct Entry {
    std::string mangled;  // checked on every hit: CUPTI may reuse a freed name's address
    KernelNameIds ids;
  };
  StringTable& strings_;
  std::unordered_map<const char*, Entry> by_pointer_;
  std::unordered_map<std::string, KernelNameIds> by_text_;
};

}  // namespace nimble::collector

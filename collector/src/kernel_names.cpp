#include "nimble/collector/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "nimble/core/kernel_name.h"

namespace nimble::collector {

std::string DemangleKernelName(const char* mangled) {
  if (mangled == nullptr) return "<unknown>";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                        &std::free);
  if (status != 0 || demangled == nullptr) return mangled;  // a C (extern "C") kernel name
  return demangled.get();
}

KernelNameIds KernelNameCache::Lookup(const char* mangled) {
  if (auto it = by_pointer_.find(mangled); it != by_pointer_.end()) {
    if (mangled == nullptr || it->second.mangled == mangled) return it->second.ids;
  }
  const std::string raw = mangled == nullptr ? std::string() : std::string(mangled);
  KernelNameIds ids;
  if (auto it = by_text_.find(raw); it != by_text_.end()) {
    ids = it->second;
  } else {
    const std::string full = DemangleKernelName(mangled);
    ids = KernelNameIds{strings_.Intern(full), strings_.Intern(ShortKernelName(full))};
    by_text_.emplace(raw, ids);
  }
  by_pointer_[mangled] = Entry{raw, ids};
  return ids;
}

}  // namespace nimble::collector

#include "nimble/collector/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace nimble::collector {
namespace {

// Position of the '(' that opens the parameter list ending at the last ')', or npos.
size_t ParameterListStart(std::string_view s) {
  const size_t close = s.rfind(')');
  if (close == std::string_view::npos) return close;
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Drops one trailing "<...>" (template arguments), matching nested brackets.
std::string_view StripTrailingTemplate(std::string_view s) {
  if (s.empty() || s.back() != '>') return s;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == '>') ++depth;
    if (s[i] == '<' && --depth == 0) return s.substr(0, i);
  }
  return s;
}

// The last name component: after the last "::" or space outside brackets.
std::string_view LastComponent(std::string_view s) {
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    const char c = s[i];
    if (c == '>' || c == ')') ++depth;
    if (c == '<' || c == '(') --depth;
    if (depth == 0 && (c == ' ' || c == ':')) return s.substr(i + 1);
  }
  return s;
}

}  // namespace

std::string DemangleKernelName(const char* mangled) {
  if (mangled == nullptr) return "<unknown>";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                        &std::free);
  if (status != 0 || demangled == nullptr) return mangled;  // a C (extern "C") kernel name
  return demangled.get();
}

std::string ShortKernelName(std::string_view demangled) {
  std::string_view s = demangled;
  if (const size_t open = ParameterListStart(s); open != std::string_view::npos && open > 0) s = s.substr(0, open);
  s = StripTrailingTemplate(s);
  const std::string_view last = LastComponent(s);
  return std::string(last.empty() ? demangled : last);
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

#include "nimble/core/kernel_name.h"

namespace nimble {
namespace {

// Drops the bracketed group that ends `s` ("(...)" or "<...>", matching nested brackets of the same
// kind); `s` unchanged when it does not end with `close` or the group is the whole name.
std::string_view DropTrailingGroup(std::string_view s, char open, char close) {
  if (s.empty() || s.back() != close) return s;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    depth += s[i] == close ? 1 : s[i] == open ? -1 : 0;
    if (depth == 0) return i > 0 ? s.substr(0, i) : s;
  }
  return s;
}

}  // namespace

std::string ShortKernelName(std::string_view demangled) {
  std::string_view s = demangled;
  // A member's trailing qualifier: "...::operator()(int) const".
  constexpr std::string_view kConst = " const";
  if (s.ends_with(kConst) && s.size() > kConst.size() && s[s.size() - kConst.size() - 1] == ')') {
    s.remove_suffix(kConst.size());
  }
  // Parameters, then template arguments: only groups that end the name, so that brackets inside
  // template arguments ("{lambda(int)#1}") are never taken for the parameter list.
  s = DropTrailingGroup(s, '(', ')');
  s = DropTrailingGroup(s, '<', '>');
  // Return type and namespaces: everything up to the last ' ' or ':' outside brackets.
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    const char c = s[i];
    depth += (c == '>' || c == ')') ? 1 : (c == '<' || c == '(') ? -1 : 0;
    if (depth == 0 && (c == ' ' || c == ':')) {
      s = s.substr(i + 1);
      break;
    }
  }
  return std::string(s.empty() ? demangled : s);
}

}  // namespace nimble

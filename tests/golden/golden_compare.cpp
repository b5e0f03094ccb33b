// Line-by-line account of where two outputs part; the byte comparison decides, the lines explain.
#include "golden_compare.h"

#include <algorithm>
#include <vector>

namespace nimble::golden {
namespace {

// Lines without their '\n'; a final line with no '\n' is kept, so "a\n" and "a" split differently
// only in `ends_with_newline`.
std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(begin));
      break;
    }
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

// Long lines (JSON arrays) are cut so that the message stays readable.
std::string Shown(std::string_view line) {
  constexpr size_t kMaxChars = 160;
  if (line.size() <= kMaxChars) return "'" + std::string(line) + "'";
  return "'" + std::string(line.substr(0, kMaxChars)) + "'... (" + std::to_string(line.size()) + " chars)";
}

}  // namespace

std::optional<std::string> DescribeMismatch(std::string_view expected, std::string_view actual, size_t max_lines) {
  if (expected.empty()) return std::string("the expected output is empty: a golden file must pin something");
  if (expected == actual) return std::nullopt;

  const auto want = SplitLines(expected);
  const auto got = SplitLines(actual);
  std::string out = "output differs from the expected file (expected " + std::to_string(want.size()) +
                    " lines, got " + std::to_string(got.size()) + ")\n";
  size_t shown = 0;
  for (size_t i = 0; i < std::max(want.size(), got.size()) && shown < max_lines; ++i) {
    const bool has_want = i < want.size(), has_got = i < got.size();
    if (has_want && has_got && want[i] == got[i]) continue;
    out += "  line " + std::to_string(i + 1) + ":\n";
    out += "    expected: " + (has_want ? Shown(want[i]) : std::string("(no line)")) + "\n";
    out += "    actual:   " + (has_got ? Shown(got[i]) : std::string("(no line)")) + "\n";
    ++shown;
  }
  if (shown == 0) {  // same lines: the bytes differ only in the final newline
    out += "  the lines are equal; only the final newline differs (expected " +
           std::string(expected.ends_with('\n') ? "one" : "none") + ")\n";
  }
  return out;
}

}  // namespace nimble::golden

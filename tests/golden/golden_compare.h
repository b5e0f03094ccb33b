// Byte-for-byte comparison of a command's output with its expected file, and a readable account of
// the difference: the first lines that differ, numbered, so a failing golden test says what changed
// without a diff tool. Pure; used by the golden tests and tested on its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nimble::golden {

// Nothing when `actual` equals `expected` byte for byte; otherwise what differs, at most `max_lines`
// differing lines. An empty `expected` never matches: a golden file that pins nothing is a defect.
std::optional<std::string> DescribeMismatch(std::string_view expected, std::string_view actual,
                                            size_t max_lines = 6);

}  // namespace nimble::golden

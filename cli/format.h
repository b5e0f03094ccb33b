// Human-readable figures for terminal tables: durations with a unit chosen by size, ratios as percent.
// Pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace nimble::cli {

// 950 ns, 12.3 µs, 4.56 ms, 1.23 s: three significant digits.
std::string FormatDuration(int64_t ns);
// 0.4567 -> "45.7%".
std::string FormatPercent(double ratio);
// 1.234 -> "1.23x".
std::string FormatFactor(double factor);

}  // namespace nimble::cli

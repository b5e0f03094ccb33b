// Human-readable figures for terminal tables and progress messages: durations with a unit chosen by
// size, ratios as percent. Pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace nimble::workflow {

// 950 ns, 12.3 µs, 4.56 ms, 1.23 s: three significant digits.
std::string FormatDuration(int64_t ns);
// 0.4567 -> "45.7%".
std::string FormatPercent(double ratio);
// 1.234 -> "1.23x".
std::string FormatFactor(double factor);
// 1.23456 -> "1.235" (milliseconds with three decimals, as the accelerate table prints them).
std::string FormatMs(double ms);
// 431 095 808 bytes -> "411.1" (MiB with one decimal; the unit is the caller's to print).
std::string FormatMiB(int64_t bytes);
// a / b as "1.23x"; "-" when either is not positive.
std::string FormatRatio(double a, double b);

}  // namespace nimble::workflow

// Exact conversion of Chrome-trace timestamps (microseconds, as JSON number text such as
// "198093488368.463" or "1.5e3") to integer nanoseconds, without going through a double: a double holds
// 15-16 significant digits, a Kineto timestamp up to 19. Digits below a nanosecond are rounded half away
// from zero. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace nimble::workflow {

// Nanoseconds of the JSON number `text` read as microseconds; nullopt when `text` is not a JSON number
// or the result does not fit in int64.
std::optional<int64_t> MicrosTextToNs(std::string_view text);

// Nanoseconds of an integer number of microseconds; nullopt on overflow.
std::optional<int64_t> MicrosToNs(int64_t micros);

}  // namespace nimble::workflow

#include "micros_text.h"

#include <limits>

namespace nimble::workflow {
namespace {

using Wide = unsigned __int128;

constexpr int kMaxDigits = 36;  // 10^36 < 2^128: the significant digits kept exactly

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Wide Pow10(int n) {
  Wide p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

}  // namespace

std::optional<int64_t> MicrosToNs(int64_t micros) {
  int64_t ns = 0;
  if (__builtin_mul_overflow(micros, int64_t{1000}, &ns)) return std::nullopt;
  return ns;
}

std::optional<int64_t> MicrosTextToNs(std::string_view text) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  Wide digits = 0;    // the significant digits read so far
  int kept = 0;       // how many of them
  int scale = 0;      // value = digits * 10^scale (before the exponent)
  bool any_digit = false;
  auto take = [&](char c, bool fraction) {
    any_digit = true;
    if (kept == 0 && c == '0') {
      if (fraction) --scale;  // leading zeros only move the point
      return;
    }
    if (kept < kMaxDigits) {
      digits = digits * 10 + static_cast<unsigned>(c - '0');
      ++kept;
      if (fraction) --scale;
      return;
    }
    // Beyond the kept digits: an integer digit still scales the value; fraction digits are dropped. That
    // truncation cannot change the result: the final rounding compares the kept remainder with half of an
    // even power of ten, and what was dropped is less than one unit of the last kept digit.
    if (!fraction) ++scale;
  };
  const size_t int_start = i;
  while (i < text.size() && IsDigit(text[i])) take(text[i++], false);
  if (i == int_start) return std::nullopt;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const size_t frac_start = i;
    while (i < text.size() && IsDigit(text[i])) take(text[i++], true);
    if (i == frac_start) return std::nullopt;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool exp_negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    const size_t exp_start = i;
    int exponent = 0;
    while (i < text.size() && IsDigit(text[i])) {
      if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
      ++i;
    }
    if (i == exp_start) return std::nullopt;
    scale += exp_negative ? -exponent : exponent;
  }
  if (i != text.size() || !any_digit) return std::nullopt;
  scale += 3;              // microseconds -> nanoseconds
  const Wide limit = negative ? Wide{static_cast<uint64_t>(std::numeric_limits<int64_t>::max())} + 1
                              : Wide{static_cast<uint64_t>(std::numeric_limits<int64_t>::max())};
  Wide ns = 0;
  if (digits == 0) {
    ns = 0;
  } else if (scale >= 0) {
    if (scale > 38) return std::nullopt;
    const Wide p = Pow10(scale);
    if (digits > limit / p) return std::nullopt;
    ns = digits * p;
  } else if (scale < -38) {
    ns = 0;
  } else {
    const Wide p = Pow10(-scale);
    ns = digits / p;
    if ((digits % p) * 2 >= p) ++ns;  // half away from zero
  }
  if (ns > limit) return std::nullopt;
  if (negative) return ns == limit ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(ns);
  return static_cast<int64_t>(ns);
}

}  // namespace nimble::workflow

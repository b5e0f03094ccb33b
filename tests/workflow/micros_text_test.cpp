// Microsecond number text -> nanoseconds, exactly: against integer arithmetic on random values written the
// ways JSON writers do (Kineto's "%d.%03d", more or fewer digits, exponents), and on what is not a number.
#include "micros_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace nimble::workflow {
namespace {

using Wide = __int128;

Wide Pow10(int n) {
  Wide p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

// The nanoseconds of digits * 10^exp10 microseconds, rounded half away from zero: the reference.
Wide Reference(Wide digits, int exp10) {
  const int shift = exp10 + 3;
  if (shift >= 0) return digits * Pow10(shift);
  const Wide p = Pow10(-shift);
  const Wide magnitude = digits < 0 ? -digits : digits;
  Wide q = magnitude / p;
  if ((magnitude % p) * 2 >= p) ++q;
  return digits < 0 ? -q : q;
}

TEST(MicrosTextTest, KinetoTimestampsAreExactWhereADoubleIsNot) {
  // 19 significant digits: a double would round these to a multiple of 256 ns.
  EXPECT_EQ(MicrosTextToNs("1740461679000020.125"), int64_t{1740461679000020125});
  EXPECT_EQ(MicrosTextToNs("198093488368.463"), int64_t{198093488368463});
  EXPECT_EQ(MicrosTextToNs("1234.567"), int64_t{1234567});
  EXPECT_EQ(MicrosTextToNs("0.001"), int64_t{1});
  EXPECT_EQ(MicrosTextToNs("-2.5"), int64_t{-2500});
  EXPECT_EQ(MicrosTextToNs("1.5e3"), int64_t{1500000});
  EXPECT_EQ(MicrosTextToNs("1E-3"), int64_t{1});
  EXPECT_EQ(MicrosTextToNs("0"), int64_t{0});
  EXPECT_EQ(MicrosToNs(7), int64_t{7000});
}

TEST(MicrosTextTest, BelowANanosecondRoundsHalfAwayFromZero) {
  EXPECT_EQ(MicrosTextToNs("0.0005"), int64_t{1});
  EXPECT_EQ(MicrosTextToNs("0.00049999"), int64_t{0});
  EXPECT_EQ(MicrosTextToNs("-0.0005"), int64_t{-1});
  EXPECT_EQ(MicrosTextToNs("1.0004999999999999999999999999999999999999999"), int64_t{1000});
}

TEST(MicrosTextTest, RandomValuesMatchIntegerArithmetic) {
  std::mt19937_64 rng(20261124);
  for (int i = 0; i < 20000; ++i) {
    const int int_digits = 1 + static_cast<int>(rng() % 16);
    const int frac_digits = static_cast<int>(rng() % 7);
    const int exponent = rng() % 3 == 0 ? static_cast<int>(rng() % 9) - 4 : 0;
    const bool negative = rng() % 5 == 0;
    std::string text = negative ? "-" : "";
    Wide digits = 0;
    for (int d = 0; d < int_digits + frac_digits; ++d) {
      const int v = (d == 0 && int_digits > 1) ? 1 + static_cast<int>(rng() % 9) : static_cast<int>(rng() % 10);
      if (d == int_digits) text += '.';
      text += static_cast<char>('0' + v);
      digits = digits * 10 + v;
    }
    if (exponent != 0) text += "e" + std::to_string(exponent);
    if (negative) digits = -digits;
    const Wide expected = Reference(digits, exponent - frac_digits);
    const bool fits = expected >= std::numeric_limits<int64_t>::min() && expected <= std::numeric_limits<int64_t>::max();
    const std::optional<int64_t> got = MicrosTextToNs(text);
    if (fits) {
      ASSERT_TRUE(got.has_value()) << text;
      EXPECT_EQ(*got, static_cast<int64_t>(expected)) << text;
    } else {
      EXPECT_FALSE(got.has_value()) << text;
    }
  }
}

TEST(MicrosTextTest, KinetoFormatRoundTripsEveryNanosecond) {
  // Kineto writes ns / 1000 "." ns % 1000 (three digits): every such text reads back as the same ns.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const int64_t ns = static_cast<int64_t>(rng() >> 1) / (1 + static_cast<int64_t>(rng() % 1000000));
    std::string frac = std::to_string(ns % 1000);
    frac.insert(0, 3 - frac.size(), '0');
    EXPECT_EQ(MicrosTextToNs(std::to_string(ns / 1000) + "." + frac), ns);
  }
}

TEST(MicrosTextTest, NotANumberOrOutOfRangeIsRefused) {
  for (const char* bad : {"", "-", ".5", "5.", "1e", "1e+", "abc", "1.2.3", "0x10", "1 ", " 1", "--1", "1e5x",
                          "9223372036854775.808", "1e17", "-9223372036854775.809"}) {
    EXPECT_FALSE(MicrosTextToNs(bad).has_value()) << bad;
  }
  EXPECT_EQ(MicrosTextToNs("9223372036854775.807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(MicrosTextToNs("-9223372036854775.808"), std::numeric_limits<int64_t>::min());
  EXPECT_FALSE(MicrosToNs(std::numeric_limits<int64_t>::max() / 999).has_value());
}

}  // namespace
}  // namespace nimble::workflow

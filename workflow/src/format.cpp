#include "nimble/workflow/format.h"

#include <cmath>
#include <cstdio>

namespace nimble::workflow {
namespace {

std::string ThreeDigits(double v, const char* unit) {
  char buf[32];
  const char* fmt = v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s";
  std::snprintf(buf, sizeof buf, fmt, v, unit);
  return buf;
}

}  // namespace

std::string FormatDuration(int64_t ns) {
  const double a = std::fabs(static_cast<double>(ns));
  const double sign = ns < 0 ? -1.0 : 1.0;
  if (a < 1e3) return std::to_string(ns) + " ns";
  if (a < 1e6) return ThreeDigits(sign * a / 1e3, "us");
  if (a < 1e9) return ThreeDigits(sign * a / 1e6, "ms");
  return ThreeDigits(sign * a / 1e9, "s");
}

std::string FormatPercent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", ratio * 100.0);
  return buf;
}

std::string FormatFactor(double factor) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", factor);
  return buf;
}

std::string FormatMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ms);
  return buf;
}

std::string FormatMiB(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

std::string FormatRatio(double a, double b) {
  if (a <= 0 || b <= 0) return "-";
  return FormatFactor(a / b);
}

}  // namespace nimble::workflow

// The names Nimble reads in a Kineto event, its args and a deviceProperties entry, and the rules both of
// the trace's parsers (kineto_sax.cpp, kineto_chunk.cpp) share for them, so that the two read a field
// the same way.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kineto_event.h"

namespace nimble::workflow::kineto_fields {

template <size_t N>
int Find(const std::array<std::string_view, N>& names, std::string_view key) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == key) return static_cast<int>(i);
  }
  return -1;
}

// Indices into these are spelled out where they are read (kineto_sax.cpp, kineto_chunk.cpp).
inline constexpr std::array<std::string_view, 10> kEventKeys = {"ph", "cat", "name", "pid", "tid",
                                                                "ts", "dur", "id",   "bp",  "args"};
inline constexpr std::array<std::string_view, 16> kArgKeys = {
    "device",      "context", "stream",   "correlation", "registers per thread", "shared memory",
    "grid",        "block",   "graph node id", "graph id",   "External id",          "cbid",
    "bytes",       "wait_on_cuda_event_id", "inDevice", "cuda_sync_kind"};
inline constexpr int kArgGrid = 6, kArgBlock = 7, kArgSyncKind = 15;
inline constexpr std::array<std::string_view, 10> kDeviceKeys = {
    "id",      "name",        "totalGlobalMem",        "computeMajor",
    "computeMinor", "maxThreadsPerBlock", "maxThreadsPerMultiprocessor", "regsPerMultiprocessor",
    "sharedMemPerMultiprocessor", "numSms"};
inline constexpr int kDeviceName = 1;

// The integer field of args' key kArgKeys[at]; null for grid, block and cuda_sync_kind.
inline IntField* ArgInt(KinetoEvent& e, int at) {
  IntField* ints[] = {&e.device,        &e.context, &e.stream,  &e.correlation, &e.registers_per_thread,
                      &e.shared_memory, nullptr,    nullptr,    &e.graph_node_id, &e.graph_id,
                      &e.external_id,   &e.cbid,    &e.bytes,   &e.wait_event_id, &e.in_device, nullptr};
  return ints[at];
}

// The integer field of a device's key kDeviceKeys[at]; null for its name.
inline IntField* DeviceInt(KinetoDevice& d, int at) {
  IntField* ints[] = {&d.id, nullptr, &d.total_global_mem, &d.compute_major, &d.compute_minor,
                      &d.max_threads_per_block, &d.max_threads_per_sm, &d.regs_per_sm, &d.shared_per_sm,
                      &d.num_sms};
  return ints[at];
}

// Integer text such as "1234" (Chrome traces allow pid and tid as strings), within int64's range.
inline bool ParseIntegerText(std::string_view s, int64_t& out) {
  const bool negative = !s.empty() && s[0] == '-';
  const size_t first = negative ? 1 : 0;
  if (s.size() == first || s.size() - first > 19) return false;
  uint64_t v = 0;  // 19 digits fit; the sign's range is checked below
  for (size_t i = first; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  const uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
  if (v > limit) return false;
  out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// A count or id written as 7.0 is still the integer 7; 7.5 is not an integer.
inline bool Integral(double v) { return std::trunc(v) == v && std::fabs(v) < 9.0e18; }

}  // namespace nimble::workflow::kineto_fields

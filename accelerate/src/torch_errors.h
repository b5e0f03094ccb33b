// Turning a libtorch exception into the one-line message that goes into a nimble::Status.
// c10::Error's what() carries a C++ backtrace; users need the first line of the reason only.
// Pure function; thread-safe.
#pragma once

#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace nimble::accelerate {

inline std::string FirstLine(std::string text) {
  const size_t end = text.find('\n');
  if (end != std::string::npos) text.resize(end);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text;
}

// The reason a libtorch call failed, without backtrace and context lines.
inline std::string TorchMessage(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    return FirstLine(c10_error->what_without_backtrace());
  }
  return FirstLine(e.what());
}

}  // namespace nimble::accelerate

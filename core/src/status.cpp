#include "nimble/core/status.h"

namespace nimble {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kAlreadyExists: return "already exists";
    case StatusCode::kFailedPrecondition: return "failed precondition";
    case StatusCode::kDataLoss: return "data loss";
    case StatusCode::kPermissionDenied: return "permission denied";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kUnimplemented: return "unimplemented";
    case StatusCode::kOutOfRange: return "out of range";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return *this;
  std::string msg(prefix);
  msg += ": ";
  msg += message_;
  return {code_, std::move(msg)};
}

}  // namespace nimble

// Status and StatusOr<T>: how every Nimble library function reports failure.
// A Status is either OK or carries a code and a message that names the file, op or line at fault.
// Value types; safe to copy and move between threads.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace nimble {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // bad input from the user: a file, a flag, a shape
  kNotFound,           // a file, run, op or table that does not exist
  kAlreadyExists,
  kFailedPrecondition, // the world is not in the state the call needs (no GPU, wrong schema)
  kDataLoss,           // corrupt or truncated data
  kPermissionDenied,
  kUnavailable,        // a dependency (CUPTI, a device) cannot be used right now
  kUnimplemented,
  kOutOfRange,
  kInternal,           // a bug or an unexpected failure of a library we call
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "code: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "prefix: message" (adds context on the way up).
  Status WithContext(std::string_view prefix) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return {}; }
inline Status InvalidArgument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
inline Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
inline Status AlreadyExists(std::string msg) { return {StatusCode::kAlreadyExists, std::move(msg)}; }
inline Status FailedPrecondition(std::string msg) { return {StatusCode::kFailedPrecondition, std::move(msg)}; }
inline Status DataLoss(std::string msg) { return {StatusCode::kDataLoss, std::move(msg)}; }
inline Status PermissionDenied(std::string msg) { return {StatusCode::kPermissionDenied, std::move(msg)}; }
inline Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
inline Status Unimplemented(std::string msg) { return {StatusCode::kUnimplemented, std::move(msg)}; }
inline Status OutOfRange(std::string msg) { return {StatusCode::kOutOfRange, std::move(msg)}; }
inline Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

// Holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(data_).ok() && "StatusOr needs a value or an error");
  }
  StatusOr(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(data_); }
  Status status() const { return ok() ? Status() : std::get<Status>(data_); }

  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> data_;
};

}  // namespace nimble

#define NIMBLE_CONCAT_INNER_(a, b) a##b
#define NIMBLE_CONCAT_(a, b) NIMBLE_CONCAT_INNER_(a, b)

// Returns the Status from the enclosing function when `expr` is not OK.
#define NIMBLE_RETURN_IF_ERROR(expr)             \
  do {                                           \
    ::nimble::Status nimble_status_ = (expr);    \
    if (!nimble_status_.ok()) return nimble_status_; \
  } while (0)

// `lhs = value of expr`, or returns its Status from the enclosing function.
#define NIMBLE_ASSIGN_OR_RETURN(lhs, expr) \
  NIMBLE_ASSIGN_OR_RETURN_IMPL_(NIMBLE_CONCAT_(nimble_statusor_, __LINE__), lhs, expr)
#define NIMBLE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

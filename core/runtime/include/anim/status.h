#pragma once
// Error reporting for core: a Status (code + human message) and Expected<T> (a value or a
// Status). Core never throws across its public API and never logs; callers decide what to
// do with a failure. Messages name the thing that is wrong (file, joint, clip, value).

#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace anim {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // a value is malformed: NaN, out of range, negative duration, ...
  kNotFound,            // an unknown clip / joint / layer / goal / file
  kFailedPrecondition,  // the request does not fit the current state
  kDataLoss,            // a file is truncated or internally inconsistent
  kUnimplemented,       // a valid feature this runtime does not support
  kResourceExhausted,   // a configured limit was hit
  kPermissionDenied,    // the caller may not act on this object (e.g. another client's character)
  kUnavailable,         // the service cannot take requests now (it is stopping); retry elsewhere
};

// Short stable name for a code ("invalid_argument", ...), for logs and metrics.
const char* status_code_name(StatusCode code);

class Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::make_shared<const std::string>(std::move(message))) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  // Empty for an OK Status.
  const std::string& message() const { return message_ ? *message_ : empty_message(); }

 private:
  static const std::string& empty_message();

  StatusCode code_ = StatusCode::kOk;
  // Immutable and shared, so that copying a Status never allocates: a hot path (e.g.
  // Animator::update refusing a bad dt) can return a copy of a Status built in advance.
  std::shared_ptr<const std::string> message_;
};

inline Status invalid_argument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status not_found(std::string m) {
  return {StatusCode::kNotFound, std::move(m)};
}
inline Status data_loss(std::string m) {
  return {StatusCode::kDataLoss, std::move(m)};
}
inline Status failed_precondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}

// A value of type T, or the Status saying why there is none. Never holds an OK Status.
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}       // NOLINT: implicit by design
  Expected(Status error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Status& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace anim

#include "anim/status.h"

namespace anim {

namespace {
const std::string kEmptyMessage;  // constant-initialized: no allocation, no guard
}  // namespace

const std::string& Status::empty_message() {
  return kEmptyMessage;
}

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kFailedPrecondition:
      return "failed_precondition";
    case StatusCode::kDataLoss:
      return "data_loss";
    case StatusCode::kUnimplemented:
      return "unimplemented";
    case StatusCode::kResourceExhausted:
      return "resource_exhausted";
    case StatusCode::kPermissionDenied:
      return "permission_denied";
    case StatusCode::kUnavailable:
      return "unavailable";
  }
  return "unknown";
}

}  // namespace anim

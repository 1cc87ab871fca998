// Error text: one place decides how failures read, so every tool prints them the same way.
#include "animclient/client.h"

namespace animclient {

const char* kind_name(Error::Kind kind) {
  switch (kind) {
    case Error::Kind::kConnect:
      return "connect";
    case Error::Kind::kTimeout:
      return "timeout";
    case Error::Kind::kDisconnected:
      return "disconnected";
    case Error::Kind::kProtocol:
      return "protocol";
    case Error::Kind::kServer:
      return "server";
  }
  return "unknown";
}

std::string status_code_name(anim::v1::StatusCode code) {
  const std::string& full = anim::v1::StatusCode_Name(code);
  if (full.empty()) return "CODE_" + std::to_string(static_cast<int>(code));
  constexpr std::string_view prefix = "STATUS_";
  if (full.rfind(prefix, 0) == 0) return full.substr(prefix.size());
  return full;
}

std::string command_name(const anim::v1::Request& request) {
  if (request.command_case() == anim::v1::Request::COMMAND_NOT_SET) return "empty";
  const auto* field = anim::v1::Request::descriptor()->FindFieldByNumber(request.command_case());
  return field ? field->name() : "command " + std::to_string(request.command_case());
}

std::string Error::to_string() const {
  switch (kind) {
    case Kind::kConnect:
      // The message already reads "connect host:port: reason".
      return message;
    case Kind::kServer:
      return status_code_name(code) + ": " + message;
    default:
      return std::string(kind_name(kind)) + ": " + message;
  }
}

}  // namespace animclient

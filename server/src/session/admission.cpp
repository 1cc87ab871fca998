#include "session/admission.h"

namespace animd {

Admission::Admission(const Config& config, const Authenticator& auth)
    : config_(config), auth_(auth), rate_(config.max_requests_per_second) {}

Admission::Verdict Admission::check(const anim::v1::Request& r,
                                    std::chrono::steady_clock::time_point now) {
  Verdict v;
  auto refuse = [&](anim::v1::StatusCode code, std::string message) {
    v.code = code;
    v.message = std::move(message);
    return v;
  };
  if (!rate_.take(now))
    return refuse(anim::v1::STATUS_RESOURCE_EXHAUSTED,
                  "--max-requests-per-second (" + std::to_string(config_.max_requests_per_second) +
                      ") exceeded on this connection");
  v.command = find_command(r.command_case());
  if (!v.command)
    return refuse(anim::v1::STATUS_INVALID_ARGUMENT,
                  "request has no command (or one this daemon does not know)");
  v.who = auth_.check(r.auth_token());
  if (v.who.role == Role::kNone) {
    const bool empty = r.auth_token().empty();
    if (!empty && ++failed_auth_ >= config_.max_failed_auth)
      v.close_reason = "too many requests with a wrong token (--max-failed-auth " +
                       std::to_string(config_.max_failed_auth) + ")";
    return refuse(anim::v1::STATUS_UNAUTHENTICATED,
                  empty ? "this daemon requires a token in every request (request.auth_token)"
                        : "request.auth_token is not a valid token");
  }
  if (v.who.role < v.command->role)
    return refuse(anim::v1::STATUS_PERMISSION_DENIED,
                  "this command needs the " + std::string(role_name(v.command->role)) +
                      " role; the token given has the " + role_name(v.who.role) + " role");
  v.admitted = true;
  v.first = !trusted_;
  trusted_ = true;
  return v;
}

}  // namespace animd

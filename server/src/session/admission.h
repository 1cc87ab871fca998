#pragma once
// Admission: whether a request of one connection may go further. In order: its rate
// (--max-requests-per-second, a token bucket), a command this daemon knows (command_table.h),
// a valid token when the daemon has tokens (--max-failed-auth wrong ones close the
// connection), and the role its command needs. One per connection, on its strand; it knows
// nothing of sockets: the session answers the verdict.

#include <chrono>
#include <cstdint>
#include <string>

#include "anim/v1/envelope.pb.h"
#include "base/config.h"
#include "base/rate_limiter.h"
#include "session/auth.h"
#include "session/command_table.h"

namespace animd {

class Admission {
 public:
  // Both outlive the admission.
  Admission(const Config& config, const Authenticator& auth);

  struct Verdict {
    bool admitted = false;
    // Admitted: the command's entry, and who sent it.
    const CommandSpec* command = nullptr;
    Authenticator::Identity who;
    // Admitted: this is the connection's first admitted request; it is trusted from now on.
    bool first = false;
    // Refused: the reply's status and message, naming the limit or the problem.
    anim::v1::StatusCode code = anim::v1::STATUS_OK;
    std::string message;
    // Refused: the connection is to close once the reply is sent, for this reason; empty:
    // it stays open.
    std::string close_reason;
  };
  Verdict check(const anim::v1::Request& request, std::chrono::steady_clock::time_point now);

  // Whether a request was admitted on this connection yet.
  bool trusted() const { return trusted_; }

 private:
  const Config& config_;
  const Authenticator& auth_;
  RateLimiter rate_;
  uint32_t failed_auth_ = 0;
  bool trusted_ = false;
};

}  // namespace animd

// Admission (session/admission.h): the checks every request passes before its handler, in
// their order (rate, known command, token, role), with the messages clients see, the close
// after --max-failed-auth wrong tokens, and the first admitted request trusting the
// connection.
#include "session/admission.h"

#include <chrono>

#include <gtest/gtest.h>

namespace animd {
namespace admission_test {

using anim::v1::Request;
using Clock = std::chrono::steady_clock;

const std::string kControl = "control-token-0123456789";
const std::string kObserve = "observe-token-0123456789";

Request spawn(const std::string& token = "") {
  Request r;
  r.mutable_spawn()->set_asset("builtin");
  r.set_auth_token(token);
  return r;
}

Request list_assets(const std::string& token) {
  Request r;
  r.mutable_list_assets();
  r.set_auth_token(token);
  return r;
}

class AdmissionTest : public ::testing::Test {
 protected:
  AdmissionTest() {
    config_.max_requests_per_second = 100;
    config_.max_failed_auth = 3;
  }
  void use_tokens() {
    AuthConfig c;
    c.control_tokens = {kControl};
    c.observe_tokens = {kObserve};
    ASSERT_TRUE(auth_.configure(c));
  }
  Config config_;
  Authenticator auth_;
  Clock::time_point now_ = Clock::now();
};

TEST_F(AdmissionTest, WithoutTokensEveryKnownCommandIsAdmittedAndTheFirstTrusts) {
  Admission admission(config_, auth_);
  EXPECT_FALSE(admission.trusted());
  const auto first = admission.check(spawn(), now_);
  ASSERT_TRUE(first.admitted);
  EXPECT_TRUE(first.first);
  EXPECT_EQ(first.command->field, "spawn");
  EXPECT_EQ(first.who.role, Role::kControl);
  EXPECT_TRUE(admission.trusted());
  const auto second = admission.check(spawn(), now_);
  ASSERT_TRUE(second.admitted);
  EXPECT_FALSE(second.first);
}

TEST_F(AdmissionTest, ARequestWithoutACommandIsRefusedAndTrustsNothing) {
  Admission admission(config_, auth_);
  const auto v = admission.check(Request(), now_);
  EXPECT_FALSE(v.admitted);
  EXPECT_EQ(v.code, anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(v.message, "request has no command (or one this daemon does not know)");
  EXPECT_TRUE(v.close_reason.empty());
  EXPECT_FALSE(admission.trusted());
}

TEST_F(AdmissionTest, TheRateIsCheckedFirstAndRefillsWithTime) {
  config_.max_requests_per_second = 2;
  Admission admission(config_, auth_);
  now_ = Clock::now();  // the bucket fills from its construction
  EXPECT_TRUE(admission.check(spawn(), now_).admitted);
  EXPECT_TRUE(admission.check(spawn(), now_).admitted);
  // Over the rate: refused before anything else is looked at (even a request without a
  // command).
  const auto over = admission.check(Request(), now_);
  EXPECT_FALSE(over.admitted);
  EXPECT_EQ(over.code, anim::v1::STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(over.message, "--max-requests-per-second (2.000000) exceeded on this connection");
  // Half a second later one token is back.
  EXPECT_TRUE(admission.check(spawn(), now_ + std::chrono::milliseconds(500)).admitted);
  EXPECT_FALSE(admission.check(spawn(), now_ + std::chrono::milliseconds(500)).admitted);
}

TEST_F(AdmissionTest, TokensAreRequiredAndWrongOnesCloseTheConnectionAtTheLimit) {
  use_tokens();
  Admission admission(config_, auth_);
  const auto missing = admission.check(spawn(), now_);
  EXPECT_FALSE(missing.admitted);
  EXPECT_EQ(missing.code, anim::v1::STATUS_UNAUTHENTICATED);
  EXPECT_EQ(missing.message, "this daemon requires a token in every request (request.auth_token)");
  EXPECT_TRUE(missing.close_reason.empty()) << "a missing token does not count as a wrong one";
  for (int i = 1; i <= 3; ++i) {
    const auto wrong = admission.check(spawn("not-a-token-0123456789"), now_);
    EXPECT_FALSE(wrong.admitted);
    EXPECT_EQ(wrong.code, anim::v1::STATUS_UNAUTHENTICATED);
    EXPECT_EQ(wrong.message, "request.auth_token is not a valid token");
    if (i < 3) {
      EXPECT_TRUE(wrong.close_reason.empty()) << i;
    } else {
      EXPECT_EQ(wrong.close_reason, "too many requests with a wrong token (--max-failed-auth 3)");
    }
  }
  EXPECT_FALSE(admission.trusted());
  const auto good = admission.check(spawn(kControl), now_);
  ASSERT_TRUE(good.admitted);
  EXPECT_TRUE(good.first);
  EXPECT_NE(good.who.owner_key, 0u);
}

TEST_F(AdmissionTest, AnObserveTokenMayReadButNotControl) {
  use_tokens();
  Admission admission(config_, auth_);
  const auto denied = admission.check(spawn(kObserve), now_);
  EXPECT_FALSE(denied.admitted);
  EXPECT_EQ(denied.code, anim::v1::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(denied.message,
            "this command needs the control role; the token given has the observe role");
  EXPECT_FALSE(admission.trusted());
  const auto read = admission.check(list_assets(kObserve), now_);
  ASSERT_TRUE(read.admitted);
  EXPECT_EQ(read.who.role, Role::kObserve);
  EXPECT_TRUE(admission.trusted());
}

}  // namespace admission_test
}  // namespace animd

// RateLimiter (token bucket) and ByteBudget: the per-connection request rate and the
// daemon-wide byte allowance. Times are passed in, so nothing sleeps.
#include "base/rate_limiter.h"

#include <chrono>

#include <gtest/gtest.h>

#include "base/byte_budget.h"

namespace animd {
namespace rate_limiter_test {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

TEST(RateLimiter, BurstOfOneSecondThenTheRate) {
  RateLimiter r(10.0);
  const auto t0 = Clock::now();  // not before the limiter's own start
  int taken = 0;
  for (int i = 0; i < 50; ++i) taken += r.take(t0);
  EXPECT_EQ(taken, 10);                         // one second's worth at once
  EXPECT_FALSE(r.take(t0 + milliseconds(50)));  // half a token
  EXPECT_TRUE(r.take(t0 + milliseconds(110)));  // one token refilled
  EXPECT_FALSE(r.take(t0 + milliseconds(110)));
  // A long pause refills to the burst, not beyond.
  const auto later = t0 + std::chrono::seconds(100);
  taken = 0;
  for (int i = 0; i < 50; ++i) taken += r.take(later);
  EXPECT_EQ(taken, 10);
  EXPECT_DOUBLE_EQ(r.rate(), 10.0);
}

TEST(ByteBudget, DrawsNeverExceedTheLimit) {
  ByteBudget b(100);
  EXPECT_EQ(b.limit(), 100u);
  EXPECT_TRUE(b.try_acquire(60));
  EXPECT_FALSE(b.try_acquire(41));  // nothing drawn on failure
  EXPECT_EQ(b.used(), 60u);
  EXPECT_TRUE(b.try_acquire(40));
  EXPECT_EQ(b.used(), 100u);
  EXPECT_FALSE(b.try_acquire(1));
  b.release(30);
  EXPECT_EQ(b.used(), 70u);
  EXPECT_FALSE(b.try_acquire(SIZE_MAX));  // no overflow
  EXPECT_TRUE(b.try_acquire(0));
  b.release(70);
  EXPECT_EQ(b.used(), 0u);
  EXPECT_FALSE(b.try_acquire(101));
}

}  // namespace rate_limiter_test
}  // namespace animd

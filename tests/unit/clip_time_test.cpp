// Clip time: wrapping a playhead into a clip (loop and clamp), normalized time, clocks that
// keep their rounding (advance_clip_time) and the tick clock's dts (TickClock).
#include "anim/clip_time.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "anim/tick_clock.h"

namespace anim {
namespace clip_time_test {

TEST(ClipTime, LoopWrapsIntoZeroToDuration) {
  EXPECT_FLOAT_EQ(wrap_clip_time(0.5f, 2.0f, WrapMode::kLoop), 0.5f);
  EXPECT_FLOAT_EQ(wrap_clip_time(2.5f, 2.0f, WrapMode::kLoop), 0.5f);
  EXPECT_FLOAT_EQ(wrap_clip_time(7.25f, 2.0f, WrapMode::kLoop), 1.25f);
  EXPECT_EQ(wrap_clip_time(0.0f, 2.0f, WrapMode::kLoop), 0.0f);
}

TEST(ClipTime, LoopAtExactlyTheEndIsTheStart) {
  EXPECT_EQ(wrap_clip_time(2.0f, 2.0f, WrapMode::kLoop), 0.0f);
  EXPECT_EQ(wrap_clip_time(0.7f, 0.7f, WrapMode::kLoop), 0.0f);
}

TEST(ClipTime, LoopAtMultiplesOfTheDurationIsTheStart) {
  for (int k = -5; k <= 5; ++k)
    EXPECT_EQ(wrap_clip_time(2.0f * static_cast<float>(k), 2.0f, WrapMode::kLoop), 0.0f) << k;
}

TEST(ClipTime, LoopNegativeTimesWrapFromTheEnd) {
  EXPECT_FLOAT_EQ(wrap_clip_time(-0.5f, 2.0f, WrapMode::kLoop), 1.5f);
  EXPECT_FLOAT_EQ(wrap_clip_time(-2.5f, 2.0f, WrapMode::kLoop), 1.5f);
  // A tiny negative time must not round up to exactly the duration.
  const float t = wrap_clip_time(-1e-9f, 2.0f, WrapMode::kLoop);
  EXPECT_GE(t, 0.0f);
  EXPECT_LT(t, 2.0f);
}

TEST(ClipTime, LoopHugeTimesStayInRange) {
  for (float t : {1e6f, 3.3e7f, 1e20f, -1e20f, std::numeric_limits<float>::max()}) {
    const float w = wrap_clip_time(t, 0.7f, WrapMode::kLoop);
    EXPECT_GE(w, 0.0f) << t;
    EXPECT_LT(w, 0.7f) << t;
  }
  // 1e6 = 500000 * 2 exactly.
  EXPECT_EQ(wrap_clip_time(1e6f, 2.0f, WrapMode::kLoop), 0.0f);
}

TEST(ClipTime, ClampHoldsTheEnds) {
  EXPECT_FLOAT_EQ(wrap_clip_time(0.5f, 2.0f, WrapMode::kClamp), 0.5f);
  EXPECT_EQ(wrap_clip_time(2.0f, 2.0f, WrapMode::kClamp), 2.0f);
  EXPECT_EQ(wrap_clip_time(5.0f, 2.0f, WrapMode::kClamp), 2.0f);
  EXPECT_EQ(wrap_clip_time(-1.0f, 2.0f, WrapMode::kClamp), 0.0f);
  EXPECT_EQ(wrap_clip_time(1e30f, 2.0f, WrapMode::kClamp), 2.0f);
}

TEST(ClipTime, ZeroDurationAlwaysGivesZero) {
  for (WrapMode m : {WrapMode::kLoop, WrapMode::kClamp})
    for (float t : {0.0f, 1.0f, -3.0f, 1e30f}) EXPECT_EQ(wrap_clip_time(t, 0.0f, m), 0.0f);
}

TEST(ClipTime, NonFiniteInputsGiveZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (WrapMode m : {WrapMode::kLoop, WrapMode::kClamp}) {
    EXPECT_EQ(wrap_clip_time(nan, 2.0f, m), 0.0f);
    EXPECT_EQ(wrap_clip_time(inf, 2.0f, m), 0.0f);
    EXPECT_EQ(wrap_clip_time(1.0f, nan, m), 0.0f);
    EXPECT_EQ(wrap_clip_time(1.0f, -2.0f, m), 0.0f);
  }
}

TEST(ClipTime, NormalizedTime) {
  EXPECT_FLOAT_EQ(normalized_time(0.5f, 2.0f), 0.25f);
  EXPECT_EQ(normalized_time(0.0f, 2.0f), 0.0f);
  EXPECT_EQ(normalized_time(2.0f, 2.0f), 1.0f);
  EXPECT_EQ(normalized_time(3.0f, 2.0f), 1.0f);
  EXPECT_EQ(normalized_time(-1.0f, 2.0f), 0.0f);
  EXPECT_EQ(normalized_time(1.0f, 0.0f), 0.0f);
  EXPECT_EQ(normalized_time(std::numeric_limits<float>::quiet_NaN(), 2.0f), 0.0f);
  EXPECT_EQ(normalized_time(1.0f, std::numeric_limits<float>::quiet_NaN()), 0.0f);
}

TEST(ClipTime, AClockThatKeepsItsRoundingDoesNotDrift) {
  // 3,600 steps of float(1/60) around a 1.25 s loop: summed in float the clock drifts by a
  // rounding a step; with its carry it stays on the exact sum of the steps (double).
  const float step = static_cast<float>(1.0 / 60.0);
  float naive = 0.0f, kept = 0.0f, carry = 0.0f;
  double exact = 0.0;
  for (int i = 0; i < 3600; ++i) {
    naive = wrap_clip_time(naive + step, 1.25f, WrapMode::kLoop);
    kept = advance_clip_time(kept, carry, step, 1.25f, WrapMode::kLoop);
    exact += step;
  }
  const double want = std::fmod(exact, 1.25);
  EXPECT_NEAR(kept + double(carry), want, 1e-12);
  EXPECT_NEAR(kept, want, 6e-8);            // within a float's rounding of the exact time
  EXPECT_GT(std::abs(naive - want), 1e-6);  // the float sum is far off (the test can fail)
}

TEST(ClipTime, AClockThatKeepsItsRoundingClampsAndWrapsAsWrapClipTime) {
  float carry = 0.25f;
  EXPECT_EQ(advance_clip_time(1.9f, carry, 0.5f, 2.0f, WrapMode::kClamp), 2.0f);
  EXPECT_EQ(carry, 0.0f);
  EXPECT_EQ(advance_clip_time(0.1f, carry, -0.5f, 2.0f, WrapMode::kClamp), 0.0f);
  EXPECT_NEAR(advance_clip_time(1.5f, carry, 1.0f, 2.0f, WrapMode::kLoop), 0.5f, 1e-7f);
  EXPECT_NEAR(advance_clip_time(0.25f, carry, -0.5f, 2.0f, WrapMode::kLoop), 1.75f, 1e-7f);
  carry = 0.0f;
  EXPECT_EQ(advance_clip_time(1.0f, carry, 1.0f, 0.0f, WrapMode::kLoop), 0.0f);
  EXPECT_EQ(
      advance_clip_time(1.0f, carry, std::numeric_limits<float>::infinity(), 2.0f, WrapMode::kLoop),
      0.0f);
  EXPECT_EQ(carry, 0.0f);
}

TEST(TickClock, ItsDtsSumToTheExactTime) {
  TickClock clock(60.0);
  const float lo = std::nextafter(static_cast<float>(1.0 / 60.0), 0.0f);
  const float hi = std::nextafter(lo, 1.0f);
  for (uint64_t k = 1; k <= 216000; ++k) {  // an hour at 60 Hz
    const float dt = clock.next();
    ASSERT_TRUE(dt == lo || dt == hi || dt == std::nextafter(hi, 1.0f)) << "tick " << k;
  }
  EXPECT_EQ(clock.ticks(), 216000u);
  EXPECT_NEAR(clock.elapsed(), 3600.0, 1e-8);
  // A constant float(1/60) would be this far off after the hour.
  EXPECT_GT(std::abs(216000.0 * double(static_cast<float>(1.0 / 60.0)) - 3600.0), 1e-5);
  EXPECT_EQ(dt_of_tick(60.0, 1), TickClock(60.0).next());
  TickClock again(60.0);
  for (int k = 1; k < 77; ++k) again.next();
  EXPECT_EQ(dt_of_tick(60.0, 77), again.next());
}

}  // namespace clip_time_test
}  // namespace anim

// Clip time: wrapping a playhead into a clip (loop and clamp) and normalized time.
#include "anim/clip_time.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace anim {
namespace {

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

}  // namespace
}  // namespace anim

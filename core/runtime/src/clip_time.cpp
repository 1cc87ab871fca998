#include "anim/clip_time.h"

#include <algorithm>
#include <cmath>

namespace anim {

float wrap_clip_time(float time, float duration, WrapMode mode) {
  if (!(duration > 0.0f) || !std::isfinite(time)) return 0.0f;
  if (mode == WrapMode::kClamp) return std::clamp(time, 0.0f, duration);
  float t = std::fmod(time, duration);
  if (t < 0.0f) t += duration;
  // fmod of a tiny negative number plus duration can round up to exactly duration.
  if (t >= duration) t = 0.0f;
  return t;
}

float advance_clip_time(float time, float& carry, float step, float duration, WrapMode mode) {
  const double exact = double(time) + double(carry) + double(step);
  const double d = duration;
  if (!(duration > 0.0f) || !std::isfinite(exact)) {
    carry = 0.0f;
    return 0.0f;
  }
  double wrapped;
  if (mode == WrapMode::kClamp) {
    wrapped = std::clamp(exact, 0.0, d);
  } else {
    wrapped = std::fmod(exact, d);
    if (wrapped < 0.0) wrapped += d;
    if (wrapped >= d) wrapped = 0.0;
  }
  float t = static_cast<float>(wrapped);
  // Rounded up to the duration itself: the loop's start, as wrap_clip_time gives.
  if (mode == WrapMode::kLoop && t >= duration) {
    t = 0.0f;
    wrapped = 0.0;
  }
  carry = static_cast<float>(wrapped - double(t));
  return t;
}

float normalized_time(float clip_time, float duration) {
  if (!(duration > 0.0f) || std::isnan(clip_time)) return 0.0f;
  return std::clamp(clip_time / duration, 0.0f, 1.0f);
}

}  // namespace anim

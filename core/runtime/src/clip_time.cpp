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

float normalized_time(float clip_time, float duration) {
  if (!(duration > 0.0f) || std::isnan(clip_time)) return 0.0f;
  return std::clamp(clip_time / duration, 0.0f, 1.0f);
}

}  // namespace anim

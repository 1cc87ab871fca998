#pragma once
// Clip time: turning a playhead into a time inside a clip.

namespace anim {

enum class WrapMode : unsigned char {
  kLoop,   // time wraps into [0, duration); negative times wrap from the end
  kClamp,  // time is clamped into [0, duration]
};

// Maps `time` (seconds, any finite value) into the clip for the given mode. A clip of zero
// duration always gives 0. With kLoop, time == duration gives 0 (the loop's start); with
// kClamp it gives duration (the last key).
float wrap_clip_time(float time, float duration, WrapMode mode);

// A clock moved by `step` seconds from `time`, wrapped as wrap_clip_time does. `carry` is the
// part of the exact time that a float cannot hold (start it at 0): the sum is taken in double
// and what the returned float misses goes back into `carry`, so that a clock advanced tick by
// tick stays within a float's rounding of the exact sum of its steps instead of drifting by
// one rounding per step.
float advance_clip_time(float time, float& carry, float step, float duration, WrapMode mode);

// time / duration in [0, 1]; 0 for a zero-length clip.
float normalized_time(float clip_time, float duration);

}  // namespace anim

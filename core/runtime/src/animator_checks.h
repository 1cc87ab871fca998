#pragma once
// Value checks and message helpers shared by the Animator's command files (animator_ik.cpp,
// animator_aim.cpp, animator_feet.cpp, animator_blend.cpp): each command refuses bad values
// with a message naming them, in the same words.

#include <cmath>
#include <string>

namespace anim::animator_checks {

inline constexpr float kPi = 3.14159265358979f;

// A float as messages print it.
inline std::string num(float v) {
  return std::to_string(v);
}

// A weight: finite and in [0, 1].
inline bool in_unit_range(float v) {
  return std::isfinite(v) && v >= 0.0f && v <= 1.0f;
}

}  // namespace anim::animator_checks

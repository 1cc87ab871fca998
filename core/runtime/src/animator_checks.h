#pragma once
// Value checks and message helpers shared by the Animator's command files (animator_ik.cpp,
// animator_aim.cpp, animator_feet.cpp, animator_blend.cpp): each command refuses bad values
// with a message naming them, in the same words.

#include <cmath>
#include <string>

#include "anim/status.h"
#include "anim/transform.h"

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

// A character's placement (set_root_transform): finite, no zero scale component, a rotation of
// unit length within 1e-3. The error names `who`; nothing is allocated unless it fails.
inline Status check_root_transform(const char* who, const Transform& root) {
  if (!is_finite(root))
    return invalid_argument(std::string(who) + ": a component is NaN or infinite");
  if (root.scale.x == 0.0f || root.scale.y == 0.0f || root.scale.z == 0.0f)
    return invalid_argument(std::string(who) + ": scale has a zero component");
  const float len = glm::length(root.rotation);
  if (!(std::abs(len - 1.0f) < 1e-3f))
    return invalid_argument(std::string(who) + ": rotation is not a unit quaternion (length " +
                            num(len) + ")");
  return Status::ok();
}

}  // namespace anim::animator_checks

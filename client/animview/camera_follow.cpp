#include "camera_follow.h"

#include <algorithm>
#include <cmath>

namespace animview {

std::optional<CameraView> view_of(const OrbitCamera& camera, float aspect) {
  if (!(aspect > 0.0f)) return std::nullopt;
  CameraView v;
  v.eye = camera.eye();
  const glm::vec3 to_target = camera.target - v.eye;
  const float length = glm::length(to_target);
  if (!(length > 0.0f) || !std::isfinite(length)) return std::nullopt;
  v.forward = to_target / length;
  v.fov_y = camera.fov_y;
  v.aspect = aspect;
  return v;
}

float CameraFollow::threshold() const {
  return std::max(0.05f, 0.1f * radius_);
}

bool CameraFollow::differs(const CameraView& a, const CameraView& b) const {
  auto changed = [](float x, float y) { return std::abs(y - x) >= kLensChange * std::abs(x); };
  const float cos_turn = glm::dot(a.forward, b.forward);
  return glm::distance(a.eye, b.eye) >= threshold() || cos_turn <= std::cos(kTurnRadians) ||
         changed(a.fov_y, b.fov_y) || changed(a.aspect, b.aspect);
}

std::optional<CameraView> CameraFollow::update(const CameraView& now) {
  if (in_flight_) return std::nullopt;
  if (accepted_ && !differs(*accepted_, now)) return std::nullopt;
  if (refused_ && !differs(*refused_, now)) return std::nullopt;
  in_flight_ = true;
  asked_ = now;
  return now;
}

void CameraFollow::answered(bool ok) {
  in_flight_ = false;
  if (ok) {
    accepted_ = asked_;
    refused_.reset();
  } else {
    refused_ = asked_;
  }
}

}  // namespace animview

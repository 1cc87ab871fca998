#pragma once
// When a region subscription's camera (SubscribeRequest.camera: the daemon's significance of
// the characters this viewer sees) follows the orbit camera. Like the region (RegionFollow),
// small changes send nothing: the camera is sent again once the eye has moved a tenth of the
// region's radius (at least 5 cm) from the one the daemon has, the view has turned by
// kTurnRadians, or the field of view or the aspect has changed by kLensChange of itself; one
// change is in flight at a time. Pure logic, no network: Connection sends what this decides.

#include <optional>

#include <glm/glm.hpp>

#include "camera.h"

namespace animview {

// A camera as the protocol carries it (anim.v1.Camera).
struct CameraView {
  glm::vec3 eye{0.0f};                      // world space
  glm::vec3 forward{0.0f, 0.0f, -1.0f};     // unit length
  float fov_y = OrbitCamera::kDefaultFovY;  // radians, in (0, pi)
  float aspect = 1.0f;                      // width / height, > 0
};

// The orbit camera's view for a viewport of `aspect` (width / height); nothing for a
// viewport with no area (a minimised window) or a degenerate camera.
std::optional<CameraView> view_of(const OrbitCamera& camera, float aspect);

class CameraFollow {
 public:
  static constexpr float kTurnRadians = 0.0872665f;  // 5 degrees
  static constexpr float kLensChange = 0.05f;

  // `radius` > 0 metres: the region's. `accepted`: the camera the subscription started with
  // (nothing: the first update sends one).
  CameraFollow(float radius, std::optional<CameraView> accepted)
      : radius_(radius), accepted_(accepted) {}

  // The camera to send for the view `now`, or nothing (too close to the one the daemon has, or
  // a change still in flight). A returned camera counts as in flight.
  std::optional<CameraView> update(const CameraView& now);
  // The daemon answered the change in flight. A refused one is asked again only once the view
  // has moved on from it.
  void answered(bool ok);

  const std::optional<CameraView>& accepted() const { return accepted_; }
  bool in_flight() const { return in_flight_; }
  float threshold() const;  // metres the eye moves before a change

 private:
  // Whether `b` differs from `a` by one of the thresholds (NaN never does).
  bool differs(const CameraView& a, const CameraView& b) const;

  float radius_;
  std::optional<CameraView> accepted_;
  CameraView asked_;
  bool in_flight_ = false;
  std::optional<CameraView> refused_;  // the last camera refused, while the view is near it
};

}  // namespace animview

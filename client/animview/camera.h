#pragma once
// The orbit camera: looks at `target` from `distance` away, at a yaw around world +Y and a
// pitch above the ground plane. Pure math (no GL, no window), so it is unit-tested.
//
// Conventions: world is Y-up, right-handed; yaw 0 looks from +Z towards -Z; angles in
// radians; distances in world units.

#include <glm/glm.hpp>

#include "bounds.h"

namespace animview {

class OrbitCamera {
 public:
  static constexpr float kDefaultFovY = 0.7853982f;  // 45 degrees
  static constexpr float kMaxPitch = 1.55f;          // just under 90 degrees: up stays defined

  glm::vec3 target{0.0f, 1.0f, 0.0f};
  float yaw = 0.5f;       // radians around +Y
  float pitch = 0.3f;     // radians above the horizon, |pitch| <= kMaxPitch
  float distance = 4.0f;  // > 0
  float fov_y = kDefaultFovY;

  glm::vec3 eye() const;
  glm::mat4 view() const;
  // Perspective with near/far planes scaled to the distance (depth precision holds at any
  // zoom). aspect = width / height, > 0.
  glm::mat4 projection(float aspect) const;

  // Aims at the box's centre and sets the smallest distance (plus 10%) at which all 8 corners
  // are in view for the given aspect, keeping yaw and pitch. An empty box frames a 2 m box
  // standing at the origin.
  void frame(const Aabb& box, float aspect);

  // Mouse drag in pixels: `radians_per_pixel` per pixel of motion; pitch is clamped.
  void rotate(float dx_pixels, float dy_pixels, float radians_per_pixel = 0.008f);
  // Wheel steps: each step moves 10% closer (positive) or farther (negative).
  void zoom(float steps);
  // Moves the target in the view plane: dx, dy are fractions of the distance
  // (right and up on the screen).
  void pan_screen(float dx, float dy);
  // Moves the target on the ground plane: forward is the view direction projected on XZ;
  // amounts are fractions of the distance.
  void pan_ground(float forward, float right);
};

}  // namespace animview

#include "camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace animview {

glm::vec3 OrbitCamera::eye() const {
  glm::vec3 dir{std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw)};
  return target + distance * dir;
}

glm::mat4 OrbitCamera::view() const {
  return glm::lookAt(eye(), target, glm::vec3(0, 1, 0));
}

glm::mat4 OrbitCamera::projection(float aspect) const {
  // A 1:10^4 near/far ratio keeps 24-bit depth precise; the far plane reaches well past the
  // target so the ground grid fades out instead of being cut close by.
  float near_plane = distance * 0.01f;
  float far_plane = distance * 100.0f;
  return glm::perspective(fov_y, aspect > 0.0f ? aspect : 1.0f, near_plane, far_plane);
}

void OrbitCamera::frame(const Aabb& box, float aspect) {
  Aabb b = box;
  if (b.empty()) {
    b.add(glm::vec3(-1, 0, -1));
    b.add(glm::vec3(1, 2, 1));
  }
  float radius = glm::length(b.size()) * 0.5f;
  if (!(radius > 1e-4f)) radius = 1e-4f;
  // The sphere fits when its tangent cone fits in the narrower of the two fields of view.
  float half_y = fov_y * 0.5f;
  float half_x = std::atan(std::tan(half_y) * (aspect > 0.0f ? aspect : 1.0f));
  float half = std::min(half_x, half_y);
  constexpr float kMargin = 1.05f;  // a little air around the characters
  target = b.center();
  distance = radius / std::sin(half) * kMargin;
}

void OrbitCamera::rotate(float dx_pixels, float dy_pixels, float radians_per_pixel) {
  yaw -= dx_pixels * radians_per_pixel;
  pitch = std::clamp(pitch + dy_pixels * radians_per_pixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::zoom(float steps) {
  distance *= std::pow(0.9f, steps);
  distance = std::clamp(distance, 1e-3f, 1e6f);
}

void OrbitCamera::pan_screen(float dx, float dy) {
  glm::vec3 forward = glm::normalize(target - eye());
  glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0, 1, 0)));
  glm::vec3 up = glm::cross(right, forward);
  target += (right * dx + up * dy) * distance;
}

void OrbitCamera::pan_ground(float forward_amount, float right_amount) {
  glm::vec3 forward{-std::sin(yaw), 0.0f, -std::cos(yaw)};
  glm::vec3 right{std::cos(yaw), 0.0f, -std::sin(yaw)};
  target += (forward * forward_amount + right * right_amount) * distance;
}

}  // namespace animview

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
  target = b.center();
  // Camera axes for the current yaw and pitch (independent of the distance).
  const glm::vec3 back{std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                       std::cos(pitch) * std::cos(yaw)};
  const glm::vec3 right = glm::normalize(glm::cross(glm::vec3(0, 1, 0), back));
  const glm::vec3 up = glm::cross(back, right);
  const float tan_y = std::tan(fov_y * 0.5f);
  const float tan_x = tan_y * (aspect > 0.0f ? aspect : 1.0f);
  // A corner at (x, y, z) in camera axes around the target is in view from distance d when
  // |x| <= (d - z) tan_x and |y| <= (d - z) tan_y: the smallest d that fits every corner.
  float needed = 1e-4f;
  for (int i = 0; i < 8; ++i) {
    glm::vec3 corner{(i & 1) ? b.max.x : b.min.x, (i & 2) ? b.max.y : b.min.y,
                     (i & 4) ? b.max.z : b.min.z};
    const glm::vec3 r = corner - target;
    const float z = glm::dot(r, back);
    needed = std::max(
        {needed, std::abs(glm::dot(r, right)) / tan_x + z, std::abs(glm::dot(r, up)) / tan_y + z});
  }
  constexpr float kMargin = 1.1f;  // a little air around the characters
  distance = needed * kMargin;
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

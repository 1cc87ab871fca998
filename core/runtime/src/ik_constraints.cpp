// Joint constraints for the iterative IK solvers: ball-and-socket cone and hinge.
#include <algorithm>
#include <cmath>

#include "anim/ik_solvers.h"

namespace anim::ik {

namespace {

constexpr float kPi = 3.14159265358979f;

glm::quat ball_socket(float cone, const glm::quat& rest_local, const glm::vec3& bone_dir,
                      const glm::quat& local) {
  const glm::vec3 rest_dir = rest_local * bone_dir;  // in the parent's frame
  const glm::vec3 dir = local * bone_dir;
  const float angle = std::acos(std::clamp(glm::dot(rest_dir, dir), -1.0f, 1.0f));
  if (angle <= cone) return local;
  // Swing the bone back onto the cone's rim in the plane of the two directions; the twist
  // about the bone is left as it is.
  glm::vec3 axis = glm::cross(rest_dir, dir);
  if (glm::dot(axis, axis) < 1e-12f) {  // exactly opposite: any plane will do
    axis = glm::cross(rest_dir, glm::vec3(1.0f, 0.0f, 0.0f));
    if (glm::dot(axis, axis) < 1e-6f) axis = glm::cross(rest_dir, glm::vec3(0.0f, 1.0f, 0.0f));
  }
  const glm::vec3 rim = glm::angleAxis(cone, glm::normalize(axis)) * rest_dir;
  return glm::normalize(rotation_between(dir, rim) * local);
}

glm::quat hinge(const JointConstraint& c, const glm::quat& rest_local, const glm::quat& local) {
  // Twist of the offset from rest about the hinge axis (swing-twist decomposition); the
  // swing part is dropped, so the joint's child stays in the hinge plane.
  const glm::quat offset = glm::normalize(glm::conjugate(rest_local) * local);
  const float along = offset.x * c.axis.x + offset.y * c.axis.y + offset.z * c.axis.z;
  float theta = 2.0f * std::atan2(along, offset.w);
  if (theta > kPi) theta -= 2.0f * kPi;
  if (theta < -kPi) theta += 2.0f * kPi;
  theta = std::clamp(theta, c.min_angle, c.max_angle);
  return glm::normalize(rest_local * glm::angleAxis(theta, c.axis));
}

}  // namespace

glm::quat constrain(const JointConstraint& c, const glm::quat& rest_local,
                    const glm::vec3& bone_dir, const glm::quat& local) {
  switch (c.kind) {
    case JointConstraint::Kind::kNone:
      return local;
    case JointConstraint::Kind::kBallSocket:
      return ball_socket(c.cone_angle, rest_local, bone_dir, local);
    case JointConstraint::Kind::kHinge:
      return hinge(c, rest_local, local);
  }
  return local;
}

}  // namespace anim::ik

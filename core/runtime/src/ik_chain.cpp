// Chain bookkeeping shared by the IK solvers: shortest-arc rotations, rigid propagation of a
// joint's rotation to its descendants, and the position-to-rotation write-back.
#include <cmath>

#include "anim/ik_solvers.h"

namespace anim::ik {

glm::quat Chain::local(int k) const {
  const glm::quat& parent = k == 0 ? parent_rotation : rotations[k - 1];
  return glm::normalize(glm::conjugate(parent) * rotations[k]);
}

glm::quat rotation_between(const glm::vec3& from, const glm::vec3& to) {
  const float lf = glm::length(from), lt = glm::length(to);
  if (!(lf > 1e-12f) || !(lt > 1e-12f)) return glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  const glm::vec3 f = from / lf, t = to / lt;
  const float d = glm::dot(f, t);
  if (d < -1.0f + 1e-6f) {
    // Opposite: half a turn about any axis perpendicular to f.
    glm::vec3 axis = glm::cross(f, glm::vec3(1.0f, 0.0f, 0.0f));
    if (glm::dot(axis, axis) < 1e-6f) axis = glm::cross(f, glm::vec3(0.0f, 1.0f, 0.0f));
    return glm::angleAxis(3.14159265358979f, glm::normalize(axis));
  }
  // The half-way quaternion: (1 + cos, sin * axis) normalized is the rotation by the angle
  // between f and t; stable for every d > -1.
  const glm::vec3 c = glm::cross(f, t);
  return glm::normalize(glm::quat(1.0f + d, c.x, c.y, c.z));
}

void set_joint_rotation(Chain& chain, int k, const glm::quat& rotation) {
  glm::quat r = glm::normalize(rotation);
  if (!chain.constraints.empty() && chain.constraints[k].kind != JointConstraint::Kind::kNone) {
    const glm::quat& parent = k == 0 ? chain.parent_rotation : chain.rotations[k - 1];
    glm::quat local = glm::normalize(glm::conjugate(parent) * r);
    local = constrain(chain.constraints[k], chain.rest_locals[k], chain.bone_dirs[k], local);
    r = glm::normalize(parent * local);
  }
  const glm::quat delta = glm::normalize(r * glm::conjugate(chain.rotations[k]));
  chain.rotations[k] = r;
  const glm::vec3 pivot = chain.positions[k];
  for (int m = k + 1; m < chain.size(); ++m) {
    chain.positions[m] = pivot + delta * (chain.positions[m] - pivot);
    chain.rotations[m] = glm::normalize(delta * chain.rotations[m]);
  }
}

void write_back(Chain& chain, std::span<const glm::vec3> solved) {
  const int n = chain.size();
  for (int k = 0; k + 1 < n; ++k) {
    const glm::vec3 current = chain.positions[k + 1] - chain.positions[k];
    const glm::vec3 wanted = solved[k + 1] - chain.positions[k];
    set_joint_rotation(chain, k, rotation_between(current, wanted) * chain.rotations[k]);
  }
}

}  // namespace anim::ik

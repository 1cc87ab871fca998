// FABRIK (forward and backward reaching IK) with a rotation write-back every iteration.
#include "anim/ik_solvers.h"

namespace anim::ik {

namespace {

// Unit vector along v, or `fallback` when v is (near) zero.
glm::vec3 direction(const glm::vec3& v, const glm::vec3& fallback) {
  const float len = glm::length(v);
  return len > 1e-9f ? v / len : fallback;
}

}  // namespace

Result solve_fabrik(Chain& chain, const glm::vec3& target, std::span<glm::vec3> scratch,
                    int max_iterations, float tolerance) {
  const int n = chain.size();
  const int effector = n - 1;
  const glm::vec3 root = chain.positions[0];
  // Bone lengths never change: rotations move the chain rigidly.
  float total = 0.0f;
  for (int k = 0; k + 1 < n; ++k) total += glm::length(chain.positions[k + 1] - chain.positions[k]);
  auto bone = [&](int k) { return glm::length(chain.positions[k + 1] - chain.positions[k]); };

  Result result;
  result.error = glm::length(chain.positions[effector] - target);
  if (glm::length(target - root) >= total) {
    // Unreachable: lay the chain straight toward the target.
    const glm::vec3 dir = direction(
        target - root, direction(chain.positions[effector] - root, glm::vec3(0.0f, 1.0f, 0.0f)));
    scratch[0] = root;
    for (int k = 0; k + 1 < n; ++k) scratch[k + 1] = scratch[k] + bone(k) * dir;
    write_back(chain, scratch);
    result.iterations = 1;
    result.error = glm::length(chain.positions[effector] - target);
    return result;
  }
  while (result.iterations < max_iterations && result.error > tolerance) {
    ++result.iterations;
    for (int k = 0; k < n; ++k) scratch[k] = chain.positions[k];
    // Backward: pin the effector on the target, pull each joint toward its child.
    scratch[effector] = target;
    for (int k = n - 2; k >= 0; --k) {
      const glm::vec3 fallback =
          direction(chain.positions[k] - chain.positions[k + 1], glm::vec3(0.0f, 1.0f, 0.0f));
      scratch[k] = scratch[k + 1] + bone(k) * direction(scratch[k] - scratch[k + 1], fallback);
    }
    // Forward: pin the root back in place, push each child out from its parent.
    scratch[0] = root;
    for (int k = 0; k + 1 < n; ++k) {
      const glm::vec3 fallback =
          direction(chain.positions[k + 1] - chain.positions[k], glm::vec3(0.0f, 1.0f, 0.0f));
      scratch[k + 1] = scratch[k] + bone(k) * direction(scratch[k + 1] - scratch[k], fallback);
    }
    // Turn positions into rotations, parent to child, applying constraints: the chain's
    // positions now follow from rotations the constraints allow.
    write_back(chain, scratch);
    result.error = glm::length(chain.positions[effector] - target);
  }
  return result;
}

}  // namespace anim::ik

// Cyclic coordinate descent with per-joint weights and hinge-aware steps.
#include "anim/ik_solvers.h"
#include "anim/transform.h"

namespace anim::ik {

Result solve_ccd(Chain& chain, const glm::vec3& target, std::span<const float> joint_weights,
                 int max_iterations, float tolerance) {
  const int n = chain.size();
  const int effector = n - 1;
  Result result;
  result.error = glm::length(chain.positions[effector] - target);
  while (result.iterations < max_iterations && result.error > tolerance) {
    ++result.iterations;
    for (int k = n - 2; k >= 0; --k) {
      glm::vec3 to_effector = chain.positions[effector] - chain.positions[k];
      glm::vec3 to_target = target - chain.positions[k];
      if (!chain.constraints.empty() &&
          chain.constraints[k].kind == JointConstraint::Kind::kHinge) {
        // A hinge can only turn about its axis: aim within the plane normal to it, so the
        // step is all twist and the constraint does not throw it away.
        const glm::vec3 axis = chain.rotations[k] * chain.constraints[k].axis;
        to_effector -= axis * glm::dot(to_effector, axis);
        to_target -= axis * glm::dot(to_target, axis);
      }
      glm::quat step = rotation_between(to_effector, to_target);
      const float w = joint_weights.empty() ? 1.0f : joint_weights[k];
      if (w <= 0.0f) continue;
      if (w < 1.0f) step = slerp_shortest(glm::quat(1.0f, 0.0f, 0.0f, 0.0f), step, w);
      set_joint_rotation(chain, k, step * chain.rotations[k]);
    }
    result.error = glm::length(chain.positions[effector] - target);
  }
  return result;
}

}  // namespace anim::ik

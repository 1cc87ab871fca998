// Animator: IK goals (commands and the per-update solve).
#include <string>

#include "anim/animator.h"

namespace anim {

Expected<int> Animator::set_ik_goal(const IkGoalDesc&) {
  return Status(StatusCode::kUnimplemented, "set_ik_goal: IK is not implemented yet");
}

Status Animator::update_ik_target(int goal_id, const glm::vec3&, float) {
  return not_found("update_ik_target: no IK goal with id " + std::to_string(goal_id));
}

Status Animator::clear_ik_goal(int goal_id) {
  return not_found("clear_ik_goal: no IK goal with id " + std::to_string(goal_id));
}

void Animator::recompute_model_from(int first_joint) {
  const Skeleton& s = *skeleton_;
  for (int i = first_joint; i < s.num_joints(); ++i) {
    const int p = s.parents[i];
    model_[i] = (p < 0 ? s.root_transform : model_[p]) * to_matrix(pose_.locals[i]);
  }
}

void Animator::apply_ik() {}

}  // namespace anim

// Animator: IK goals (commands and the per-update solve).
#include <algorithm>
#include <cmath>
#include <string>

#include "anim/animator.h"
#include "animator_checks.h"

namespace anim {

using animator_checks::in_unit_range;
using animator_checks::kPi;
using animator_checks::num;

Expected<int> Animator::set_ik_goal(const IkGoalDesc& desc) {
  const Skeleton& s = *skeleton_;
  const int root = s.find_joint(desc.root_joint);
  if (root < 0) return not_found("set_ik_goal: no joint named '" + desc.root_joint + "'");
  const int effector = s.find_joint(desc.effector_joint);
  if (effector < 0) return not_found("set_ik_goal: no joint named '" + desc.effector_joint + "'");
  const std::string who = "set_ik_goal '" + desc.root_joint + "'..'" + desc.effector_joint + "'";
  if (effector == root || !s.is_descendant(effector, root))
    return invalid_argument(who + ": not a chain: '" + desc.effector_joint +
                            "' does not descend from '" + desc.root_joint + "'");
  std::vector<int> chain;
  for (int j = effector; j != root; j = s.parents[j]) chain.push_back(j);
  chain.push_back(root);
  std::reverse(chain.begin(), chain.end());
  const int n = static_cast<int>(chain.size());
  if (n > kMaxChainJoints)
    return invalid_argument(who + ": chain has " + std::to_string(n) + " joints, more than " +
                            std::to_string(kMaxChainJoints));
  if (desc.solver != IkSolver::kCcd && desc.solver != IkSolver::kFabrik &&
      desc.solver != IkSolver::kTwoBone)
    return invalid_argument(who + ": unknown solver " + std::to_string(int(desc.solver)));
  if (desc.space != IkSpace::kModel && desc.space != IkSpace::kWorld)
    return invalid_argument(who + ": unknown target space " + std::to_string(int(desc.space)));
  if (!is_finite(desc.target)) return invalid_argument(who + ": target is NaN or infinite");
  if (!in_unit_range(desc.weight))
    return invalid_argument(who + ": weight " + num(desc.weight) + " is outside [0, 1]");
  if (desc.has_pole && !is_finite(desc.pole))
    return invalid_argument(who + ": pole is NaN or infinite");
  if (!std::isfinite(desc.soften) || desc.soften < 0.0f || desc.soften >= 1.0f)
    return invalid_argument(who + ": soften " + num(desc.soften) + " is outside [0, 1)");
  if (desc.max_iterations < 1 || desc.max_iterations > 1000)
    return invalid_argument(who + ": max_iterations " + std::to_string(desc.max_iterations) +
                            " is outside [1, 1000]");
  if (!std::isfinite(desc.tolerance) || !(desc.tolerance > 0.0f))
    return invalid_argument(who + ": tolerance " + num(desc.tolerance) + " must be > 0");
  if (desc.solver == IkSolver::kTwoBone && n != 3)
    return invalid_argument(who + ": the two-bone solver needs exactly 3 joints, the chain has " +
                            std::to_string(n));
  if (!desc.joint_weights.empty()) {
    if (static_cast<int>(desc.joint_weights.size()) != n)
      return invalid_argument(who + ": " + std::to_string(desc.joint_weights.size()) +
                              " joint weights for a chain of " + std::to_string(n) + " joints");
    for (int k = 0; k < n; ++k)
      if (!in_unit_range(desc.joint_weights[k]))
        return invalid_argument(who + ": joint weight " + num(desc.joint_weights[k]) +
                                " of joint '" + s.names[chain[k]] + "' is outside [0, 1]");
  }
  IkGoalDesc stored = desc;
  if (!desc.constraints.empty()) {
    if (desc.solver == IkSolver::kTwoBone)
      return invalid_argument(who + ": constraints apply to the CCD and FABRIK solvers only");
    if (static_cast<int>(desc.constraints.size()) != n)
      return invalid_argument(who + ": " + std::to_string(desc.constraints.size()) +
                              " constraints for a chain of " + std::to_string(n) + " joints");
    for (int k = 0; k < n; ++k) {
      JointConstraint& c = stored.constraints[k];
      const std::string joint = "joint '" + s.names[chain[k]] + "'";
      switch (c.kind) {
        case JointConstraint::Kind::kNone:
          break;
        case JointConstraint::Kind::kBallSocket:
          if (!std::isfinite(c.cone_angle) || c.cone_angle < 0.0f || c.cone_angle > kPi)
            return invalid_argument(who + ": " + joint + " cone angle " + num(c.cone_angle) +
                                    " is outside [0, pi]");
          break;
        case JointConstraint::Kind::kHinge: {
          const float len = glm::length(c.axis);
          if (!is_finite(c.axis) || !(len > 1e-6f))
            return invalid_argument(who + ": " + joint + " hinge axis is zero or not finite");
          c.axis /= len;
          if (!std::isfinite(c.min_angle) || !std::isfinite(c.max_angle) ||
              c.min_angle > c.max_angle || c.min_angle < -kPi || c.max_angle > kPi)
            return invalid_argument(who + ": " + joint + " hinge limits [" + num(c.min_angle) +
                                    ", " + num(c.max_angle) +
                                    "] must satisfy -pi <= min <= max <= pi");
          break;
        }
        default:
          return invalid_argument(who + ": " + joint + " has an unknown constraint kind");
      }
      if (c.kind != JointConstraint::Kind::kNone && k == n - 1)
        return invalid_argument(who + ": the effector '" + s.names[chain[k]] +
                                "' is never rotated, it cannot take a constraint");
      if (c.kind == JointConstraint::Kind::kBallSocket &&
          !(glm::length(s.rest_pose[chain[k + 1]].translation) > 0.0f))
        return invalid_argument(who + ": " + joint +
                                " has a zero-length bone, a cone constraint needs a direction");
    }
  }
  if (static_cast<int>(goals_.size()) >= kMaxIkGoals)
    return Status(StatusCode::kResourceExhausted,
                  who + ": the character already has " + std::to_string(kMaxIkGoals) + " IK goals");

  auto made = std::make_shared<GoalSetup>();
  made->desc = std::move(stored);
  made->joints = std::move(chain);
  made->rest_locals.resize(n);
  made->bone_dirs.resize(n, glm::vec3(0.0f, 1.0f, 0.0f));
  for (int k = 0; k < n; ++k) {
    made->rest_locals[k] = s.rest_pose[made->joints[k]].rotation;
    if (k + 1 < n) {
      const glm::vec3 t = s.rest_pose[made->joints[k + 1]].translation;
      if (glm::length(t) > 0.0f) made->bone_dirs[k] = glm::normalize(t);
    }
  }
  PoseSetup next = copy_setup();
  next.goals.push_back(std::move(made));
  goal_inputs_.make();
  goals_.push_back(Goal{next_goal_id_, desc.target, desc.weight});
  replace_setup(std::move(next));
  ++next_goal_id_;
  return goals_.back().id;
}

Status Animator::update_ik_target(int goal_id, const glm::vec3& target, float weight) {
  auto it =
      std::find_if(goals_.begin(), goals_.end(), [&](const Goal& g) { return g.id == goal_id; });
  if (it == goals_.end())
    return not_found("update_ik_target: no IK goal with id " + std::to_string(goal_id));
  if (!is_finite(target))
    return invalid_argument("update_ik_target " + std::to_string(goal_id) +
                            ": target is NaN or infinite");
  if (!in_unit_range(weight))
    return invalid_argument("update_ik_target " + std::to_string(goal_id) + ": weight " +
                            num(weight) + " is outside [0, 1]");
  it->target = target;
  it->weight = weight;
  return Status::ok();
}

Status Animator::clear_ik_goal(int goal_id) {
  auto it =
      std::find_if(goals_.begin(), goals_.end(), [&](const Goal& g) { return g.id == goal_id; });
  if (it == goals_.end())
    return not_found("clear_ik_goal: no IK goal with id " + std::to_string(goal_id));
  PoseSetup next = copy_setup();
  next.goals.erase(next.goals.begin() + (it - goals_.begin()));
  replace_setup(std::move(next));
  goals_.erase(it);
  return Status::ok();
}

uint64_t Animator::ik_cost() const {
  uint64_t cost = 0;
  if (!setup_) return 0;
  for (const auto& g : setup_->goals) {
    const uint64_t n = g->joints.size();
    cost += g->desc.solver == IkSolver::kTwoBone ? n : n * uint64_t(g->desc.max_iterations);
  }
  return cost;
}

}  // namespace anim

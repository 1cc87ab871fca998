// Animator: the aim IK commands (aim_ik.h); the solve is a step of evaluate_pose.
#include <algorithm>
#include <cmath>
#include <string>

#include "anim/animator.h"
#include "animator_checks.h"

namespace anim {

namespace {

using animator_checks::in_unit_range;
using animator_checks::kPi;
using animator_checks::num;
bool unit_axis(glm::vec3& v) {
  const float len = glm::length(v);
  if (!is_finite(v) || !(len > 1e-6f) || !std::isfinite(len)) return false;
  v /= len;
  return true;
}

}  // namespace

Status Animator::set_aim_ik(const AimIkDesc& desc) {
  const Skeleton& s = *skeleton_;
  const int root = s.find_joint(desc.root_joint);
  if (root < 0) return not_found("set_aim_ik: no joint named '" + desc.root_joint + "'");
  const int end = s.find_joint(desc.end_joint);
  if (end < 0) return not_found("set_aim_ik: no joint named '" + desc.end_joint + "'");
  const std::string who = "set_aim_ik '" + desc.root_joint + "'..'" + desc.end_joint + "'";
  if (end != root && !s.is_descendant(end, root))
    return invalid_argument(who + ": not a chain: '" + desc.end_joint +
                            "' does not descend from '" + desc.root_joint + "'");
  std::vector<int> chain;
  for (int j = end; j != root; j = s.parents[j]) chain.push_back(j);
  chain.push_back(root);
  std::reverse(chain.begin(), chain.end());
  const int n = static_cast<int>(chain.size());
  if (n > kMaxChainJoints)
    return invalid_argument(who + ": chain has " + std::to_string(n) + " joints, more than " +
                            std::to_string(kMaxChainJoints));
  AimIkDesc d = desc;
  if (!unit_axis(d.forward_axis))
    return invalid_argument(who + ": forward_axis is zero or not finite");
  if (d.space != IkSpace::kModel && d.space != IkSpace::kWorld)
    return invalid_argument(who + ": unknown target space " + std::to_string(int(d.space)));
  if (!is_finite(d.target)) return invalid_argument(who + ": target is NaN or infinite");
  if (!in_unit_range(d.weight))
    return invalid_argument(who + ": weight " + num(d.weight) + " is outside [0, 1]");
  if (d.has_pole) {
    if (!unit_axis(d.up_axis)) return invalid_argument(who + ": up_axis is zero or not finite");
    if (std::abs(glm::dot(d.up_axis, d.forward_axis)) > 0.999f)
      return invalid_argument(who + ": up_axis is parallel to forward_axis");
    if (!unit_axis(d.pole)) return invalid_argument(who + ": pole is zero or not finite");
  }
  if (!d.joint_weights.empty() && static_cast<int>(d.joint_weights.size()) != n)
    return invalid_argument(who + ": " + std::to_string(d.joint_weights.size()) +
                            " joint weights for a chain of " + std::to_string(n) + " joints");
  if (!d.max_angles.empty() && static_cast<int>(d.max_angles.size()) != n)
    return invalid_argument(who + ": " + std::to_string(d.max_angles.size()) +
                            " max angles for a chain of " + std::to_string(n) + " joints");
  std::vector<float> weights =
      d.joint_weights.empty() ? std::vector<float>(n, 1.0f) : d.joint_weights;
  std::vector<float> limits = d.max_angles.empty() ? std::vector<float>(n, kPi) : d.max_angles;
  for (int k = 0; k < n; ++k) {
    const std::string joint = "joint '" + s.names[chain[k]] + "'";
    if (!std::isfinite(weights[k]) || weights[k] < 0.0f || weights[k] > 1e6f)
      return invalid_argument(who + ": " + joint + " weight " + num(weights[k]) +
                              " is outside [0, 1e6]");
    if (!std::isfinite(limits[k]) || limits[k] < 0.0f || limits[k] > kPi)
      return invalid_argument(who + ": " + joint + " max angle " + num(limits[k]) +
                              " is outside [0, pi]");
  }
  // Each joint takes its weight's share of what is still missing when the turn reaches it.
  std::vector<float> fractions(n, 0.0f);
  float rest = 0.0f;
  for (int k = n - 1; k >= 0; --k) {
    rest += weights[k];
    fractions[k] = rest > 0.0f ? weights[k] / rest : 0.0f;
  }
  if (!(rest > 0.0f)) return invalid_argument(who + ": every joint weight is 0");

  auto made = std::make_shared<AimSetup>();
  made->desc = std::move(d);
  made->joints = std::move(chain);
  made->fractions = std::move(fractions);
  made->max_angles = std::move(limits);
  PoseSetup next = copy_setup();
  aim_input_ = AimInput{made->desc.target, made->desc.weight};
  next.aim = std::move(made);
  replace_setup(std::move(next));
  return Status::ok();
}

Status Animator::update_aim_target(const glm::vec3& target, float weight) {
  if (!has_aim_ik()) return not_found("update_aim_target: the character has no aim IK");
  if (!is_finite(target)) return invalid_argument("update_aim_target: target is NaN or infinite");
  if (!in_unit_range(weight))
    return invalid_argument("update_aim_target: weight " + num(weight) + " is outside [0, 1]");
  aim_input_ = AimInput{target, weight};
  return Status::ok();
}

Status Animator::clear_aim_ik() {
  if (!has_aim_ik()) return not_found("clear_aim_ik: the character has no aim IK");
  PoseSetup next = copy_setup();
  next.aim = nullptr;
  replace_setup(std::move(next));
  aim_input_ = AimInput{};
  return Status::ok();
}

}  // namespace anim

// Animator: poses handed in from outside the animation (set_pose, blend_out_pose).
// docs/animation.md, "Held poses", has the rules.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "anim/animator.h"
#include "animator_checks.h"

namespace anim {

using animator_checks::num;

Status Animator::set_pose(std::span<const Transform> locals) {
  const int n = skeleton_->num_joints();
  if (static_cast<int>(locals.size()) != n)
    return invalid_argument("set_pose: " + std::to_string(locals.size()) +
                            " joint transforms, the skeleton has " + std::to_string(n));
  auto held = std::make_shared<HeldPose>();
  held->locals.assign(locals.begin(), locals.end());
  for (int j = 0; j < n; ++j) {
    Transform& t = held->locals[static_cast<size_t>(j)];
    const std::string joint = "set_pose: joint " + std::to_string(j) + " ('" +
                              skeleton_->names[static_cast<size_t>(j)] + "')";
    if (!is_finite(t)) return invalid_argument(joint + " has a NaN or infinite component");
    const float len = glm::length(t.rotation);
    if (!(std::abs(len - 1.0f) < 1e-3f))
      return invalid_argument(joint + ": rotation is not a unit quaternion (length " + num(len) +
                              ")");
    if (t.scale.x == 0.0f || t.scale.y == 0.0f || t.scale.z == 0.0f)
      return invalid_argument(joint + ": scale has a zero component");
    t.rotation = glm::normalize(t.rotation);
  }
  PoseSetup next = copy_setup();
  next.held = std::move(held);
  replace_setup(std::move(next));
  held_weight_ = 1.0f;
  held_out_duration_ = -1.0f;
  return Status::ok();
}

Status Animator::blend_out_pose(float duration) {
  if (!std::isfinite(duration) || duration < 0.0f)
    return invalid_argument("blend_out_pose: duration " + num(duration) +
                            " must be finite and >= 0");
  if (!setup_ || !setup_->held || held_weight_ <= 0.0f)
    return failed_precondition("blend_out_pose: the character holds no pose (set_pose first)");
  held_from_ = held_weight_;
  held_out_duration_ = duration;
  held_out_elapsed_ = 0.0f;
  return Status::ok();
}

void Animator::advance_held_pose(float dt) {
  if (held_out_duration_ < 0.0f) return;
  held_out_elapsed_ += dt;
  held_weight_ = held_out_duration_ > 0.0f
                     ? held_from_ * std::max(0.0f, 1.0f - held_out_elapsed_ / held_out_duration_)
                     : 0.0f;
  if (held_weight_ <= 0.0f) {
    held_weight_ = 0.0f;
    held_out_duration_ = -1.0f;
  }
}

}  // namespace anim

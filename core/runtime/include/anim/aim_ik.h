#pragma once
// Aim (look-at) IK: a chain of joints (spine -> neck -> head, say) turns so that a forward
// axis of its last joint points at a target, the turn spread over the chain by per-joint
// weights, each joint's share limited to an angle, and the last joint twisted about the
// forward axis so that an up axis leans toward a pole direction. docs/animation.md, "Aim IK".

#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/ik.h"
#include "anim/ik_solvers.h"

namespace anim {

// Ranges below are enforced by Animator::set_aim_ik (NaN and infinity refused everywhere).
struct AimIkDesc {
  std::string root_joint;  // first joint of the chain (the one turned least, by default)
  std::string end_joint;   // last joint, whose forward axis aims; descends from root_joint
                           // (or is it: a one-joint chain); at most kMaxChainJoints joints
  // The aiming direction in the end joint's own (local, rest-free) frame: what "forward" means
  // for that joint (the builtin head: +Z). Non-zero; normalized when set.
  glm::vec3 forward_axis{0.0f, 0.0f, 1.0f};
  // Optional: the end joint's up axis (local; not parallel to forward_axis, normalized when
  // set) is turned about the forward axis toward `pole`, a direction in `space`. Without it
  // the twist about the forward axis is the one the shortest turn gives.
  bool has_pole = false;
  glm::vec3 up_axis{0.0f, 1.0f, 0.0f};
  glm::vec3 pole{0.0f, 1.0f, 0.0f};  // a direction (not a point); non-zero when has_pole
  IkSpace space = IkSpace::kModel;   // of target and pole
  glm::vec3 target{0.0f};            // a point in asset units, in `space`; finite
  float weight = 1.0f;               // [0, 1]: blends the aimed chain with the animated one
  // Per chain joint (root first), empty = defaults. joint_weights: >= 0 and finite, not all
  // 0 (default all 1): joint k turns by w_k / (w_k + ... + w_last) of the turn still missing
  // when it is reached, so the last joint with a weight completes the aim. max_angles: how far
  // each joint may turn away from its animated rotation, radians in [0, pi] (default pi).
  std::vector<float> joint_weights;
  std::vector<float> max_angles;
};

namespace ik {

// One aim solve on a model-space chain (ik_solvers.h conventions: rotations are model-space,
// chain joint k's parent is k-1), rotating every joint including the last.
// `animated_locals` are the chain joints' local rotations before the solve (the limits are
// measured from them). `forward`, `up` are unit axes in the last joint's frame; `pole` is a
// unit model-space direction or null. `fractions[k]` is the share of the missing turn joint k
// takes (w_k / sum of w_k..w_last), `max_angles[k]` its limit. No allocation.
void solve_aim(Chain& chain, std::span<const glm::quat> animated_locals, const glm::vec3& target,
               const glm::vec3& forward, const glm::vec3& up, const glm::vec3* pole,
               std::span<const float> fractions, std::span<const float> max_angles);

// The angle in radians of the unit quaternion q (0..pi).
float rotation_angle(const glm::quat& q);

}  // namespace ik

}  // namespace anim

// Aim (look-at) IK: the chain solve (aim_ik.h) and its step of the pose evaluation.
#include "anim/aim_ik.h"

#include <algorithm>
#include <cmath>

#include "anim/ik_solvers.h"
#include "anim/local_to_model_job.h"
#include "anim/pose_evaluation.h"
#include "anim/skeleton.h"
#include "pose_ik_steps.h"

namespace anim {

namespace ik {

namespace {

constexpr float kPi = 3.14159265358979f;
const glm::quat kIdentity{1.0f, 0.0f, 0.0f, 0.0f};

// Keeps joint k's local rotation within max_angle of its animated local rotation: a turn
// beyond the limit is scaled back along its own axis.
void limit(Chain& chain, std::span<const glm::quat> animated, int k, float max_angle) {
  if (max_angle >= kPi) return;
  const glm::quat& parent = k == 0 ? chain.parent_rotation : chain.rotations[k - 1];
  const glm::quat local = glm::normalize(glm::conjugate(parent) * chain.rotations[k]);
  glm::quat delta = glm::normalize(glm::conjugate(animated[k]) * local);
  if (delta.w < 0.0f) delta = -delta;
  const float angle = rotation_angle(delta);
  if (angle <= max_angle) return;
  const glm::vec3 axis = glm::vec3(delta.x, delta.y, delta.z) / std::sin(angle * 0.5f);
  const glm::quat clamped = glm::angleAxis(max_angle, glm::normalize(axis));
  set_joint_rotation(chain, k, parent * animated[k] * clamped);
}

}  // namespace

float rotation_angle(const glm::quat& q) {
  return 2.0f * std::acos(std::min(1.0f, std::abs(q.w)));
}

void solve_aim(Chain& chain, std::span<const glm::quat> animated_locals, const glm::vec3& target,
               const glm::vec3& forward, const glm::vec3& up, const glm::vec3* pole,
               std::span<const float> fractions, std::span<const float> max_angles) {
  const int n = chain.size();
  const int last = n - 1;
  // Turning joint k about its own origin also moves the end joint, so the direction to the
  // target changes under it: when the end joint has a share it finishes the aim in one pass;
  // otherwise a few passes converge on the parallax.
  const int passes = fractions[last] > 0.0f ? 1 : 4;
  for (int pass = 0; pass < passes; ++pass) {
    for (int k = 0; k < n; ++k) {
      if (!(fractions[k] > 0.0f)) continue;
      const glm::vec3 to_target = target - chain.positions[last];
      if (!(glm::dot(to_target, to_target) > 1e-12f)) return;  // the target is on the joint
      const glm::quat full = rotation_between(chain.rotations[last] * forward, to_target);
      const glm::quat turn =
          fractions[k] >= 1.0f ? full : glm::normalize(glm::slerp(kIdentity, full, fractions[k]));
      set_joint_rotation(chain, k, turn * chain.rotations[k]);
      limit(chain, animated_locals, k, max_angles[k]);
    }
  }
  if (!pole) return;
  // The twist about the (now aimed) forward axis that brings the up axis toward the pole.
  const glm::vec3 f = glm::normalize(chain.rotations[last] * forward);
  const glm::vec3 u = chain.rotations[last] * up;
  const glm::vec3 pu = u - f * glm::dot(u, f);
  const glm::vec3 pp = *pole - f * glm::dot(*pole, f);
  if (!(glm::length(pu) > 1e-6f) || !(glm::length(pp) > 1e-6f)) return;
  const float angle = std::atan2(glm::dot(glm::cross(pu, pp), f), glm::dot(pu, pp));
  set_joint_rotation(chain, last, glm::angleAxis(angle, f) * chain.rotations[last]);
  limit(chain, animated_locals, last, max_angles[last]);
}

}  // namespace ik

void apply_aim_ik(const Skeleton& s, const PoseInputs& inputs, const AimSetup& a,
                  PoseScratch& scratch, PoseOutput out) {
  const AimIkDesc& d = a.desc;
  const int n = static_cast<int>(a.joints.size());
  const bool world = d.space == IkSpace::kWorld;
  const Transform world_to_model = inverse(inputs.root);
  const glm::vec3 target =
      world ? transform_point(world_to_model, inputs.aim.target) : inputs.aim.target;
  glm::vec3 pole = d.pole;
  if (world) pole = glm::conjugate(inputs.root.rotation) * pole;
  const auto positions = std::span(scratch.positions).first(n);
  const auto rotations = std::span(scratch.rotations).first(n);
  const auto animated = std::span(scratch.animated).first(n);
  for (int k = 0; k < n; ++k) {
    const glm::mat4& m = out.model[a.joints[k]];
    positions[k] = glm::vec3(m[3]);
    rotations[k] = from_matrix(m).rotation;
  }
  const int parent = s.parents[a.joints[0]];
  ik::Chain chain;
  chain.positions = positions;
  chain.rotations = rotations;
  chain.parent_rotation = from_matrix(parent < 0 ? s.root_transform : out.model[parent]).rotation;
  for (int k = 0; k < n; ++k) animated[k] = chain.local(k);
  ik::solve_aim(chain, animated, target, d.forward_axis, d.up_axis, d.has_pole ? &pole : nullptr,
                a.fractions, a.max_angles);
  const float w = inputs.aim.weight;
  for (int k = 0; k < n; ++k) {
    glm::quat& local = out.locals[a.joints[k]].rotation;
    const glm::quat solved = chain.local(k);
    local = w >= 1.0f ? solved : slerp_shortest(local, solved, w);
  }
  LocalToModelJob job;
  job.skeleton = &s;
  job.input = out.locals;
  job.output = out.model;
  job.from = a.joints[0];
  job.run();
}

}  // namespace anim

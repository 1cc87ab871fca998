// Foot-to-ground IK: the step of the pose evaluation (foot_ik.h, docs/animation.md "Foot IK").
#include <algorithm>
#include <cmath>

#include "anim/foot_ik.h"
#include "anim/ik_solvers.h"
#include "anim/local_to_model_job.h"
#include "anim/pose_evaluation.h"
#include "anim/skeleton.h"
#include "pose_ik_steps.h"

namespace anim {

namespace {

const glm::vec3 kUp{0.0f, 1.0f, 0.0f};

void refresh_model(const Skeleton& s, PoseOutput out, int from) {
  LocalToModelJob job;
  job.skeleton = &s;
  job.input = out.locals;
  job.output = out.model;
  job.from = from;
  job.run();
}

// The world rotation that tilts "up" to the ground normal, at most max_tilt radians.
glm::quat sole_tilt(const glm::vec3& normal, float max_tilt) {
  const glm::quat full = ik::rotation_between(kUp, normal);
  const float angle = ik::rotation_angle(full);
  if (angle <= max_tilt) return full;
  const glm::vec3 axis = glm::cross(kUp, normal);  // non-zero: the normal is up-facing
  return glm::angleAxis(max_tilt, glm::normalize(axis));
}

}  // namespace

void apply_foot_ik(const Skeleton& s, const PoseInputs& inputs, const FootIkSetup& fs,
                   PoseScratch& scratch, PoseOutput out) {
  const FootIkInput& in = inputs.feet;
  const float w = std::min(1.0f, in.weight);
  const Transform& root = inputs.root;
  const Transform to_model = inverse(root);
  // Model space lengths to world lengths along up, and the model floor (y = 0) in the world.
  const float unit = std::abs(root.scale.y);
  const float floor_y = root.translation.y;

  std::array<glm::vec3, kNumFeet> target{};
  std::array<glm::quat, kNumFeet> tilt{};
  std::array<glm::quat, kNumFeet> foot_rotation{};  // animated model rotation of each ankle
  std::array<float, kNumFeet> need{};               // world vertical move each ankle needs
  for (int f = 0; f < kNumFeet; ++f) {
    const LegSetup& leg = fs.legs[f];
    const glm::vec3 ankle = transform_point(root, glm::vec3(out.model[leg.ankle][3]));
    foot_rotation[f] = from_matrix(out.model[leg.ankle]).rotation;
    const glm::vec3& n = in.normals[f];
    tilt[f] = sole_tilt(n, fs.desc.max_tilt);
    const glm::vec3 tilted_up = tilt[f] * kUp;
    const float sole = leg.sole_offset * unit;
    // The sole point under the ankle (along the tilted up axis), dropped onto the ground plane.
    const float sx = ankle.x - tilted_up.x * sole, sz = ankle.z - tilted_up.z * sole;
    const float d =
        in.samples ? glm::dot(n, glm::vec3(ankle.x, in.values[f], ankle.z)) : in.values[f];
    const float ground_y = (d - n.x * sx - n.z * sz) / n.y;
    const glm::vec3 on_ground = glm::vec3(sx, ground_y, sz) + tilted_up * sole;
    // A foot the animation lifts stays lifted as high above this ground.
    const float lift = std::max(0.0f, ankle.y - floor_y - sole);
    const glm::vec3 free_target = on_ground + kUp * lift;
    const FootLockInput& lock = in.locks[f];
    const glm::vec3 held = lock.capture ? on_ground : lock.position;
    target[f] = lock.weight >= 1.0f  ? held
                : lock.weight > 0.0f ? glm::mix(free_target, held, lock.weight)
                                     : free_target;
    if (out.feet) {
      out.feet->ground_targets[f] = on_ground;
    }
    // How far the pelvis must come down for this foot: as far as its ankle must, or further
    // when the target is beyond the animated leg's reach from the hip (a lock left behind).
    need[f] = target[f].y - ankle.y;
    const glm::vec3 hip = transform_point(root, glm::vec3(out.model[leg.hip][3]));
    const glm::vec2 across(target[f].x - hip.x, target[f].z - hip.z);
    const float reach = leg.length * unit, flat = glm::length(across);
    if (flat < reach)
      need[f] = std::min(need[f], target[f].y + std::sqrt(reach * reach - flat * flat) - hip.y);
  }
  // The pelvis goes down as far as the lower foot needs (never up: a leg that must reach
  // higher bends instead).
  const float drop = std::min(0.0f, std::min(need[0], need[1])) * w;
  if (out.feet) {
    out.feet->pelvis_drop = drop;
    out.feet->need = need;
    out.feet->ran = true;
  }
  if (drop != 0.0f) {
    const glm::vec3 model_move =
        glm::conjugate(root.rotation) * glm::vec3(0.0f, drop, 0.0f) / root.scale;
    const int parent = s.parents[fs.pelvis];
    const glm::mat3 parent_linear(parent < 0 ? s.root_transform : out.model[parent]);
    out.locals[fs.pelvis].translation += glm::inverse(parent_linear) * model_move;
    refresh_model(s, out, fs.pelvis);
  }
  for (int f = 0; f < kNumFeet; ++f) {
    const LegSetup& leg = fs.legs[f];
    const int joints[3] = {leg.hip, leg.knee, leg.ankle};
    const auto positions = std::span(scratch.positions).first(3);
    const auto rotations = std::span(scratch.rotations).first(3);
    for (int k = 0; k < 3; ++k) {
      const glm::mat4& m = out.model[joints[k]];
      positions[k] = glm::vec3(m[3]);
      rotations[k] = from_matrix(m).rotation;
    }
    const int parent = s.parents[leg.hip];
    ik::Chain chain;
    chain.positions = positions;
    chain.rotations = rotations;
    chain.parent_rotation = from_matrix(parent < 0 ? s.root_transform : out.model[parent]).rotation;
    // The knee bends toward the model's forward (+Z, glTF's front), from where the animation
    // has it: a straight leg (rest pose) has no bend plane of its own.
    const glm::vec3 pole = positions[1] + glm::vec3(0.0f, 0.0f, leg.length);
    ik::solve_two_bone(chain, transform_point(to_model, target[f]), &pole, 0.0f,
                       std::span(scratch.solved).first(3));
    for (int k = 0; k < 2; ++k) {
      glm::quat& local = out.locals[joints[k]].rotation;
      const glm::quat solved = chain.local(k);
      local = w >= 1.0f ? solved : slerp_shortest(local, solved, w);
    }
    refresh_model(s, out, leg.hip);
    // The sole turns with the ground: the animated foot orientation, tilted (in world space).
    const glm::quat model_tilt = glm::conjugate(root.rotation) * tilt[f] * root.rotation;
    glm::quat wanted = glm::normalize(model_tilt * foot_rotation[f]);
    if (w < 1.0f) wanted = slerp_shortest(foot_rotation[f], wanted, w);
    const glm::quat knee = from_matrix(out.model[leg.knee]).rotation;
    out.locals[leg.ankle].rotation = glm::normalize(glm::conjugate(knee) * wanted);
    refresh_model(s, out, leg.ankle);
  }
}

}  // namespace anim

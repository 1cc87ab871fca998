#pragma once
// IK solvers on a model-space chain. The Animator gathers a chain from its model matrices,
// calls one solver, and turns the solved model-space rotations back into local rotations.
// The solvers are exposed so that they can be tested (and reused) on their own.
//
// Conventions: chain joint k's parent is chain joint k-1; joint 0's parent has the fixed
// model-space rotation `parent_rotation`. Joint rotations are model-space unit quaternions
// (the rotation part of each joint's model matrix; chains are assumed to carry uniform
// scale, so that rotating a joint about its origin moves its descendants rigidly). Only
// joints 0..n-2 are rotated; the effector (n-1) keeps its local rotation and is carried
// along. Nothing here allocates.

#include <span>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/ik.h"

namespace anim::ik {

struct Chain {
  std::span<glm::vec3> positions;  // model-space joint origins, root..effector, n >= 2
  std::span<glm::quat> rotations;  // model-space joint rotations, n entries
  glm::quat parent_rotation{1.0f, 0.0f, 0.0f, 0.0f};  // model rotation of joint 0's parent
  // Constraint frames (may be empty when `constraints` is empty): the rest local rotation of
  // each joint, and the unit direction from each joint to the next chain joint in the joint's
  // own local frame (rest pose). n entries each.
  std::span<const glm::quat> rest_locals;
  std::span<const glm::vec3> bone_dirs;
  std::span<const JointConstraint> constraints;  // empty, or n entries (last one unused)

  int size() const { return static_cast<int>(positions.size()); }
  // Local rotation of joint k (relative to its parent in the chain).
  glm::quat local(int k) const;
};

struct Result {
  int iterations = 0;  // iterations used (0 for two-bone)
  float error = 0.0f;  // distance from effector to target after solving (model units)
};

// The shortest-arc rotation taking direction `from` to direction `to` (any lengths). When
// either is (near) zero it returns identity; for opposite directions it turns half a turn
// about an axis perpendicular to `from`.
glm::quat rotation_between(const glm::vec3& from, const glm::vec3& to);

// Clamps a local rotation into a joint's constraint:
//  - kBallSocket: the bone direction (local * bone_dir) stays within cone_angle of the rest
//    direction (rest_local * bone_dir); twist about the bone is free;
//  - kHinge: the rotation becomes rest_local * angleAxis(theta, axis) with theta the
//    twist of rest_local^-1 * local about `axis`, clamped to [min_angle, max_angle].
glm::quat constrain(const JointConstraint& c, const glm::quat& rest_local,
                    const glm::vec3& bone_dir, const glm::quat& local);

// Sets joint k's model rotation to `rotation` (after applying k's constraint, if any) and
// moves every later chain joint rigidly with it.
void set_joint_rotation(Chain& chain, int k, const glm::quat& rotation);

// Rotates joints 0..n-2 in order, parent to child, so that each joint's child lands on
// `solved[k + 1]` (or as close as the constraints allow). This is the position-to-rotation
// write-back FABRIK and two-bone need.
void write_back(Chain& chain, std::span<const glm::vec3> solved);

// Cyclic coordinate descent: from the joint nearest the effector to the root, rotate each
// joint so that the effector points at the target, scaled by joint_weights[k] (empty = 1).
// Hinge joints rotate only about their axis. Stops after max_iterations sweeps or when the
// effector is within tolerance.
Result solve_ccd(Chain& chain, const glm::vec3& target, std::span<const float> joint_weights,
                 int max_iterations, float tolerance);

// FABRIK: backward and forward reaching on positions, then a write-back with constraints
// each iteration (so the next iteration starts from a pose the constraints allow).
// `scratch` has n entries. An unreachable target straightens the chain toward it.
Result solve_fabrik(Chain& chain, const glm::vec3& target, std::span<glm::vec3> scratch,
                    int max_iterations, float tolerance);

// Analytic two-bone (n == 3: root, middle, effector). The middle joint bends toward `pole`
// when given (else keeps its current bend plane). soften in [0, 1): 0 = off; otherwise the
// reach is eased from soften * (l1 + l2) on, so the chain never snaps straight.
// `scratch` has 3 entries.
Result solve_two_bone(Chain& chain, const glm::vec3& target, const glm::vec3* pole, float soften,
                      std::span<glm::vec3> scratch);

}  // namespace anim::ik

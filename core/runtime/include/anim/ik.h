#pragma once
// Inverse kinematics on a chain of joints, solved in model space after animation and before
// the palette.

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "anim/status.h"

namespace anim {

enum class IkSolver : uint8_t {
  kCcd,      // cyclic coordinate descent, per-joint weights
  kFabrik,   // forward and backward reaching, rotations written back parent to child
  kTwoBone,  // analytic: root, middle (knee/elbow), effector; with a pole vector
};

enum class IkSpace : uint8_t {
  kModel,  // target in the character's model space
  kWorld,  // target in world space; mapped through the inverse root transform
};

// Only for kCcd / kFabrik, and never on the effector (the last joint is not rotated).
struct JointConstraint {
  enum class Kind : uint8_t { kNone, kBallSocket, kHinge } kind = Kind::kNone;
  // kBallSocket: the joint's child direction stays within cone_angle (radians, 0..pi) of its
  // rest direction. The bone to the next chain joint must have a non-zero rest length.
  float cone_angle = 0.0f;
  // kHinge: rotation only about `axis` (joint-local; any finite non-zero length, normalized
  // when the goal is set), between min_angle and max_angle (radians, -pi <= min_angle <=
  // max_angle <= pi) measured from the rest pose.
  glm::vec3 axis{1.0f, 0.0f, 0.0f};
  float min_angle = 0.0f;
  float max_angle = 0.0f;
};

// Ranges below are enforced by Animator::set_ik_goal, which refuses anything outside them
// (and NaN / infinity everywhere).
struct IkGoalDesc {
  std::string root_joint;      // first joint of the chain
  std::string effector_joint;  // last joint; must descend from root_joint; at most
                               // Animator::kMaxChainJoints joints from root to effector
  IkSolver solver = IkSolver::kFabrik;
  IkSpace space = IkSpace::kModel;
  // Where the effector should be: a point in asset units (the units of the skeleton's
  // translations), in the space named by `space` (model space, or world space through the
  // Animator's root transform). Finite.
  glm::vec3 target{0.0f};
  float weight = 1.0f;  // [0, 1]: blends the solved chain with the animated one
  // kTwoBone: the knee/elbow bends toward this point; optional. A point (not a direction),
  // in asset units and in the same space as target (`space`). Finite when has_pole.
  bool has_pole = false;
  glm::vec3 pole{0.0f};
  float soften = 0.0f;      // kTwoBone: [0, 1) fraction of chain length where softening
                            // starts; 0 = no softening
  int max_iterations = 16;  // kCcd, kFabrik: [1, 1000]
  float tolerance = 1e-4f;  // kCcd, kFabrik: > 0, asset units; stop when the effector is
                            // this close to the target
  // Optional per-joint settings, indexed from root (0) to effector; empty = defaults. When
  // given, each has exactly one entry per chain joint.
  std::vector<float> joint_weights;          // kCcd, [0, 1] per joint
  std::vector<JointConstraint> constraints;  // kCcd, kFabrik only (not kTwoBone)
};

}  // namespace anim

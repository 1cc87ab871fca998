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

struct JointConstraint {
  enum class Kind : uint8_t { kNone, kBallSocket, kHinge } kind = Kind::kNone;
  // kBallSocket: the joint's child direction stays within cone_angle (radians) of its rest
  // direction.
  float cone_angle = 0.0f;
  // kHinge: rotation only about `axis` (in the joint's rest local frame; normalized when the
  // goal is set), between min_angle and max_angle (radians, -pi <= min <= max <= pi)
  // measured from the joint's rest rotation.
  glm::vec3 axis{1.0f, 0.0f, 0.0f};
  float min_angle = 0.0f;
  float max_angle = 0.0f;
};

struct IkGoalDesc {
  std::string root_joint;      // first joint of the chain
  std::string effector_joint;  // last joint; must descend from root_joint (2..32 joints)
  IkSolver solver = IkSolver::kFabrik;
  IkSpace space = IkSpace::kModel;
  glm::vec3 target{0.0f};
  float weight = 1.0f;         // 0..1: blends the solved chain with the animated one
  // kTwoBone: the knee/elbow bends toward this point (same space as target); optional.
  bool has_pole = false;
  glm::vec3 pole{0.0f};
  // kTwoBone: in [0, 1); 0 = off, else the fraction of the full reach (l1 + l2) from which
  // the reach is eased so the limb never snaps straight (see docs/animation.md).
  float soften = 0.0f;
  int max_iterations = 16;     // kCcd, kFabrik: 1..1000 sweeps
  float tolerance = 1e-4f;     // kCcd, kFabrik: > 0; stop when the effector is this close (units)
  // Optional per-joint settings, indexed from root (0) to effector; empty = defaults, else
  // exactly one entry per chain joint.
  std::vector<float> joint_weights;            // kCcd, 0..1 per joint (0: never rotates)
  // kCcd and kFabrik only; the effector's entry must be kNone (it is never rotated).
  std::vector<JointConstraint> constraints;
};

}  // namespace anim

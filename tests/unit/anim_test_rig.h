#pragma once
// Small synthetic skeletons and clips built in code, for the blend / animator / IK tests.
//
// The "humanoid-like" rig (all bones along +y or +x, lengths in metres):
//   0 root (at origin)
//   1 spine      (+0.5 y)       2 chest   (+0.4 y)      3 head (+0.3 y)
//   4 upper_arm  (+0.2 x under chest)   5 forearm (+0.3 x)  6 hand (+0.25 x)
//   7 thigh      (-0.1 x under root)    8 shin    (-0.45 y) 9 foot (-0.45 y)
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/clip.h"
#include "anim/palette.h"
#include "anim/skeleton.h"

namespace animtest {

constexpr float kPi = std::numbers::pi_v<float>;

inline glm::quat axis_angle(float angle, glm::vec3 axis) {
  return glm::angleAxis(angle, glm::normalize(axis));
}

inline anim::Skeleton make_rig() {
  std::vector<std::string> names = {"root",    "spine", "chest", "head", "upper_arm",
                                    "forearm", "hand",  "thigh", "shin", "foot"};
  std::vector<int> parents = {-1, 0, 1, 2, 2, 4, 5, 0, 7, 8};
  std::vector<glm::vec3> offsets = {{0, 0, 0},      {0, 0.5f, 0},  {0, 0.4f, 0},  {0, 0.3f, 0},
                                    {0.2f, 0, 0},   {0.3f, 0, 0},  {0.25f, 0, 0}, {-0.1f, 0, 0},
                                    {0, -0.45f, 0}, {0, -0.45f, 0}};
  std::vector<anim::Transform> rest(names.size());
  for (size_t i = 0; i < names.size(); ++i) rest[i].translation = offsets[i];
  // Inverse bind = inverse of the rest model matrix, as a real exporter writes it.
  std::vector<glm::mat4> model(names.size());
  std::vector<glm::mat4> inverse_bind(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    glm::mat4 local = anim::to_matrix(rest[i]);
    model[i] = parents[i] < 0 ? local : model[parents[i]] * local;
    inverse_bind[i] = glm::inverse(model[i]);
  }
  auto s = anim::Skeleton::from_unordered(names, parents, rest, inverse_bind, glm::mat4(1.0f));
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message());
  return std::move(*s);
}

// A looping clip of `duration` seconds in which every joint rotates linearly from 0 to
// `angle` * (joint index + 1) / num_joints about `axis` (two keys, slerp), and the root
// translates by `root_move` along x. Distinct angle/axis give distinct clips.
inline anim::Clip make_swing_clip(const std::string& name, int num_joints, float duration,
                                  float angle, glm::vec3 axis, float root_move = 0.0f) {
  anim::Clip clip;
  clip.name = name;
  clip.joints.resize(num_joints);
  for (int j = 0; j < num_joints; ++j) {
    anim::QuatChannel ch;
    const float a = angle * static_cast<float>(j + 1) / static_cast<float>(num_joints);
    // Three keys so that a half-turn stays on the intended path.
    ch.times = {0.0f, duration * 0.5f, duration};
    ch.values = {glm::quat(1, 0, 0, 0), axis_angle(a * 0.5f, axis), axis_angle(a, axis)};
    clip.joints[j].rotation = static_cast<int>(clip.quat_channels.size());
    clip.quat_channels.push_back(std::move(ch));
  }
  anim::Vec3Channel move;
  move.times = {0.0f, duration};
  move.values = {{0, 0, 0}, {root_move, 0, 0}};
  clip.joints[0].translation = 0;
  clip.vec3_channels.push_back(std::move(move));
  anim::Status st = clip.finalize(num_joints);
  EXPECT_TRUE(st.is_ok()) << st.message();
  return clip;
}

// The rig with the pair of clips most Animator tests drive: "walk" (1 s, tilting about x,
// root 0 -> +1 x) and "run" (0.6 s, tilting about z, root 0 -> +2 x). Tests add their own
// clips after these two.
struct WalkRunRig {
  anim::Skeleton skeleton = make_rig();
  std::vector<anim::Clip> clips;
  WalkRunRig() {
    const int n = skeleton.num_joints();
    clips.push_back(make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, 1.0f));
    clips.push_back(make_swing_clip("run", n, 0.6f, -1.2f, {0, 0, 1}, 2.0f));
  }
};

inline bool same_bits(const anim::PaletteMatrix& a, const anim::PaletteMatrix& b) {
  for (int i = 0; i < 12; ++i)
    if (std::memcmp(&a.m[i], &b.m[i], sizeof(float)) != 0) return false;
  return true;
}

template <class A, class B>
bool same_palettes(const A& a, const B& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) return false;
  return true;
}

inline bool same_transform_bits(const anim::Transform& a, const anim::Transform& b) {
  return std::memcmp(&a, &b, sizeof(anim::Transform)) == 0;
}

// Angle in radians between two rotations (q and -q are the same rotation). atan2 of the
// relative rotation keeps precision for tiny angles, where acos(dot) cannot.
inline float rotation_angle(const glm::quat& a, const glm::quat& b) {
  const glm::quat r = glm::conjugate(a) * b;
  const float s = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  return 2.0f * std::atan2(s, std::abs(r.w));
}

}  // namespace animtest

#include "anim/animator.h"

namespace animtest {

// Model-space origin of a joint.
inline glm::vec3 joint_position(const anim::Animator& a, int joint) {
  return glm::vec3(a.model_matrices()[joint][3]);
}
inline glm::quat joint_rotation(const anim::Animator& a, int joint) {
  return anim::from_matrix(a.model_matrices()[joint]).rotation;
}

// The rig with one clip that bends every joint a little (so that IK starts from an animated,
// non-rest pose).
struct IkRig {
  anim::Skeleton skeleton = make_rig();
  std::vector<anim::Clip> clips;
  IkRig() {
    clips.push_back(make_swing_clip("bend", skeleton.num_joints(), 1.0f, 0.6f, {0, 0, 1}));
  }
  int joint(const char* name) const { return skeleton.find_joint(name); }
  // An animator playing "bend" at 0.5 s, updated once.
  anim::Animator animator() const {
    anim::Animator a(skeleton, clips);
    EXPECT_TRUE(a.play(0, {.start_time = 0.5f}));
    EXPECT_TRUE(a.update(0.0f));
    return a;
  }
};

inline anim::IkGoalDesc goal(const char* root, const char* effector, anim::IkSolver solver,
                             glm::vec3 target) {
  anim::IkGoalDesc g;
  g.root_joint = root;
  g.effector_joint = effector;
  g.solver = solver;
  g.target = target;
  return g;
}

// The rig's arm as a FABRIK goal in world space, with a ball-socket shoulder (cone 1 rad) and a
// hinged elbow (about z, from -2.5 rad): the constrained goal of the every-feature tests.
inline anim::IkGoalDesc constrained_arm_goal(glm::vec3 world_target) {
  anim::IkGoalDesc arm = goal("upper_arm", "hand", anim::IkSolver::kFabrik, world_target);
  arm.space = anim::IkSpace::kWorld;
  arm.constraints.resize(3);
  arm.constraints[0].kind = anim::JointConstraint::Kind::kBallSocket;
  arm.constraints[0].cone_angle = 1.0f;
  arm.constraints[1].kind = anim::JointConstraint::Kind::kHinge;
  arm.constraints[1].axis = {0, 0, 1};
  arm.constraints[1].min_angle = -2.5f;
  return arm;
}

}  // namespace animtest

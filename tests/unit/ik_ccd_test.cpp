// CCD and FABRIK through the Animator on the synthetic rig's arm, leg and a five-joint
// spine-to-hand chain: reachable goals within 1 mm, unreachable goals straighten, per-joint
// CCD weights, and the solver-level write-back.
#include <gtest/gtest.h>

#include "anim/ik_solvers.h"
#include "anim_test_rig.h"

namespace anim {
namespace ik_ccd_test {

using animtest::goal;
using animtest::IkRig;
using animtest::joint_position;

struct Case {
  const char* root;
  const char* effector;
  glm::vec3 offset;  // target relative to the chain root (reachable)
};

const Case kReachable[] = {
    {"upper_arm", "hand", {0.3f, -0.25f, 0.2f}}, {"upper_arm", "hand", {-0.1f, 0.3f, 0.25f}},
    {"thigh", "foot", {0.2f, -0.7f, 0.3f}},      {"spine", "hand", {0.6f, 0.2f, 0.3f}},
    {"spine", "hand", {-0.3f, 0.9f, -0.2f}},
};

void expect_reaches(IkSolver solver, int iterations) {
  IkRig rig;
  for (const Case& c : kReachable) {
    Animator a = rig.animator();
    const glm::vec3 target = joint_position(a, rig.joint(c.root)) + c.offset;
    IkGoalDesc g = goal(c.root, c.effector, solver, target);
    g.max_iterations = iterations;
    ASSERT_TRUE(a.set_ik_goal(g).has_value());
    ASSERT_TRUE(a.update(0.0f));
    EXPECT_LT(glm::length(joint_position(a, rig.joint(c.effector)) - target), 1e-3f)
        << c.root << ".." << c.effector;
    // The chain root did not move and the rest of the skeleton follows its parents.
    Animator plain = rig.animator();
    EXPECT_LT(glm::length(joint_position(a, rig.joint(c.root)) -
                          joint_position(plain, rig.joint(c.root))),
              1e-6f);
  }
}

TEST(IkCcd, ReachesReachableTargetsWithin1mm) {
  expect_reaches(IkSolver::kCcd, 32);
}
TEST(IkFabrik, ReachesReachableTargetsWithin1mm) {
  expect_reaches(IkSolver::kFabrik, 16);
}

void expect_straightens(IkSolver solver, float angle_tolerance) {
  IkRig rig;
  Animator a = rig.animator();
  const char* names[] = {"spine", "chest", "upper_arm", "forearm", "hand"};
  const glm::vec3 root = joint_position(a, rig.joint("spine"));
  const glm::vec3 target = root + glm::vec3(2.0f, 1.0f, -1.0f);
  IkGoalDesc g = goal("spine", "hand", solver, target);
  g.max_iterations = 64;
  ASSERT_TRUE(a.set_ik_goal(g).has_value());
  ASSERT_TRUE(a.update(0.0f));
  const glm::vec3 dir = glm::normalize(target - root);
  for (int k = 0; k + 1 < 5; ++k) {
    const glm::vec3 bone =
        joint_position(a, rig.joint(names[k + 1])) - joint_position(a, rig.joint(names[k]));
    const float angle = std::acos(std::min(1.0f, glm::dot(glm::normalize(bone), dir)));
    EXPECT_LT(angle, angle_tolerance) << names[k];
  }
}

TEST(IkFabrik, UnreachableTargetStraightensTheChainTowardIt) {
  expect_straightens(IkSolver::kFabrik, 1e-3f);
}
TEST(IkCcd, UnreachableTargetStraightensTheChainTowardIt) {
  expect_straightens(IkSolver::kCcd, 0.02f);
}

TEST(IkCcd, JointWeightZeroKeepsThatJointAnimated) {
  IkRig rig;
  Animator plain = rig.animator(), a = rig.animator();
  const glm::vec3 target = joint_position(a, rig.joint("spine")) + glm::vec3(0.5f, 0.3f, 0.3f);
  IkGoalDesc g = goal("spine", "hand", IkSolver::kCcd, target);
  g.joint_weights = {0.0f, 1.0f, 0.5f, 1.0f, 1.0f};
  ASSERT_TRUE(a.set_ik_goal(g).has_value());
  ASSERT_TRUE(a.update(0.0f));
  const int spine = rig.joint("spine");
  EXPECT_LT(animtest::rotation_angle(a.local_pose().locals[spine].rotation,
                                     plain.local_pose().locals[spine].rotation),
            1e-5f);
  EXPECT_GT(animtest::rotation_angle(a.local_pose().locals[rig.joint("chest")].rotation,
                                     plain.local_pose().locals[rig.joint("chest")].rotation),
            1e-3f);
}

TEST(IkChain, WriteBackPutsEveryChildOnItsSolvedPosition) {
  // A straight three-joint chain along +x (lengths 1, 1) rotated onto an L shape.
  std::vector<glm::vec3> pos = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  std::vector<glm::quat> rot(3, glm::quat(1, 0, 0, 0));
  ik::Chain chain;
  chain.positions = pos;
  chain.rotations = rot;
  const std::vector<glm::vec3> solved = {{0, 0, 0}, {0, 1, 0}, {-1, 1, 0}};
  ik::write_back(chain, solved);
  for (int k = 0; k < 3; ++k) EXPECT_LT(glm::length(pos[k] - solved[k]), 1e-6f) << k;
  // Joint 0 turned +90 degrees about z, joint 1 another +90: locals are both 90 degrees.
  EXPECT_LT(
      animtest::rotation_angle(chain.local(0), animtest::axis_angle(animtest::kPi / 2, {0, 0, 1})),
      1e-5f);
  EXPECT_LT(
      animtest::rotation_angle(chain.local(1), animtest::axis_angle(animtest::kPi / 2, {0, 0, 1})),
      1e-5f);
  // The effector was carried along: its model rotation is the sum, 180 degrees.
  EXPECT_LT(animtest::rotation_angle(rot[2], animtest::axis_angle(animtest::kPi, {0, 0, 1})),
            1e-5f);
}

TEST(IkChain, RotationBetweenHandlesOppositeAndZeroVectors) {
  const glm::quat q = ik::rotation_between({1, 0, 0}, {-2, 0, 0});
  EXPECT_LT(glm::length(q * glm::vec3(1, 0, 0) - glm::vec3(-1, 0, 0)), 1e-5f);
  const glm::quat id = ik::rotation_between({0, 0, 0}, {1, 0, 0});
  EXPECT_EQ(id, glm::quat(1, 0, 0, 0));
  const glm::quat r = ik::rotation_between({0, 3, 0}, {0, 0, 0.5f});
  EXPECT_LT(glm::length(r * glm::vec3(0, 1, 0) - glm::vec3(0, 0, 1)), 1e-6f);
}

}  // namespace ik_ccd_test
}  // namespace anim

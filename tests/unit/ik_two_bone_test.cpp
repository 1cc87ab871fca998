// Analytic two-bone IK through the Animator: reach, pole vector, straightening, softening,
// weights, world-space targets and rejected goals.
#include <limits>

#include <gtest/gtest.h>

#include "anim/ik_solvers.h"
#include "anim_test_rig.h"

namespace anim {
namespace ik_two_bone_test {

using animtest::goal;
using animtest::IkRig;
using animtest::joint_position;

TEST(IkTwoBone, ReachesTheTargetAndBendsTowardThePole) {
  IkRig rig;
  Animator a = rig.animator();
  const int thigh = rig.joint("thigh"), shin = rig.joint("shin"), foot = rig.joint("foot");
  const glm::vec3 hip = joint_position(a, thigh);
  const glm::vec3 target = hip + glm::vec3(0.1f, -0.6f, 0.3f);  // 0.68 < 0.9: reachable
  for (glm::vec3 pole_dir : {glm::vec3(0, 0, 1), glm::vec3(1, 0, 0), glm::vec3(0, 0, -1)}) {
    Animator b = a;
    IkGoalDesc g = goal("thigh", "foot", IkSolver::kTwoBone, target);
    g.has_pole = true;
    g.pole = hip + glm::vec3(0, -0.3f, 0) + pole_dir;
    ASSERT_TRUE(b.set_ik_goal(g).has_value());
    ASSERT_TRUE(b.update(0.0f));
    EXPECT_LT(glm::length(joint_position(b, foot) - target), 1e-4f);
    // Bone lengths kept.
    EXPECT_NEAR(glm::length(joint_position(b, shin) - hip), 0.45f, 1e-4f);
    EXPECT_NEAR(glm::length(joint_position(b, foot) - joint_position(b, shin)), 0.45f, 1e-4f);
    // The knee lies in the plane of hip, target and pole, on the pole's side.
    const glm::vec3 axis = glm::normalize(target - hip);
    auto perp = [&](glm::vec3 v) {
      v -= hip;
      return v - axis * glm::dot(v, axis);
    };
    const glm::vec3 knee = perp(joint_position(b, shin)), p = perp(g.pole);
    EXPECT_GT(glm::dot(glm::normalize(knee), glm::normalize(p)), 1.0f - 1e-4f);
  }
}

TEST(IkTwoBone, UnreachableTargetStraightensTheChainTowardIt) {
  IkRig rig;
  Animator a = rig.animator();
  const int thigh = rig.joint("thigh"), shin = rig.joint("shin"), foot = rig.joint("foot");
  const glm::vec3 hip = joint_position(a, thigh);
  const glm::vec3 target = hip + glm::vec3(1.0f, -2.0f, 0.5f);
  ASSERT_TRUE(a.set_ik_goal(goal("thigh", "foot", IkSolver::kTwoBone, target)).has_value());
  ASSERT_TRUE(a.update(0.0f));
  const glm::vec3 dir = glm::normalize(target - hip);
  EXPECT_LT(glm::length(joint_position(a, shin) - (hip + 0.45f * dir)), 1e-4f);
  EXPECT_LT(glm::length(joint_position(a, foot) - (hip + 0.9f * dir)), 1e-4f);
}

TEST(IkTwoBone, SoftenKeepsTheKneeBentNearFullReach) {
  IkRig rig;
  Animator a = rig.animator();
  const int thigh = rig.joint("thigh"), foot = rig.joint("foot");
  const glm::vec3 hip = joint_position(a, thigh);
  IkGoalDesc g = goal("thigh", "foot", IkSolver::kTwoBone, hip + glm::vec3(0, -0.9f, 0));
  g.soften = 0.9f;
  auto id = a.set_ik_goal(g);
  ASSERT_TRUE(id.has_value());
  // Reach 0.9, softening from 0.81: at distance 0.9 the foot stops at
  // 0.81 + 0.09 * (1 - e^-1) = 0.866892; below 0.81 the target is reached exactly.
  ASSERT_TRUE(a.update(0.0f));
  EXPECT_NEAR(glm::length(joint_position(a, foot) - hip), 0.81f + 0.09f * (1 - std::exp(-1.0f)),
              1e-4f);
  ASSERT_TRUE(a.update_ik_target(*id, hip + glm::vec3(0, -0.7f, 0), 1.0f));
  ASSERT_TRUE(a.update(0.0f));
  EXPECT_LT(glm::length(joint_position(a, foot) - (hip + glm::vec3(0, -0.7f, 0))), 1e-4f);
}

TEST(IkTwoBone, WeightBlendsSolvedAndAnimatedRotations) {
  IkRig rig;
  const Animator animated = rig.animator();
  const glm::vec3 hip = joint_position(animated, rig.joint("thigh"));
  IkGoalDesc g = goal("thigh", "foot", IkSolver::kTwoBone, hip + glm::vec3(0.3f, -0.5f, 0.2f));
  g.weight = 0.0f;
  Animator zero = animated, half = animated, full = animated;
  ASSERT_TRUE(zero.set_ik_goal(g).has_value());
  g.weight = 0.5f;
  ASSERT_TRUE(half.set_ik_goal(g).has_value());
  g.weight = 1.0f;
  ASSERT_TRUE(full.set_ik_goal(g).has_value());
  Animator none = animated;
  for (Animator* x : {&zero, &half, &full, &none}) ASSERT_TRUE(x->update(0.0f));
  EXPECT_TRUE(animtest::same_palettes(zero.palette(), none.palette()));  // weight 0 = animated
  for (const char* name : {"thigh", "shin"}) {
    const int j = rig.joint(name);
    const glm::quat expected = slerp_shortest(none.local_pose().locals[j].rotation,
                                              full.local_pose().locals[j].rotation, 0.5f);
    EXPECT_LT(animtest::rotation_angle(half.local_pose().locals[j].rotation, expected), 1e-5f);
  }
}

TEST(IkTwoBone, WorldTargetsGoThroughTheInverseRootTransform) {
  IkRig rig;
  Animator model = rig.animator(), world = rig.animator();
  const Transform root{{3, 0, -2}, animtest::axis_angle(1.0f, {0, 1, 0}), {2, 2, 2}};
  ASSERT_TRUE(world.set_root_transform(root));
  const glm::vec3 hip = joint_position(model, rig.joint("thigh"));
  const glm::vec3 target = hip + glm::vec3(0.2f, -0.6f, 0.1f), pole = hip + glm::vec3(0, 0, 1);
  IkGoalDesc g = goal("thigh", "foot", IkSolver::kTwoBone, target);
  g.has_pole = true;
  g.pole = pole;
  ASSERT_TRUE(model.set_ik_goal(g).has_value());
  g.space = IkSpace::kWorld;
  g.target = transform_point(root, target);
  g.pole = transform_point(root, pole);
  ASSERT_TRUE(world.set_ik_goal(g).has_value());
  ASSERT_TRUE(model.update(0.0f));
  ASSERT_TRUE(world.update(0.0f));
  const int foot = rig.joint("foot");
  EXPECT_LT(glm::length(joint_position(world, foot) - target), 1e-4f);
  EXPECT_LT(glm::length(joint_position(world, foot) - joint_position(model, foot)), 1e-5f);
}

TEST(IkGoals, BadGoalsAreRejectedAndChangeNothing) {
  IkRig rig;
  Animator ref = rig.animator(), a = rig.animator();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const glm::vec3 t(0.3f, 0.5f, 0.1f);
  auto with = [&](auto edit) {
    IkGoalDesc g = goal("upper_arm", "hand", IkSolver::kFabrik, t);
    edit(g);
    return g;
  };
  std::vector<std::pair<IkGoalDesc, StatusCode>> bad = {
      {goal("nope", "hand", IkSolver::kFabrik, t), StatusCode::kNotFound},
      {goal("upper_arm", "nope", IkSolver::kFabrik, t), StatusCode::kNotFound},
      {goal("hand", "upper_arm", IkSolver::kFabrik, t), StatusCode::kInvalidArgument},
      {goal("upper_arm", "foot", IkSolver::kFabrik, t), StatusCode::kInvalidArgument},
      {goal("hand", "hand", IkSolver::kCcd, t), StatusCode::kInvalidArgument},
      {goal("spine", "hand", IkSolver::kTwoBone, t), StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) { g.target.x = nan; }), StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) { g.weight = 1.5f; }), StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) { g.weight = nan; }), StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) {
         g.has_pole = true;
         g.pole.y = nan;
       }),
       StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) {
         g.joint_weights = {1, 1};
       }),
       StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) {
         g.joint_weights = {1, -1, 1};
       }),
       StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) { g.constraints.resize(2); }), StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) {
         g.constraints.resize(3);
         g.constraints[1].kind = JointConstraint::Kind::kHinge;
         g.constraints[1].axis = {0, 0, 0};
       }),
       StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) {
         g.constraints.resize(3);
         g.constraints[0].kind = JointConstraint::Kind::kBallSocket;
         g.constraints[0].cone_angle = -1;
       }),
       StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) { g.max_iterations = 0; }), StatusCode::kInvalidArgument},
      {with([&](IkGoalDesc& g) { g.soften = 1.0f; }), StatusCode::kInvalidArgument},
  };
  for (auto& [g, code] : bad) {
    auto r = a.set_ik_goal(g);
    ASSERT_FALSE(r.has_value()) << g.root_joint << ".." << g.effector_joint;
    EXPECT_EQ(r.error().code(), code) << r.error().message();
    EXPECT_FALSE(r.error().message().empty());
  }
  EXPECT_NE(a.set_ik_goal(bad[0].first).error().message().find("nope"), std::string::npos);
  EXPECT_FALSE(a.update_ik_target(42, t, 1.0f));
  EXPECT_FALSE(a.clear_ik_goal(42));
  auto id = a.set_ik_goal(goal("upper_arm", "hand", IkSolver::kFabrik, t));
  auto id_ref = ref.set_ik_goal(goal("upper_arm", "hand", IkSolver::kFabrik, t));
  ASSERT_TRUE(id.has_value() && id_ref.has_value());
  EXPECT_FALSE(a.update_ik_target(*id, {nan, 0, 0}, 1.0f));
  EXPECT_FALSE(a.update_ik_target(*id, t, -0.1f));
  EXPECT_EQ(a.num_ik_goals(), 1);
  ASSERT_TRUE(a.update(0.1f));
  ASSERT_TRUE(ref.update(0.1f));
  EXPECT_TRUE(animtest::same_palettes(a.palette(), ref.palette()));
  EXPECT_TRUE(a.clear_ik_goal(*id));
  EXPECT_EQ(a.num_ik_goals(), 0);
}

}  // namespace ik_two_bone_test
}  // namespace anim

// Joint constraints inside CCD and FABRIK: hinge joints stay in their plane and inside their
// limits, cone limits are never exceeded, over many targets.
#include <gtest/gtest.h>

#include "anim/ik_solvers.h"
#include "anim_test_rig.h"

namespace anim {
namespace ik_constraints_test {

using animtest::goal;
using animtest::IkRig;
using animtest::joint_position;
using animtest::kPi;

// A deterministic spread of targets around a point.
std::vector<glm::vec3> targets_around(glm::vec3 c, float r) {
  std::vector<glm::vec3> out;
  for (int i = 0; i < 24; ++i) {
    const float a = 0.7f * i, b = 0.3f * i;
    out.push_back(c +
                  r * glm::vec3(std::cos(a) * std::cos(b), std::sin(b), std::sin(a) * std::cos(b)) *
                      (0.4f + 0.05f * (i % 12)));
  }
  return out;
}

void check_hinge(IkSolver solver) {
  IkRig rig;
  const int upper = rig.joint("upper_arm"), fore = rig.joint("forearm"), hand = rig.joint("hand");
  const glm::vec3 axis(0, 0, 1);  // elbow bends about the forearm's local z
  const float lo = -2.5f, hi = 0.0f;
  Animator base = rig.animator();
  for (const glm::vec3& target : targets_around(joint_position(base, upper), 0.6f)) {
    Animator a = rig.animator();
    IkGoalDesc g = goal("upper_arm", "hand", solver, target);
    g.constraints.resize(3);
    g.constraints[1].kind = JointConstraint::Kind::kHinge;
    g.constraints[1].axis = axis;
    g.constraints[1].min_angle = lo;
    g.constraints[1].max_angle = hi;
    g.max_iterations = 32;
    ASSERT_TRUE(a.set_ik_goal(g).has_value());
    ASSERT_TRUE(a.update(0.0f));
    // The hinge plane: through the elbow, normal to the axis in model space (the parent's
    // model rotation times the rest rotation times the local axis).
    const glm::quat frame =
        animtest::joint_rotation(a, upper) * rig.skeleton.rest_pose[fore].rotation;
    const glm::vec3 normal = frame * axis;
    const glm::vec3 bone = glm::normalize(joint_position(a, hand) - joint_position(a, fore));
    const float off_plane = std::asin(std::min(1.0f, std::abs(glm::dot(bone, normal))));
    EXPECT_LT(off_plane, 0.5f * kPi / 180.0f)
        << "target " << target.x << "," << target.y << "," << target.z;
    // And the angle about the axis is inside the limits.
    const glm::quat offset = glm::conjugate(rig.skeleton.rest_pose[fore].rotation) *
                             a.local_pose().locals[fore].rotation;
    const float theta =
        2.0f * std::atan2(glm::dot(glm::vec3(offset.x, offset.y, offset.z), axis), offset.w);
    const float wrapped = theta > kPi ? theta - 2 * kPi : (theta < -kPi ? theta + 2 * kPi : theta);
    EXPECT_GE(wrapped, lo - 1e-4f);
    EXPECT_LE(wrapped, hi + 1e-4f);
  }
}

TEST(IkConstraints, HingeStaysInItsPlaneAndLimitsCcd) {
  check_hinge(IkSolver::kCcd);
}
TEST(IkConstraints, HingeStaysInItsPlaneAndLimitsFabrik) {
  check_hinge(IkSolver::kFabrik);
}

void check_cone(IkSolver solver) {
  IkRig rig;
  const int chest = rig.joint("chest"), upper = rig.joint("upper_arm"), fore = rig.joint("forearm");
  const float cone = 0.35f;
  Animator base = rig.animator();
  int reached = 0;
  for (const glm::vec3& target : targets_around(joint_position(base, upper), 0.6f)) {
    Animator a = rig.animator();
    IkGoalDesc g = goal("upper_arm", "hand", solver, target);
    g.constraints.resize(3);
    g.constraints[0].kind = JointConstraint::Kind::kBallSocket;
    g.constraints[0].cone_angle = cone;
    g.max_iterations = 32;
    ASSERT_TRUE(a.set_ik_goal(g).has_value());
    ASSERT_TRUE(a.update(0.0f));
    // Bone direction (upper arm -> forearm) against the rest direction, both in the chest's
    // model frame.
    const glm::quat chest_rot = animtest::joint_rotation(a, chest);
    const glm::vec3 bone = glm::normalize(joint_position(a, fore) - joint_position(a, upper));
    const glm::vec3 rest = glm::normalize(chest_rot * (rig.skeleton.rest_pose[upper].rotation *
                                                       rig.skeleton.rest_pose[fore].translation));
    EXPECT_LE(std::acos(std::min(1.0f, glm::dot(bone, rest))), cone + 1e-3f);
    if (glm::length(joint_position(a, rig.joint("hand")) - target) < 1e-3f) ++reached;
  }
  // The constraint restricts, but targets inside the cone's reach are still reached.
  EXPECT_GT(reached, 0);
}

TEST(IkConstraints, ConeLimitNeverExceededCcd) {
  check_cone(IkSolver::kCcd);
}
TEST(IkConstraints, ConeLimitNeverExceededFabrik) {
  check_cone(IkSolver::kFabrik);
}

TEST(IkConstraints, HingeConstrainIsTheClampedTwist) {
  JointConstraint c;
  c.kind = JointConstraint::Kind::kHinge;
  c.axis = {0, 0, 1};
  c.min_angle = -1.0f;
  c.max_angle = 0.5f;
  const glm::quat rest = animtest::axis_angle(0.3f, {1, 0, 0});
  // 0.2 about the axis plus a swing about x: the swing is dropped, the twist kept.
  const glm::quat local =
      rest * animtest::axis_angle(0.2f, {0, 0, 1}) * animtest::axis_angle(0.4f, {1, 0, 0});
  const glm::quat out = ik::constrain(c, rest, {0, 1, 0}, local);
  const glm::quat twist_only = rest * animtest::axis_angle(0.2f, {0, 0, 1});
  // Twist extraction of twist * swing about a perpendicular axis is the twist itself only
  // when the swing axis is perpendicular: here x is perpendicular to z.
  EXPECT_LT(animtest::rotation_angle(out, twist_only), 0.05f);
  // Beyond the limit: clamped to 0.5 exactly.
  const glm::quat far = rest * animtest::axis_angle(1.2f, {0, 0, 1});
  EXPECT_LT(animtest::rotation_angle(ik::constrain(c, rest, {0, 1, 0}, far),
                                     rest * animtest::axis_angle(0.5f, {0, 0, 1})),
            1e-5f);
}

TEST(IkConstraints, ConeConstrainMovesTheBoneOntoTheRim) {
  JointConstraint c;
  c.kind = JointConstraint::Kind::kBallSocket;
  c.cone_angle = 0.5f;
  const glm::quat rest(1, 0, 0, 0);
  const glm::quat local = animtest::axis_angle(1.2f, {0, 0, 1});  // bone +y swung 1.2 rad
  const glm::quat out = ik::constrain(c, rest, {0, 1, 0}, local);
  const glm::vec3 dir = out * glm::vec3(0, 1, 0);
  EXPECT_NEAR(std::acos(dir.y), 0.5f, 1e-5f);
  EXPECT_NEAR(dir.z, 0.0f, 1e-6f);  // same plane as the swing
  const glm::quat inside = animtest::axis_angle(0.3f, {1, 0, 0});
  EXPECT_EQ(ik::constrain(c, rest, {0, 1, 0}, inside), inside);
}

}  // namespace ik_constraints_test
}  // namespace anim

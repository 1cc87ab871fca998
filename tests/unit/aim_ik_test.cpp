// Aim (look-at) IK on the builtin character: the head's forward axis reaches the target,
// per-joint limits hold, the pole twists the head upright, weight 0 changes nothing.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"

namespace anim {
namespace aim_ik_test {

const Asset& builtin() {
  static const Asset asset = make_builtin_character();
  return asset;
}

int clip_index(const char* name) {
  const auto& clips = builtin().clips;
  for (size_t i = 0; i < clips.size(); ++i)
    if (clips[i].name == name) return static_cast<int>(i);
  return -1;
}

float angle_deg(glm::vec3 a, glm::vec3 b) {
  const float c = glm::dot(glm::normalize(a), glm::normalize(b));
  return glm::degrees(std::acos(std::clamp(c, -1.0f, 1.0f)));
}

AimIkDesc head_aim(glm::vec3 target) {
  AimIkDesc d;
  d.root_joint = "spine";
  d.end_joint = "head";
  d.forward_axis = {0.0f, 0.0f, 1.0f};  // the builtin character faces +Z
  d.target = target;
  return d;
}

glm::vec3 position(const Animator& a, const char* joint) {
  return glm::vec3(a.model_matrices()[a.skeleton().find_joint(joint)][3]);
}
glm::vec3 axis(const Animator& a, const char* joint, glm::vec3 local) {
  return glm::vec3(a.model_matrices()[a.skeleton().find_joint(joint)] * glm::vec4(local, 0.0f));
}

TEST(AimIk, HeadForwardHitsAReachableTargetWithinHalfADegree) {
  const glm::vec3 targets[] = {
      {1.0f, 1.6f, 1.0f}, {-0.5f, 2.5f, 1.0f}, {0.3f, 0.8f, 2.0f}, {2.0f, 1.7f, -0.2f}};
  for (const glm::vec3& target : targets) {
    Animator a(builtin().skeleton, builtin().clips);
    ASSERT_TRUE(a.play(clip_index("walk")).is_ok());
    ASSERT_TRUE(a.set_aim_ik(head_aim(target)).is_ok());
    for (int tick = 0; tick < 20; ++tick) {
      ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
      const glm::vec3 head = position(a, "head");
      EXPECT_LT(angle_deg(axis(a, "head", {0, 0, 1}), target - head), 0.5f)
          << "target " << target.x << "," << target.y << "," << target.z << " tick " << tick;
    }
  }
}

TEST(AimIk, WorldSpaceTargetGoesThroughTheRoot) {
  Animator a(builtin().skeleton, builtin().clips);
  Transform root;
  root.translation = {5.0f, 0.0f, -3.0f};
  root.rotation = glm::angleAxis(1.0f, glm::vec3(0, 1, 0));
  ASSERT_TRUE(a.set_root_transform(root).is_ok());
  AimIkDesc d = head_aim({4.0f, 1.5f, -1.0f});
  d.space = IkSpace::kWorld;
  ASSERT_TRUE(a.set_aim_ik(d).is_ok());
  ASSERT_TRUE(a.update(0.0f).is_ok());
  const glm::mat4 world = to_matrix(root);
  const glm::vec3 head(world * glm::vec4(position(a, "head"), 1.0f));
  const glm::vec3 forward(world * glm::vec4(axis(a, "head", {0, 0, 1}), 0.0f));
  EXPECT_LT(angle_deg(forward, d.target - head), 0.5f);
  // Moving the target each tick.
  const glm::vec3 next{6.0f, 2.0f, 0.0f};
  ASSERT_TRUE(a.update_aim_target(next, 1.0f).is_ok());
  ASSERT_TRUE(a.update(0.0f).is_ok());
  const glm::vec3 head2(world * glm::vec4(position(a, "head"), 1.0f));
  const glm::vec3 forward2(world * glm::vec4(axis(a, "head", {0, 0, 1}), 0.0f));
  EXPECT_LT(angle_deg(forward2, next - head2), 0.5f);
}

TEST(AimIk, PerJointLimitsHold) {
  // A target straight behind: each joint would turn far; limited to 0.3 rad from the animation.
  Animator plain(builtin().skeleton, builtin().clips);
  Animator a(builtin().skeleton, builtin().clips);
  AimIkDesc d = head_aim({0.3f, 1.6f, -2.0f});
  d.max_angles = {0.3f, 0.3f, 0.3f, 0.3f};  // spine, chest, neck, head
  ASSERT_TRUE(a.set_aim_ik(d).is_ok());
  for (Animator* x : {&plain, &a}) ASSERT_TRUE(x->play(clip_index("idle")).is_ok());
  for (int tick = 0; tick < 10; ++tick) {
    ASSERT_TRUE(plain.update(0.05f).is_ok());
    ASSERT_TRUE(a.update(0.05f).is_ok());
    float total = 0.0f;
    for (const char* joint : {"spine", "chest", "neck", "head"}) {
      const int j = a.skeleton().find_joint(joint);
      const glm::quat delta =
          glm::conjugate(plain.local_pose().locals[j].rotation) * a.local_pose().locals[j].rotation;
      const float angle = ik::rotation_angle(glm::normalize(delta));
      EXPECT_LE(angle, 0.3f + 1e-4f) << joint;
      total += angle;
    }
    EXPECT_GT(total, 1.1f);  // every joint used its whole range (the target is out of reach)
  }
}

TEST(AimIk, JointWeightsSpreadTheTurn) {
  // Weights 1, 1, 0, 1 over spine, chest, neck, head: the neck does not turn, the spine takes
  // a third of the turn, the chest half of what is left, the head the rest.
  Animator plain(builtin().skeleton, builtin().clips);
  Animator a(builtin().skeleton, builtin().clips);
  AimIkDesc d = head_aim({1.6f, 1.6f, 0.0f});  // 90 degrees to the left, at head height
  d.joint_weights = {1.0f, 1.0f, 0.0f, 1.0f};
  ASSERT_TRUE(a.set_aim_ik(d).is_ok());
  ASSERT_TRUE(plain.update(0.0f).is_ok());
  ASSERT_TRUE(a.update(0.0f).is_ok());
  const auto turn = [&](const char* joint) {
    const int j = a.skeleton().find_joint(joint);
    return ik::rotation_angle(glm::normalize(glm::conjugate(plain.local_pose().locals[j].rotation) *
                                             a.local_pose().locals[j].rotation));
  };
  EXPECT_NEAR(turn("neck"), 0.0f, 1e-5f);
  EXPECT_NEAR(turn("spine"), glm::radians(30.0f), glm::radians(1.5f));
  EXPECT_GT(turn("chest"), glm::radians(25.0f));
  EXPECT_GT(turn("head"), glm::radians(25.0f));
  EXPECT_LT(angle_deg(axis(a, "head", {0, 0, 1}), d.target - position(a, "head")), 0.5f);
}

TEST(AimIk, PoleTwistsTheUpAxisTowardIt) {
  Animator a(builtin().skeleton, builtin().clips);
  AimIkDesc d = head_aim({0.0f, 3.0f, 1.0f});  // up and ahead
  d.has_pole = true;
  d.up_axis = {0.0f, 1.0f, 0.0f};
  d.pole = {1.0f, 0.0f, 0.0f};  // the head's up leans to the character's left
  ASSERT_TRUE(a.set_aim_ik(d).is_ok());
  ASSERT_TRUE(a.update(0.0f).is_ok());
  const glm::vec3 f = glm::normalize(axis(a, "head", {0, 0, 1}));
  EXPECT_LT(angle_deg(f, d.target - position(a, "head")), 0.5f);
  const glm::vec3 up = axis(a, "head", {0, 1, 0});
  const glm::vec3 pu = up - f * glm::dot(up, f), pp = d.pole - f * glm::dot(d.pole, f);
  EXPECT_LT(angle_deg(pu, pp), 0.5f);
}

TEST(AimIk, WeightZeroIsBitIdenticalToNoAim) {
  Animator plain(builtin().skeleton, builtin().clips);
  Animator a(builtin().skeleton, builtin().clips);
  AimIkDesc d = head_aim({1.0f, 1.0f, 1.0f});
  d.weight = 0.0f;
  ASSERT_TRUE(a.set_aim_ik(d).is_ok());
  for (Animator* x : {&plain, &a}) ASSERT_TRUE(x->play(clip_index("walk")).is_ok());
  for (int tick = 0; tick < 30; ++tick) {
    ASSERT_TRUE(plain.update(1.0f / 30.0f).is_ok());
    ASSERT_TRUE(a.update(1.0f / 30.0f).is_ok());
    ASSERT_EQ(std::memcmp(plain.palette().data(), a.palette().data(), plain.palette().size_bytes()),
              0);
  }
  // And a weight between 0 and 1 lies between the two.
  ASSERT_TRUE(a.update_aim_target(d.target, 0.5f).is_ok());
  ASSERT_TRUE(a.update(0.0f).is_ok());
  ASSERT_TRUE(plain.update(0.0f).is_ok());
  EXPECT_NE(std::memcmp(plain.palette().data(), a.palette().data(), plain.palette().size_bytes()),
            0);
}

TEST(AimIk, BadInputIsRefusedAndChangesNothing) {
  Animator a(builtin().skeleton, builtin().clips);
  const auto refused = [&](AimIkDesc d, StatusCode code, const char* words) {
    const Status s = a.set_aim_ik(d);
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
    EXPECT_FALSE(a.has_aim_ik());
  };
  AimIkDesc d = head_aim({0, 1, 1});
  d.end_joint = "nope";
  refused(d, StatusCode::kNotFound, "nope");
  d = head_aim({0, 1, 1});
  d.root_joint = "hand_l";
  refused(d, StatusCode::kInvalidArgument, "does not descend");
  d = head_aim({0, 1, 1});
  d.forward_axis = {0, 0, 0};
  refused(d, StatusCode::kInvalidArgument, "forward_axis");
  d = head_aim({0, NAN, 1});
  refused(d, StatusCode::kInvalidArgument, "target");
  d = head_aim({0, 1, 1});
  d.weight = 1.5f;
  refused(d, StatusCode::kInvalidArgument, "weight");
  d = head_aim({0, 1, 1});
  d.max_angles = {0.1f, 0.1f, 4.0f, 0.1f};
  refused(d, StatusCode::kInvalidArgument, "max angle");
  d = head_aim({0, 1, 1});
  d.joint_weights = {1.0f, 1.0f};
  refused(d, StatusCode::kInvalidArgument, "joint weights");
  d = head_aim({0, 1, 1});
  d.joint_weights = {0.0f, 0.0f, 0.0f, 0.0f};
  refused(d, StatusCode::kInvalidArgument, "every joint weight is 0");
  d = head_aim({0, 1, 1});
  d.has_pole = true;
  d.up_axis = {0, 0, 2};
  refused(d, StatusCode::kInvalidArgument, "parallel");
  EXPECT_EQ(a.update_aim_target({0, 0, 0}, 1.0f).code(), StatusCode::kNotFound);
  EXPECT_EQ(a.clear_aim_ik().code(), StatusCode::kNotFound);
  ASSERT_TRUE(a.set_aim_ik(head_aim({0, 1, 1})).is_ok());
  EXPECT_EQ(a.update_aim_target({0, INFINITY, 0}, 1.0f).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.update_aim_target({0, 0, 0}, -0.1f).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(a.clear_aim_ik().is_ok());
  EXPECT_FALSE(a.has_aim_ik());
  EXPECT_EQ(a.setup(), nullptr);
}

}  // namespace aim_ik_test
}  // namespace anim

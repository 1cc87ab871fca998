// blend(), joint masks and additive layering: hand-computed values, bit-identical joints
// outside masks, weight 0 / 1 endpoints.
#include "anim/blend.h"

#include <limits>

#include <gtest/gtest.h>

#include "anim_test_rig.h"

namespace anim {
namespace blend_test {

using animtest::axis_angle;
using animtest::kPi;

TEST(Blend, HandComputedMidpointAndShortestPath) {
  std::vector<Transform> a(2), b(2), out(2);
  a[0] = {{0, 0, 0}, axis_angle(0.0f, {0, 0, 1}), {1, 1, 1}};
  b[0] = {{2, 4, -2}, axis_angle(kPi / 2, {0, 0, 1}), {3, 1, 1}};
  // b[1] is the same rotation as a[1] rotated by 0.4 about x, but stored negated: the blend
  // must take the short way (0.2 at t = 0.5), not the long one.
  a[1].rotation = axis_angle(0.2f, {1, 0, 0});
  b[1].rotation = -axis_angle(0.6f, {1, 0, 0});
  blend(a, b, 0.5f, JointMask::all(), out);
  EXPECT_EQ(out[0].translation, glm::vec3(1, 2, -1));
  EXPECT_EQ(out[0].scale, glm::vec3(2, 1, 1));
  EXPECT_LT(animtest::rotation_angle(out[0].rotation, axis_angle(kPi / 4, {0, 0, 1})), 1e-5f);
  EXPECT_LT(animtest::rotation_angle(out[1].rotation, axis_angle(0.4f, {1, 0, 0})), 1e-5f);
}

TEST(Blend, EndpointsAreExactAndMaskLeavesOtherJointsBitIdentical) {
  Skeleton s = animtest::make_rig();
  const int n = s.num_joints();
  Clip c1 = animtest::make_swing_clip("a", n, 1.0f, 0.7f, {1, 0, 0}, 0.5f);
  Clip c2 = animtest::make_swing_clip("b", n, 1.0f, -0.9f, {0, 1, 1}, -0.5f);
  std::vector<Transform> a(n), b(n), out(n);
  c1.sample(0.3f, s.rest_pose, a);
  c2.sample(0.7f, s.rest_pose, b);
  blend(a, b, 0.0f, JointMask::all(), out);
  for (int j = 0; j < n; ++j) EXPECT_TRUE(animtest::same_transform_bits(out[j], a[j]));
  blend(a, b, 1.0f, JointMask::all(), out);
  for (int j = 0; j < n; ++j) EXPECT_TRUE(animtest::same_transform_bits(out[j], b[j]));

  auto mask = JointMask::subtree(s, s.find_joint("chest"), 1.0f);  // chest, head, arm
  ASSERT_TRUE(mask.has_value());
  std::vector<Transform> in_place = a;
  blend(in_place, b, 0.6f, *mask, in_place);  // aliasing out == a is allowed
  for (int j = 0; j < n; ++j) {
    const bool inside = s.is_descendant(j, s.find_joint("chest"));
    EXPECT_EQ(mask->weights[j], inside ? 1.0f : 0.0f) << s.names[j];
    if (inside) {
      EXPECT_LT(animtest::rotation_angle(in_place[j].rotation, mix(a[j], b[j], 0.6f).rotation),
                1e-6f);
    } else {
      EXPECT_TRUE(animtest::same_transform_bits(in_place[j], a[j])) << s.names[j];
    }
  }
}

TEST(JointMask, PerJointWeightsScaleTheBlendAndBadMasksAreRejected) {
  Skeleton s = animtest::make_rig();
  const int n = s.num_joints();
  std::vector<float> w(n, 0.0f);
  w[3] = 0.5f;
  auto mask = JointMask::per_joint(s, w);
  ASSERT_TRUE(mask.has_value());
  std::vector<Transform> a(n), b(n), out(n);
  b[3].translation = {4, 0, 0};
  blend(a, b, 0.5f, *mask, out);
  EXPECT_EQ(out[3].translation, glm::vec3(1, 0, 0));  // 0.5 * 0.5 of the way
  EXPECT_FALSE(JointMask::per_joint(s, std::vector<float>(3, 1.0f)).has_value());
  w[2] = 1.5f;
  auto bad = JointMask::per_joint(s, w);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("chest"), std::string::npos) << bad.error().message();
  w[2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(JointMask::per_joint(s, w).has_value());
  EXPECT_FALSE(JointMask::subtree(s, 99).has_value());
  EXPECT_FALSE(JointMask::subtree(s, 0, 2.0f).has_value());
}

TEST(Additive, HandComputedDeltaAndWeights) {
  Transform base{{1, 0, 0}, axis_angle(0.5f, {0, 1, 0}), {1, 1, 1}};
  Transform ref{{0, 1, 0}, axis_angle(0.2f, {1, 0, 0}), {1, 1, 1}};
  Transform cur{{0, 3, 0}, axis_angle(0.2f, {1, 0, 0}) * axis_angle(0.8f, {0, 0, 1}), {2, 1, 1}};
  // delta = ref^-1 * cur = 0.8 about z; +2 in y; +1 in scale x.
  Transform d = additive_delta(cur, ref);
  EXPECT_LT(animtest::rotation_angle(d.rotation, axis_angle(0.8f, {0, 0, 1})), 1e-5f);
  EXPECT_EQ(d.translation, glm::vec3(0, 2, 0));
  EXPECT_EQ(d.scale, glm::vec3(1, 0, 0));
  Transform half = apply_additive(base, d, 0.5f);
  EXPECT_LT(animtest::rotation_angle(half.rotation, base.rotation * axis_angle(0.4f, {0, 0, 1})),
            1e-5f);
  EXPECT_EQ(half.translation, glm::vec3(1, 1, 0));
  EXPECT_EQ(half.scale, glm::vec3(1.5f, 1, 1));
  Transform full = apply_additive(base, d, 1.0f);
  EXPECT_LT(animtest::rotation_angle(full.rotation, base.rotation * axis_angle(0.8f, {0, 0, 1})),
            1e-5f);
  EXPECT_EQ(full.translation, glm::vec3(1, 2, 0));
}

TEST(Additive, OwnReferenceChangesNothingAndWeightZeroIsBitIdentical) {
  Skeleton s = animtest::make_rig();
  const int n = s.num_joints();
  Clip c = animtest::make_swing_clip("lean", n, 1.0f, 0.9f, {1, 0, 1}, 0.3f);
  Clip basec = animtest::make_swing_clip("walk", n, 1.0f, 0.5f, {0, 1, 0}, 1.0f);
  std::vector<Transform> base(n), ref(n), cur(n), out(n);
  basec.sample(0.4f, s.rest_pose, base);
  c.sample(0.0f, s.rest_pose, ref);
  add_additive(base, ref, ref, 1.0f, JointMask::all(), out);  // current == reference
  for (int j = 0; j < n; ++j) {
    EXPECT_LT(animtest::rotation_angle(out[j].rotation, base[j].rotation), 1e-6f);
    EXPECT_EQ(out[j].translation, base[j].translation);
    EXPECT_EQ(out[j].scale, base[j].scale);
  }
  c.sample(0.6f, s.rest_pose, cur);
  add_additive(base, cur, ref, 0.0f, JointMask::all(), out);
  for (int j = 0; j < n; ++j) EXPECT_TRUE(animtest::same_transform_bits(out[j], base[j]));
  auto mask = JointMask::subtree(s, s.find_joint("thigh"));
  add_additive(base, cur, ref, 1.0f, *mask, out);
  for (int j = 0; j < n; ++j) {
    if (mask->weights[j] == 0.0f) {
      EXPECT_TRUE(animtest::same_transform_bits(out[j], base[j])) << s.names[j];
    } else {
      EXPECT_GT(animtest::rotation_angle(out[j].rotation, base[j].rotation), 1e-3f) << s.names[j];
    }
  }
}

}  // namespace blend_test
}  // namespace anim

// Override layers (LayerBlend::kOverride) on the builtin character: "wave" on the upper body
// over "walk". Expectations are the clips sampled directly at hand-computed times: joints
// inside the mask at weight 1 are the wave pose bit for bit, joints outside it the walk pose
// bit for bit, and partial weights are mix(walk, wave, weight * mask weight).
#include <cstring>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/blend.h"
#include "anim/loaders/builtin_character.h"
#include "anim_test_rig.h"
#include "builtin_clips.h"

namespace anim {
namespace override_layer_test {

using animtest::builtin;

int clip(const char* name) {
  return animtest::builtin_clip(name);
}

std::vector<Transform> sample(int c, float t) {
  return animtest::sample_builtin(c, t);
}

// Joints under (and including) `root`, by walking parents.
std::vector<bool> subtree(const char* root) {
  const Skeleton& s = builtin().skeleton;
  const int r = s.find_joint(root);
  std::vector<bool> in(s.num_joints(), false);
  for (int j = 0; j < s.num_joints(); ++j)
    for (int k = j; k >= 0; k = s.parents[k])
      if (k == r) in[j] = true;
  return in;
}

AdditiveLayerDesc wave_over_upper_body(float weight) {
  AdditiveLayerDesc d;
  d.clip = clip("wave");
  d.blend = LayerBlend::kOverride;
  d.weight = weight;
  d.mask = *JointMask::subtree(builtin().skeleton, builtin().skeleton.find_joint("chest"));
  d.start_time = 0.5f;
  return d;
}

TEST(OverrideLayer, FullWeightReplacesTheMaskedJointsAndLeavesTheOthers) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(a.play(clip("walk")));
  ASSERT_TRUE(a.add_layer(wave_over_upper_body(1.0f)).has_value());
  ASSERT_TRUE(a.update(0.25f));
  // walk at 0.25 s; wave on its own clock from 0.5 s, so at 0.75 s.
  const auto walk = sample(clip("walk"), 0.25f);
  const auto wave = sample(clip("wave"), 0.75f);
  const auto upper = subtree("chest");
  int inside = 0;
  for (int j = 0; j < asset.skeleton.num_joints(); ++j) {
    const Transform& want = upper[j] ? wave[j] : walk[j];
    inside += upper[j] ? 1 : 0;
    EXPECT_TRUE(animtest::same_transform_bits(a.local_pose().locals[j], want))
        << asset.skeleton.names[j];
  }
  // The mask really splits the body (chest, neck, head, both arms: 11 joints), and the two
  // clips really differ on the waving arm (so the test can tell them apart).
  EXPECT_EQ(inside, 11);
  const int forearm = asset.skeleton.find_joint("forearm_r");
  EXPECT_GT(animtest::rotation_angle(walk[forearm].rotation, wave[forearm].rotation), 0.1f);
}

TEST(OverrideLayer, PartialWeightBlendsTowardTheClipByWeightTimesMask) {
  const Asset& asset = builtin();
  const Skeleton& s = asset.skeleton;
  Animator a(s, asset.clips);
  ASSERT_TRUE(a.play(clip("walk")));
  // Arm only, at half strength inside a 0.8 mask: effective weight 0.3 * 0.8 = 0.24.
  AdditiveLayerDesc d = wave_over_upper_body(0.3f);
  d.mask = *JointMask::subtree(s, s.find_joint("shoulder_r"), 0.8f);
  d.time_source = LayerTimeSource::kParameter;
  d.parameter = 0.25f;  // wave is 2 s long: its time is 0.5 s
  ASSERT_TRUE(a.add_layer(d).has_value());
  ASSERT_TRUE(a.update(0.4f));
  const auto walk = sample(clip("walk"), 0.4f);
  const auto wave = sample(clip("wave"), 0.5f);
  const auto arm = subtree("shoulder_r");
  for (int j = 0; j < s.num_joints(); ++j) {
    const Transform& got = a.local_pose().locals[j];
    if (!arm[j]) {
      EXPECT_TRUE(animtest::same_transform_bits(got, walk[j])) << s.names[j];
      continue;
    }
    const Transform want = mix(walk[j], wave[j], 0.3f * 0.8f);
    EXPECT_LT(animtest::rotation_angle(got.rotation, want.rotation), 1e-6f) << s.names[j];
    EXPECT_LT(glm::length(got.translation - want.translation), 1e-6f) << s.names[j];
    // Strictly between the two clips: neither replaced nor untouched.
    const float to_walk = animtest::rotation_angle(got.rotation, walk[j].rotation);
    const float between = animtest::rotation_angle(walk[j].rotation, wave[j].rotation);
    if (between > 1e-2f) {
      EXPECT_NEAR(to_walk / between, 0.24f, 1e-3f) << s.names[j];
    }
  }
}

TEST(OverrideLayer, FollowsTheBaseNormalizedTimeAndAppliesInOrderWithAdditiveLayers) {
  const Asset& asset = builtin();
  const Skeleton& s = asset.skeleton;
  Animator a(s, asset.clips), plain(s, asset.clips);
  for (Animator* x : {&a, &plain}) ASSERT_TRUE(x->play(clip("walk")));
  // An additive lean first (whole body), then the wave override on the upper body: inside the
  // mask the override replaces the lean too, outside it the lean stays.
  AdditiveLayerDesc lean;
  lean.clip = clip("lean");
  lean.time_source = LayerTimeSource::kParameter;
  lean.parameter = 0.5f;
  for (Animator* x : {&a, &plain}) ASSERT_TRUE(x->add_layer(lean).has_value());
  AdditiveLayerDesc d = wave_over_upper_body(1.0f);
  d.time_source = LayerTimeSource::kBaseNormalized;
  ASSERT_TRUE(a.add_layer(d).has_value());
  for (Animator* x : {&a, &plain}) ASSERT_TRUE(x->update(0.3f));
  // walk (1 s) at 0.3 s is at normalized 0.3, so wave (2 s) is at 0.6 s.
  const auto wave = sample(clip("wave"), 0.6f);
  const auto upper = subtree("chest");
  for (int j = 0; j < s.num_joints(); ++j) {
    const Transform& want = upper[j] ? wave[j] : plain.local_pose().locals[j];
    EXPECT_TRUE(animtest::same_transform_bits(a.local_pose().locals[j], want)) << s.names[j];
  }
}

TEST(OverrideLayer, WeightZeroIsTheBaseAndABadBlendKindIsRefused) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips), plain(asset.skeleton, asset.clips);
  for (Animator* x : {&a, &plain}) ASSERT_TRUE(x->play(clip("walk")));
  Expected<int> id = a.add_layer(wave_over_upper_body(1.0f));
  ASSERT_TRUE(id.has_value());
  ASSERT_TRUE(a.update_layer(*id, {.weight = 0.0f, .speed = 1.0f, .parameter = 0.0f}));
  AdditiveLayerDesc bad = wave_over_upper_body(1.0f);
  bad.blend = static_cast<LayerBlend>(7);
  Expected<int> refused = a.add_layer(bad);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.error().message().find("unknown layer blend 7"), std::string::npos)
      << refused.error().message();
  for (Animator* x : {&a, &plain}) ASSERT_TRUE(x->update(0.2f));
  EXPECT_TRUE(animtest::same_palettes(a.palette(), plain.palette()));
  // Back at weight 1 the waving arm differs from plain walk.
  ASSERT_TRUE(a.update_layer(*id, {.weight = 1.0f, .speed = 1.0f, .parameter = 0.0f}));
  for (Animator* x : {&a, &plain}) ASSERT_TRUE(x->update(0.2f));
  EXPECT_FALSE(animtest::same_palettes(a.palette(), plain.palette()));
}

}  // namespace override_layer_test
}  // namespace anim

// Additive layers on the Animator: reference choices, time sources, stacking order, masks,
// update/remove, rejected layer commands.
#include <limits>

#include <gtest/gtest.h>

#include "anim/blend.h"
#include "anim_test_rig.h"

namespace anim {
namespace additive_test {

struct Fixture {
  Skeleton skeleton = animtest::make_rig();
  std::vector<Clip> clips;
  Fixture() {
    const int n = skeleton.num_joints();
    clips.push_back(animtest::make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, 1.0f));
    clips.push_back(animtest::make_swing_clip("lean", n, 2.0f, 0.5f, {0, 0, 1}, 0.2f));
    clips.push_back(animtest::make_swing_clip("aim", n, 1.0f, -0.7f, {0, 1, 0}, 0.0f));
  }
  std::vector<Transform> sample(int clip, float t) const {
    std::vector<Transform> out(skeleton.num_joints());
    clips[clip].sample(t, skeleton.rest_pose, out);
    return out;
  }
};

void expect_pose_near(const std::vector<Transform>& got, const std::vector<Transform>& want) {
  for (size_t j = 0; j < got.size(); ++j) {
    EXPECT_LT(animtest::rotation_angle(got[j].rotation, want[j].rotation), 2e-5f) << j;
    EXPECT_LT(glm::length(got[j].translation - want[j].translation), 1e-5f) << j;
  }
}

TEST(AdditiveLayer, OwnClockFirstFrameReferenceHandComputed) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  AdditiveLayerDesc d;
  d.clip = 1;
  d.weight = 0.5f;
  auto id = a.add_layer(d);
  ASSERT_TRUE(id.has_value());
  EXPECT_GT(*id, 0);
  ASSERT_TRUE(a.update(0.3f));
  auto expected = f.sample(0, 0.3f);
  add_additive(expected, f.sample(1, 0.3f), f.sample(1, 0.0f), 0.5f, JointMask::all(), expected);
  expect_pose_near(a.local_pose().locals, expected);
}

TEST(AdditiveLayer, ReferenceFromAnotherClipAndTimeSourcesAndStacking) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  AdditiveLayerDesc lean;
  lean.clip = 1;
  lean.reference_clip = 2;
  lean.reference_time = 0.5f;
  lean.time_source = LayerTimeSource::kBaseNormalized;
  lean.weight = 0.7f;
  AdditiveLayerDesc aim;
  aim.clip = 2;
  aim.time_source = LayerTimeSource::kParameter;
  aim.parameter = 0.25f;
  aim.mask = *JointMask::subtree(f.skeleton, f.skeleton.find_joint("chest"));
  ASSERT_TRUE(a.add_layer(lean).has_value());
  auto aim_id = a.add_layer(aim);
  ASSERT_TRUE(aim_id.has_value());
  ASSERT_TRUE(a.update(0.4f));
  // lean follows walk's normalized time 0.4 -> 0.8 s of its 2 s; aim at 0.25 * 1 s.
  auto expected = f.sample(0, 0.4f);
  add_additive(expected, f.sample(1, 0.8f), f.sample(2, 0.5f), 0.7f, JointMask::all(), expected);
  add_additive(expected, f.sample(2, 0.25f), f.sample(2, 0.0f), 1.0f, aim.mask, expected);
  expect_pose_near(a.local_pose().locals, expected);

  ASSERT_TRUE(a.update_layer(*aim_id, {.weight = 0.0f, .speed = 1.0f, .parameter = 0.5f}));
  ASSERT_TRUE(a.update(0.1f));
  expected = f.sample(0, 0.5f);
  add_additive(expected, f.sample(1, 1.0f), f.sample(2, 0.5f), 0.7f, JointMask::all(), expected);
  expect_pose_near(a.local_pose().locals, expected);
  EXPECT_TRUE(a.remove_layer(*aim_id));
  EXPECT_EQ(a.num_layers(), 1);
}

TEST(AdditiveLayer, ReverseLayerSpeedAndCharacterSpeed) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  AdditiveLayerDesc d;
  d.clip = 1;
  d.speed = -1.0f;
  d.start_time = 1.0f;
  ASSERT_TRUE(a.add_layer(d).has_value());
  ASSERT_TRUE(a.set_speed(0.5f));
  ASSERT_TRUE(a.update(0.4f));  // base +0.2, layer 1.0 - 0.2 = 0.8
  auto expected = f.sample(0, 0.2f);
  add_additive(expected, f.sample(1, 0.8f), f.sample(1, 0.0f), 1.0f, JointMask::all(), expected);
  expect_pose_near(a.local_pose().locals, expected);
}

TEST(AdditiveLayer, BadLayerCommandsAreRejectedAndChangeNothing) {
  Fixture f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Animator ref(f.skeleton, f.clips), a(f.skeleton, f.clips);
  AdditiveLayerDesc good;
  good.clip = 1;
  for (Animator* x : {&ref, &a}) {
    ASSERT_TRUE(x->play(0));
    ASSERT_TRUE(x->add_layer(good).has_value());
  }
  auto with = [&](auto edit) {
    AdditiveLayerDesc d = good;
    edit(d);
    return a.add_layer(d);
  };
  std::vector<Expected<int>> bad;
  bad.push_back(with([](AdditiveLayerDesc& d) { d.clip = 9; }));
  bad.push_back(with([](AdditiveLayerDesc& d) { d.reference_clip = 9; }));
  bad.push_back(with([](AdditiveLayerDesc& d) { d.reference_time = 5.0f; }));
  bad.push_back(with([&](AdditiveLayerDesc& d) { d.weight = nan; }));
  bad.push_back(with([](AdditiveLayerDesc& d) { d.weight = 1.01f; }));
  bad.push_back(with([](AdditiveLayerDesc& d) { d.parameter = -0.5f; }));
  bad.push_back(with([](AdditiveLayerDesc& d) { d.speed = INFINITY; }));
  bad.push_back(with([](AdditiveLayerDesc& d) { d.mask.weights = {1.0f, 0.5f}; }));
  for (auto& r : bad) {
    ASSERT_FALSE(r.has_value());
    EXPECT_FALSE(r.error().message().empty());
  }
  EXPECT_EQ(bad[0].error().code(), StatusCode::kNotFound);
  EXPECT_NE(bad[4].error().message().find("weight"), std::string::npos);
  EXPECT_FALSE(a.update_layer(77, {}));
  EXPECT_FALSE(a.remove_layer(77));
  EXPECT_FALSE(a.update_layer(1, {.weight = 2.0f}));
  EXPECT_FALSE(a.update_layer(1, {.weight = 0.5f, .speed = nan}));
  EXPECT_EQ(a.num_layers(), 1);
  for (Animator* x : {&ref, &a}) ASSERT_TRUE(x->update(0.25f));
  EXPECT_TRUE(animtest::same_palettes(a.palette(), ref.palette()));
}

}  // namespace additive_test
}  // namespace anim

// Animator::update() allocates nothing: this file installs the counting operator new of
// counting_new.h in the unit test binary and counts what
// update() allocates with every feature running: root motion, animation events (more than
// an update keeps), overlapping crossfades with sync, additive layers with masks and all
// three time sources, and CCD / FABRIK / two-bone goals with constraints and world-space
// targets.
#include <atomic>
#include <cstdlib>
#include <limits>
#include <new>

#include <gtest/gtest.h>

#include "counting_new.h"

#include "anim/builtin_character.h"
#include "anim_test_rig.h"

using animtest::g_allocations;

namespace anim {
namespace {

TEST(AnimatorAllocations, UpdateAllocatesNothingWithEveryFeatureRunning) {
  Skeleton s = animtest::make_rig();
  const int n = s.num_joints();
  std::vector<Clip> clips;
  clips.push_back(animtest::make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, 1.0f));
  clips.push_back(animtest::make_swing_clip("run", n, 0.6f, -1.2f, {0, 0, 1}, 2.0f));
  clips.push_back(animtest::make_swing_clip("idle", n, 2.0f, 0.3f, {0, 1, 0}));
  clips.push_back(animtest::make_swing_clip("lean", n, 1.5f, 0.5f, {1, 0, 1}));
  // Events on the base, the fades and the layers' clip, some fired every tick.
  clips[0].events = {{"step_l", 0.25f, "left"}, {"step_r", 0.75f, "right"}};
  clips[1].events = {{"plant", 0.0f, ""}, {"push", 0.3f, ""}};
  for (int k = 0; k < 40; ++k)
    clips[3].events.push_back({"tick", static_cast<float>(k) * 1.5f / 40.0f, ""});
  Animator a(s, clips);
  ASSERT_TRUE(a.set_root_transform({{1, 0, 2}, animtest::axis_angle(0.4f, {0, 1, 0}), {1, 1, 1}}));
  ASSERT_TRUE(a.set_root_motion({RootMotionMode::kExtract, -1, false}));
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.crossfade(1, 2.0f, {.sync_normalized_time = true}));
  ASSERT_TRUE(a.crossfade(2, 3.0f));
  AdditiveLayerDesc own;
  own.clip = 3;
  own.weight = 0.6f;
  own.speed = 100.0f;  // over a cycle of its 40 events per tick
  own.mask = *JointMask::subtree(s, s.find_joint("chest"));
  AdditiveLayerDesc synced = own;
  synced.time_source = LayerTimeSource::kBaseNormalized;
  synced.mask = {};
  synced.reference_clip = 0;
  AdditiveLayerDesc param = own;
  param.time_source = LayerTimeSource::kParameter;
  param.parameter = 0.3f;
  for (const auto& d : {own, synced, param}) ASSERT_TRUE(a.add_layer(d).has_value());
  IkGoalDesc leg = animtest::goal("thigh", "foot", IkSolver::kTwoBone, {-0.1f, -0.6f, 0.3f});
  leg.has_pole = true;
  leg.pole = {0, -0.4f, 1};
  leg.soften = 0.95f;
  IkGoalDesc arm = animtest::goal("upper_arm", "hand", IkSolver::kFabrik, {0.4f, 0.8f, 0.3f});
  arm.space = IkSpace::kWorld;
  arm.constraints.resize(3);
  arm.constraints[0].kind = JointConstraint::Kind::kBallSocket;
  arm.constraints[0].cone_angle = 1.0f;
  arm.constraints[1].kind = JointConstraint::Kind::kHinge;
  arm.constraints[1].axis = {0, 0, 1};
  arm.constraints[1].min_angle = -2.5f;
  IkGoalDesc spine = animtest::goal("spine", "head", IkSolver::kCcd, {0.2f, 1.1f, 0.1f});
  spine.weight = 0.5f;
  spine.joint_weights = {0.5f, 1.0f, 1.0f};
  for (const auto& g : {leg, arm, spine}) ASSERT_TRUE(a.set_ik_goal(g).has_value());

  const long before = g_allocations.load();
  uint64_t fired = 0, overflowed = 0;
  for (int i = 0; i < 600; ++i) {
    ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
    fired += a.fired_events().size();
    overflowed += a.events_overflowed();
  }
  const long during = g_allocations.load() - before;
  // Events fired every tick, more than an update keeps: counted, nothing grows.
  EXPECT_GT(fired, 600u * 30u);
  EXPECT_GT(overflowed, 0u);
  EXPECT_EQ(during, 0) << "update() allocated " << during << " times in 600 ticks";
  // Refusing a bad dt allocates nothing either, and changes nothing.
  const std::vector<PaletteMatrix> kept(a.palette().begin(), a.palette().end());
  const long before_bad = g_allocations.load();
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -1.0f / 60.0f}) {
    const Status st = a.update(bad);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("dt"), std::string::npos) << st.message();
  }
  const long during_bad = g_allocations.load() - before_bad;
  EXPECT_EQ(during_bad, 0) << "refusing a bad dt allocated " << during_bad << " times";
  EXPECT_TRUE(animtest::same_palettes(a.palette(), kept));
  // The counter does see allocations (the test can fail): a command allocates.
  const long before_cmd = g_allocations.load();
  ASSERT_TRUE(a.add_layer(own).has_value());
  EXPECT_GT(g_allocations.load() - before_cmd, 0);
}

TEST(AnimatorAllocations, FootAndAimIkAllocateNothingPerTick) {
  // The per-tick commands too: set_ground, update_aim_target and set_foot_ik_weight.
  const Asset asset = make_builtin_character();
  Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(a.set_foot_ik({}));
  AimIkDesc aim;
  aim.root_joint = "spine";
  aim.end_joint = "head";
  aim.space = IkSpace::kWorld;
  aim.has_pole = true;
  aim.max_angles = {0.5f, 0.5f, 0.5f, 0.5f};
  ASSERT_TRUE(a.set_aim_ik(aim));
  ASSERT_TRUE(a.play(1));
  const long before = g_allocations.load();
  for (int i = 0; i < 300; ++i) {
    GroundDesc g;
    g.kind = i % 2 ? GroundDesc::Kind::kFootSamples : GroundDesc::Kind::kPlane;
    g.heights = {0.01f * static_cast<float>(i % 7), -0.02f};
    g.normal = {0.1f, 1.0f, 0.0f};
    ASSERT_TRUE(a.set_ground(g));
    ASSERT_TRUE(a.update_aim_target({std::sin(0.1f * i), 1.5f, 2.0f}, 1.0f));
    ASSERT_TRUE(a.set_foot_ik_weight(i % 50 == 0 ? 0.0f : 1.0f));
    ASSERT_TRUE(a.set_root_transform({{0, 0, 0.02f * i}, {1, 0, 0, 0}, {1, 1, 1}}));
    ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
  }
  const long during = g_allocations.load() - before;
  EXPECT_EQ(during, 0) << "foot / aim IK allocated " << during << " times in 300 ticks";
}

// Blend spaces too: a 1D and a 2D space crossfading, parameters smoothing, root motion and
// events from their samples.
TEST(AnimatorAllocations, BlendSpaceUpdatesAllocateNothing) {
  Skeleton s = animtest::make_rig();
  const int n = s.num_joints();
  std::vector<Clip> clips;
  clips.push_back(animtest::make_swing_clip("idle", n, 2.0f, 0.3f, {0, 1, 0}));
  clips.push_back(animtest::make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, 1.0f));
  clips.push_back(animtest::make_swing_clip("run", n, 0.6f, -1.2f, {0, 0, 1}, 2.0f));
  clips[1].events = {{"step", 0.5f, ""}};
  auto table = std::make_shared<BlendSpaceTable>();
  for (const BlendSpaceDesc& d :
       {BlendSpaceDesc{"move", {"speed"}, {{0, {0, 0}}, {1, {1.4f, 0}}, {2, {4, 0}}}},
        BlendSpaceDesc{
            "dir", {"x", "speed"}, {{0, {0, 0}}, {1, {-1, 2}}, {2, {1, 2}}, {1, {0, 4}}}}}) {
    auto space = make_blend_space(d, clips, n);
    ASSERT_TRUE(space.has_value()) << space.error().message();
    table->spaces.push_back(std::make_shared<const BlendSpace>(std::move(*space)));
  }
  Animator a(s, clips);
  ASSERT_TRUE(a.set_blend_spaces(table));
  ASSERT_TRUE(a.set_root_motion({RootMotionMode::kExtract, -1, false}));
  ASSERT_TRUE(a.play_blend_space(0));
  ASSERT_TRUE(a.crossfade_blend_space(1, 5.0f, {.sync_normalized_time = true}));
  ASSERT_TRUE(a.set_parameter("speed", 3.0f, 2.0f));
  ASSERT_TRUE(a.set_parameter("x", -0.5f, 1.0f));
  const long before = g_allocations.load();
  for (int i = 0; i < 240; ++i) ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
  const long during = g_allocations.load() - before;
  EXPECT_EQ(during, 0) << "update() allocated " << during << " times in 240 ticks";
  EXPECT_GT(a.evaluated_inputs().base.num_terms, 0);
}

}  // namespace
}  // namespace anim

// Animator::update() allocates nothing: this file installs the counting operator new of
// counting_new.h in the unit test binary and counts what update() allocates with every
// feature running (every_feature_animator.h), with foot and aim IK, with blend spaces, and
// in buffers lent by the caller (update(dt, buffers), as the daemon's threads run it).
#include <atomic>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>

#include <gtest/gtest.h>

#include "counting_new.h"

#include "anim/loaders/builtin_character.h"
#include "anim/state_machine.h"
#include "anim_test_rig.h"
#include "every_feature_animator.h"

using animtest::g_allocations;

namespace anim {
namespace animator_alloc_test {

TEST(AnimatorAllocations, UpdateAllocatesNothingWithEveryFeatureRunning) {
  const animtest::EveryFeatureRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(a));

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
  ASSERT_TRUE(a.add_layer(rig.own_clock_layer()).has_value());
  EXPECT_GT(g_allocations.load() - before_cmd, 0);
}

// The daemon's update: every character of a thread evaluated in the thread's buffers, sized
// beforehand for the largest skeleton. Two skeletons of different sizes take turns in them.
TEST(AnimatorAllocations, UpdatesInLentBuffersAllocateNothing) {
  const animtest::EveryFeatureRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(a));
  const Asset builtin = make_builtin_character();
  Animator b(builtin.skeleton, builtin.clips);
  ASSERT_TRUE(b.set_foot_ik({}));
  ASSERT_TRUE(b.play(1));
  UpdateBuffers buffers;
  buffers.reserve(Skeleton::kMaxJoints);
  const long before = g_allocations.load();
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(a.update(1.0f / 60.0f, buffers).is_ok());
    ASSERT_TRUE(b.update(1.0f / 60.0f, buffers).is_ok());
    if (i % 50 == 0) {  // the deferred matrices and palette, now and then
      a.refresh_palette();
      b.refresh_model();
    }
  }
  const long during = g_allocations.load() - before;
  EXPECT_EQ(during, 0) << "update(dt, buffers) allocated " << during << " times in 300 ticks";
}

TEST(AnimatorAllocations, FootAndAimIkAllocateNothingPerTick) {
  // The per-tick commands too: set_ground, update_aim_target and set_foot_ik_weight.
  const Asset asset = make_builtin_character();
  Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(animtest::set_up_foot_and_aim(a));
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

// A state machine stepping every update: a blend-space state, interruptible fades, triggers
// consumed, parameters smoothing across thresholds.
TEST(AnimatorAllocations, StateMachineUpdatesAllocateNothing) {
  Skeleton s = animtest::make_rig();
  const int n = s.num_joints();
  std::vector<Clip> clips;
  clips.push_back(animtest::make_swing_clip("idle", n, 2.0f, 0.3f, {0, 1, 0}));
  clips.push_back(animtest::make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, 1.0f));
  clips.push_back(animtest::make_swing_clip("run", n, 0.6f, -1.2f, {0, 0, 1}, 2.0f));
  auto table = std::make_shared<BlendSpaceTable>();
  auto space =
      make_blend_space(BlendSpaceDesc{"move", {"speed"}, {{1, {1, 0}}, {2, {4, 0}}}}, clips, n);
  ASSERT_TRUE(space.has_value()) << space.error().message();
  table->spaces.push_back(std::make_shared<const BlendSpace>(std::move(*space)));
  StateMachineDesc d;
  d.name = "loco";
  d.states = {{"idle", "idle"}, {"move", "move"}, {"hop", "run", 1.0f, false}};
  auto to = [](std::string from, std::string to, ConditionDesc c, float duration) {
    TransitionDesc t;
    t.from = std::move(from);
    t.to = std::move(to);
    t.conditions = {std::move(c)};
    t.duration = duration;
    t.interruptible = true;
    t.sync = TransitionSync::kNormalized;
    return t;
  };
  d.transitions = {to("idle", "move", {"speed", ConditionOp::kGreater, 0.5f}, 0.2f),
                   to("move", "idle", {"speed", ConditionOp::kLessEqual, 0.5f}, 0.2f),
                   to("hop", "idle", {"speed", ConditionOp::kGreaterEqual, 0.0f}, 0.1f)};
  d.transitions.push_back(to("", "hop", {"hop", ConditionOp::kTrigger}, 0.05f));
  d.transitions.back().any_state = true;
  d.transitions.back().priority = 1;
  d.transitions[2].exit_time = 0.8f;
  auto machine = make_state_machine(d, clips, n, table.get());
  ASSERT_TRUE(machine.has_value()) << machine.error().message();
  Animator a(s, clips);
  ASSERT_TRUE(a.set_blend_spaces(table));
  ASSERT_TRUE(a.start_state_machine(std::make_shared<const StateMachine>(std::move(*machine))));
  int changes = 0, last = -1;
  long during = 0;
  for (int i = 0; i < 600; ++i) {
    // Commands between updates (not counted): speed up and down, a hop now and then.
    ASSERT_TRUE(a.set_parameter("speed", (i / 40) % 2 == 0 ? 3.0f : 0.0f, 0.3f));
    if (i % 90 == 45) {
      ASSERT_TRUE(a.set_trigger("hop"));
    }
    const long before = g_allocations.load();
    ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
    during += g_allocations.load() - before;
    changes += a.machine_status().state != last ? 1 : 0;
    last = a.machine_status().state;
  }
  EXPECT_EQ(during, 0) << "update() allocated " << during << " times in 600 ticks";
  EXPECT_GT(changes, 20);
}

// Montage sections (loops through `next`, many turns in one update, a jump) and the
// lifecycle events with clip events in the sections: nothing per update.
TEST(AnimatorAllocations, MontageSectionsAndLifecycleAllocateNothing) {
  const Asset asset = make_builtin_character();
  Animator a(asset.skeleton, asset.clips);
  const int wave = asset.find_clip("wave");
  auto table = std::make_shared<ClipEventTable>();
  table->clips.resize(asset.clips.size());
  table->clips[static_cast<size_t>(wave)] = {{"a", 0.5f, ""}, {"b", 1.0f, ""}, {"c", 1.5f, ""}};
  ASSERT_TRUE(a.set_event_table(table));
  ASSERT_TRUE(a.play(asset.find_clip("walk")));
  AdditiveLayerDesc slot_desc;
  slot_desc.blend = LayerBlend::kOverride;
  const int slot = *a.add_layer(slot_desc);
  MontageDesc d{wave, 1.0f, 0.1f, 0.2f, 0.0f};
  d.sections = {{"intro", 0.0f, "loop"}, {"loop", 0.5f, "loop"}, {"outro", 1.25f, ""}};
  ASSERT_TRUE(a.play_montage(slot, d));
  ASSERT_TRUE(a.update(1.0f / 60.0f));  // started
  const long before = g_allocations.load();
  uint64_t fired = 0;
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
    fired += a.fired_events().size();
  }
  ASSERT_TRUE(a.update(1000.0f).is_ok());  // many turns of the loop: counted
  const long during = g_allocations.load() - before;
  EXPECT_GT(fired, 4u);
  EXPECT_GT(a.events_overflowed(), 0u);
  EXPECT_EQ(during, 0) << "update() allocated " << during << " times";
  ASSERT_TRUE(a.jump_to_section(slot, "outro"));
  const long before_end = g_allocations.load();
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(a.update(1.0f / 60.0f).is_ok());
  EXPECT_EQ(g_allocations.load() - before_end, 0);
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kEnded);
}

}  // namespace animator_alloc_test
}  // namespace anim

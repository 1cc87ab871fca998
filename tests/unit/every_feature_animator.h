#pragma once
// An Animator on the test rig with every per-tick feature running at once: root motion,
// animation events (more per tick than an update keeps), overlapping crossfades with sync,
// additive layers with masks and all three time sources, a montage in a slot, a state machine
// in an override layer, a held pose blending out, and CCD / FABRIK /
// two-bone goals with constraints and world-space targets; and the built-in character's foot and
// aim IK. For the tests that must see all of update()'s paths (no allocation, the same pose in lent
// buffers).
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/state_machine.h"
#include "anim_test_rig.h"

namespace animtest {

struct EveryFeatureRig {
  anim::Skeleton skeleton = make_rig();
  std::vector<anim::Clip> clips;

  EveryFeatureRig() {
    const int n = skeleton.num_joints();
    clips.push_back(make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, 1.0f));
    clips.push_back(make_swing_clip("run", n, 0.6f, -1.2f, {0, 0, 1}, 2.0f));
    clips.push_back(make_swing_clip("idle", n, 2.0f, 0.3f, {0, 1, 0}));
    clips.push_back(make_swing_clip("lean", n, 1.5f, 0.5f, {1, 0, 1}));
    // Events on the base, the fades and the layers' clip, some fired every tick.
    clips[0].events = {{"step_l", 0.25f, "left"}, {"step_r", 0.75f, "right"}};
    clips[1].events = {{"plant", 0.0f, ""}, {"push", 0.3f, ""}};
    for (int k = 0; k < 40; ++k)
      clips[3].events.push_back({"tick", static_cast<float>(k) * 1.5f / 40.0f, ""});
    // walk <-> run on exit times, fading with sync, every second or so.
    anim::StateMachineDesc d;
    d.name = "legs";
    d.states = {{"walk", "walk"}, {"run", "run"}};
    anim::TransitionDesc to_run;
    to_run.from = "walk";
    to_run.to = "run";
    to_run.exit_time = 1.0f;
    to_run.duration = 0.4f;
    to_run.sync = anim::TransitionSync::kNormalized;
    anim::TransitionDesc to_walk = to_run;
    to_walk.from = "run";
    to_walk.to = "walk";
    to_walk.exit_time = 2.0f;
    d.transitions = {to_run, to_walk};
    auto m = anim::make_state_machine(d, clips, n, nullptr);
    EXPECT_TRUE(m.has_value());
    if (m) machine = std::make_shared<const anim::StateMachine>(std::move(*m));
  }

  std::shared_ptr<const anim::StateMachine> machine;

  // One of the layers it adds (add it again to see a command allocate).
  anim::AdditiveLayerDesc own_clock_layer() const {
    anim::AdditiveLayerDesc own;
    own.clip = 3;
    own.weight = 0.6f;
    own.speed = 100.0f;  // over a cycle of its 40 events per tick
    own.mask = *anim::JointMask::subtree(skeleton, skeleton.find_joint("chest"));
    return own;
  }

  // Sets everything up on `a` (an Animator of this rig); false (with a test failure) when a
  // command is refused.
  bool set_up(anim::Animator& a) const {
    using namespace anim;
    bool ok = true;
    auto check = [&](bool step) {
      EXPECT_TRUE(step);
      ok = ok && step;
    };
    check(a.set_root_transform({{1, 0, 2}, axis_angle(0.4f, {0, 1, 0}), {1, 1, 1}}).is_ok());
    check(a.set_root_motion({RootMotionMode::kExtract, -1, false}).is_ok());
    check(a.play(0).is_ok());
    check(a.crossfade(1, 2.0f, {.sync_normalized_time = true}).is_ok());
    check(a.crossfade(2, 3.0f).is_ok());
    const AdditiveLayerDesc own = own_clock_layer();
    AdditiveLayerDesc synced = own;
    synced.time_source = LayerTimeSource::kBaseNormalized;
    synced.mask = {};
    synced.reference_clip = 0;
    AdditiveLayerDesc param = own;
    param.time_source = LayerTimeSource::kParameter;
    param.parameter = 0.3f;
    for (const auto& d : {own, synced, param}) check(a.add_layer(d).has_value());
    // A montage in a slot on the upper body, blending in and out over the test's ticks.
    AdditiveLayerDesc slot;
    slot.blend = LayerBlend::kOverride;
    slot.mask = own.mask;
    const Expected<int> slot_id = a.add_layer(slot);
    check(slot_id.has_value());
    if (slot_id) check(a.play_montage(*slot_id, {3, 0.2f, 1.0f, 2.0f, 0.0f}).is_ok());
    // A state machine on the legs' side of the body, over everything but the chest.
    MachineLayerDesc legs;
    legs.machine = machine;
    legs.weight = 0.7f;
    legs.mask = *JointMask::subtree(skeleton, skeleton.find_joint("thigh"));
    check(a.add_machine_layer(legs).has_value());
    IkGoalDesc leg = goal("thigh", "foot", IkSolver::kTwoBone, {-0.1f, -0.6f, 0.3f});
    leg.has_pole = true;
    leg.pole = {0, -0.4f, 1};
    leg.soften = 0.95f;
    const IkGoalDesc arm = constrained_arm_goal({0.4f, 0.8f, 0.3f});
    IkGoalDesc spine = goal("spine", "head", IkSolver::kCcd, {0.2f, 1.1f, 0.1f});
    spine.weight = 0.5f;
    spine.joint_weights = {0.5f, 1.0f, 1.0f};
    for (const auto& g : {leg, arm, spine}) check(a.set_ik_goal(g).has_value());
    // A held pose (the rest pose, legs bent) blending out slowly over the animation.
    std::vector<Transform> held = skeleton.rest_pose;
    held[1].rotation = axis_angle(0.6f, {1, 0, 0});
    check(a.set_pose(held).is_ok());
    check(a.blend_out_pose(20.0f).is_ok());
    return ok;
  }
};

// Foot IK and a world-space aim IK (spine to head, with a pole and angle limits) on an
// Animator of the built-in character, playing its clip 1; false (with a test failure) when a
// command is refused.
inline bool set_up_foot_and_aim(anim::Animator& a) {
  anim::AimIkDesc aim;
  aim.root_joint = "spine";
  aim.end_joint = "head";
  aim.space = anim::IkSpace::kWorld;
  aim.has_pole = true;
  aim.max_angles = {0.5f, 0.5f, 0.5f, 0.5f};
  const bool ok = a.set_foot_ik({}).is_ok() && a.set_aim_ik(aim).is_ok() && a.play(1).is_ok();
  EXPECT_TRUE(ok);
  return ok;
}

}  // namespace animtest

// Marker sync (CrossfadeOptions::sync_markers, TransitionSync::kMarkers) on the built-in
// character: walk (1 s) fades into "run_late", the built-in run (0.7 s) started half a cycle
// later, so that its cycle begins on the other foot. Normalized sync lands on the wrong foot;
// marker sync keeps the foot that planted last the same before, during and after the fade.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/blend_space.h"
#include "anim/state_machine.h"
#include "builtin_clips.h"

namespace anim {
namespace marker_sync_test {

using animtest::builtin;
constexpr float kDt = 1.0f / 32.0f;

// The built-in clips and run played from half its cycle on.
std::vector<Clip> clips_with_run_late() {
  std::vector<Clip> clips = builtin().clips;
  const Clip& run = clips[static_cast<size_t>(animtest::builtin_clip("run"))];
  const Skeleton& s = builtin().skeleton;
  const int n = s.num_joints();
  const int keys = 70;
  Clip late;
  late.name = "run_late";
  late.joints.resize(static_cast<size_t>(n));
  std::vector<Transform> pose(static_cast<size_t>(n));
  std::vector<std::vector<Transform>> samples;
  std::vector<float> times;
  for (int k = 0; k <= keys; ++k) {
    const float t = run.duration * static_cast<float>(k) / keys;
    run.sample(std::fmod(t + 0.5f * run.duration, run.duration), s.rest_pose, pose);
    samples.push_back(pose);
    times.push_back(t);
  }
  for (int j = 0; j < n; ++j) {
    Vec3Channel tr, sc;
    QuatChannel rot;
    tr.times = sc.times = rot.times = times;
    for (const auto& p : samples) {
      tr.values.push_back(p[static_cast<size_t>(j)].translation);
      rot.values.push_back(p[static_cast<size_t>(j)].rotation);
      sc.values.push_back(p[static_cast<size_t>(j)].scale);
    }
    late.joints[static_cast<size_t>(j)] = {static_cast<int32_t>(late.vec3_channels.size()),
                                           static_cast<int32_t>(late.quat_channels.size()),
                                           static_cast<int32_t>(late.vec3_channels.size() + 1)};
    late.vec3_channels.push_back(std::move(tr));
    late.vec3_channels.push_back(std::move(sc));
    late.quat_channels.push_back(std::move(rot));
  }
  EXPECT_TRUE(late.finalize(n));
  clips.push_back(std::move(late));
  return clips;
}

// The foot (0 left, 1 right) whose contact began last at or before `t` (cyclically).
int last_planted(const StrideCurves& c, float duration, float t) {
  int best = -1;
  float best_age = 0.0f;
  for (int foot = 0; foot < kNumFeet; ++foot)
    for (const ContactInterval& i : c.contacts[static_cast<size_t>(foot)]) {
      if (i.start <= 0.0f && !c.contacts[static_cast<size_t>(foot)].empty() &&
          c.contacts[static_cast<size_t>(foot)].back().end >= duration - 1e-4f &&
          c.contacts[static_cast<size_t>(foot)].size() > 1)
        continue;  // a contact across the loop: it began at the end
      float age = t - i.start;
      if (age < 0.0f) age += duration;
      if (best < 0 || age < best_age) best = foot, best_age = age;
    }
  return best;
}

struct FadeFeet {
  std::vector<int> leader_feet, follower_feet;
};

// Walk until its left foot has just planted, then fade to run_late over 0.25 s with the
// given options; the foot that planted last in each clip, at each update of the fade.
FadeFeet fade_to_run_late(const std::vector<Clip>& clips, const CrossfadeOptions& options) {
  Animator a(builtin().skeleton, clips);
  EXPECT_TRUE(a.set_foot_ik({}));  // no ground: the pose is untouched; the contacts are found
  const int walk = animtest::builtin_clip("walk");
  const int late = static_cast<int>(clips.size()) - 1;
  const auto& strides = a.setup()->feet->strides;
  EXPECT_FALSE(strides[static_cast<size_t>(late)].contacts[0].empty());
  EXPECT_FALSE(strides[static_cast<size_t>(walk)].contacts[1].empty());
  EXPECT_TRUE(a.play(walk));
  const float wd = clips[static_cast<size_t>(walk)].duration;
  const float ld = clips[static_cast<size_t>(late)].duration;
  // Into walk's left stance, 0.22 s after the plant (walk's left plant is at 0.28 of its
  // cycle, run_late's right one at 0.45: normalized time puts it after that one).
  for (int k = 0;
       k < 64 && last_planted(strides[static_cast<size_t>(walk)], wd, a.current_clip_time()) != 0;
       ++k)
    EXPECT_TRUE(a.update(kDt));
  for (int k = 0; k < 7; ++k) EXPECT_TRUE(a.update(kDt));
  EXPECT_TRUE(a.crossfade(late, 0.25f, options));
  FadeFeet r;
  for (int k = 0; k < 10; ++k) {
    EXPECT_TRUE(a.update(kDt));
    const PoseInputs in = a.evaluated_inputs();
    const float walk_time = in.fades.empty() ? -1.0f : in.base.time;
    const float late_time = in.fades.empty() ? in.base.time : in.fades[0].source.time;
    if (walk_time >= 0.0f)
      r.leader_feet.push_back(last_planted(strides[static_cast<size_t>(walk)], wd, walk_time));
    r.follower_feet.push_back(last_planted(strides[static_cast<size_t>(late)], ld, late_time));
  }
  return r;
}

TEST(MarkerSync, WalkToRunWithAnotherPhaseStaysOnTheSameFoot) {
  const std::vector<Clip> clips = clips_with_run_late();
  const FadeFeet markers = fade_to_run_late(clips, {.sync_markers = true});
  ASSERT_GE(markers.leader_feet.size(), 7u);  // 0.25 s of fade at 1/32 s: 8 updates
  ASSERT_EQ(markers.leader_feet[0], 0);
  // While fading the run follows walk's plants; after it, it keeps the foot it had.
  for (size_t k = 0; k < markers.leader_feet.size(); ++k)
    EXPECT_EQ(markers.follower_feet[k], markers.leader_feet[k]) << "update " << k;
  EXPECT_EQ(markers.follower_feet[markers.leader_feet.size()], markers.leader_feet.back());
  // Normalized sync puts run_late on the other foot: what marker sync is for.
  const FadeFeet normalized = fade_to_run_late(clips, {.sync_normalized_time = true});
  EXPECT_NE(normalized.follower_feet[0], normalized.leader_feet[0]);
}

TEST(MarkerSync, FallsBackToNormalizedTimeWithoutFootContacts) {
  // No foot IK: no plants, so marker sync is normalized sync, bit for bit.
  Animator a(builtin().skeleton, builtin().clips), b(builtin().skeleton, builtin().clips);
  const int walk = animtest::builtin_clip("walk"), run = animtest::builtin_clip("run");
  for (Animator* x : {&a, &b}) {
    ASSERT_TRUE(x->play(walk));
    for (int k = 0; k < 5; ++k) ASSERT_TRUE(x->update(kDt));
  }
  ASSERT_TRUE(a.crossfade(run, 0.25f, {.sync_markers = true}));
  ASSERT_TRUE(b.crossfade(run, 0.25f, {.sync_normalized_time = true}));
  for (int k = 0; k < 6; ++k) {
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
    EXPECT_EQ(a.current_clip_time(), b.current_clip_time());
  }
}

TEST(MarkerSync, StateMachineTransitionsSyncByMarkers) {
  const std::vector<Clip> clips = clips_with_run_late();
  StateMachineDesc d;
  d.name = "gait";
  d.states = {{"walk", "walk"}, {"run", "run_late"}};
  TransitionDesc t;
  t.from = "walk";
  t.to = "run";
  t.conditions = {{"speed", ConditionOp::kGreater, 1.0f}};
  t.duration = 0.25f;
  t.sync = TransitionSync::kMarkers;
  d.transitions = {t};
  auto m = make_state_machine(d, clips, builtin().skeleton.num_joints(), nullptr);
  ASSERT_TRUE(m.has_value()) << m.error().message();
  Animator a(builtin().skeleton, clips), b(builtin().skeleton, clips);
  for (Animator* x : {&a, &b}) ASSERT_TRUE(x->set_foot_ik({}));
  ASSERT_TRUE(a.start_state_machine(std::make_shared<const StateMachine>(std::move(*m))));
  ASSERT_TRUE(b.play(animtest::builtin_clip("walk")));
  for (int k = 0; k < 7; ++k) {
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
  }
  ASSERT_TRUE(a.set_parameter("speed", 2.0f, 0.0f));
  ASSERT_TRUE(b.crossfade(static_cast<int>(clips.size()) - 1, 0.25f, {.sync_markers = true}));
  for (int k = 0; k < 10; ++k) {
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
    ASSERT_EQ(a.current_clip_time(), b.current_clip_time()) << k;
    for (size_t j = 0; j < a.local_pose().locals.size(); ++j)
      ASSERT_EQ(a.local_pose().locals[j].rotation, b.local_pose().locals[j].rotation) << k;
  }
}

// A 1D blend space walk (x 0) / run_late (x 1) at `x`: for each update, whether the two
// samples' last planted feet agree.
std::vector<bool> blend_space_feet_agree(const std::vector<Clip>& clips, bool sync_markers,
                                         float x) {
  BlendSpaceDesc desc;
  desc.name = "gait";
  desc.axes = {"speed"};
  const int walk = animtest::builtin_clip("walk");
  const int late = static_cast<int>(clips.size()) - 1;
  desc.samples = {{walk, {0.0f, 0.0f}}, {late, {1.0f, 0.0f}}};
  desc.sync_markers = sync_markers;
  auto space = make_blend_space(desc, clips, builtin().skeleton.num_joints());
  EXPECT_TRUE(space.has_value());
  auto table = std::make_shared<BlendSpaceTable>();
  table->spaces.push_back(std::make_shared<const BlendSpace>(std::move(*space)));
  Animator a(builtin().skeleton, clips);
  EXPECT_TRUE(a.set_foot_ik({}));
  EXPECT_TRUE(a.set_blend_spaces(table));
  EXPECT_TRUE(a.set_parameter("speed", x, 0.0f));
  EXPECT_TRUE(a.play_blend_space(0));
  EXPECT_TRUE(a.set_root_motion({RootMotionMode::kExtract, -1, false}));
  const auto& strides = a.setup()->feet->strides;
  std::vector<bool> agree;
  for (int k = 0; k < 48; ++k) {
    EXPECT_TRUE(a.update(kDt));
    // The travel stays a step's, across every sample's loop (no wrap counted wrong).
    EXPECT_LT(glm::length(a.last_root_motion().translation), 0.25f) << "update " << k;
    const PoseInputs in = a.evaluated_inputs();
    EXPECT_EQ(in.base.num_terms, 1);
    if (in.base.num_terms != 1) break;
    auto foot = [&](int clip, float time) {
      return last_planted(strides[static_cast<size_t>(clip)],
                          clips[static_cast<size_t>(clip)].duration, time);
    };
    agree.push_back(foot(in.base.clip, in.base.time) ==
                    foot(in.base.terms[0].clip, in.base.terms[0].time));
  }
  return agree;
}

TEST(MarkerSync, BlendSpaceSamplesKeepToTheLeadersFootPlants) {
  const std::vector<Clip> clips = clips_with_run_late();
  // Either sample leading (the heavier one), the other stays on its foot all the way round.
  for (float x : {0.35f, 0.7f}) {
    const std::vector<bool> agree = blend_space_feet_agree(clips, true, x);
    ASSERT_EQ(agree.size(), 48u);
    for (size_t k = 0; k < agree.size(); ++k) EXPECT_TRUE(agree[k]) << "x " << x << " update " << k;
  }
  // At the shared normalized phase, run_late is on the other foot much of the time.
  const std::vector<bool> normalized = blend_space_feet_agree(clips, false, 0.35f);
  EXPECT_GT(std::count(normalized.begin(), normalized.end(), false), 10);
}

}  // namespace marker_sync_test
}  // namespace anim

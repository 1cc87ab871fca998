// Animator::catch_up: a step of time without the pose. catch_up(a) then update(b) is
// update(a) then update(b) bit for bit (local pose, matrices, palette, root, clocks), with
// the two steps' events reported together by the update, in order, within the per-update
// limit; a command between the two steps acts on the same state either way; the pose and the
// evaluated inputs stay the last evaluation's until the update; a bad dt is refused and
// changes nothing; a new event table drops the events a catch-up held.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim_test_rig.h"
#include "every_feature_animator.h"

namespace anim {
namespace animator_catch_up_test {

using animtest::same_palettes;
using animtest::same_transform_bits;

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

bool same_locals(const Animator& a, const Animator& b) {
  const auto& x = a.local_pose().locals;
  const auto& y = b.local_pose().locals;
  if (x.size() != y.size()) return false;
  for (size_t j = 0; j < x.size(); ++j)
    if (!same_transform_bits(x[j], y[j])) return false;
  return true;
}

bool same_matrices(std::span<const glm::mat4> a, std::span<const glm::mat4> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

bool same_event(const FiredEvent& a, const FiredEvent& b) {
  return a.clip == b.clip && a.event == b.event && same_bits(a.weight, b.weight) &&
         a.source == b.source && a.reverse == b.reverse && a.layer_id == b.layer_id;
}

// What two updates reported, as one update reports them: the first's events then the
// second's, the first kMaxFiredEvents kept and the rest counted.
struct Reported {
  std::vector<FiredEvent> events;
  uint64_t overflowed = 0;

  void add(const Animator& a) {
    for (const FiredEvent& e : a.fired_events()) {
      if (events.size() < static_cast<size_t>(kMaxFiredEvents))
        events.push_back(e);
      else
        ++overflowed;
    }
    overflowed += a.events_overflowed();
  }
  // Empty when `a` reports the same, else what differs.
  std::string compare(const Animator& a) const {
    const auto fired = a.fired_events();
    if (fired.size() != events.size())
      return std::to_string(fired.size()) + " events, expected " + std::to_string(events.size());
    for (size_t i = 0; i < events.size(); ++i)
      if (!same_event(fired[i], events[i])) return "event " + std::to_string(i) + " differs";
    if (a.events_overflowed() != overflowed)
      return std::to_string(a.events_overflowed()) + " overflowed, expected " +
             std::to_string(overflowed);
    return {};
  }
};

// Everything update(b) shows after the split steps, against the two updates.
void expect_same_state(const Animator& two_updates, const Animator& caught_up,
                       const std::string& where) {
  EXPECT_TRUE(same_locals(two_updates, caught_up)) << where;
  EXPECT_TRUE(same_matrices(two_updates.model_matrices(), caught_up.model_matrices())) << where;
  EXPECT_TRUE(same_palettes(two_updates.palette(), caught_up.palette())) << where;
  EXPECT_TRUE(same_transform_bits(two_updates.root_transform(), caught_up.root_transform()))
      << where;
  EXPECT_TRUE(same_bits(two_updates.current_clip_time(), caught_up.current_clip_time())) << where;
  EXPECT_EQ(two_updates.current_clip(), caught_up.current_clip()) << where;
  EXPECT_EQ(two_updates.num_active_fades(), caught_up.num_active_fades()) << where;
  EXPECT_TRUE(same_bits(two_updates.held_pose_weight(), caught_up.held_pose_weight())) << where;
  const PoseInputs x = two_updates.evaluated_inputs(), y = caught_up.evaluated_inputs();
  ASSERT_EQ(x.fades.size(), y.fades.size()) << where;
  for (size_t i = 0; i < x.fades.size(); ++i) {
    EXPECT_TRUE(same_bits(x.fades[i].weight, y.fades[i].weight)) << where << " fade " << i;
    EXPECT_TRUE(same_bits(x.fades[i].source.time, y.fades[i].source.time))
        << where << " fade " << i;
  }
  ASSERT_EQ(x.layers.size(), y.layers.size()) << where;
  for (size_t i = 0; i < x.layers.size(); ++i) {
    EXPECT_TRUE(same_bits(x.layers[i].time, y.layers[i].time)) << where << " layer " << i;
    EXPECT_TRUE(same_bits(x.layers[i].weight, y.layers[i].weight)) << where << " layer " << i;
  }
}

// Splits of a step into a catch-up and an update: with a zero on either side, the split of
// a tick period, uneven ones, and steps of a loop and more.
constexpr float kSplits[][2] = {{1.0f / 60, 1.0f / 60}, {0.0f, 1.0f / 30},  {1.0f / 30, 0.0f},
                                {0.05f, 0.0163f},       {0.3f, 1.0f / 60},  {0.0125f, 0.2f},
                                {1.7f, 0.1f},           {2.0f / 60, 0.01f}, {0.1f, 0.1f}};

TEST(AnimatorCatchUp, ThenAnUpdateIsTwoUpdatesBitForBitWithEveryFeature) {
  // Root motion, overlapping synced fades, layers of all time sources, a montage, a machine
  // layer, IK goals with world targets, a held pose blending out, more events per step than
  // an update keeps; and commands between the steps.
  animtest::EveryFeatureRig rig;
  Animator two(rig.skeleton, rig.clips), split(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(two));
  ASSERT_TRUE(rig.set_up(split));
  int round = 0;
  for (int pass = 0; pass < 6; ++pass)
    for (const auto& s : kSplits) {
      const std::string where = "round " + std::to_string(round) + " (" + std::to_string(s[0]) +
                                " + " + std::to_string(s[1]) + ")";
      Reported expected;
      ASSERT_TRUE(two.update(s[0]));
      expected.add(two);
      ASSERT_TRUE(split.catch_up(s[0]));
      // A command at the tick between the two steps.
      if (round % 3 == 1) {
        const int clip = round % 2 == 0 ? 0 : 3;
        ASSERT_TRUE(two.crossfade(clip, 0.4f, {.sync_normalized_time = round % 4 == 1}));
        ASSERT_TRUE(split.crossfade(clip, 0.4f, {.sync_normalized_time = round % 4 == 1}));
      }
      if (round % 5 == 2) {
        const float speed = round % 2 == 0 ? 0.7f : 1.3f;
        ASSERT_TRUE(two.set_speed(speed));
        ASSERT_TRUE(split.set_speed(speed));
      }
      ASSERT_TRUE(two.update(s[1]));
      expected.add(two);
      ASSERT_TRUE(split.update(s[1]));
      expect_same_state(two, split, where);
      const std::string events = expected.compare(split);
      EXPECT_TRUE(events.empty()) << where << ": " << events;
      ++round;
    }
}

// walk (1 s): step_l 0.25, step_r 0.75; run (0.6 s): plant 0, push 0.3.
struct StepRig : animtest::WalkRunRig {
  StepRig() {
    clips[0].events = {{"step_l", 0.25f, ""}, {"step_r", 0.75f, ""}};
    clips[1].events = {{"plant", 0.0f, ""}, {"push", 0.3f, ""}};
  }
};

TEST(AnimatorCatchUp, TheUpdateReportsTheCatchUpsEventsBeforeItsOwn) {
  StepRig rig;
  Animator two(rig.skeleton, rig.clips), split(rig.skeleton, rig.clips);
  for (Animator* a : {&two, &split}) {
    ASSERT_TRUE(a->play(0));
    ASSERT_TRUE(a->update(0.0f));
  }
  // 0 -> 0.3 crosses step_l; the crossfade to run starts there; 0.3 -> 0.8 crosses step_r
  // under the fade, and run's plant (fresh: its start time counts) and push.
  Reported expected;
  ASSERT_TRUE(two.update(0.3f));
  expected.add(two);
  ASSERT_TRUE(split.catch_up(0.3f));
  ASSERT_EQ(split.fired_events().size(), 1u) << "what the catch-up fired, held";
  for (Animator* a : {&two, &split}) ASSERT_TRUE(a->crossfade(1, 1.0f));
  ASSERT_TRUE(two.update(0.5f));
  expected.add(two);
  ASSERT_TRUE(split.update(0.5f));
  expect_same_state(two, split, "after the crossfade");
  EXPECT_EQ(expected.compare(split), "");
  ASSERT_EQ(expected.events.size(), 4u);
  EXPECT_EQ(split.fired_events()[0].clip, 0);
  EXPECT_EQ(split.fired_events()[0].event, 0);  // step_l, before the fade: all of the pose
  EXPECT_EQ(split.fired_events()[0].weight, 1.0f);

  // Several catch-ups in a row, then the update: three steps' events, in order.
  Reported three;
  for (float dt : {0.2f, 0.25f, 0.3f}) {
    ASSERT_TRUE(two.update(dt));
    three.add(two);
  }
  ASSERT_TRUE(split.catch_up(0.2f));
  ASSERT_TRUE(split.catch_up(0.25f));
  ASSERT_TRUE(split.update(0.3f));
  expect_same_state(two, split, "after three steps");
  EXPECT_EQ(three.compare(split), "");
  EXPECT_GE(three.events.size(), 2u);

  // The update after that one starts afresh.
  ASSERT_TRUE(two.update(0.05f));
  ASSERT_TRUE(split.update(0.05f));
  Reported one;
  one.add(two);
  EXPECT_EQ(one.compare(split), "");
}

TEST(AnimatorCatchUp, TheEventsOfSeveralStepsKeepThePerUpdateLimit) {
  // Steps that each cross more than half the limit: the update keeps the first
  // kMaxFiredEvents of both and counts the rest.
  StepRig rig;
  const int n = rig.skeleton.num_joints();
  rig.clips.push_back(animtest::make_swing_clip("busy", n, 1.0f, 0.2f, {1, 0, 0}));
  for (int k = 0; k < 10; ++k)
    rig.clips[2].events.push_back({"e" + std::to_string(k), 0.05f + 0.1f * k, ""});
  Animator two(rig.skeleton, rig.clips), split(rig.skeleton, rig.clips);
  for (Animator* a : {&two, &split}) ASSERT_TRUE(a->play(2));
  Reported expected;
  ASSERT_TRUE(two.update(2.5f));  // 25 events
  expected.add(two);
  ASSERT_TRUE(two.update(1.5f));  // 15 more
  expected.add(two);
  ASSERT_TRUE(split.catch_up(2.5f));
  ASSERT_TRUE(split.update(1.5f));
  EXPECT_EQ(expected.compare(split), "");
  EXPECT_EQ(split.fired_events().size(), static_cast<size_t>(kMaxFiredEvents));
  EXPECT_EQ(split.events_overflowed(), 40u - kMaxFiredEvents);
}

TEST(AnimatorCatchUp, ThePoseAndTheEvaluatedInputsStayTheLastEvaluations) {
  StepRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.set_root_motion({RootMotionMode::kExtract, -1, false}));
  ASSERT_TRUE(a.update(0.1f));
  const std::vector<Transform> locals = a.local_pose().locals;
  const std::vector<glm::mat4> model(a.model_matrices().begin(), a.model_matrices().end());
  const std::vector<PaletteMatrix> palette(a.palette().begin(), a.palette().end());
  const float evaluated_time = a.evaluated_inputs().base.time;
  const Transform root = a.root_transform();

  ASSERT_TRUE(a.catch_up(0.2f));
  for (size_t j = 0; j < locals.size(); ++j)
    EXPECT_TRUE(same_transform_bits(a.local_pose().locals[j], locals[j])) << "joint " << j;
  EXPECT_TRUE(same_matrices(a.model_matrices(), model));
  EXPECT_TRUE(same_palettes(a.palette(), palette));
  EXPECT_TRUE(a.model_current());
  EXPECT_TRUE(a.palette_current());
  EXPECT_TRUE(same_bits(a.evaluated_inputs().base.time, evaluated_time));
  // The clocks and the root moved on.
  EXPECT_FLOAT_EQ(a.current_clip_time(), 0.3f);
  EXPECT_GT(a.root_transform().translation.x, root.translation.x);
}

TEST(AnimatorCatchUp, ABadDtIsRefusedAndChangesNothing) {
  StepRig rig;
  Animator a(rig.skeleton, rig.clips), twin(rig.skeleton, rig.clips);
  for (Animator* x : {&a, &twin}) {
    ASSERT_TRUE(x->play(0));
    ASSERT_TRUE(x->set_root_motion({RootMotionMode::kExtract, -1, false}));
    ASSERT_TRUE(x->crossfade(1, 0.5f));
    ASSERT_TRUE(x->update(0.3f));  // crosses step_l, and run's plant and push
  }
  const size_t fired = a.fired_events().size();
  ASSERT_GT(fired, 0u);
  const float time = a.current_clip_time();
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), -0.01f}) {
    const Status s = a.catch_up(bad);
    EXPECT_FALSE(s) << bad;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("catch_up"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(same_bits(a.current_clip_time(), time));
  EXPECT_EQ(a.fired_events().size(), fired) << "the last update's events";
  // Nothing was held or advanced: the next update is the twin's, events and all.
  ASSERT_TRUE(a.update(0.5f));
  ASSERT_TRUE(twin.update(0.5f));
  expect_same_state(twin, a, "after the refused calls");
  Reported expected;
  expected.add(twin);
  EXPECT_EQ(expected.compare(a), "");
}

TEST(AnimatorCatchUp, ANewEventTableDropsTheEventsACatchUpHeld) {
  // Their indices name the old table's events.
  StepRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.catch_up(0.3f));  // step_l, held
  ASSERT_EQ(a.fired_events().size(), 1u);
  auto table = std::make_shared<ClipEventTable>(*a.event_table());
  table->clips[0].insert(table->clips[0].begin(), ClipEvent{"heel", 0.1f, ""});
  ASSERT_TRUE(a.set_event_table(table));
  EXPECT_EQ(a.fired_events().size(), 0u);
  ASSERT_TRUE(a.update(0.5f));  // 0.3 -> 0.8: step_r, now index 2
  ASSERT_EQ(a.fired_events().size(), 1u);
  EXPECT_EQ(a.fired_events()[0].event, 2);
}

}  // namespace animator_catch_up_test
}  // namespace anim

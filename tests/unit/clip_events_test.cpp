// Animation events: which events an Animator's update crosses, in which order and with which
// weight: forward and at the end of a tick, several loop wraps in one tick, reverse play
// across the start, an event at the start time, clamped clips, fading-in and fading-out
// clips, overlapping fades, layers (own clock, parameter), the per-update limit, a new
// table, and bad tables refused.
#include "anim/clip_events.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim_test_rig.h"

namespace anim {
namespace clip_events_test {

// walk (1 s): step_l 0.25, step_r 0.75 ("right"); run (0.5 s): plant 0, push 0.25;
// idle (2 s): blink 0.1; lean (1 s): lean 0.5; busy (1 s): ten events at 0.05, 0.15, ...
struct EventRig {
  Skeleton skeleton = animtest::make_rig();
  std::vector<Clip> clips;
  EventRig() {
    const int n = skeleton.num_joints();
    clips.push_back(animtest::make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, 1.0f));
    clips.push_back(animtest::make_swing_clip("run", n, 0.5f, -1.2f, {0, 0, 1}, 2.0f));
    clips.push_back(animtest::make_swing_clip("idle", n, 2.0f, 0.3f, {0, 1, 0}));
    clips.push_back(animtest::make_swing_clip("lean", n, 1.0f, 0.5f, {1, 0, 1}));
    clips.push_back(animtest::make_swing_clip("busy", n, 1.0f, 0.2f, {1, 0, 0}));
    clips[0].events = {{"step_l", 0.25f, ""}, {"step_r", 0.75f, "right"}};
    clips[1].events = {{"plant", 0.0f, ""}, {"push", 0.25f, ""}};
    clips[2].events = {{"blink", 0.1f, ""}};
    clips[3].events = {{"lean", 0.5f, ""}};
    for (int k = 0; k < 10; ++k)
      clips[4].events.push_back(
          {"e" + std::to_string(k), 0.05f + 0.1f * static_cast<float>(k), ""});
  }
};

enum Clips { kWalk, kRun, kIdle, kLean, kBusy };

// "clip:name" of each fired event, with "<" when crossed backwards.
std::vector<std::string> fired(const Animator& a) {
  std::vector<std::string> out;
  for (const FiredEvent& f : a.fired_events()) {
    const ClipEvent& e = a.event_table()->clips[f.clip][f.event];
    out.push_back(a.clips()[f.clip].name + ":" + e.name + (f.reverse ? "<" : ""));
  }
  return out;
}
using Names = std::vector<std::string>;

TEST(ClipEvents, ForwardPlayFiresEachEventInTheTickThatReachesIt) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kWalk));
  ASSERT_TRUE(a.update(0.125f));
  EXPECT_EQ(fired(a), Names{});
  ASSERT_TRUE(a.update(0.125f));  // lands exactly on 0.25: crossed
  EXPECT_EQ(fired(a), Names{"walk:step_l"});
  ASSERT_TRUE(a.update(0.125f));  // (0.25, 0.375]: not again
  EXPECT_EQ(fired(a), Names{});
  ASSERT_TRUE(a.update(0.5f));
  EXPECT_EQ(fired(a), Names{"walk:step_r"});
  const FiredEvent& f = a.fired_events()[0];
  EXPECT_EQ(f.source, EventSource::kBase);
  EXPECT_EQ(f.weight, 1.0f);
  EXPECT_FALSE(f.reverse);
  EXPECT_EQ(a.event_table()->clips[f.clip][f.event].payload, "right");
}

TEST(ClipEvents, SeveralLoopWrapsInOneTickFireEveryCrossing) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kWalk, {.start_time = 0.125f}));
  // 0.125 -> 2.625: to the end of this cycle, one whole cycle, then up to 0.625.
  ASSERT_TRUE(a.update(2.5f));
  EXPECT_EQ(fired(a),
            (Names{"walk:step_l", "walk:step_r", "walk:step_l", "walk:step_r", "walk:step_l"}));
  EXPECT_EQ(a.events_overflowed(), 0u);
}

TEST(ClipEvents, ReversePlayFiresBackwardsAndAcrossTheStart) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kWalk, {.speed = -1.0f, .start_time = 0.875f}));
  ASSERT_TRUE(a.update(0.25f));  // 0.875 -> 0.625
  EXPECT_EQ(fired(a), Names{"walk:step_r<"});
  ASSERT_TRUE(a.update(0.5f));  // -> 0.125
  EXPECT_EQ(fired(a), Names{"walk:step_l<"});
  ASSERT_TRUE(a.update(0.5f));  // across the start: -> 0.625 of the cycle before
  EXPECT_EQ(fired(a), Names{"walk:step_r<"});
  EXPECT_TRUE(a.fired_events()[0].reverse);
  // Twice round backwards in one tick: 0.625 -> -1.5 = 0.5 two cycles back.
  ASSERT_TRUE(a.update(2.125f));
  EXPECT_EQ(fired(a), (Names{"walk:step_l<", "walk:step_r<", "walk:step_l<", "walk:step_r<"}));
  // A negative character speed plays backwards too.
  Animator b(r.skeleton, r.clips);
  ASSERT_TRUE(b.play(kWalk, {.start_time = 0.5f}));
  ASSERT_TRUE(b.set_speed(-2.0f));
  ASSERT_TRUE(b.update(0.25f));  // 0.5 -> 0.0
  EXPECT_EQ(fired(b), Names{"walk:step_l<"});
}

TEST(ClipEvents, AnEventAtTheStartTimeFiresWhenThePlayheadFirstMoves) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kRun));
  ASSERT_TRUE(a.set_speed(0.0f));
  ASSERT_TRUE(a.update(0.125f));  // paused: nothing crossed yet
  EXPECT_EQ(fired(a), Names{});
  ASSERT_TRUE(a.set_speed(1.0f));
  ASSERT_TRUE(a.update(0.125f));
  EXPECT_EQ(fired(a), Names{"run:plant"});
  // Round the loop: push at 0.25, then plant again where the next cycle starts.
  ASSERT_TRUE(a.update(0.375f));
  EXPECT_EQ(fired(a), (Names{"run:push", "run:plant"}));
  ASSERT_TRUE(a.update(0.125f));  // from 0 (no longer fresh): plant not again
  EXPECT_EQ(fired(a), Names{});
}

TEST(ClipEvents, AClampedClipFiresItsEndOnceThenHolds) {
  EventRig r;
  r.clips[kWalk].events.push_back({"done", 1.0f, ""});
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kWalk, {.loop = false, .start_time = 0.5f}));
  ASSERT_TRUE(a.update(0.75f));
  EXPECT_EQ(fired(a), (Names{"walk:step_r", "walk:done"}));
  ASSERT_TRUE(a.update(0.75f));
  EXPECT_EQ(fired(a), Names{});
}

TEST(ClipEvents, FadingClipsFireWithTheirShareOfThePose) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kWalk));
  ASSERT_TRUE(a.crossfade(kRun, 1.0f));
  ASSERT_TRUE(a.update(0.25f));
  // The walk fading out (0.75 of the pose), then the run fading in (0.25): base first.
  EXPECT_EQ(fired(a), (Names{"walk:step_l", "run:plant", "run:push"}));
  const auto f = a.fired_events();
  EXPECT_FLOAT_EQ(f[0].weight, 0.75f);
  EXPECT_EQ(f[0].source, EventSource::kBase);
  EXPECT_FLOAT_EQ(f[1].weight, 0.25f);
  EXPECT_EQ(f[1].source, EventSource::kFade);
  // A second fade over both: walk keeps (1 - 0.5)(1 - 0.25), run 0.5 (1 - 0.25), idle 0.25.
  ASSERT_TRUE(a.crossfade(kIdle, 1.0f));
  ASSERT_TRUE(a.update(0.25f));
  EXPECT_EQ(fired(a), (Names{"run:plant", "idle:blink"}));
  EXPECT_FLOAT_EQ(a.fired_events()[0].weight, 0.375f);
  EXPECT_FLOAT_EQ(a.fired_events()[1].weight, 0.25f);
  // When the run's fade completes it is the base: its clips under it fire no more.
  Animator b(r.skeleton, r.clips);
  ASSERT_TRUE(b.play(kWalk, {.start_time = 0.5f}));
  ASSERT_TRUE(b.crossfade(kRun, 0.25f));
  ASSERT_TRUE(b.update(0.25f));  // walk would cross step_r at 0.75, but it is gone
  EXPECT_EQ(fired(b), (Names{"run:plant", "run:push"}));
  EXPECT_EQ(b.fired_events()[0].source, EventSource::kBase);
  EXPECT_EQ(b.fired_events()[0].weight, 1.0f);
}

TEST(ClipEvents, SyncedFadesFireAtTheFollowedPace) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kWalk, {.start_time = 0.125f}));
  ASSERT_TRUE(a.crossfade(kRun, 2.0f, {.sync_normalized_time = true}));  // run at 0.0625
  ASSERT_TRUE(a.update(0.25f));  // walk 0.375: run follows to 0.1875
  EXPECT_EQ(fired(a), Names{"walk:step_l"});
  ASSERT_TRUE(a.update(0.75f));  // walk wraps to 0.125: run to 0.0625 of its next cycle
  EXPECT_EQ(fired(a), (Names{"walk:step_r", "run:push", "run:plant"}));
}

TEST(ClipEvents, LayersFireWithTheirWeightAndId) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kWalk));
  AdditiveLayerDesc lean;
  lean.clip = kLean;
  lean.weight = 0.4f;
  auto own = a.add_layer(lean);
  ASSERT_TRUE(own.has_value());
  AdditiveLayerDesc silent = lean;
  silent.weight = 0.0f;  // weight 0: shows nothing, fires nothing
  ASSERT_TRUE(a.add_layer(silent).has_value());
  AdditiveLayerDesc param = lean;
  param.time_source = LayerTimeSource::kParameter;
  param.parameter = 0.25f;
  param.blend = LayerBlend::kOverride;
  param.weight = 0.5f;
  auto aim = a.add_layer(param);
  ASSERT_TRUE(aim.has_value());
  ASSERT_TRUE(a.update(0.5f));
  // Base first, then the layers in the order added.
  EXPECT_EQ(fired(a), (Names{"walk:step_l", "lean:lean"}));
  const FiredEvent& l = a.fired_events()[1];
  EXPECT_EQ(l.source, EventSource::kLayer);
  EXPECT_EQ(l.layer_id, static_cast<uint32_t>(*own));
  EXPECT_FLOAT_EQ(l.weight, 0.4f);
  // The parameter layer's playhead jumps when the parameter moves: across 0.5, and back.
  ASSERT_TRUE(a.update_layer(*aim, {0.5f, 1.0f, 0.75f}));
  ASSERT_TRUE(a.update(0.125f));
  EXPECT_EQ(fired(a), Names{"lean:lean"});
  EXPECT_EQ(a.fired_events()[0].layer_id, static_cast<uint32_t>(*aim));
  ASSERT_TRUE(a.update_layer(*aim, {0.5f, 1.0f, 0.125f}));
  ASSERT_TRUE(a.update(0.0f));
  EXPECT_EQ(fired(a), Names{"lean:lean<"});
}

TEST(ClipEvents, MoreThanTheLimitInOneUpdateAreCountedNotKept) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kBusy));
  ASSERT_TRUE(a.update(4.5f));  // 4.5 cycles of ten events: 45
  ASSERT_EQ(a.fired_events().size(), static_cast<size_t>(kMaxFiredEvents));
  EXPECT_EQ(a.events_overflowed(), 45u - kMaxFiredEvents);
  // The first 32 in order: e0..e9 three times, then e0, e1.
  for (int k = 0; k < kMaxFiredEvents; ++k) EXPECT_EQ(a.fired_events()[k].event, k % 10) << k;
  // An absurd speed: about 2^39 wraps in one update, counted without visiting them.
  Animator b(r.skeleton, r.clips);
  ASSERT_TRUE(b.play(kBusy, {.speed = 5.0e11f}));
  ASSERT_TRUE(b.update(1.0f));
  EXPECT_EQ(b.fired_events().size(), static_cast<size_t>(kMaxFiredEvents));
  EXPECT_GT(b.events_overflowed(), 4'000'000'000'000ull);
  ASSERT_TRUE(b.update(0.0f));  // nothing moves: nothing fires, nothing overflows
  EXPECT_TRUE(b.fired_events().empty());
  EXPECT_EQ(b.events_overflowed(), 0u);
}

TEST(ClipEvents, ANewTableTakesEffectAtTheNextUpdate) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  ASSERT_TRUE(a.play(kWalk));
  auto table = std::make_shared<ClipEventTable>(*a.event_table());
  table->clips[kWalk] = {{"mid", 0.5f, "x"}};
  ASSERT_TRUE(a.set_event_table(table));
  ASSERT_TRUE(a.update(0.75f));
  EXPECT_EQ(fired(a), Names{"walk:mid"});
  ASSERT_TRUE(a.set_event_table(nullptr));  // none
  ASSERT_TRUE(a.update(0.75f));
  EXPECT_TRUE(a.fired_events().empty());
  // Without events in any clip there is no table at all.
  std::vector<Clip> plain = r.clips;
  for (Clip& c : plain) c.events.clear();
  EXPECT_EQ(Animator(r.skeleton, plain).event_table(), nullptr);
}

TEST(ClipEvents, BadTablesAreRefusedAndChangeNothing) {
  EventRig r;
  Animator a(r.skeleton, r.clips);
  const auto kept = a.event_table();
  auto bad = [&](auto edit) {
    auto t = std::make_shared<ClipEventTable>(*kept);
    edit(*t);
    const Status s = a.set_event_table(t);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(a.event_table(), kept);
    return s.message();
  };
  EXPECT_NE(bad([](ClipEventTable& t) { t.clips.pop_back(); }).find("4 clip lists"),
            std::string::npos);
  EXPECT_NE(bad([](ClipEventTable& t) {
              t.clips[0].push_back({"late", 1.5f, ""});
            }).find("time 1.500000 is outside [0, 1.000000] of clip 'walk'"),
            std::string::npos);
  EXPECT_NE(bad([](ClipEventTable& t) {
              t.clips[0].push_back({"", 0.9f, ""});
            }).find("name"),
            std::string::npos);
  EXPECT_NE(
      bad([](ClipEventTable& t) { std::swap(t.clips[0][0], t.clips[0][1]); }).find("not sorted"),
      std::string::npos);
}

TEST(ClipEvents, SameCommandsFireTheSameEvents) {
  EventRig r;
  auto run = [&] {
    Animator a(r.skeleton, r.clips);
    std::vector<std::string> all;
    EXPECT_TRUE(a.play(kWalk, {.speed = 1.3f}));
    for (int i = 0; i < 300; ++i) {
      Status st;
      if (i == 50) st = a.crossfade(kRun, 0.4f, {.sync_normalized_time = true});
      if (i == 120) st = a.set_speed(-0.8f);
      if (i == 200) st = a.crossfade(kIdle, 0.3f);
      EXPECT_TRUE(st.is_ok());
      EXPECT_TRUE(a.update(1.0f / 60.0f));
      for (const auto& n : fired(a)) all.push_back(std::to_string(i) + n);
    }
    return all;
  };
  const auto first = run();
  EXPECT_GT(first.size(), 10u);
  EXPECT_EQ(first, run());
}

}  // namespace clip_events_test
}  // namespace anim

// Montage lifecycle events (EventSource::kMontage in Animator::fired_events): started,
// blending_out, ended and interrupted, each in the update it happens, ordered with the clip
// events (the base's first, then the slot's: lifecycle before and after its clip's events).
// The built-in character, dt 1/8 s; expectations hand-computed from docs/animation.md,
// "Montages".
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "montage_rig.h"

namespace anim {
namespace montage_events_test {

using animtest::builtin;
using animtest::EventNames;
using animtest::fired_names;
using animtest::montage_clip;
using animtest::numbered;
using animtest::walk_with_slot;

constexpr float kDt = 0.125f;

std::string lifecycle(const char* clip, const char* event, int slot) {
  return std::string("montage:") + clip + ":montage_" + event + numbered("@", slot);
}

TEST(MontageEvents, EachLifecycleEventComesInTheUpdateItHappensWithoutAnEventTable) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  ASSERT_TRUE(a.set_event_table(nullptr));
  const int slot = walk_with_slot(a);
  // wave at rate 2: 1 s of montage; blend in over 0.25 s, out over the last 0.25 s.
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("wave"), 2.0f, 0.25f, 0.25f, 0.0f}));
  EXPECT_TRUE(a.fired_events().empty());  // a command fires nothing by itself
  // After update k the montage is 1 - k/8 s from its end: blending out below 0.25 s (k = 7),
  // at weight 0 at k = 8.
  const EventNames want[] = {{lifecycle("wave", "started", slot)},
                             {},
                             {},
                             {},
                             {},
                             {},
                             {lifecycle("wave", "blending_out", slot)},
                             {lifecycle("wave", "ended", slot)},
                             {}};
  for (int k = 1; k <= 9; ++k) {
    ASSERT_TRUE(a.update(kDt));
    EXPECT_EQ(fired_names(a), want[k - 1]) << "update " << k;
    EXPECT_EQ(a.events_overflowed(), 0u);
  }
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kEnded);
  // What a lifecycle event holds.
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("wave")}));
  ASSERT_TRUE(a.update(kDt));
  ASSERT_EQ(a.fired_events().size(), 1u);
  const FiredEvent& e = a.fired_events()[0];
  EXPECT_EQ(e.source, EventSource::kMontage);
  EXPECT_EQ(e.event, static_cast<uint16_t>(MontageEvent::kStarted));
  EXPECT_EQ(e.clip, montage_clip("wave"));
  EXPECT_EQ(e.layer_id, static_cast<uint32_t>(slot));
  EXPECT_EQ(e.weight, 1.0f);
  EXPECT_FALSE(e.reverse);
}

TEST(MontageEvents, StopMontageBlendsOutOnceThenEnds) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("wave"), 1.0f, 0.0f, 0.5f, 0.0f}));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), EventNames{lifecycle("wave", "started", slot)});
  ASSERT_TRUE(a.stop_montage(slot, 0.25f));
  ASSERT_TRUE(a.update(kDt));  // weight 0.5
  EXPECT_EQ(fired_names(a), EventNames{lifecycle("wave", "blending_out", slot)});
  ASSERT_TRUE(a.update(kDt));  // weight 0
  EXPECT_EQ(fired_names(a), EventNames{lifecycle("wave", "ended", slot)});

  // Stopped while it already blends out toward its end: no second blending_out. Started 1 s
  // from the end with a 1 s blend-out, it blends out from its first update.
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("wave"), 1.0f, 0.0f, 1.0f, 1.0f}));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), (EventNames{lifecycle("wave", "started", slot),
                                        lifecycle("wave", "blending_out", slot)}));
  ASSERT_TRUE(a.stop_montage(slot, 0.125f));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), EventNames{lifecycle("wave", "ended", slot)});

  // With no blend-out, the montage blends out and ends in the update that reaches its end:
  // one update, started and both.
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("wave"), 1.0f, 0.0f, 0.0f, 1.875f}));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a),
            (EventNames{lifecycle("wave", "started", slot), lifecycle("wave", "blending_out", slot),
                        lifecycle("wave", "ended", slot)}));
}

TEST(MontageEvents, AReplacedMontageIsInterruptedInTheUpdateItsSuccessorStarts) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("wave")}));
  ASSERT_TRUE(a.update(kDt));
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("lean")}));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), (EventNames{lifecycle("wave", "interrupted", slot),
                                        lifecycle("lean", "started", slot)}));
  // Replaced twice before an update: the one that never started reports nothing.
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("wave")}));
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("jump")}));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), (EventNames{lifecycle("lean", "interrupted", slot),
                                        lifecycle("jump", "started", slot)}));
  // Replaced while stopping: still interrupted (it had not ended).
  ASSERT_TRUE(a.stop_montage(slot, 1.0f));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), EventNames{lifecycle("jump", "blending_out", slot)});
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("wave")}));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), (EventNames{lifecycle("jump", "interrupted", slot),
                                        lifecycle("wave", "started", slot)}));
  // One that ended is not interrupted by the next.
  ASSERT_TRUE(a.stop_montage(slot, 0.0f));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), (EventNames{lifecycle("wave", "blending_out", slot),
                                        lifecycle("wave", "ended", slot)}));
  ASSERT_TRUE(a.play_montage(slot, {montage_clip("lean")}));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), EventNames{lifecycle("lean", "started", slot)});
}

TEST(MontageEvents, LifecycleFramesTheSlotsClipEventsAfterTheBasesAndEarlierLayers) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int walk = montage_clip("walk"), wave = montage_clip("wave");
  auto table = std::make_shared<ClipEventTable>();
  table->clips.resize(asset.clips.size());
  table->clips[static_cast<size_t>(walk)] = {{"step", 0.0f, ""}};
  table->clips[static_cast<size_t>(wave)] = {{"raise", 0.0f, ""}, {"drop", 1.75f, ""}};
  ASSERT_TRUE(a.set_event_table(table));
  const int first = walk_with_slot(a);
  AdditiveLayerDesc second_desc;
  second_desc.blend = LayerBlend::kOverride;
  const int second = *a.add_layer(second_desc);
  // Both slots play wave at rate 2 (1 s), blending out over the last 0.25 s.
  ASSERT_TRUE(a.play_montage(second, {wave, 2.0f, 0.0f, 0.25f, 0.0f}));
  ASSERT_TRUE(a.play_montage(first, {wave, 2.0f, 0.0f, 0.25f, 0.0f}));
  const std::string at1 = numbered("@", first), at2 = numbered("@", second);
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a),
            (EventNames{"walk:step", lifecycle("wave", "started", first), "wave:raise" + at1,
                        lifecycle("wave", "started", second), "wave:raise" + at2}));
  for (int k = 2; k <= 6; ++k) ASSERT_TRUE(a.update(kDt));
  // Update 7: wave at 1.75 (weight 0.5) crosses "drop", then its blend-out begins.
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a),
            (EventNames{"wave:drop" + at1, lifecycle("wave", "blending_out", first),
                        "wave:drop" + at2, lifecycle("wave", "blending_out", second)}));
  // Update 8: walk wraps (its "step" at 0), both montages end.
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(fired_names(a), (EventNames{"walk:step", lifecycle("wave", "ended", first),
                                        lifecycle("wave", "ended", second)}));
}

}  // namespace montage_events_test
}  // namespace anim

// The rules by which a session picks each compact subscription's next frame
// (compact_frame_choice.h): the newest snapshot the encode stage prepared, waiting for a stage
// that is slow but moving, the fallback when it is starved, the hold while the tick has the
// cores, and which waiting snapshots are let go. Snapshots are built by hand: the rules read
// only their tick, whether they are quantized and what the stage prepared.
#include <deque>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "stream/compact_frame_choice.h"
#include "world/world.h"

namespace animd {
namespace compact_frame_choice_test {

// A snapshot of `tick`, quantized (or, with quantized = false, still being quantized after
// its tick), prepared by the stage against `against` (prepared = false: not prepared).
struct Waiting {
  std::deque<SnapshotPtr> list;
  // QuantizeWork::start only records these: a snapshot started on two characters stays
  // incomplete (nothing here runs its blocks).
  std::vector<const anim::Animator*> unquantized_characters =
      std::vector<const anim::Animator*>(2, nullptr);

  const Snapshot* add(uint64_t tick, bool prepared, bool quantized = true,
                      std::pair<uint64_t, uint64_t> against = {0, 0}) {
    auto snap = std::make_shared<Snapshot>();
    snap->tick = tick;
    snap->prepared.store(prepared, std::memory_order_release);
    snap->prepared_against[0] = against.first;
    snap->prepared_against[1] = against.second;
    if (!quantized) snap->quantize.start(*snap, unquantized_characters);
    list.push_back(snap);
    return list.back().get();
  }
};

StreamSubscription compact_sub(uint64_t through = 0, uint32_t divisor = 1) {
  StreamSubscription sub;
  sub.encoding = anim::v1::ENCODING_COMPACT;
  sub.all = true;
  sub.divisor = divisor;
  sub.start_tick = 1;
  sub.compact_through = through;
  return sub;
}

CompactChoiceState moving_stage(uint64_t newest_seen, bool tick_holds_cores = false) {
  return {.staged = true,
          .stage_starved = false,
          .tick_holds_cores = tick_holds_cores,
          .newest_seen = newest_seen};
}

TEST(CompactFrameChoice, TheNewestPreparedSnapshotIsSentAndTheDueOnesBeforeItAreDropped) {
  Waiting w;
  w.add(11, true);
  w.add(12, false);
  const Snapshot* newest_prepared = w.add(13, true);
  w.add(14, false);  // not prepared yet: waits
  StreamSubscription sub = compact_sub(10);
  const CompactChoice c = choose_compact_frame(sub, w.list, moving_stage(14));
  EXPECT_EQ(c.frame, newest_prepared);
  EXPECT_EQ(c.skipped, 2u);  // 11 and 12
  EXPECT_FALSE(c.fallback);
  EXPECT_FALSE(c.hold_began);
  // Only the rules' own state changes: the session moves compact_through when it sends.
  EXPECT_EQ(sub.compact_through, 10u);
}

TEST(CompactFrameChoice, SnapshotsAlreadySentOrNotDueAreNeitherChosenNorCounted) {
  Waiting w;
  w.add(9, true);   // at or before compact_through: already sent or skipped
  w.add(10, true);  // ditto
  w.add(11, true);
  const Snapshot* thirteen = w.add(13, true);
  w.add(14, true);
  // Every other tick from tick 1: 11 and 13 are due, 14 is not.
  StreamSubscription sub = compact_sub(10, 2);
  const CompactChoice c = choose_compact_frame(sub, w.list, moving_stage(14));
  EXPECT_EQ(c.frame, thirteen);
  EXPECT_EQ(c.skipped, 1u);
}

TEST(CompactFrameChoice, ASlowButMovingStageIsWaitedFor) {
  Waiting w;
  w.add(11, false);
  w.add(12, false);
  StreamSubscription sub = compact_sub(10);
  // However long the snapshots have waited: the stage is moving.
  const CompactChoice c = choose_compact_frame(sub, w.list, moving_stage(40));
  EXPECT_EQ(c.frame, nullptr);
  EXPECT_FALSE(c.fallback);
}

TEST(CompactFrameChoice, AStarvedStagesSnapshotsAreSentByTheSessionAfterTheGrace) {
  Waiting w;
  w.add(11, false);
  const Snapshot* newest_quantized = w.add(12, false);
  w.add(13, false, /*quantized=*/false);  // quantized after its tick, not yet: never sent
  StreamSubscription sub = compact_sub(10);
  CompactChoiceState state{.staged = true, .stage_starved = true, .newest_seen = 0};
  // The oldest (11) has waited less than kStageGraceTicks.
  state.newest_seen = 11 + kStageGraceTicks - 1;
  EXPECT_EQ(choose_compact_frame(sub, w.list, state).frame, nullptr);
  state.newest_seen = 11 + kStageGraceTicks;
  const CompactChoice c = choose_compact_frame(sub, w.list, state);
  EXPECT_EQ(c.frame, newest_quantized);
  EXPECT_TRUE(c.fallback);
  EXPECT_EQ(c.skipped, 1u);
}

TEST(CompactFrameChoice, WithoutAStageEveryQuantizedSnapshotIsReady) {
  Waiting w;
  const Snapshot* quantized = w.add(11, false);
  w.add(12, false, /*quantized=*/false);
  StreamSubscription sub = compact_sub(10);
  const CompactChoiceState state{
      .staged = false, .stage_starved = stage_starved(false, 0, 11), .newest_seen = 12};
  const CompactChoice c = choose_compact_frame(sub, w.list, state);
  EXPECT_EQ(c.frame, quantized);
  EXPECT_FALSE(c.fallback);
}

TEST(CompactFrameChoice, AFrameOfTheSessionsOwnEncodingWaitsForTheTickAFewTicksAtMost) {
  Waiting w;
  // Prepared, but against ticks this subscriber does not hold (it keeps none): its entries
  // would be the session's own encoding.
  const Snapshot* snap = w.add(11, true, true, {9, 8});
  StreamSubscription sub = compact_sub(10);
  CompactChoice c = choose_compact_frame(sub, w.list, moving_stage(11, true));
  EXPECT_EQ(c.frame, nullptr);
  EXPECT_TRUE(c.hold_began);
  EXPECT_EQ(sub.held_for_tick_since, 11u);
  // Woken again during the same hold: not a new one.
  c = choose_compact_frame(sub, w.list, moving_stage(11 + kMaxHeldForTickTicks - 1, true));
  EXPECT_EQ(c.frame, nullptr);
  EXPECT_FALSE(c.hold_began);
  // Held long enough: sent although the tick still holds the cores.
  c = choose_compact_frame(sub, w.list, moving_stage(11 + kMaxHeldForTickTicks, true));
  EXPECT_EQ(c.frame, snap);
  EXPECT_FALSE(c.hold_began);
  EXPECT_EQ(sub.held_for_tick_since, 0u);
}

TEST(CompactFrameChoice, AFrameHeldForTheTickGoesOutOnceTheTickEnds) {
  Waiting w;
  const Snapshot* snap = w.add(11, true, true, {9, 8});
  StreamSubscription sub = compact_sub(10);
  EXPECT_EQ(choose_compact_frame(sub, w.list, moving_stage(11, true)).frame, nullptr);
  const CompactChoice c = choose_compact_frame(sub, w.list, moving_stage(11, false));
  EXPECT_EQ(c.frame, snap);
  EXPECT_EQ(sub.held_for_tick_since, 0u);
}

TEST(CompactFrameChoice, AFrameInStepWithTheStageIsNotHeld) {
  Waiting w;
  StreamSubscription sub = compact_sub(10);
  // The subscriber holds frames of ticks 10 and 9, which the stage prepared tick 11 against.
  for (uint64_t t : {10u, 9u}) {
    auto q = std::make_shared<QuantFrame>();
    q->tick = t;
    sub.kept.push_back(QuantRef(q));
  }
  const Snapshot* snap = w.add(11, true, true, {10, 9});
  const CompactChoice c = choose_compact_frame(sub, w.list, moving_stage(11, true));
  EXPECT_EQ(c.frame, snap);
  EXPECT_FALSE(c.hold_began);
}

TEST(CompactFrameChoice, AFallbackHeldForTheTickIsCountedWhenSent) {
  Waiting w;
  w.add(11, false);
  StreamSubscription sub = compact_sub(10);
  CompactChoiceState state{.staged = true,
                           .stage_starved = true,
                           .tick_holds_cores = true,
                           .newest_seen = 11 + kStageGraceTicks};
  CompactChoice c = choose_compact_frame(sub, w.list, state);
  EXPECT_EQ(c.frame, nullptr);
  EXPECT_TRUE(c.hold_began);
  EXPECT_FALSE(c.fallback);
  state.tick_holds_cores = false;
  c = choose_compact_frame(sub, w.list, state);
  ASSERT_NE(c.frame, nullptr);
  EXPECT_TRUE(c.fallback);
}

TEST(CompactFrameChoice, AStageIsStarvedWhenItsProgressIsFarBehindOrItIsAbsent) {
  EXPECT_TRUE(stage_starved(false, 100, 100));
  EXPECT_FALSE(stage_starved(true, 100, 100 + kStageStarvedTicks - 1));
  EXPECT_TRUE(stage_starved(true, 100, 100 + kStageStarvedTicks));
}

TEST(CompactFrameChoice, ASnapshotTheStagePassedOverIsLetGoAndCountedForEachWaiter) {
  Waiting w;
  const Snapshot& snap = *w.add(11, false);
  std::vector<StreamSubscription> subs{compact_sub(10), compact_sub(10), compact_sub(11)};
  StreamSubscription floats = compact_sub(10);
  floats.encoding = anim::v1::ENCODING_FLOAT_3X4;
  subs.push_back(floats);
  uint32_t drops = 99;
  // The stage took tick 12 without preparing 11: it never will. Two compact subscriptions
  // were waiting for it (the third has sent 11's tick; the float one never waits).
  EXPECT_FALSE(keep_waiting(snap, subs, false, 12, drops));
  EXPECT_EQ(drops, 2u);
  // The stage has not taken a later tick yet: it may still prepare it.
  EXPECT_TRUE(keep_waiting(snap, subs, false, 11, drops));
  EXPECT_EQ(drops, 0u);
  // A starved stage's snapshots may still go out through the fallback.
  EXPECT_TRUE(keep_waiting(snap, subs, true, 12, drops));
}

TEST(CompactFrameChoice, APassedOverSnapshotStaysForAPacedSubscription) {
  Waiting w;
  const Snapshot& snap = *w.add(11, false);
  // Every other tick from tick 1: 11 is due, and a paced subscription does not wait for
  // the stage.
  const std::vector<StreamSubscription> subs{compact_sub(10, 2)};
  uint32_t drops = 0;
  EXPECT_TRUE(keep_waiting(snap, subs, false, 12, drops));
}

TEST(CompactFrameChoice, ASnapshotNobodyWaitsForIsLetGoWithoutDrops) {
  Waiting w;
  const Snapshot& prepared = *w.add(11, true);
  const std::vector<StreamSubscription> subs{compact_sub(11), compact_sub(12)};
  uint32_t drops = 99;
  EXPECT_FALSE(keep_waiting(prepared, subs, false, 11, drops));
  EXPECT_EQ(drops, 0u);
}

TEST(CompactFrameChoice, ATickWhoseQuantizationWasGivenUpIsNoFrameAndNotWaitedFor) {
  Waiting w;
  // The stage finishes its job as prepared (it encodes nothing of it).
  const Snapshot& given_up = *w.add(11, true, false);
  EXPECT_TRUE(given_up.quantize.abandon());  // neither character was taken
  ASSERT_TRUE(given_up.quant_abandoned());
  ASSERT_FALSE(given_up.quantized());
  const Snapshot* twelve = w.add(12, true);
  StreamSubscription sub = compact_sub(10);
  const CompactChoice c = choose_compact_frame(sub, w.list, moving_stage(12));
  EXPECT_EQ(c.frame, twelve);
  EXPECT_EQ(c.skipped, 0u) << "a tick with no frame is not a dropped frame";
  // Let go of at once, by every subscription, and counted as no drop.
  const std::vector<StreamSubscription> subs{compact_sub(10), compact_sub(10, 2)};
  uint32_t drops = 99;
  EXPECT_FALSE(keep_waiting(given_up, subs, true, 11, drops));
  EXPECT_EQ(drops, 0u);
  // Alone, it is never chosen, not even by a session encoding for a starved stage.
  Waiting alone;
  EXPECT_TRUE(alone.add(11, false, false)->quantize.abandon());
  StreamSubscription waiting_sub = compact_sub(10);
  const CompactChoiceState starved{
      .staged = true, .stage_starved = true, .tick_holds_cores = false, .newest_seen = 40};
  EXPECT_EQ(choose_compact_frame(waiting_sub, alone.list, starved).frame, nullptr);
}

}  // namespace compact_frame_choice_test
}  // namespace animd

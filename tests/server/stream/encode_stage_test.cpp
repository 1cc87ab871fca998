// The encode stage (encode_stage.h) prepares exactly the entries an in-step subscriber then
// sends, on its threads, after the tick; and the World quantizes only the ticks the stage can
// take (Metrics::stage_busy), each pulled towards the last two quantized.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "compact_stream_fixture.h"
#include "stream/encode_stage.h"

namespace animd::compact_test {
namespace encode_stage_test {

TEST_F(CompactStreamTest, TheEncodeStagePreparesWhatAnInStepSubscriberSends) {
  const uint32_t a = spawn(0.0f);
  spawn(1.0f);
  StreamSubscription sub = compact_all();
  prepare_and_send_every(
      sub, 5, 1, [&] { return tick(); }, receiver_);
  const std::vector<FrameKind> expected{FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                        FrameKind::kDelta2, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], expected);
}

TEST_F(CompactStreamTest, TheEncodeStagePreparesDeltasAcrossTheTicksItSkipped) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  // A stage behind the tick prepares every other snapshot; subscribers in step encode those,
  // and their deltas name the ticks between.
  prepare_and_send_every(
      sub, 9, 2, [&] { return tick(); }, receiver_);
  const std::vector<FrameKind> expected{FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2,
                                        FrameKind::kDelta2, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], expected);
  const std::vector<std::pair<uint64_t, uint64_t>> skips{{0, 0}, {1, 0}, {1, 1}, {1, 1}, {1, 1}};
  EXPECT_EQ(receiver_.skips[a], skips);
}

TEST_F(CompactStreamTest, TicksTheStageCannotTakeAreNotQuantized) {
  const uint32_t a = spawn(0.0f);
  StreamSubscription sub = compact_all();
  // The stage is busy at the start of ticks 2-7 and 9 (Metrics::stage_busy): the World
  // leaves those unquantized, but never more than kMaxDeferredTicks (3) in a row.
  const std::vector<uint64_t> busy{2, 3, 4, 5, 6, 7, 9};
  std::vector<uint64_t> quantized;
  std::vector<std::pair<uint64_t, uint64_t>> pulls;  // pull_ticks (0: none)
  QuantRef held[2];
  for (int i = 0; i < 12; ++i) {
    metrics_.stage_busy = std::count(busy.begin(), busy.end(), tick_ + 1) > 0;
    const SnapshotPtr snap = tick();
    if (!snap->quant) {
      EXPECT_TRUE(snap->quant_deferred) << snap->tick;
      continue;
    }
    EXPECT_FALSE(snap->quant_deferred);
    quantized.push_back(snap->tick);
    pulls.emplace_back(snap->pull_ticks[0], snap->pull_ticks[1]);
    // Let go of once the workers are done with them.
    EXPECT_FALSE(snap->quant_pull[0] || snap->quant_pull[1]);
    // The shared deltas' baselines stay the ticks just before, when those were quantized.
    EXPECT_EQ(static_cast<bool>(snap->quant_prev[0]),
              snap->pull_ticks[0] != 0 && snap->pull_ticks[0] + 1 == snap->tick);
    // What the stage prepares of it (against the last two it prepared: these) is what a
    // subscriber in step sends, and the client decodes the quantized poses bit for bit.
    prepare_then_send(sub, snap, held, receiver_);
    held[1] = held[0];
    held[0] = snap->quant;
  }
  EXPECT_EQ(quantized, (std::vector<uint64_t>{1, 5, 8, 10, 11, 12}));
  // This World quantizes nothing after its ticks (no stage threads): each was counted as
  // quantized inside the tick.
  EXPECT_EQ(metrics_.quantized_in_tick.load(), quantized.size());
  // Each tick is pulled towards the last two quantized, whichever ticks they were, when the
  // newest is at most World::kMaxPullGap (2) ticks back: not ticks 5 and 8.
  const std::vector<std::pair<uint64_t, uint64_t>> expected_pulls{{0, 0}, {0, 0},  {0, 0},
                                                                  {8, 5}, {10, 8}, {11, 10}};
  EXPECT_EQ(pulls, expected_pulls);
  const std::vector<FrameKind> kinds{FrameKind::kKey,    FrameKind::kDelta1, FrameKind::kDelta2,
                                     FrameKind::kDelta2, FrameKind::kDelta2, FrameKind::kDelta2};
  EXPECT_EQ(receiver_.kinds[a], kinds);
  const std::vector<std::pair<uint64_t, uint64_t>> skips{{0, 0}, {3, 0}, {2, 3},
                                                         {1, 2}, {0, 1}, {0, 0}};
  EXPECT_EQ(receiver_.skips[a], skips);
}

TEST_F(CompactStreamTest, CharactersSpawnedAndDespawnedWhileTicksAreDeferredPullFromTheirOwn) {
  const uint32_t a = spawn(0.0f), b = spawn(1.0f), c = spawn(2.0f);
  StreamSubscription sub = compact_all();
  QuantRef held[2];
  auto send = [&](const SnapshotPtr& snap) {
    prepare_then_send(sub, snap, held, receiver_);
    held[1] = held[0];
    held[0] = snap->quant;
  };
  const SnapshotPtr first = tick();  // tick 1: a, b, c
  send(first);
  // Tick 2 deferred; before it b goes and d comes, so c moves from index 2 to 1.
  metrics_.stage_busy = true;
  ASSERT_TRUE(world_->execute(DespawnCharacter{b}, Caller{1, 0}, tick_, 0.0));
  const uint32_t d = spawn(3.0f);
  EXPECT_FALSE(tick()->quant);
  metrics_.stage_busy = false;
  const SnapshotPtr next = tick();  // tick 3: pulled from tick 1 (World::kMaxPullGap)
  ASSERT_TRUE(next->quant);
  EXPECT_EQ(next->pull_ticks[0], 1u);
  // Each pulls from its own place in tick 1's frame (c was third there); d has none.
  const SnapshotCharacter* in_first = first->find(c);
  const SnapshotCharacter* now = next->find(c);
  ASSERT_TRUE(in_first && now);
  EXPECT_EQ(now->pull_offset[0], in_first->quant_offset);
  EXPECT_EQ(now->pull_index[0], 2u);
  EXPECT_EQ(next->find(a)->pull_index[0], 0u);
  EXPECT_EQ(next->find(d)->pull_offset[0], kNotQuantized);
  send(next);
  EXPECT_EQ(receiver_.kinds[a], (std::vector<FrameKind>{FrameKind::kKey, FrameKind::kDelta1}));
  EXPECT_EQ(receiver_.kinds[c], (std::vector<FrameKind>{FrameKind::kKey, FrameKind::kDelta1}));
  EXPECT_EQ(receiver_.kinds[d], (std::vector<FrameKind>{FrameKind::kKey}));
  EXPECT_EQ(receiver_.skips[c].back(), (std::pair<uint64_t, uint64_t>{1, 0}));
}

TEST_F(CompactStreamTest, DeferringNeedsACompactSubscription) {
  spawn(0.0f);
  metrics_.stage_busy = true;
  metrics_.compact_subscriptions = 0;
  const SnapshotPtr off = tick();
  EXPECT_FALSE(off->quant);
  EXPECT_FALSE(off->quant_deferred);  // the stage lets go of its frames on this one
  // Compact again, the stage still busy: the last quantized tick is too old to wait for
  // (none at all), so this one is quantized, without a pull from before the pause.
  metrics_.compact_subscriptions = 1;
  const SnapshotPtr on = tick();
  ASSERT_TRUE(on->quant);
  EXPECT_EQ(on->pull_ticks[0], 0u);
  EXPECT_EQ(on->characters[0].pull_offset[0], kNotQuantized);
  EXPECT_TRUE(tick()->quant_deferred);
}

TEST_F(CompactStreamTest, EveryTickIsQuantizedWhileACompactSubscriptionIsPaced) {
  spawn(0.0f);
  // A subscription at a rate divisor is due at fixed ticks: a busy stage defers none.
  metrics_.compact_paced_subscriptions = 1;
  metrics_.stage_busy = true;
  for (int i = 0; i < 5; ++i) {
    const SnapshotPtr snap = tick();
    ASSERT_TRUE(snap->quant) << tick_;
    // Every tick quantized: the pull is the two ticks before, the shared deltas' baselines.
    EXPECT_EQ(snap->pull_ticks[0], tick_ > 1 ? tick_ - 1 : 0);
    EXPECT_EQ(snap->pull_ticks[1], tick_ > 2 ? tick_ - 2 : 0);
  }
  metrics_.compact_paced_subscriptions = 0;
  EXPECT_FALSE(tick()->quant);
}

TEST(EncodeStage, WatchedAreTheIdWatchedAndTheRegionsInnerZones) {
  Snapshot snap;
  snap.quant = QuantRef(std::make_shared<QuantFrame>());  // all four quantized (offset 0)
  snap.characters.resize(4);
  snap.characters[0].watched_by_id = true;
  snap.characters[1].root.translation = glm::vec3(0.5f, 0.0f, 0.0f);  // inner zone
  snap.characters[2].root.translation = glm::vec3(1.5f, 0.0f, 0.0f);  // outer zone
  snap.characters[3].root.translation = glm::vec3(9.0f, 0.0f, 0.0f);  // outside
  EXPECT_TRUE(EncodeStage::watched(snap, 0));
  EXPECT_FALSE(EncodeStage::watched(snap, 1));  // no region yet
  StreamRegion region;
  region.radius = 1.0f;
  region.outer_margin = 1.0f;
  region.outer_divisor = 2;
  snap.regions.push_back(region);
  EXPECT_TRUE(EncodeStage::watched(snap, 1));
  // Outer-zone members go out on their turns only: the sessions encode those.
  EXPECT_FALSE(EncodeStage::watched(snap, 2));
  EXPECT_FALSE(EncodeStage::watched(snap, 3));
  // Not quantized at this tick: nothing to prepare, whoever watches it.
  snap.characters[0].quant_offset = kNotQuantized;
  EXPECT_FALSE(EncodeStage::watched(snap, 0));
}

// The stage's on_prepared, as a future per snapshot: next() arms it for the next one prepared.
class PreparedSignal {
 public:
  std::future<uint64_t> next() {
    std::lock_guard lock(mutex_);
    promise_ = std::promise<uint64_t>();
    armed_ = true;
    return promise_.get_future();
  }
  void operator()(uint64_t tick) {
    std::lock_guard lock(mutex_);
    if (armed_) promise_.set_value(tick), armed_ = false;
  }

 private:
  std::mutex mutex_;
  std::promise<uint64_t> promise_;
  bool armed_ = false;
};

// A compact all-characters subscription in the World: every character is watched.
void subscribe_compact_all(World& world, uint64_t tick) {
  Subscribe s;
  s.all_characters = true;
  s.compact = true;
  s.subscription_id = 1;
  ASSERT_TRUE(world.execute(s, Caller{1, 0}, tick, 0.0));
}

// A bound for a broken stage, not a timing check.
constexpr auto kStageBound = std::chrono::seconds(30);

TEST_F(CompactStreamTest, TheEncodeStageThreadsPrepareEachSnapshotOffered) {
  spawn(0.0f);
  spawn(1.0f);
  ASSERT_NO_FATAL_FAILURE(subscribe_compact_all(*world_, tick_));
  PreparedSignal signal;
  EncodeStage stage(2, false, nullptr, [&](uint64_t tick) { signal(tick); });
  StreamSubscription sub = compact_all();
  for (int i = 0; i < 4; ++i) {
    const SnapshotPtr snap = tick();
    EXPECT_FALSE(snap->prepared.load());
    std::future<uint64_t> tick_prepared = signal.next();
    stage.offer(snap);
    ASSERT_EQ(tick_prepared.wait_for(kStageBound), std::future_status::ready);
    EXPECT_EQ(tick_prepared.get(), snap->tick);
    EXPECT_TRUE(snap->prepared.load());
    const std::vector<bool> prepared = ready_entries(*snap);
    EXPECT_EQ(std::count(prepared.begin(), prepared.end(), true), 2);  // one per character
    EncodedFrame out;
    encode_stream_frame(sub, *snap, 0, 0, 1 << 20, out);
    EXPECT_EQ(ready_entries(*snap), prepared) << "tick " << snap->tick;
    receiver_.receive(out, *snap);
  }
  EXPECT_EQ(stage.prepared(), 4u);
}

TEST_F(CompactStreamTest, TheEncodeStageWaitsForTheTickToEnd) {
  spawn(0.0f);
  ASSERT_NO_FATAL_FAILURE(subscribe_compact_all(*world_, tick_));
  std::atomic<bool> tick_running{true}, busy{false};
  PreparedSignal signal;
  std::future<uint64_t> tick_prepared = signal.next();
  EncodeStage stage(
      2, false, &tick_running, [&](uint64_t tick) { signal(tick); }, &busy);
  const SnapshotPtr snap = tick();
  stage.offer(snap);
  EXPECT_TRUE(busy.load());  // the World defers the next ticks' quantizing
  // While the tick runs nothing is encoded (a stage that did not wait would have long
  // finished one character).
  EXPECT_EQ(tick_prepared.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  EXPECT_FALSE(snap->prepared.load());
  EXPECT_FALSE(ready_entries(*snap)[0]);
  tick_running.store(false);
  tick_running.notify_all();
  ASSERT_EQ(tick_prepared.wait_for(kStageBound), std::future_status::ready);
  EXPECT_EQ(tick_prepared.get(), snap->tick);
  EXPECT_TRUE(snap->prepared.load());
  EXPECT_TRUE(ready_entries(*snap)[0]);  // its key frame
  EXPECT_FALSE(busy.load());             // set before on_prepared runs

  // A tick the World deferred is no snapshot to prepare, and no sign that compact
  // subscriptions ended: the stage keeps its frames, so the next entry is a delta.
  Snapshot deferred;
  deferred.tick = snap->tick + 1;
  deferred.quant_deferred = true;
  stage.offer(std::make_shared<const Snapshot>(std::move(deferred)));
  EXPECT_FALSE(busy.load());
  ++tick_;  // the deferred tick
  std::future<uint64_t> next_prepared = signal.next();
  const SnapshotPtr next = tick();
  stage.offer(next);
  ASSERT_EQ(next_prepared.wait_for(kStageBound), std::future_status::ready);
  const std::vector<bool> ready = ready_entries(*next);
  EXPECT_FALSE(ready[0]);  // no key frame: against the frames of `snap`, a tick skipped
  EXPECT_EQ(std::count(ready.begin(), ready.end(), true), 1);
}

// stage_prepared_for says whether a subscriber's frame is all the stage's entries (the
// session holds back the others while the tick runs, kMaxHeldForTickTicks in
// compact_frame_choice.h): true for a subscriber in step with the stage, and then sending encodes
// nothing new; false for one that skipped a prepared snapshot (it encodes deltas of its own), for a
// new one (key frames), and for a snapshot not prepared yet.
TEST_F(CompactStreamTest, AFrameIsTheStagesOwnOnlyForASubscriberInStepWithIt) {
  spawn(0.0f);
  spawn(1.0f);
  ASSERT_NO_FATAL_FAILURE(subscribe_compact_all(*world_, tick_));
  PreparedSignal signal;
  EncodeStage stage(2, false, nullptr, [&](uint64_t tick) { signal(tick); });
  StreamSubscription in_step = compact_all(), skipping = compact_all();
  Receiver skipping_receiver;
  skipping_receiver.layout = receiver_.layout;
  for (int i = 0; i < 6; ++i) {
    const SnapshotPtr snap = tick();
    EXPECT_FALSE(stage_prepared_for(in_step, *snap)) << "not prepared yet, tick " << snap->tick;
    std::future<uint64_t> tick_prepared = signal.next();
    stage.offer(snap);
    ASSERT_EQ(tick_prepared.wait_for(kStageBound), std::future_status::ready);
    EXPECT_EQ(snap->prepared_against[0], i >= 1 ? snap->tick - 1 : 0u);
    EXPECT_EQ(snap->prepared_against[1], i >= 2 ? snap->tick - 2 : 0u);
    // In step: the first frame too (the stage's first snapshot is key frames). A new
    // subscriber after that needs key frames the stage did not prepare.
    EXPECT_TRUE(stage_prepared_for(in_step, *snap)) << "tick " << snap->tick;
    EXPECT_EQ(stage_prepared_for(compact_all(), *snap), i == 0) << "tick " << snap->tick;
    const std::vector<bool> prepared = ready_entries(*snap);
    EncodedFrame out;
    encode_stream_frame(in_step, *snap, 0, 0, 1 << 20, out);
    EXPECT_EQ(ready_entries(*snap), prepared) << "tick " << snap->tick;
    receiver_.receive(out, *snap);
    // The other subscriber takes ticks 1, 2, 4, 6: in step at 1 and 2; at 4 and 6 its
    // deltas are against the ticks it holds (2 and 1, then 4 and 2), not the stage's.
    if (snap->tick == 3 || snap->tick == 5) continue;
    const bool expected = snap->tick <= 2;
    EXPECT_EQ(stage_prepared_for(skipping, *snap), expected) << "tick " << snap->tick;
    encode_stream_frame(skipping, *snap, 0, 0, 1 << 20, out);
    skipping_receiver.receive(out, *snap);
    if (!expected) {
      EXPECT_NE(ready_entries(*snap), prepared) << "tick " << snap->tick << ": nothing of its own";
    }
  }
}

// The sessions encode frames themselves only when the stage's progress is far behind
// (kStageStarvedTicks, compact_frame_choice.h): an idle stage given a snapshot is not behind, a
// busy one given another is, until it has prepared something. And the tick it took last.
TEST_F(CompactStreamTest, TheStagesProgressIsItsLastPreparedTickOrTheTickThatFoundItIdle) {
  spawn(0.0f);
  ASSERT_NO_FATAL_FAILURE(subscribe_compact_all(*world_, tick_));
  std::atomic<bool> tick_running{true};
  PreparedSignal signal;
  EncodeStage stage(1, false, &tick_running, [&](uint64_t tick) { signal(tick); });
  EXPECT_EQ(stage.progress_tick(), 0u);
  EXPECT_EQ(stage.taken_tick(), 0u);
  std::future<uint64_t> first_prepared = signal.next();
  const SnapshotPtr first = tick();
  stage.offer(first);
  EXPECT_EQ(stage.progress_tick(), first->tick);  // idle: it starts on it now
  // Busy with `first` (held back by the running tick): a newer snapshot waits, and the stage
  // is as far behind as that one is past `first`.
  ++tick_;
  ++tick_;
  const SnapshotPtr second = tick();
  stage.offer(second);
  EXPECT_EQ(stage.progress_tick(), first->tick);
  std::future<uint64_t> second_prepared;
  {
    // Let the stage prepare `first`; it then takes `second`.
    tick_running.store(false);
    tick_running.notify_all();
    ASSERT_EQ(first_prepared.wait_for(kStageBound), std::future_status::ready);
    second_prepared = signal.next();
    EXPECT_GE(stage.taken_tick(), first->tick);
  }
  if (!second->prepared.load()) {
    ASSERT_EQ(second_prepared.wait_for(kStageBound), std::future_status::ready);
  }
  EXPECT_TRUE(second->prepared.load());
  EXPECT_EQ(stage.progress_tick(), second->tick);
  // The stage takes only the newest offered: what it took last bounds what it may still
  // prepare (the sessions let go of older snapshots it did not prepare).
  EXPECT_EQ(stage.taken_tick(), second->tick);
}

TEST_F(CompactStreamTest, TheEncodeStageForgetsAJobsFramesWhenCompactSubscriptionsEnd) {
  spawn(0.0f);
  ASSERT_NO_FATAL_FAILURE(subscribe_compact_all(*world_, tick_));
  std::atomic<bool> tick_running{true};
  PreparedSignal signal;
  EncodeStage stage(1, false, &tick_running, [&](uint64_t tick) { signal(tick); });
  // Tick 1 is in the stage's hands (waiting, or held up by the tick) when the compact
  // subscriptions end.
  const SnapshotPtr first = tick();
  std::future<uint64_t> first_prepared = signal.next();
  stage.offer(first);
  Snapshot ended;  // no quantized poses, not deferred: no compact subscription left
  ended.tick = first->tick + 1;
  stage.offer(std::make_shared<const Snapshot>(std::move(ended)));
  tick_running.store(false);
  tick_running.notify_all();
  ASSERT_EQ(first_prepared.wait_for(kStageBound), std::future_status::ready);
  // Compact again: the next snapshot's entry is a key frame, not a delta against tick 1's
  // frame (which the stage let go of rather than keeping it until then).
  ++tick_;
  const SnapshotPtr next = tick();
  std::future<uint64_t> next_prepared = signal.next();
  stage.offer(next);
  ASSERT_EQ(next_prepared.wait_for(kStageBound), std::future_status::ready);
  const std::vector<bool> ready = ready_entries(*next);
  EXPECT_TRUE(ready[0]);
  EXPECT_EQ(std::count(ready.begin(), ready.end(), true), 1);
}

// A tick whose quantization the next tick gave up (World::set_abandon_late_quantization) is
// finished by the stage as prepared with nothing encoded, and the stage's next deltas are
// against the frames before it.
TEST_F(CompactStreamTest, TheStagePassesOverATickWhoseQuantizationWasGivenUp) {
  const uint32_t a = spawn(0.0f);
  ASSERT_NO_FATAL_FAILURE(subscribe_compact_all(*world_, tick_));
  world_->set_quantize_after_tick(true);
  world_->set_abandon_late_quantization(true);
  std::atomic<bool> tick_running{false};
  PreparedSignal signal;
  EncodeStage stage(1, false, &tick_running, [&](uint64_t tick) { signal(tick); });
  // Tick 1: quantized and prepared by the stage (its key frame).
  const SnapshotPtr first = tick();
  ASSERT_TRUE(first->quantize.started());
  std::future<uint64_t> first_prepared = signal.next();
  stage.offer(first);
  ASSERT_EQ(first_prepared.wait_for(kStageBound), std::future_status::ready);
  ASSERT_TRUE(first->quantized());
  // Tick 2: taken by the stage, which gets no CPU before tick 3 starts (the tick is held
  // running), so tick 3 gives its quantization up.
  tick_running.store(true);
  const SnapshotPtr given_up = tick();
  ASSERT_TRUE(given_up->quantize.started());
  std::future<uint64_t> given_up_prepared = signal.next();
  stage.offer(given_up);
  const SnapshotPtr third = tick();
  EXPECT_TRUE(given_up->quant_abandoned());
  EXPECT_EQ(metrics_.quant_abandoned_ticks.load(), 1u);
  tick_running.store(false);
  tick_running.notify_all();
  ASSERT_EQ(given_up_prepared.wait_for(kStageBound), std::future_status::ready);
  EXPECT_TRUE(given_up->prepared.load());
  const std::vector<bool> none = ready_entries(*given_up);
  EXPECT_EQ(std::count(none.begin(), none.end(), true), 0) << "nothing encoded of it";
  // Tick 3: its entry is a delta against tick 1's frame.
  std::future<uint64_t> third_prepared = signal.next();
  stage.offer(third);
  ASSERT_EQ(third_prepared.wait_for(kStageBound), std::future_status::ready);
  EXPECT_EQ(third->prepared_against[0], first->tick);
  EXPECT_EQ(third->prepared_against[1], 0u);
  EXPECT_EQ(third->pull_ticks[0], first->tick);
  const std::vector<bool> ready = ready_entries(*third);
  EXPECT_FALSE(ready[0]);  // no key frame: a delta
  EXPECT_EQ(std::count(ready.begin(), ready.end(), true), 1);
  StreamSubscription sub = compact_all();
  EncodedFrame out;
  encode_stream_frame(sub, *first, 0, 0, 1 << 20, out);
  receiver_.receive(out, *first);
  encode_stream_frame(sub, *third, 0, 0, 1 << 20, out);
  receiver_.receive(out, *third);
  const std::vector<FrameKind> kinds{FrameKind::kKey, FrameKind::kDelta1};
  EXPECT_EQ(receiver_.kinds[a], kinds);
}

// The stage prepares frames only for what compact subscriptions watch: a float subscription's
// frames are palettes, which its session encodes.
TEST_F(CompactStreamTest, TheStagePreparesNothingForFloatSubscriptions) {
  spawn(0.0f);
  spawn(1.0f);
  ASSERT_TRUE(world_->execute(Unsubscribe{0}, Caller{kWatchingSession, 0}, tick_, 0.0));
  Subscribe by_id;
  by_id.character_ids = {1};
  by_id.subscription_id = 1;
  Subscribe everyone;
  everyone.all_characters = true;
  everyone.subscription_id = 2;
  Subscribe region;
  region.region = StreamRegion{};
  region.region->radius = 100.0f;  // around the origin: both characters are in it
  region.subscription_id = 3;
  for (Subscribe* s : {&by_id, &everyone, &region})
    ASSERT_TRUE(world_->execute(*s, Caller{1, 0}, tick_, 0.0));
  SnapshotPtr snap = tick();
  ASSERT_TRUE(snap->quant) << "the fixture has a compact subscription";
  ASSERT_EQ(snap->characters.size(), 2u);
  for (size_t i = 0; i < snap->characters.size(); ++i)
    EXPECT_FALSE(EncodeStage::watched(*snap, i)) << "character " << i;
  EXPECT_TRUE(snap->regions.empty());
  // The same subscriptions in ENCODING_COMPACT.
  for (Subscribe* s : {&by_id, &everyone, &region}) {
    s->compact = true;
    s->subscription_id += 10;
    ASSERT_TRUE(world_->execute(*s, Caller{1, 0}, tick_, 0.0));
  }
  snap = tick();
  for (size_t i = 0; i < snap->characters.size(); ++i)
    EXPECT_TRUE(EncodeStage::watched(*snap, i)) << "character " << i;
  EXPECT_EQ(snap->regions.size(), 1u);
  // Without the compact all-characters one, only the compact id subscription names one.
  ASSERT_TRUE(world_->execute(Unsubscribe{12}, Caller{1, 0}, tick_, 0.0));
  snap = tick();
  EXPECT_TRUE(snap->characters[0].watched_by_id);
  EXPECT_FALSE(snap->characters[1].watched_by_id);
}

}  // namespace encode_stage_test
}  // namespace animd::compact_test

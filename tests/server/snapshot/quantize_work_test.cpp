// A tick quantized after the tick (quantize_work.h: blocks taken by other threads, the rest by
// the next tick) gives the same frames, bit for bit, as one quantized by the tick's workers,
// and nothing reads or changes a character before the frame is complete.
#include "snapshot/quantize_work.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "world/world.h"

namespace animd {
namespace quantize_work_test {

// A World with `n` built-in characters, every third crossfading to the run and every fifth
// at another speed, so that the poses differ; a compact subscription is said to exist.
struct TestWorld {
  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool workers{2};
  World world{config, metrics, catalog, workers};

  explicit TestWorld(int n, bool after_tick) {
    metrics.compact_subscriptions = 1;
    world.set_quantize_after_tick(after_tick);
    EXPECT_TRUE(world.add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
    // All characters watched in ENCODING_COMPACT: every one is quantized.
    EXPECT_TRUE(world.execute(Subscribe{{}, true, 1, std::nullopt, true}, Caller{7, 0}, 0, 0.0));
    for (int i = 0; i < n; ++i) {
      auto id = world.spawn_unowned("builtin", "walk");
      EXPECT_TRUE(id);
      if (i % 3 == 0) {
        EXPECT_TRUE(
            world.execute(CrossfadeClip{*id, "run", 0.4f, true, 1.0f, false}, Caller{}, 0, 0.0));
      }
      if (i % 5 == 0) {
        EXPECT_TRUE(
            world.execute(SetCharacterSpeed{*id, 0.5f + 0.1f * float(i % 7)}, Caller{}, 0, 0.0));
      }
    }
  }
};

bool same_frame(const Snapshot& a, const Snapshot& b) {
  return a.quant && b.quant && a.quant->joints == b.quant->joints &&
         a.quant->roots == b.quant->roots;
}

void expect_same_frame(const Snapshot& a, const Snapshot& b) {
  ASSERT_TRUE(a.quant);
  ASSERT_TRUE(b.quant);
  ASSERT_TRUE(b.quantized());
  ASSERT_EQ(a.quant->joints.size(), b.quant->joints.size());
  ASSERT_EQ(a.quant->roots.size(), b.quant->roots.size());
  for (size_t j = 0; j < a.quant->joints.size(); ++j)
    ASSERT_EQ(a.quant->joints[j], b.quant->joints[j]) << "tick " << a.tick << ", joint entry " << j;
  for (size_t i = 0; i < a.quant->roots.size(); ++i)
    ASSERT_EQ(a.quant->roots[i], b.quant->roots[i]) << "tick " << a.tick << ", root " << i;
}

TEST(QuantizeWork, FramesMatchTheWorkersOnesWhoeverRunsTheBlocks) {
  // 70 characters: five blocks, the last one short.
  TestWorld inline_world(70, false), after(70, true);
  SnapshotPtr a_prev, b_prev;
  std::vector<std::thread> helpers;
  for (uint64_t tick = 1; tick <= 41; ++tick) {
    // The update races with the helpers of the tick before, as with the encode stage's
    // threads.
    SnapshotPtr a = inline_world.world.update(1.0f / 60, tick, tick / 60.0, false);
    const uint64_t by_tick_before = after.metrics.quantized_by_next_tick.load();
    SnapshotPtr b = after.world.update(1.0f / 60, tick, tick / 60.0, false);
    // What this update quantized of the tick before (Metrics::quantized_by_next_tick): all of
    // it when nobody took a block, all but the two blocks taken, or what the racing threads
    // had not taken.
    const uint64_t by_tick = after.metrics.quantized_by_next_tick.load() - by_tick_before;
    const uint64_t previous = tick - 1;
    if (previous == 0) {
      EXPECT_EQ(by_tick, 0u);
    } else if (previous % 3 == 1) {
      EXPECT_EQ(by_tick, 70u) << "tick " << previous;
    } else if (previous % 3 == 2) {
      EXPECT_EQ(by_tick, 70u - 2 * QuantizeWork::kBlock) << "tick " << previous;
    } else {
      EXPECT_LE(by_tick, 70u) << "tick " << previous;
    }
    for (auto& h : helpers) h.join();
    helpers.clear();
    // The previous tick's frame is complete now: the update finished it first.
    if (a_prev) expect_same_frame(*a_prev, *b_prev);
    ASSERT_TRUE(a->quantized());
    ASSERT_FALSE(a->quantize.started());
    ASSERT_TRUE(b->quantize.started()) << "left to after the tick";
    // Some ticks nobody takes a block (the next tick does them all); some, a thread takes
    // two; some, two threads take as many as they can while the next tick starts.
    if (tick % 3 == 1) {
      ASSERT_FALSE(b->quantized());
    } else if (tick % 3 == 2) {
      std::thread([b] {
        for (int k = 0; k < 2; ++k) b->quantize.run_block();
      }).join();
      ASSERT_FALSE(b->quantized()) << "two blocks of five";
    } else {
      for (int t = 0; t < 2; ++t)
        helpers.emplace_back([b] {
          while (b->quantize.run_block()) {
          }
        });
    }
    a_prev = a;
    b_prev = b;
  }
  for (auto& h : helpers) h.join();
  after.world.update(1.0f / 60, 42, 0.0, false);
  expect_same_frame(*a_prev, *b_prev);
}

TEST(QuantizeWork, TheNextRequestCompletesItBeforeChangingACharacter) {
  TestWorld inline_world(20, false), after(20, true);
  SnapshotPtr a = inline_world.world.update(1.0f / 60, 1, 0.0, false);
  SnapshotPtr b = after.world.update(1.0f / 60, 1, 0.0, false);
  ASSERT_FALSE(b->quantized());
  // A request at the next tick (apply runs them before the update): the frame is finished
  // from the poses as the tick left them, then the character is despawned.
  ASSERT_TRUE(after.world.execute(DespawnCharacter{1}, Caller{}, 2, 0.0));
  ASSERT_TRUE(inline_world.world.execute(DespawnCharacter{1}, Caller{}, 2, 0.0));
  expect_same_frame(*a, *b);
  // And the next frame too (one character fewer).
  a = inline_world.world.update(1.0f / 60, 2, 0.0, false);
  b = after.world.update(1.0f / 60, 2, 0.0, false);
  inline_world.world.update(1.0f / 60, 3, 0.0, false);
  after.world.update(1.0f / 60, 3, 0.0, false);
  expect_same_frame(*a, *b);
  EXPECT_EQ(b->quant->roots.size(), 19u);
}

TEST(QuantizeWork, TheWorkersQuantizeWhenTheStageIsBusyOrASubscriptionIsPaced) {
  TestWorld after(20, true);
  // Paced subscriptions do not wait for the stage: their frames are quantized in the tick.
  after.metrics.compact_paced_subscriptions = 1;
  SnapshotPtr s = after.world.update(1.0f / 60, 1, 0.0, false);
  EXPECT_TRUE(s->quant);
  EXPECT_FALSE(s->quantize.started());
  EXPECT_TRUE(s->quantized());
  // A busy stage would not take the tick: quantized in it when quantized at all (a tick
  // deferred for too long), else not quantized.
  after.metrics.compact_paced_subscriptions = 0;
  after.metrics.stage_busy = true;
  for (uint64_t tick = 2; tick <= 8; ++tick) {
    s = after.world.update(1.0f / 60, tick, 0.0, false);
    EXPECT_FALSE(s->quantize.started()) << "tick " << tick;
    EXPECT_TRUE(s->quantized());
  }
  // A free stage takes it.
  after.metrics.stage_busy = false;
  s = after.world.update(1.0f / 60, 9, 0.0, false);
  EXPECT_TRUE(s->quantize.started());
}

// The World's rule for a tick left to quantize after it that the next tick finds unfinished
// (World::set_abandon_late_quantization): given up when at least a quarter of its characters
// were untaken and its quantized frame before is at most kMaxDeferredTicks (3) ticks older;
// finished otherwise. Nobody takes a block here but where a test says so.
TEST(QuantizeWork, ALateFrameIsGivenUpOnlyWithinTheDeferredTicksOfTheFrameBefore) {
  TestWorld w(70, true);
  w.world.set_abandon_late_quantization(true);
  std::vector<SnapshotPtr> s(8);
  s[1] = w.world.update(1.0f / 60, 1, 0.0, false);
  s[2] = w.world.update(1.0f / 60, 2, 0.0, false);
  // Tick 1 had no quantized frame before it: finished by tick 2.
  EXPECT_TRUE(s[1]->quantized());
  EXPECT_EQ(w.metrics.quantized_by_next_tick.load(), 70u);
  EXPECT_EQ(w.metrics.quant_abandoned_ticks.load(), 0u);
  // Ticks 2, 3 and 4 are at most 3 ticks after tick 1, the last frame kept: given up.
  for (uint64_t tick = 3; tick <= 5; ++tick) {
    s[tick] = w.world.update(1.0f / 60, tick, 0.0, false);
    const Snapshot& given_up = *s[tick - 1];
    EXPECT_TRUE(given_up.quant_abandoned()) << "tick " << tick - 1;
    EXPECT_FALSE(given_up.quantized()) << "tick " << tick - 1;
    EXPECT_EQ(w.metrics.quant_abandoned_ticks.load(), tick - 2);
    // The next tick is pulled toward tick 1's frame while it is at most 2 ticks back
    // (World::kMaxPullGap), and toward nothing older: tick 1 had none before it.
    EXPECT_EQ(s[tick]->pull_ticks[0], tick <= 3 ? 1u : 0u) << "tick " << tick;
    EXPECT_EQ(s[tick]->pull_ticks[1], 0u) << "tick " << tick;
  }
  // Tick 5 is 4 ticks after tick 1: finished, so that no two frames are further apart.
  s[6] = w.world.update(1.0f / 60, 6, 0.0, false);
  EXPECT_TRUE(s[5]->quantized());
  EXPECT_FALSE(s[5]->quant_abandoned());
  EXPECT_EQ(w.metrics.quant_abandoned_ticks.load(), 3u);
  EXPECT_EQ(w.metrics.quantized_by_next_tick.load(), 140u);
  // Tick 6 pulls toward the last two frames kept: 5 and 1.
  EXPECT_EQ(s[6]->pull_ticks[0], 5u);
  EXPECT_EQ(s[6]->pull_ticks[1], 1u);
}

TEST(QuantizeWork, AFrameGivenUpLeavesTheTwoFramesBeforeItAsTheLastQuantized) {
  TestWorld w(70, true);
  w.world.set_abandon_late_quantization(true);
  w.world.update(1.0f / 60, 1, 0.0, false);
  const SnapshotPtr two = w.world.update(1.0f / 60, 2, 0.0, false);
  while (two->quantize.run_block()) {
  }
  const SnapshotPtr three = w.world.update(1.0f / 60, 3, 0.0, false);
  EXPECT_TRUE(two->quantized());
  const SnapshotPtr four = w.world.update(1.0f / 60, 4, 0.0, false);
  EXPECT_TRUE(three->quant_abandoned());
  // Tick 4 is pulled toward ticks 2 and 1, as if tick 3 had been deferred. A character
  // keeps its places in its two newest frames, 3 and 2: it finds tick 2's, not tick 1's.
  EXPECT_EQ(four->pull_ticks[0], 2u);
  EXPECT_EQ(four->pull_ticks[1], 1u);
  for (size_t i = 0; i < four->characters.size(); ++i) {
    const SnapshotCharacter& c = four->characters[i];
    EXPECT_EQ(c.pull_offset[0], two->characters[i].quant_offset) << "character " << i;
    EXPECT_EQ(c.pull_index[0], i) << "character " << i;
    EXPECT_EQ(c.pull_offset[1], kNotQuantized) << "character " << i;
  }
  // And tick 5 toward 4 and 2: the record of tick 2 was kept beside tick 4's.
  while (four->quantize.run_block()) {
  }
  const SnapshotPtr five = w.world.update(1.0f / 60, 5, 0.0, false);
  EXPECT_EQ(five->pull_ticks[0], 4u);
  EXPECT_EQ(five->pull_ticks[1], 2u);
  for (size_t i = 0; i < five->characters.size(); ++i) {
    EXPECT_EQ(five->characters[i].pull_offset[0], four->characters[i].quant_offset);
    EXPECT_EQ(five->characters[i].pull_offset[1], two->characters[i].quant_offset);
  }
}

TEST(QuantizeWork, ALateFrameWithLessThanAQuarterUntakenIsFinished) {
  TestWorld inline_world(70, false), w(70, true);
  w.world.set_abandon_late_quantization(true);
  inline_world.world.update(1.0f / 60, 1, 0.0, false);
  w.world.update(1.0f / 60, 1, 0.0, false);
  const SnapshotPtr a = inline_world.world.update(1.0f / 60, 2, 0.0, false);
  const SnapshotPtr b = w.world.update(1.0f / 60, 2, 0.0, false);
  // Four blocks of 16 taken: 6 of 70 left, less than a quarter.
  for (int k = 0; k < 4; ++k) ASSERT_TRUE(b->quantize.run_block());
  EXPECT_EQ(b->quantize.untaken(), 6u);
  inline_world.world.update(1.0f / 60, 3, 0.0, false);
  const SnapshotPtr c = w.world.update(1.0f / 60, 3, 0.0, false);
  expect_same_frame(*a, *b);
  EXPECT_EQ(w.metrics.quant_abandoned_ticks.load(), 0u);
  EXPECT_EQ(w.metrics.quantized_by_next_tick.load(), 70u + 6u);
  // Three blocks: 22 left, a quarter or more. Given up; what was taken was written, and
  // nothing more is taken.
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(c->quantize.run_block());
  w.world.update(1.0f / 60, 4, 0.0, false);
  EXPECT_TRUE(c->quant_abandoned());
  EXPECT_FALSE(c->quantize.run_block());
  EXPECT_EQ(w.metrics.quant_abandoned_ticks.load(), 1u);
  EXPECT_EQ(w.metrics.quantized_by_next_tick.load(), 76u);
}

TEST(QuantizeWork, AFrameGivenUpWhileThreadsRunBlocksWaitsForThem) {
  TestWorld inline_world(70, false);
  inline_world.world.update(1.0f / 60, 1, 0.0, false);
  const SnapshotPtr a = inline_world.world.update(1.0f / 60, 2, 0.0, false);
  for (int round = 0; round < 20; ++round) {
    TestWorld w(70, true);
    w.world.set_abandon_late_quantization(true);
    w.world.update(1.0f / 60, 1, 0.0, false);
    const SnapshotPtr b = w.world.update(1.0f / 60, 2, 0.0, false);
    // Two threads take blocks as the next tick starts: it gives the frame up or finishes
    // it, as the race goes; either way no block is in progress when it returns.
    std::vector<std::thread> helpers;
    for (int t = 0; t < 2; ++t)
      helpers.emplace_back([b] {
        while (b->quantize.run_block()) {
        }
      });
    w.world.update(1.0f / 60, 3, 0.0, false);
    ASSERT_TRUE(b->quantize.complete()) << "round " << round;
    EXPECT_FALSE(b->quantize.run_block());
    EXPECT_EQ(b->quantize.untaken(), 0u);
    for (auto& h : helpers) h.join();
    // Given up: some character was left out (a new frame holds zeros where it was not
    // written). Finished: the frame is the workers' one.
    EXPECT_EQ(w.metrics.quant_abandoned_ticks.load(), b->quant_abandoned() ? 1u : 0u);
    if (b->quant_abandoned())
      EXPECT_FALSE(same_frame(*a, *b)) << "round " << round;
    else
      expect_same_frame(*a, *b);
  }
}

TEST(QuantizeWork, AFrameAllTakenIsNotGivenUp) {
  TestWorld w(70, true);
  w.world.update(1.0f / 60, 1, 0.0, false);
  const SnapshotPtr s = w.world.update(1.0f / 60, 2, 0.0, false);
  while (s->quantize.run_block()) {
  }
  EXPECT_FALSE(s->quantize.abandon());
  EXPECT_FALSE(s->quant_abandoned());
  EXPECT_TRUE(s->quantized());
}

TEST(QuantizeWork, WithoutCharactersItIsCompleteAtOnce) {
  Snapshot snap;
  std::vector<const anim::Animator*> none;
  EXPECT_TRUE(snap.quantized());
  EXPECT_FALSE(snap.quantize.started());
  snap.quantize.start(snap, none);
  EXPECT_TRUE(snap.quantize.started());
  EXPECT_TRUE(snap.quantized());
  EXPECT_FALSE(snap.quantize.run_block());
  snap.quantize.reset();
  EXPECT_FALSE(snap.quantize.started());
}

}  // namespace quantize_work_test
}  // namespace animd

// World::update allocates nothing once the character count is steady and the pose history
// window is full (the snapshot and its buffers are recycled: SnapshotPool; so are the history
// frames that leave the window: PoseHistory), with root motion, events and blend spaces. This file
// installs the counting operator new of counting_new.h in the server unit test binary.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

#include <gtest/gtest.h>

#include "counting_new.h"

#include "anim/loaders/builtin_character.h"
#include "world/world.h"

using animtest::g_allocations;

namespace animd {
namespace world_alloc_test {

// `after_tick`: the quantization left to after each tick (quantize_work.h), finished by the
// next update as when no encode stage thread took any of it.
void expect_no_allocations(bool after_tick, double budget_ms = -1.0) {
  Config config;
  config.anim_budget_ms = budget_ms;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool workers{2};
  metrics.compact_subscriptions = 1;  // quantizing for ENCODING_COMPACT allocates nothing either
  metrics.float_subscriptions = 1;    // nor do the palettes for ENCODING_FLOAT_3X4
  World world(config, metrics, catalog, workers);
  world.set_quantize_after_tick(after_tick);
  ASSERT_TRUE(world.add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  for (int i = 0; i < 5; ++i) {
    auto id = world.spawn_unowned("builtin", "walk");
    ASSERT_TRUE(id);
    // Root motion on most of them (from the root joint, or the hips with height).
    if (i == 0) continue;
    SetRootMotion m{*id, anim::RootMotionMode::kExtract, i % 2 ? "" : "hips", i % 2 == 0};
    ASSERT_TRUE(world.execute(m, Caller{}, 0, 0.0));
  }
  // Events on the walk, fired every half cycle by every character (with their names in the
  // snapshot's table).
  ASSERT_TRUE(world.execute(
      AddClipEvents{"builtin", "walk", {{"step_l", 0.25f, "left"}, {"step_r", 0.75f, ""}}, false},
      Caller{}, 0, 0.0));
  // Two of them on a blend space, their parameter easing across the samples meanwhile (ids
  // are 1..5).
  ASSERT_TRUE(world.execute(
      DefineBlendSpace{
          "builtin", "move", {"speed"}, {{"idle", {0, 0}}, {"walk", {1.4f, 0}}, {"run", {4, 0}}}},
      Caller{}, 0, 0.0));
  for (uint32_t id : {3u, 4u}) {
    ASSERT_TRUE(world.execute(SetParameter{id, "speed", 3.0f, 1.0f}, Caller{}, 0, 0.0));
    ASSERT_TRUE(world.execute(CrossfadeClip{id, "move", 0.3f, true, 1.0f, true}, Caller{}, 0, 0.0));
  }
  // A compact subscription watching three of them: those are quantized, the others not.
  ASSERT_TRUE(
      world.execute(Subscribe{{1, 3, 4}, false, 1, std::nullopt, true}, Caller{7, 0}, 0, 0.0));
  // Warm-up: the pools make the snapshots that are held at once (the previous tick's, kept
  // here as a subscriber would, and the new one) and their quantized frames (each snapshot
  // also holds the two ticks before it: four at once here); the history makes a frame per
  // tick of its window, plus the one being filled.
  const uint64_t warm =
      std::max<uint64_t>(static_cast<uint64_t>(world.history()->kept_ticks()) + 3, 5);
  SnapshotPtr previous = world.update(0.01f, 1, 0.01, false);
  for (uint64_t tick = 2; tick <= warm; ++tick) previous = world.update(0.01f, tick, 0.0, false);

  const uint64_t events_before = metrics.events_fired.load();
  const long before = g_allocations.load();
  for (uint64_t tick = warm + 1; tick <= warm + 80; ++tick)
    previous = world.update(0.01f, tick, 0.0, /*degrade=*/tick % 3 == 0);
  EXPECT_EQ(g_allocations.load() - before, 0) << "World::update allocated";
  EXPECT_GE(metrics.events_fired.load() - events_before, 5u);  // they did fire meanwhile
  EXPECT_EQ(previous->tick, warm + 80);
  EXPECT_EQ(previous->quantize.started(), after_tick);
}

TEST(WorldAllocations, UpdateAllocatesNothingInSteadyState) {
  expect_no_allocations(false);
}

TEST(WorldAllocations, NorWhenQuantizingAfterTheTick) {
  expect_no_allocations(true);
}

// A budget nothing fits: every character at the floor interval, the ticks between its
// evaluations interpolated (palettes and quantized poses of the interpolation included).
TEST(WorldAllocations, NorWithUpdateRatesAllocated) {
  expect_no_allocations(false, 1e-9);
  expect_no_allocations(true, 1e-9);
}

}  // namespace world_alloc_test
}  // namespace animd

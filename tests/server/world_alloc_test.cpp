// World::update allocates nothing once the character count is steady (the snapshot and its
// buffers are recycled: SnapshotPool). This file installs the counting operator new of
// counting_new.h in the server unit test binary.
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

#include <gtest/gtest.h>

#include "counting_new.h"

#include "anim/builtin_character.h"
#include "world.h"

using animtest::g_allocations;

namespace animd {
namespace {

TEST(WorldAllocations, UpdateAllocatesNothingInSteadyState) {
  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool workers{2};
  metrics.compact_subscriptions = 1;  // quantizing for ENCODING_COMPACT allocates nothing either
  World world(config, metrics, catalog, workers);
  ASSERT_TRUE(world.add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(world.spawn_unowned("builtin", "walk"));
  // Warm-up: the pools make the snapshots that are held at once (the previous tick's, kept
  // here as a subscriber would, and the new one) and their quantized frames (each snapshot
  // also holds the two ticks before it: four at once here).
  SnapshotPtr previous = world.update(0.01f, 1, 0.01, false);
  for (uint64_t tick = 2; tick <= 5; ++tick) previous = world.update(0.01f, tick, 0.0, false);

  const long before = g_allocations.load();
  for (uint64_t tick = 6; tick <= 20; ++tick)
    previous = world.update(0.01f, tick, 0.0, /*degrade=*/tick % 3 == 0);
  EXPECT_EQ(g_allocations.load() - before, 0) << "World::update allocated";
  EXPECT_EQ(previous->tick, 20u);
}

}  // namespace
}  // namespace animd

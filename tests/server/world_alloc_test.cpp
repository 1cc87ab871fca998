// World::update allocates nothing once the character count is steady (the snapshot and its
// buffers are recycled: SnapshotPool). This file replaces the global operator new/delete of
// the server unit test binary with counting versions (forwarding to malloc/free).
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

#include <gtest/gtest.h>

#include "anim/builtin_character.h"
#include "world.h"

namespace {
std::atomic<long> g_allocations{0};

void* counted_alloc(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) {
  return counted_alloc(size);
}
void* operator new[](std::size_t size) {
  return counted_alloc(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace animd {
namespace {

TEST(WorldAllocations, UpdateAllocatesNothingInSteadyState) {
  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool workers{2};
  World world(config, metrics, catalog, workers);
  ASSERT_TRUE(world.add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(world.spawn_unowned("builtin", "walk"));
  // Warm-up: the pool makes the snapshots that are held at once (the previous tick's, kept
  // here as a subscriber would, and the new one).
  SnapshotPtr previous = world.update(0.01f, 1, 0.01, false);
  for (uint64_t tick = 2; tick <= 3; ++tick) previous = world.update(0.01f, tick, 0.0, false);

  const long before = g_allocations.load();
  for (uint64_t tick = 4; tick <= 20; ++tick)
    previous = world.update(0.01f, tick, 0.0, /*degrade=*/tick % 3 == 0);
  EXPECT_EQ(g_allocations.load() - before, 0) << "World::update allocated";
  EXPECT_EQ(previous->tick, 20u);
}

}  // namespace
}  // namespace animd

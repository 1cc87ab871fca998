// SnapshotPool: a snapshot comes back for reuse (buffers and all) once its last holder lets
// go, never while anybody holds it; spares are bounded; the asset references of a returned
// snapshot are dropped (its characters and compact entries kept, emptied, the buffers of
// frames not encoded in that use freed); the pool counts the bytes it keeps; snapshots may
// outlive the pool. And World::update reuses them with
// contents that match a fresh snapshot's.
#include "snapshot/snapshot_pool.h"

#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "snapshot/quant_frame_pool.h"
#include "world/world.h"

namespace animd {
namespace snapshot_pool_test {

TEST(SnapshotPool, ReusesAReleasedSnapshotWithItsBuffers) {
  SnapshotPool pool;
  auto s = pool.acquire();
  s->palettes.resize(1000);
  const Snapshot* first = s.get();
  const anim::PaletteMatrix* buffer = s->palettes.data();
  s.reset();
  auto again = pool.acquire();
  EXPECT_EQ(again.get(), first);
  EXPECT_EQ(again->palettes.data(), buffer) << "the palette buffer was reallocated";
  EXPECT_GE(again->palettes.capacity(), 1000u);
  EXPECT_EQ(pool.allocated(), 1u);
}

TEST(SnapshotPool, AHeldSnapshotIsNotHandedOutAgain) {
  SnapshotPool pool;
  std::shared_ptr<const Snapshot> held = pool.acquire();
  std::shared_ptr<const Snapshot> copy = held;  // e.g. a session's pending queue
  auto other = pool.acquire();
  EXPECT_NE(other.get(), held.get());
  other.reset();
  held.reset();
  auto third = pool.acquire();  // the spare one, not the one `copy` still holds
  EXPECT_NE(third.get(), copy.get());
  EXPECT_EQ(pool.allocated(), 2u);
}

TEST(SnapshotPool, KeepsAsManyAsWereHeldLatelyAndFreesTheRestOfALongPastPeak) {
  SnapshotPool pool;
  constexpr size_t kPeak = SnapshotPool::kMaxSpare + 3;
  std::vector<std::shared_ptr<Snapshot>> held;
  for (size_t i = 0; i < kPeak; ++i) held.push_back(pool.acquire());
  EXPECT_EQ(pool.allocated(), kPeak);
  held.clear();
  // Subscribers that hold as many again find them kept: nothing is made anew.
  EXPECT_EQ(pool.allocated(), kPeak);
  for (size_t i = 0; i < kPeak; ++i) held.push_back(pool.acquire());
  EXPECT_EQ(pool.allocated(), kPeak);
  held.clear();
  // Two windows of one snapshot at a time: the peak is past; one in use and kMaxSpare stay.
  for (uint32_t i = 0; i < SnapshotPool::kPeakWindow; ++i) pool.acquire().reset();
  EXPECT_EQ(pool.allocated(), kPeak) << "a peak of the window before still counts";
  for (uint32_t i = 0; i < SnapshotPool::kPeakWindow; ++i) pool.acquire().reset();
  EXPECT_EQ(pool.allocated(), 1 + SnapshotPool::kMaxSpare);
}

TEST(SnapshotPool, AReturnedSnapshotDropsItsAssetReferences) {
  SnapshotPool pool;
  auto asset = std::make_shared<anim::Asset>();
  auto s = pool.acquire();
  s->characters.resize(3);
  for (auto& c : s->characters) c.asset = Snapshot::hold(s->assets, AssetPtr(asset));
  EXPECT_EQ(asset.use_count(), 2);  // held once, whatever the number of characters
  s.reset();
  EXPECT_EQ(asset.use_count(), 1);
}

TEST(SnapshotPool, AReturnedSnapshotKeepsItsCharactersButNothingTheyReferTo) {
  SnapshotPool pool;
  auto asset = std::make_shared<anim::Asset>();
  auto table = std::make_shared<anim::ClipEventTable>();
  auto s = pool.acquire();
  s->characters.resize(3);
  for (auto& c : s->characters) {
    c.asset = Snapshot::hold(s->assets, AssetPtr(asset));
    c.event_table =
        Snapshot::hold(s->event_tables, std::shared_ptr<const anim::ClipEventTable>(table));
  }
  s->reset_compact(3);
  s->compact[1].state[2].store(2);
  s->compact[2].against[1].state.store(1);
  s->compact[2].bytes[0] = "a frame encoded in this use, its buffer kept";
  s->compact[2].state[0].store(2);
  s->compact[0].bytes[1] = "a buffer of an earlier use, not written in this one";
  s->compact[1].against[0].bytes = "the same, for a delta against other frames";
  const Snapshot* first = s.get();
  s.reset();
  EXPECT_EQ(asset.use_count(), 1);
  EXPECT_EQ(table.use_count(), 1);
  auto again = pool.acquire();
  ASSERT_EQ(again.get(), first);
  // The next tick overwrites the characters rather than constructing them again; what they
  // pointed to is let go.
  ASSERT_EQ(again->characters.size(), 3u);
  EXPECT_TRUE(again->assets.empty());
  EXPECT_TRUE(again->layouts.empty());
  EXPECT_TRUE(again->event_tables.empty());
  // Its compact entries are empty again, without the tick clearing them.
  again->reset_compact(3);
  for (size_t i = 0; i < 3; ++i) {
    for (const auto& st : again->compact[i].state) EXPECT_EQ(st.load(), 0) << i;
    for (const auto& a : again->compact[i].against) EXPECT_EQ(a.state.load(), 0) << i;
  }
  EXPECT_GE(again->compact[2].bytes[0].capacity(), 44u);
  EXPECT_LT(again->compact[0].bytes[1].capacity(), 44u) << "an unused buffer was kept";
  EXPECT_LT(again->compact[1].against[0].bytes.capacity(), 42u) << "an unused buffer was kept";
}

TEST(SnapshotPool, CountsTheBytesOfWhatItKeepsAsMeasuredWhenGivenBack) {
  SnapshotPool pool;
  auto s = pool.acquire();
  s->characters.resize(1000);
  s->palettes.resize(2000);
  s->reset_compact(4);
  s->compact[3].bytes[1] = std::string(300, 'x');  // a frame on the heap
  s->compact[3].state[1].store(2);
  s->compact[0].against[0].bytes = std::string(5, 'y');  // within the string itself
  s->compact[0].against[0].state.store(2);
  EXPECT_EQ(pool.bytes(), 0u) << "nothing is measured before the first return";
  const size_t least = 1000 * sizeof(SnapshotCharacter) + 2000 * sizeof(anim::PaletteMatrix) +
                       4 * sizeof(CompactEntries) + 301;
  const size_t measured = s->bytes();
  EXPECT_GE(measured, least);
  EXPECT_LT(measured, least + sizeof(Snapshot) + 64) << "the short string was counted";
  s.reset();
  const size_t one = pool.bytes();
  EXPECT_GE(one, measured);
  EXPECT_LT(one, measured + 1024) << "more than the snapshot and its slot";

  // A second snapshot adds its own bytes; the first, reused, keeps its measure until the
  // pool measures it again.
  std::vector<std::shared_ptr<Snapshot>> held{pool.acquire(), pool.acquire()};
  held[1]->palettes.resize(4000);
  held.clear();
  EXPECT_GE(pool.bytes(), one + 4000 * sizeof(anim::PaletteMatrix));

  // Freed snapshots leave the count: a long past peak goes, and with it its bytes.
  std::vector<std::shared_ptr<Snapshot>> many;
  for (size_t i = 0; i < SnapshotPool::kMaxSpare + 4; ++i) many.push_back(pool.acquire());
  many.clear();
  const size_t peak = pool.bytes();
  EXPECT_GE(peak, (SnapshotPool::kMaxSpare + 4) * sizeof(Snapshot)) << "each measured once";
  for (uint32_t i = 0; i < 2 * SnapshotPool::kPeakWindow; ++i) pool.acquire().reset();
  ASSERT_EQ(pool.allocated(), 1 + SnapshotPool::kMaxSpare);
  EXPECT_LE(pool.bytes() + 3 * sizeof(Snapshot), peak) << "the 3 freed still count";
  EXPECT_GE(pool.bytes(), (1 + SnapshotPool::kMaxSpare) * sizeof(Snapshot));
}

TEST(QuantFramePool, CountsTheBytesOfTheFramesItKeeps) {
  QuantFramePool pool;
  EXPECT_EQ(pool.bytes(), 0u);
  QuantRef a = pool.acquire();
  a->joints.resize(640);
  a->ids.resize(10);
  QuantRef b = pool.acquire();
  b->roots.resize(10);
  EXPECT_GE(pool.bytes(), 640 * sizeof(animcodec::QJoint) + 10 * sizeof(uint32_t) +
                              10 * sizeof(animcodec::QRoot) + 2 * sizeof(QuantFrame));
  EXPECT_EQ(pool.bytes(), a->bytes() + b->bytes());
}

TEST(SnapshotPool, TheWorldCountsTheBytesOfItsHistoryAndOfTheSnapshotsItKeeps) {
  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool workers{1};
  World world(config, metrics, catalog, workers);
  ASSERT_TRUE(world.add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  EXPECT_EQ(world.store_bytes().snapshots, 0u);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(world.spawn_unowned("builtin", "walk"));
  for (uint64_t tick = 1; tick <= 3; ++tick) world.update(0.1f, tick, 0.1 * tick, false).reset();
  const World::StoreBytes b = world.store_bytes();
  EXPECT_GE(b.history, 3 * 50 * sizeof(HistoryEntry)) << "3 frames of 50 entries at least";
  EXPECT_GE(b.snapshots, 50 * sizeof(SnapshotCharacter)) << "a snapshot of 50 characters";
}

TEST(SnapshotPool, SnapshotsMayOutliveThePoolAndBeReleasedOnAnotherThread) {
  std::shared_ptr<const Snapshot> kept;
  {
    SnapshotPool pool;
    auto s = pool.acquire();
    s->tick = 42;
    s->palettes.resize(10);
    kept = s;
  }
  EXPECT_EQ(kept->tick, 42u);
  std::thread([k = std::move(kept)]() mutable { k.reset(); }).join();
}

TEST(SnapshotPool, WorldUpdateRecyclesSnapshotsAndFillsThemAfresh) {
  Config config;
  Metrics metrics;
  metrics.float_subscriptions = 1;  // the snapshots carry palettes
  AssetCatalog catalog;
  WorkerPool workers{1};
  World world(config, metrics, catalog, workers);
  ASSERT_TRUE(world.add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  std::vector<uint32_t> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(*world.spawn_unowned("builtin", "walk"));
  const size_t joints = catalog.get()->at("builtin")->skeleton.num_joints();

  const Snapshot* first = nullptr;
  {
    SnapshotPtr s = world.update(0.1f, 1, 0.1, false);
    first = s.get();
    EXPECT_EQ(s->characters.size(), 3u);
    EXPECT_EQ(s->palettes.size(), 3 * joints);
  }
  // Released: tick 2 gets the same snapshot; despawning one leaves two, back to back.
  DespawnCharacter d;
  d.character = ids[1];
  ASSERT_TRUE(world.execute(d, Caller{}, 2, 0.2));
  SnapshotPtr s2 = world.update(0.1f, 2, 0.2, false);
  EXPECT_EQ(s2.get(), first);
  EXPECT_EQ(s2->tick, 2u);
  EXPECT_DOUBLE_EQ(s2->server_time, 0.2);
  ASSERT_EQ(s2->characters.size(), 2u);
  EXPECT_EQ(s2->characters[0].id, ids[0]);
  EXPECT_EQ(s2->characters[1].id, ids[2]);
  EXPECT_EQ(s2->characters[1].palette_offset, joints);
  EXPECT_EQ(s2->palettes.size(), 2 * joints);
  // Held (a subscriber has not encoded it yet): tick 3 gets another one, tick 2's is intact.
  SnapshotPtr s3 = world.update(0.1f, 3, 0.3, false);
  EXPECT_NE(s3.get(), s2.get());
  EXPECT_EQ(s2->tick, 2u);
  EXPECT_EQ(s3->tick, 3u);
}

}  // namespace snapshot_pool_test
}  // namespace animd

// Degraded ticks without allocated update rates (--anim-budget-ms unlimited; World::update
// with degrade = true, what the tick loop asks for after an overrun): characters nobody watches
// update on alternate ticks with both ticks' dt, watched ones every tick, nobody is skipped while
// an all-characters subscription exists, and Metrics::degraded_ticks counts the ticks that skipped.
// Each character's palette in the tick's snapshot is compared bit for bit with an Animator driven
// by hand (Animator updates are deterministic), so no timing is involved.
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "snapshot_palettes.h"
#include "world/world.h"

namespace animd {
namespace world_lod_test {

constexpr float kDt = 0.1f;

class WorldLodTest : public ::testing::Test {
 protected:
  WorldLodTest() {
    config_.tick_rate = 10.0;
    config_.anim_budget_ms = std::numeric_limits<double>::infinity();
    metrics_.float_subscriptions = 1;  // these tests read the snapshots' palettes
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
    asset_ = catalog_.get()->at("builtin");
    walk_ = asset_->find_clip("walk");
    EXPECT_GE(walk_, 0);
  }

  uint32_t spawn_walking() {
    SpawnCharacter r;
    r.asset = "builtin";
    r.clip = "walk";
    auto s = run(1, r, 1);
    EXPECT_TRUE(s) << s.error().message();
    return s ? std::get<Spawned>(*s).character_id : 0;
  }
  anim::Expected<WorldResult> run(uint64_t session, const WorldRequest& r, uint64_t tick) {
    return world_->execute(r, Caller{session, 0}, tick, double(tick) * kDt);
  }
  // A reference Animator in the state a freshly spawned walking character is in.
  std::unique_ptr<anim::Animator> reference() {
    auto a = std::make_unique<anim::Animator>(asset_->skeleton, asset_->clips);
    EXPECT_TRUE(a->play(walk_));
    return a;
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{2};
  std::unique_ptr<World> world_;
  AssetPtr asset_;
  int walk_ = -1;
};

// Follows one character through degraded ticks: a tick either leaves its palette exactly as
// it was (skipped, its dt kept) or moves it to what the reference gives for the kept dt plus
// this tick's. `updated`: the ticks on which it moved.
struct Follower {
  Follower(uint32_t i, std::unique_ptr<anim::Animator> r) : id(i), ref(std::move(r)) {}

  uint32_t id;
  std::unique_ptr<anim::Animator> ref;
  float pending = 0.0f;
  std::vector<uint64_t> updated;

  void check(const Snapshot& prev, const Snapshot& now) {
    const auto before = palette_of(prev, id);
    const auto after = palette_of(now, id);
    if (same(before, after)) {
      pending += kDt;
      return;
    }
    ASSERT_TRUE(ref->update(pending + kDt));
    pending = 0.0f;
    EXPECT_TRUE(same(after, ref->palette()))
        << "character " << id << " at tick " << now.tick << " is not its pose after the skipped "
        << "ticks' dt";
    updated.push_back(now.tick);
  }
};

TEST_F(WorldLodTest, UnwatchedCharactersUpdateOnAlternateTicksWatchedOnesEveryTick) {
  const uint32_t a = spawn_walking();
  const uint32_t b = spawn_walking();  // the other parity of id: skipped on a's other ticks
  const uint32_t watched = spawn_walking();
  ASSERT_TRUE(run(1, Subscribe{{watched}, false, 7, std::nullopt}, 1));
  Follower fa{a, reference()}, fb{b, reference()}, fw{watched, reference()};

  // Tick 1 runs in full: everybody takes its first step.
  SnapshotPtr prev = world_->update(kDt, 1, 0.1, false);
  for (Follower* f : {&fa, &fb, &fw}) {
    ASSERT_TRUE(f->ref->update(kDt));
    EXPECT_TRUE(same(palette_of(*prev, f->id), f->ref->palette()));
  }
  EXPECT_EQ(metrics_.degraded_ticks.load(), 0u);

  for (uint64_t tick = 2; tick <= 9; ++tick) {
    SnapshotPtr now = world_->update(kDt, tick, double(tick) * kDt, true);
    for (Follower* f : {&fa, &fb, &fw}) f->check(*prev, *now);
    prev = now;
  }
  EXPECT_EQ(metrics_.degraded_ticks.load(), 8u);
  EXPECT_EQ(fw.updated, (std::vector<uint64_t>{2, 3, 4, 5, 6, 7, 8, 9}));
  // Every other tick, the two unwatched ones on opposite ticks.
  ASSERT_EQ(fa.updated.size(), 4u);
  ASSERT_EQ(fb.updated.size(), 4u);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(fa.updated[i], fa.updated[i - 1] + 2);
    EXPECT_EQ(fb.updated[i], fb.updated[i - 1] + 2);
  }
  EXPECT_NE(fa.updated[0] % 2, fb.updated[0] % 2);

  // Unsubscribed, the watched one is skipped like the others.
  ASSERT_TRUE(run(1, Unsubscribe{7}, 10));
  fw.updated.clear();
  for (uint64_t tick = 10; tick <= 13; ++tick) {
    SnapshotPtr now = world_->update(kDt, tick, double(tick) * kDt, true);
    fw.check(*prev, *now);
    prev = now;
  }
  EXPECT_EQ(fw.updated.size(), 2u);
}

TEST_F(WorldLodTest, AnAllCharactersSubscriptionKeepsEveryoneUpdating) {
  const uint32_t a = spawn_walking();
  const uint32_t b = spawn_walking();
  ASSERT_TRUE(run(2, Subscribe{{}, true, 1, std::nullopt}, 1));
  Follower fa{a, reference()}, fb{b, reference()};
  SnapshotPtr prev = world_->update(kDt, 1, 0.1, false);
  for (Follower* f : {&fa, &fb}) ASSERT_TRUE(f->ref->update(kDt));
  for (uint64_t tick = 2; tick <= 5; ++tick) {
    SnapshotPtr now = world_->update(kDt, tick, double(tick) * kDt, true);
    for (Follower* f : {&fa, &fb}) f->check(*prev, *now);
    prev = now;
  }
  EXPECT_EQ(fa.updated, (std::vector<uint64_t>{2, 3, 4, 5}));
  EXPECT_EQ(fb.updated, (std::vector<uint64_t>{2, 3, 4, 5}));
  EXPECT_EQ(metrics_.degraded_ticks.load(), 0u) << "no tick skipped anybody";

  // Once the connection closes, degraded ticks skip again, and are counted.
  std::vector<Command> closed(1);
  closed[0].kind = Command::Kind::kSessionClosed;
  closed[0].session_id = 2;
  world_->apply(closed, 6, 0.6);
  for (uint64_t tick = 6; tick <= 9; ++tick) {
    SnapshotPtr now = world_->update(kDt, tick, double(tick) * kDt, true);
    for (Follower* f : {&fa, &fb}) f->check(*prev, *now);
    prev = now;
  }
  EXPECT_EQ(fa.updated.size(), 4u + 2u);
  EXPECT_EQ(fb.updated.size(), 4u + 2u);
  EXPECT_EQ(metrics_.degraded_ticks.load(), 4u);
}

TEST_F(WorldLodTest, TheSkippedDtIsNotLostWhenTheNextTickRunsInFull) {
  const uint32_t a = spawn_walking();
  const uint32_t b = spawn_walking();
  Follower fa{a, reference()}, fb{b, reference()};
  SnapshotPtr prev = world_->update(kDt, 1, 0.1, false);
  for (Follower* f : {&fa, &fb}) ASSERT_TRUE(f->ref->update(kDt));
  // One degraded tick skips one of the two; the full tick after it catches that one up.
  for (uint64_t tick = 2; tick <= 3; ++tick) {
    SnapshotPtr now = world_->update(kDt, tick, double(tick) * kDt, tick == 2);
    for (Follower* f : {&fa, &fb}) f->check(*prev, *now);
    prev = now;
  }
  EXPECT_EQ(fa.updated.size() + fb.updated.size(), 3u);
  EXPECT_EQ(fa.pending, 0.0f);
  EXPECT_EQ(fb.pending, 0.0f);
  EXPECT_EQ(metrics_.degraded_ticks.load(), 1u);
}

TEST_F(WorldLodTest, ARegionSubscriptionWatchesTheCharactersInItAndFollowsItsMoves) {
  const uint32_t near = spawn_walking();  // at the origin
  const uint32_t far = spawn_walking();
  SetRootTransform move;
  move.character = far;
  move.root.translation = {100.0f, 0.0f, 0.0f};
  ASSERT_TRUE(run(1, move, 1));
  StreamRegion around_origin;
  around_origin.center = {0.0f, 0.0f, 0.0f};
  around_origin.radius = 5.0f;
  Subscribe sub;
  sub.subscription_id = 3;
  sub.region = around_origin;
  ASSERT_TRUE(run(2, sub, 1));

  Follower fn{near, reference()}, ff{far, reference()};
  SnapshotPtr prev = world_->update(kDt, 1, 0.1, false);
  for (Follower* f : {&fn, &ff}) ASSERT_TRUE(f->ref->update(kDt));
  for (uint64_t tick = 2; tick <= 5; ++tick) {
    SnapshotPtr now = world_->update(kDt, tick, double(tick) * kDt, true);
    for (Follower* f : {&fn, &ff}) f->check(*prev, *now);
    prev = now;
  }
  EXPECT_EQ(fn.updated, (std::vector<uint64_t>{2, 3, 4, 5})) << "in the region: every tick";
  EXPECT_EQ(ff.updated.size(), 2u) << "outside it: every other tick";

  // The camera moves to the other character; the outer zone counts as watched too.
  StreamRegion around_far;
  around_far.center = {90.0f, 0.0f, 0.0f};
  around_far.radius = 5.0f;
  around_far.outer_margin = 6.0f;  // 100 is within 5 + 6 of 90
  around_far.outer_divisor = 2;
  ASSERT_TRUE(run(2, UpdateSubscription{3, around_far}, 6));
  fn.updated.clear();
  ff.updated.clear();
  for (uint64_t tick = 6; tick <= 9; ++tick) {
    SnapshotPtr now = world_->update(kDt, tick, double(tick) * kDt, true);
    for (Follower* f : {&fn, &ff}) f->check(*prev, *now);
    prev = now;
  }
  EXPECT_EQ(ff.updated, (std::vector<uint64_t>{6, 7, 8, 9}));
  EXPECT_EQ(fn.updated.size(), 2u);
}

TEST_F(WorldLodTest, UpdateSubscriptionNamesWhatIsWrong) {
  StreamRegion r;
  r.radius = 1.0f;
  auto unknown = run(1, UpdateSubscription{9, r}, 1);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code(), anim::StatusCode::kNotFound);
  EXPECT_NE(unknown.error().message().find("no such subscription"), std::string::npos);

  const uint32_t id = spawn_walking();
  ASSERT_TRUE(run(1, Subscribe{{id}, false, 4, std::nullopt}, 1));
  auto by_ids = run(1, UpdateSubscription{4, r}, 1);
  ASSERT_FALSE(by_ids);
  EXPECT_EQ(by_ids.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_NE(by_ids.error().message().find("not a region"), std::string::npos);
  // Another connection's subscription is not this one's to move.
  auto other = run(2, UpdateSubscription{4, r}, 1);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code(), anim::StatusCode::kNotFound);
}

TEST_F(WorldLodTest, PalettesAreBuiltOnlyWhileAFloatSubscriptionExists) {
  metrics_.float_subscriptions = 0;
  const uint32_t a = spawn_walking();
  const uint32_t b = spawn_walking();  // the other parity: a degraded tick skips one of them
  auto at_prev = reference(), at_now = reference();  // after tick - 1 and after tick
  for (uint64_t tick = 1; tick <= 5; ++tick) {
    SnapshotPtr s = world_->update(kDt, tick, double(tick) * kDt, false);
    EXPECT_FALSE(s->has_palettes);
    EXPECT_TRUE(s->palettes.empty()) << "tick " << tick;
    if (tick > 1) {
      ASSERT_TRUE(at_prev->update(kDt));
    }
    ASSERT_TRUE(at_now->update(kDt));
  }
  // A float subscriber appears, and the first tick with palettes is a degraded one: the
  // character it skips shows its pose of the tick before (built now: no tick built it), the
  // other its pose of this tick.
  metrics_.float_subscriptions = 1;
  ASSERT_TRUE(at_prev->update(kDt));
  ASSERT_TRUE(at_now->update(kDt));
  SnapshotPtr s = world_->update(kDt, 6, 0.6, true);
  ASSERT_TRUE(s->has_palettes);
  int skipped = 0, updated = 0;
  for (uint32_t id : {a, b}) {
    const auto p = palette_of(*s, id);
    if (same(p, at_prev->palette()))
      ++skipped;
    else if (same(p, at_now->palette()))
      ++updated;
    else
      ADD_FAILURE() << "character " << id << " has neither its previous pose nor its current one";
  }
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(updated, 1);
  EXPECT_FALSE(same(at_prev->palette(), at_now->palette())) << "the walk did not move";
}

}  // namespace world_lod_test
}  // namespace animd

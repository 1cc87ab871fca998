// Allocated update rates in the World (docs/animation.md, "Update rates"): with the budget
// unlimited every character is evaluated every tick, bit for bit as an Animator driven by
// hand; under a budget the least significant characters are evaluated on their phase and the
// ticks between show the interpolation of their last two poses, which the pose history answers
// exactly as streamed; a rise in significance gives the character every tick from the next
// one; the same inputs give the same decisions. The budget is made tiny (the allocator then
// takes its highest pressure after the first tick), so no timing decides anything.
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "history/history_record.h"
#include "history/pose_query.h"
#include "snapshot_palettes.h"
#include "world/world.h"

namespace animd {
namespace {

constexpr float kDt = 0.1f;

struct TestWorld {
  explicit TestWorld(double budget_ms, int max_interval = 4) {
    config.tick_rate = 10.0;
    config.history_seconds = 20.0;  // every tick of a test stays in the history
    config.anim_budget_ms = budget_ms;
    config.max_update_interval = max_interval;
    metrics.float_subscriptions = 1;  // the snapshots carry palettes
    world = std::make_unique<World>(config, metrics, catalog, pool);
    EXPECT_TRUE(world->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
    asset = catalog.get()->at("builtin");
  }
  anim::Expected<WorldResult> run(const WorldRequest& r, uint64_t tick) {
    return world->execute(r, Caller{1, 0}, tick, double(tick) * kDt);
  }
  uint32_t spawn(const char* clip, glm::vec3 at = {}) {
    SpawnCharacter r;
    r.asset = "builtin";
    r.clip = clip;
    auto s = run(r, 1);
    EXPECT_TRUE(s) << s.error().message();
    const uint32_t id = s ? std::get<Spawned>(*s).character_id : 0;
    SetRootTransform move;
    move.character = id;
    move.root.translation = at;
    EXPECT_TRUE(run(move, 1));
    return id;
  }
  SnapshotPtr tick(uint64_t t) { return world->update(kDt, t, double(t) * kDt, false); }
  // The clip time the record of `id` at tick `t` was evaluated at: it changes exactly at the
  // ticks that evaluated the character.
  float evaluated_time(uint32_t id, uint64_t t) {
    FrameRef f = world->history()->at(t);
    const HistoryEntry* e = f ? f->find(id) : nullptr;
    EXPECT_NE(e, nullptr) << "tick " << t;
    if (!e) return -1.0f;
    DecodedRecord r;
    decode_record(f->record(*e), r);
    return r.inputs.base.time;
  }
  ShownFrom shown(uint32_t id, uint64_t t) {
    FrameRef f = world->history()->at(t);
    const HistoryEntry* e = f->find(id);
    DecodedRecord r;
    decode_record(f->record(*e), r);
    return r.shown;
  }
  uint32_t interval_of(uint32_t id) {
    auto list = run(ListCharacters{}, 1);
    for (const auto& c : std::get<CharacterList>(*list).characters)
      if (c.character_id == id) return c.update_interval;
    return 0;
  }

  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool pool{2};
  std::unique_ptr<World> world;
  AssetPtr asset;
};

constexpr double kTinyBudget = 1e-9;  // ms: nothing fits, the highest pressure
constexpr double kUnlimited = std::numeric_limits<double>::infinity();

TEST(WorldUpdateRates, UnlimitedBudgetEvaluatesEveryCharacterEveryTickBitForBit) {
  // Unlimited, and a budget so large that the allocator keeps pressure 0: both give each
  // character exactly what an Animator updated by hand every tick gives.
  for (double budget : {kUnlimited, 1e9}) {
    TestWorld w(budget);
    const uint32_t a = w.spawn("walk"), b = w.spawn("run", {50, 0, 0});
    anim::Animator ra(w.asset->skeleton, w.asset->clips), rb(w.asset->skeleton, w.asset->clips);
    ASSERT_TRUE(ra.play(w.asset->find_clip("walk")));
    ASSERT_TRUE(rb.play(w.asset->find_clip("run")));
    for (uint64_t t = 1; t <= 20; ++t) {
      SnapshotPtr s = w.tick(t);
      ASSERT_TRUE(ra.update(kDt));
      ASSERT_TRUE(rb.update(kDt));
      EXPECT_TRUE(same(palette_of(*s, a), ra.palette())) << "budget " << budget << " tick " << t;
      EXPECT_TRUE(same(palette_of(*s, b), rb.palette())) << "budget " << budget << " tick " << t;
    }
    EXPECT_EQ(w.world->anim_pressure(), 0.0f);
    EXPECT_EQ(w.interval_of(a), 1u);
    EXPECT_EQ(w.metrics.character_updates_skipped.load(), 0u);
  }
}

TEST(WorldUpdateRates, UnwatchedCharactersAreEvaluatedOnTheirPhaseAndMoveEveryTick) {
  TestWorld w(kTinyBudget, 4);
  std::vector<uint32_t> ids;
  for (int k = 0; k < 4; ++k) ids.push_back(w.spawn("walk", {10.0f * k, 0, 0}));
  for (uint64_t t = 1; t <= 40; ++t) w.tick(t);
  EXPECT_EQ(w.world->anim_pressure(), kMaxPressure);
  for (uint32_t id : ids) {
    EXPECT_EQ(w.interval_of(id), 4u);
    // From tick 10 on, evaluated every 4th tick, on the phase of its id.
    std::vector<uint64_t> evaluated;
    for (uint64_t t = 10; t <= 40; ++t)
      if (w.evaluated_time(id, t) != w.evaluated_time(id, t - 1)) evaluated.push_back(t);
    ASSERT_GE(evaluated.size(), 7u) << "character " << id;
    for (size_t k = 0; k < evaluated.size(); ++k) EXPECT_EQ((evaluated[k] + id) % 4, 0u);
  }
  // The characters' phases differ: one in four is evaluated at each tick.
  EXPECT_GT(w.metrics.character_updates_skipped.load(), 0u);
}

TEST(WorldUpdateRates, AQueryAtAnyTickAnswersThePoseTheSnapshotShowed) {
  TestWorld w(kTinyBudget, 4);
  const uint32_t id = w.spawn("walk");
  std::vector<std::vector<anim::PaletteMatrix>> shown;
  int interpolated = 0;
  for (uint64_t t = 1; t <= 30; ++t) {
    SnapshotPtr s = w.tick(t);
    const auto streamed = palette_of(*s, id);
    QueryPose q;
    q.character = id;
    q.tick = t;
    auto answer = query_history(*w.world->history(), q);
    ASSERT_TRUE(answer && *answer) << "tick " << t;
    EXPECT_TRUE(same(streamed, (**answer).palette)) << "tick " << t;
    shown.emplace_back(streamed.begin(), streamed.end());
    interpolated += w.shown(id, t).ticks_back != 0;
  }
  // Later, while the frames are still in the history, the same answers.
  for (uint64_t t = 1; t <= 30; ++t) {
    QueryPose q;
    q.character = id;
    q.tick = t;
    auto answer = query_history(*w.world->history(), q);
    ASSERT_TRUE(answer && *answer);
    EXPECT_TRUE(same(shown[t - 1], (**answer).palette)) << "tick " << t;
  }
  // Most ticks interpolate, and the character moves at every tick, evaluated or not.
  EXPECT_GE(interpolated, 20);
  for (size_t k = 12; k < shown.size(); ++k)
    EXPECT_FALSE(same(shown[k], shown[k - 1])) << "tick " << k + 1 << " repeats tick " << k;
}

TEST(WorldUpdateRates, ARiseInSignificanceGivesEveryTickFromTheNextTick) {
  TestWorld w(kTinyBudget, 4);
  const uint32_t id = w.spawn("walk");
  uint64_t t = 1;
  for (; t <= 12; ++t) w.tick(t);
  ASSERT_EQ(w.interval_of(id), 4u);
  // Just after an evaluation: the next one is three ticks away.
  while (w.evaluated_time(id, t - 1) == w.evaluated_time(id, t - 2)) w.tick(t++);
  SetSignificance rise;
  rise.characters = {id};
  rise.significance = 1.0f;
  ASSERT_TRUE(w.run(rise, t));
  w.tick(t);  // decided before the command's tick: still its old plan
  for (uint64_t k = t + 1; k <= t + 6; ++k) {
    w.tick(k);
    EXPECT_NE(w.evaluated_time(id, k), w.evaluated_time(id, k - 1)) << "not evaluated at " << k;
    EXPECT_EQ(w.shown(id, k).ticks_back, 0u) << "tick " << k << " shows an interpolation";
  }
  EXPECT_EQ(w.interval_of(id), 1u);

  // Cleared, it goes back to what watches it (nobody): the floor again.
  SetSignificance clear;
  clear.characters = {id};
  clear.clear = true;
  ASSERT_TRUE(w.run(clear, t + 7));
  for (uint64_t k = t + 7; k <= t + 10; ++k) w.tick(k);
  EXPECT_EQ(w.interval_of(id), 4u);
}

TEST(WorldUpdateRates, SetSignificanceIsAllOrNone) {
  TestWorld w(kTinyBudget, 4);
  const uint32_t id = w.spawn("walk");
  for (uint64_t t = 1; t <= 6; ++t) w.tick(t);
  SetSignificance r;
  r.characters = {id, 999};
  r.significance = 1.0f;
  auto refused = w.run(r, 7);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), anim::StatusCode::kNotFound);
  EXPECT_NE(refused.error().message().find("set_significance.character_ids[1]"), std::string::npos)
      << refused.error().message();
  for (uint64_t t = 7; t <= 10; ++t) w.tick(t);
  EXPECT_EQ(w.interval_of(id), 4u) << "the refused request changed the known character";
}

TEST(WorldUpdateRates, TheSameInputsGiveTheSameDecisionsAndPoses) {
  TestWorld a(kTinyBudget, 4), b(kTinyBudget, 4);
  std::vector<uint32_t> ids;
  for (TestWorld* w : {&a, &b}) {
    ids.clear();
    for (int k = 0; k < 6; ++k) ids.push_back(w->spawn(k % 2 ? "walk" : "run", {3.0f * k, 0, 0}));
    SetSignificance some;
    some.characters = {ids[1], ids[4]};
    some.significance = 0.9f;  // interval 1 + floor(64 * 0.1) = 7, clamped to 4: still reduced
    ASSERT_TRUE(w->run(some, 1));
  }
  for (uint64_t t = 1; t <= 25; ++t) {
    SnapshotPtr sa = a.tick(t), sb = b.tick(t);
    for (uint32_t id : ids)
      EXPECT_TRUE(same(palette_of(*sa, id), palette_of(*sb, id))) << id << " at " << t;
  }
  for (uint32_t id : ids) EXPECT_EQ(a.interval_of(id), b.interval_of(id));
  const auto ca = a.world->interval_counts(), cb = b.world->interval_counts();
  EXPECT_TRUE(std::equal(ca.begin(), ca.end(), cb.begin(), cb.end()));
}

TEST(WorldUpdateRates, TheBoundOfAnInterpolatedPoseHoldsItsJoints) {
  // The hit queries' broad phase: every joint of the pose shown lies within the placement.
  for (bool palettes : {true, false}) {
    TestWorld w(kTinyBudget, 8);
    // Without palettes the update computes no matrices: placements come from the clips' reach.
    w.metrics.float_subscriptions = palettes ? 1 : 0;
    std::vector<uint32_t> ids;
    int clip = 0;
    for (const auto& c : w.asset->clips)
      ids.push_back(w.spawn(c.name.c_str(), {4.0f * clip++, 0, 0}));
    int checked = 0;
    for (uint64_t t = 1; t <= 90; ++t) {
      w.tick(t);
      FrameRef f = w.world->history()->at(t);
      for (uint32_t id : ids) {
        const HistoryEntry* e = f->find(id);
        ASSERT_NE(e, nullptr);
        const HitPlacement& p = f->placements[static_cast<size_t>(e - f->entries.data())];
        QueryPose q;
        q.character = id;
        q.tick = t;
        q.space = PoseSpace::kWorld;
        auto answer = query_history(*w.world->history(), q);
        ASSERT_TRUE(answer && *answer);
        for (const PoseJoint& j : (**answer).joints) {
          const glm::mat4 m = j.matrix.to_mat4();
          const glm::vec3 at(m[3]);
          EXPECT_LE(glm::length(at - p.center), p.radius * 1.0001f + 1e-5f)
              << "character " << id << " joint " << j.index << " at tick " << t;
        }
        ++checked;
      }
    }
    EXPECT_EQ(checked, 90 * static_cast<int>(ids.size()));
  }
}

}  // namespace
}  // namespace animd

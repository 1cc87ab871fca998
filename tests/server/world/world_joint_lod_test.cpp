// Joint LOD in the World (docs/animation.md, "Joint detail"): under a budget, characters of
// low significance are evaluated with their asset's detail joints at rest and the history
// records it, so a query answers the pose the snapshot showed; significance 1 and an
// unlimited budget keep every joint; list_characters and the server stats report it. The
// budget is made tiny (the allocator then takes its highest pressure), so no timing decides
// anything.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "anim/joint_detail.h"
#include "anim/loaders/builtin_character.h"
#include "history/history_record.h"
#include "history/pose_query.h"
#include "history/shown_pose.h"
#include "snapshot_palettes.h"
#include "world/world.h"

namespace animd {
namespace world_joint_lod_test {

constexpr float kDt = 0.1f;
constexpr double kTinyBudget = 1e-9;
constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// The builtin character with its hands and toes as detail joints (it has none of its own:
// its smallest end chains are longer than the derived threshold).
std::shared_ptr<anim::Asset> builtin_with_detail() {
  auto a = std::make_shared<anim::Asset>(anim::make_builtin_character());
  const std::vector<std::string> names = {"hand_l", "hand_r", "toe_l", "toe_r"};
  auto joints = anim::detail_joints_named(a->skeleton, names);
  EXPECT_TRUE(joints);
  EXPECT_TRUE(anim::set_detail_joints(*a, *joints));
  return a;
}

struct JointLodWorld {
  explicit JointLodWorld(double budget_ms) {
    config.tick_rate = 10.0;
    config.history_seconds = 20.0;
    config.anim_budget_ms = budget_ms;
    config.max_update_interval = 2;
    metrics.float_subscriptions = 1;  // the snapshots carry palettes
    world = std::make_unique<World>(config, metrics, catalog, pool);
    EXPECT_TRUE(world->add_asset(builtin_with_detail()));
    asset = catalog.get()->at("builtin");
  }
  anim::Expected<WorldResult> run(const WorldRequest& r, uint64_t tick) {
    return world->execute(r, Caller{1, 0}, tick, double(tick) * kDt);
  }
  uint32_t spawn(const char* clip) {
    SpawnCharacter r;
    r.asset = "builtin";
    r.clip = clip;
    auto s = run(r, 1);
    EXPECT_TRUE(s) << s.error().message();
    return s ? std::get<Spawned>(*s).character_id : 0;
  }
  // Two walking characters nobody watches, the second set to significance 1 (a boss).
  std::pair<uint32_t, uint32_t> spawn_far_and_boss() {
    const uint32_t far = spawn("walk");
    const uint32_t boss = spawn("walk");
    SetSignificance one;
    one.characters = {boss};
    one.significance = 1.0f;
    EXPECT_TRUE(run(one, 1));
    return {far, boss};
  }
  SnapshotPtr tick(uint64_t t) { return world->update(kDt, t, double(t) * kDt, false); }
  bool detail_skipped(uint32_t id) {
    auto list = run(ListCharacters{}, 1);
    for (const auto& c : std::get<CharacterList>(*list).characters)
      if (c.character_id == id) return c.detail_skipped;
    ADD_FAILURE() << "no character " << id;
    return false;
  }
  bool recorded_skip(uint32_t id, uint64_t t) {
    FrameRef f = world->history()->at(t);
    const HistoryEntry* e = f ? f->find(id) : nullptr;
    if (!e) return false;
    DecodedRecord r;
    EXPECT_TRUE(decode_entry(*world->history(), *f, *e, r)) << "tick " << t;
    return r.inputs.skip_detail;
  }

  Config config;
  Metrics metrics;
  AssetCatalog catalog;
  WorkerPool pool{2};
  std::unique_ptr<World> world;
  AssetPtr asset;
};

TEST(WorldJointLod, UnwatchedCharactersSkipDetailAndQueriesAnswerWhatWasShown) {
  JointLodWorld w(kTinyBudget);
  const auto [far, boss] = w.spawn_far_and_boss();
  int recorded = 0;
  for (uint64_t t = 1; t <= 24; ++t) {
    SnapshotPtr s = w.tick(t);
    for (uint32_t id : {far, boss}) {
      QueryPose q;
      q.character = id;
      q.tick = t;
      auto answer = query_history(*w.world->history(), q);
      ASSERT_TRUE(answer && *answer) << "tick " << t;
      EXPECT_TRUE(same(palette_of(*s, id), (**answer).palette))
          << "character " << id << " tick " << t;
    }
    recorded += w.recorded_skip(far, t);
    EXPECT_FALSE(w.recorded_skip(boss, t)) << "tick " << t;
  }
  EXPECT_GE(recorded, 18);
  EXPECT_TRUE(w.detail_skipped(far));
  EXPECT_FALSE(w.detail_skipped(boss));
  EXPECT_EQ(w.metrics.detail_skipped_characters.load(), 1u);
  auto stats = w.run(GetStats{}, 24);
  ASSERT_TRUE(stats);
  EXPECT_EQ(std::get<StatsAnswer>(*stats).detail_skipped_characters, 1u);
}

// A joint at rest relative to its parent: palette[j] = palette[p] x inverse(bind[p]) x
// rest(j) x bind[j], bind the inverse bind matrices.
glm::mat4 palette_at_rest(const anim::Skeleton& sk, std::span<const anim::PaletteMatrix> palette,
                          int32_t j) {
  const int p = sk.parents[static_cast<size_t>(j)];
  return palette[static_cast<size_t>(p)].to_mat4() *
         glm::inverse(sk.inverse_bind[static_cast<size_t>(p)]) *
         anim::to_matrix(sk.rest_pose[static_cast<size_t>(j)]) *
         sk.inverse_bind[static_cast<size_t>(j)];
}

float largest_difference(const glm::mat4& a, const glm::mat4& b) {
  float d = 0.0f;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) d = std::max(d, std::abs(a[c][r] - b[c][r]));
  return d;
}

// Streamed palettes: the far character's hands and toes sit at rest on their parents at every
// tick once it skips detail; the boss's move with the walk.
TEST(WorldJointLod, SkippedDetailJointsAreStreamedAtRest) {
  JointLodWorld w(kTinyBudget);
  const auto [far, boss] = w.spawn_far_and_boss();
  const anim::Skeleton& sk = w.asset->skeleton;
  float boss_largest = 0.0f;
  for (uint64_t t = 1; t <= 24; ++t) {
    SnapshotPtr s = w.tick(t);
    if (t < 4) continue;  // the first evaluations decide the pressure
    for (int32_t j : sk.detail_joints) {
      const auto pf = palette_of(*s, far);
      EXPECT_LT(
          largest_difference(pf[static_cast<size_t>(j)].to_mat4(), palette_at_rest(sk, pf, j)),
          1e-5f)
          << sk.names[static_cast<size_t>(j)] << " tick " << t;
      const auto pb = palette_of(*s, boss);
      boss_largest = std::max(boss_largest, largest_difference(pb[static_cast<size_t>(j)].to_mat4(),
                                                               palette_at_rest(sk, pb, j)));
    }
  }
  EXPECT_GT(boss_largest, 1e-3f) << "the walk does not move the detail joints";
}

TEST(WorldJointLod, AnUnlimitedBudgetKeepsEveryJoint) {
  JointLodWorld w(kUnlimited);
  const uint32_t id = w.spawn("walk");
  anim::Animator hand(w.asset->skeleton, w.asset->clips);
  ASSERT_TRUE(hand.play(w.asset->find_clip("walk")));
  for (uint64_t t = 1; t <= 10; ++t) {
    SnapshotPtr s = w.tick(t);
    ASSERT_TRUE(hand.update(kDt));
    EXPECT_TRUE(same(palette_of(*s, id), hand.palette())) << "tick " << t;
    EXPECT_FALSE(w.recorded_skip(id, t));
  }
  EXPECT_FALSE(w.detail_skipped(id));
  EXPECT_EQ(w.metrics.detail_skipped_characters.load(), 0u);
}

TEST(WorldJointLod, ARiseToSignificanceOneRestoresEveryJointFromTheNextEvaluation) {
  JointLodWorld w(kTinyBudget);
  const uint32_t id = w.spawn("walk");
  uint64_t t = 1;
  for (; t <= 6; ++t) w.tick(t);
  ASSERT_TRUE(w.detail_skipped(id));
  SetSignificance one;
  one.characters = {id};
  one.significance = 1.0f;
  ASSERT_TRUE(w.run(one, t));
  w.tick(t++);  // planned before the command's tick
  for (uint64_t k = t; k < t + 4; ++k) {
    w.tick(k);
    EXPECT_FALSE(w.recorded_skip(id, k)) << "tick " << k;
  }
  EXPECT_FALSE(w.detail_skipped(id));
}

}  // namespace world_joint_lod_test
}  // namespace animd

// Allocated update rates in the World (docs/animation.md, "Update rates"): with the budget
// unlimited every character is evaluated every tick, bit for bit as an Animator driven by
// hand; under a budget the least significant characters are evaluated on their phase and the
// ticks between show the interpolation of their last two poses, which the pose history answers
// exactly as streamed; a rise in significance gives the character every tick from the next
// one; the same inputs give the same decisions; a command between two evaluations takes effect
// at its own tick (the character's clocks caught up first), the events crossed on the way
// come with the next evaluation, and an exported state includes the time skipped. The budget is
// made tiny (the allocator then takes its highest pressure after the first tick), so no timing
// decides anything.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "history/history_record.h"
#include "history/pose_query.h"
#include "history/shown_pose.h"
#include "snapshot_palettes.h"
#include "world/world.h"

namespace animd {
namespace world_update_rates_test {

constexpr double kTickRate = 10.0;                // TestWorld's Config::tick_rate
constexpr double kPeriodMs = 1000.0 / kTickRate;  // its tick period
constexpr float kDt = static_cast<float>(1.0 / kTickRate);

struct TestWorld {
  explicit TestWorld(double budget_ms, int max_interval = 4, double cost_us = 0.0) {
    config.anim_cost_us = cost_us;
    config.tick_rate = kTickRate;
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
    EXPECT_TRUE(decode_entry(*world->history(), *f, *e, r)) << "tick " << t;
    return r.inputs.base.time;
  }
  ShownFrom shown(uint32_t id, uint64_t t) {
    FrameRef f = world->history()->at(t);
    const HistoryEntry* e = f->find(id);
    DecodedRecord r;
    EXPECT_TRUE(decode_entry(*world->history(), *f, *e, r)) << "tick " << t;
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

// Whether tick t evaluated the character: its record's clip time changed (at tick 1, from
// the rest pose's 0 of a character never evaluated).
bool evaluated_at(TestWorld& w, uint32_t id, uint64_t t) {
  const float before = t == 1 ? 0.0f : w.evaluated_time(id, t - 1);
  return w.evaluated_time(id, t) != before;
}

// An Animator driven by hand as the World drives a character that ticks may skip: each
// evaluation updates it by the time of the ticks since its last step, and a command to it
// between two evaluations first steps the time skipped so far (an update here: the pose it
// evaluates is replaced by the next one, bit for bit as after a catch-up).
struct HandDriven {
  explicit HandDriven(const anim::Asset& a) : animator(a.skeleton, a.clips) {}
  void before_command() {
    if (!(pending > 0.0f)) return;
    EXPECT_TRUE(animator.update(pending));
    pending = 0.0f;
  }
  void after_tick(bool evaluated, float dt) {
    if (!evaluated) {
      pending += dt;
      return;
    }
    EXPECT_TRUE(animator.update(pending + dt));
    pending = 0.0f;
    evaluated_palette.assign(animator.palette().begin(), animator.palette().end());
  }

  anim::Animator animator;
  float pending = 0.0f;                                // as Character::pending_dt
  std::vector<anim::PaletteMatrix> evaluated_palette;  // its last evaluation's
};

bool same_root(const anim::Transform& a, const anim::Transform& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

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

// A tick that does not evaluate a character records its last evaluation again, in room
// sized from that evaluation's record: whatever moves, scales or re-plays the character
// between its evaluations, every tick keeps a record of every character, and a query answers
// what the snapshot showed.
TEST(WorldUpdateRates, EveryTickRecordsEveryCharacterWhateverHappensBetweenEvaluations) {
  TestWorld w(kTinyBudget, 4);
  const uint32_t moved = w.spawn("walk", {1.0f, 0.0f, 0.0f});
  const uint32_t replayed = w.spawn("walk", {2.0f, 0.0f, 0.0f});
  const uint32_t still = w.spawn("run", {3.0f, 0.0f, 0.0f});
  int reported_roots = 0;
  for (uint64_t t = 1; t <= 40; ++t) {
    if (t % 3 == 0) {  // moved and scaled at ticks off its evaluations too
      SetRootTransform r;
      r.character = moved;
      r.root.translation = glm::vec3(1.0f, 0.0f, 0.1f * float(t));
      r.root.scale = glm::vec3(t % 2 ? 2.0f : 1.0f);
      ASSERT_TRUE(w.run(r, t));
    }
    if (t % 5 == 0) {
      ASSERT_TRUE(
          w.run(CrossfadeClip{replayed, t % 10 ? "run" : "walk", 0.3f, true, 1.0f, false}, t));
    }
    SnapshotPtr s = w.tick(t);
    ASSERT_EQ(w.metrics.placement_misses.load(), 0u) << "tick " << t;
    FrameRef f = w.world->history()->at(t);
    ASSERT_TRUE(f);
    ASSERT_EQ(f->entries.size(), 3u);
    for (const HistoryEntry& e : f->entries) {
      ASSERT_GT(e.size, 0u) << "character " << e.character << " has no record at tick " << t;
      DecodedRecord r;
      ASSERT_TRUE(decode_entry(*w.world->history(), *f, e, r)) << "tick " << t;
      reported_roots += !(r.reported_root.translation == r.inputs.root.translation);
    }
    for (uint32_t id : {moved, replayed, still}) {
      QueryPose q;
      q.character = id;
      q.tick = t;
      auto answer = query_history(*w.world->history(), q);
      ASSERT_TRUE(answer && *answer) << "tick " << t;
      EXPECT_TRUE(same(palette_of(*s, id), (**answer).palette))
          << "character " << id << ", tick " << t;
      EXPECT_EQ(s->find(id)->root.scale, (**answer).root.scale) << "tick " << t;
    }
  }
  EXPECT_EQ(w.interval_of(still), 4u);
  EXPECT_GE(reported_roots, 5);  // moved between evaluations: records with a reported root
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

// An unwatched character moved into a region subscription's shape, with nothing else changed:
// every tick from the tick after the command; moved out again, back to the floor.
TEST(WorldUpdateRates, MovingIntoARegionGivesEveryTickFromTheNextTick) {
  TestWorld w(kTinyBudget, 4);
  const uint32_t id = w.spawn("walk");
  StreamRegion region;
  region.center = glm::vec3(50.0f, 0.0f, 0.0f);
  region.radius = 2.0f;
  ASSERT_TRUE(w.run(Subscribe{{}, false, 7, region, true}, 1));
  uint64_t t = 1;
  for (; t <= 12; ++t) w.tick(t);
  ASSERT_EQ(w.interval_of(id), 4u);
  auto move_to = [&](float x) {
    SetRootTransform r;
    r.character = id;
    r.root.translation = glm::vec3(x, 0.0f, 0.0f);
    ASSERT_TRUE(w.run(r, t));
  };
  move_to(50.0f);
  w.tick(t++);
  EXPECT_EQ(w.interval_of(id), 1u);
  for (uint64_t k = t; k <= t + 4; ++k) {
    w.tick(k);
    EXPECT_NE(w.evaluated_time(id, k), w.evaluated_time(id, k - 1)) << "not evaluated at " << k;
  }
  t += 5;
  move_to(0.0f);
  for (uint64_t k = t; k <= t + 4; ++k) w.tick(k);
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

// Rule (docs/animation.md, "Update rates"): a command takes effect at the tick it runs at. A
// character between two evaluations (a reduced rate, or a degraded tick) has its clocks
// brought up to that tick first: each of its evaluations is, bit for bit, the pose of an
// Animator driven by hand with the same steps and the commands between them (where a tick
// shows an evaluated pose, it shows that one), and its root, moved by root motion, is that
// Animator's at every tick.
TEST(WorldUpdateRates, ACommandBetweenEvaluationsTakesEffectAtItsTick) {
  for (bool degraded : {false, true}) {
    TestWorld w(degraded ? kUnlimited : kTinyBudget, 4);
    const glm::vec3 at(2, 0, 0);
    const uint32_t id = w.spawn("walk", at);
    // The clips walk and run in place: the hips' bob and yaw move the root.
    SetRootMotion motion;
    motion.character = id;
    motion.mode = anim::RootMotionMode::kExtract;
    motion.joint = "hips";
    motion.extract_vertical = true;
    ASSERT_TRUE(w.run(motion, 1));
    HandDriven hand(*w.asset);
    ASSERT_TRUE(hand.animator.play(w.asset->find_clip("walk")));
    anim::Transform root;
    root.translation = at;
    ASSERT_TRUE(hand.animator.set_root_transform(root));
    ASSERT_TRUE(hand.animator.set_root_motion(
        {anim::RootMotionMode::kExtract, w.asset->skeleton.find_joint("hips"), true}));

    // Three commands, each at the first tick from its own on at which the character has time
    // pending (ticks skipped it since its last evaluation).
    const uint64_t command_ticks[] = {14, 23, 31};
    size_t sent = 0;
    int compared = 0, moved = 0;
    for (uint64_t t = 1; t <= 45; ++t) {
      if (sent < std::size(command_ticks) && t >= command_ticks[sent] && hand.pending > 0.0f) {
        hand.before_command();
        if (sent == 1) {
          SetCharacterSpeed speed;
          speed.character = id;
          speed.speed = 0.7f;
          ASSERT_TRUE(w.run(speed, t));
          ASSERT_TRUE(hand.animator.set_speed(0.7f));
        } else {
          CrossfadeClip fade;
          fade.character = id;
          fade.clip = sent == 0 ? "run" : "walk";
          fade.duration = 0.6f;
          ASSERT_TRUE(w.run(fade, t));
          ASSERT_TRUE(hand.animator.crossfade(w.asset->find_clip(fade.clip), fade.duration));
        }
        ++sent;
      }
      SnapshotPtr s = degraded ? w.world->update(kDt, t, double(t) * kDt, true) : w.tick(t);
      hand.after_tick(evaluated_at(w, id, t), kDt);
      const SnapshotCharacter* sc = s->find(id);
      ASSERT_NE(sc, nullptr);
      EXPECT_TRUE(same_root(sc->root, hand.animator.root_transform()))
          << (degraded ? "degraded" : "reduced rate") << ": tick " << t;
      moved += sc->root.translation != at;
      if (w.shown(id, t).ticks_back != 0) continue;  // an interpolated pose
      EXPECT_TRUE(same(palette_of(*s, id), hand.evaluated_palette))
          << (degraded ? "degraded" : "reduced rate") << ": tick " << t;
      compared += t > command_ticks[0];
    }
    EXPECT_EQ(sent, std::size(command_ticks)) << (degraded ? "degraded" : "reduced rate");
    EXPECT_GE(compared, degraded ? 25 : 6) << (degraded ? "degraded" : "reduced rate");
    EXPECT_GE(moved, 40) << (degraded ? "degraded" : "reduced rate");
    if (!degraded) {
      EXPECT_EQ(w.interval_of(id), 4u);
    }
  }
}

// With --anim-budget-ms auto, a tick whose predecessor overran (update's `degrade`) gets a
// fifth less budget, and each tick after one that kept its period gives 0.05 % of the period
// back (lod/update_rates.h); an explicit budget stays as given. Stats report the budget in
// force.
TEST(WorldUpdateRates, TheAutomaticBudgetShrinksAfterAnOverrunAndOnlyIt) {
  TestWorld automatic(-1.0), fixed(30.0);
  automatic.spawn("walk");
  fixed.spawn("walk");
  const double period_ms = 1000.0 / automatic.config.tick_rate;
  EXPECT_DOUBLE_EQ(automatic.world->anim_budget_ms(), 0.75 * period_ms);
  automatic.world->update(kDt, 1, kDt, true);
  EXPECT_DOUBLE_EQ(automatic.world->anim_budget_ms(), 0.6 * period_ms);
  automatic.world->update(kDt, 2, 2 * kDt, true);
  EXPECT_DOUBLE_EQ(automatic.world->anim_budget_ms(), 0.48 * period_ms);
  automatic.tick(3);
  EXPECT_NEAR(automatic.world->anim_budget_ms(), 0.4805 * period_ms, 1e-9);
  auto stats = automatic.run(GetStats{}, 3);
  ASSERT_TRUE(stats);
  EXPECT_NEAR(std::get<StatsAnswer>(*stats).anim_budget_ms, 0.4805 * period_ms, 1e-9);
  fixed.world->update(kDt, 1, kDt, true);
  EXPECT_EQ(fixed.world->anim_budget_ms(), 30.0);
}

// The allocator plans from the budget in force and the fixed cost (--anim-cost-us): ten
// unwatched characters (significance 0) at kCostUs each fit the automatic budget
// (kAutoBudgetShare of the period) but not kAutoBudgetBackoff of it, the budget after an
// overrun and the fixed budget of the second world. The allocator prices significance
// [0, 1/64) at 1/64, so pressure 1 still gives interval 1; the next grid step, 1.25, gives
// interval 2 (half an evaluation and half a skipped tick each), which fits and stays while the
// budget is below the full cost / kRelief. The fixed world's own updates cost far less than
// kCostUs: only the fixed cost gives it pressure, from its first tick on. No clock decides.
TEST(WorldUpdateRates, TheAllocatorPlansFromTheBudgetInForceAndTheFixedCost) {
  constexpr double kCostUs = 7000.0;
  constexpr double kShrunkMs = kPeriodMs * Config::kAutoBudgetShare * kAutoBudgetBackoff;
  TestWorld automatic(-1.0, 4, kCostUs), fixed(kShrunkMs, 4, kCostUs);
  // The arithmetic the expectations below rest on.
  const double full = 10 * kCostUs / 1000.0, halved = 10 * (0.5 + 0.5 * 0.1) * kCostUs / 1000.0;
  ASSERT_LE(full, kPeriodMs * Config::kAutoBudgetShare);
  ASSERT_GT(full, kShrunkMs);
  ASSERT_LE(halved, kShrunkMs);
  ASSERT_GT(full / kRelief, kPeriodMs * Config::kAutoBudgetShare);
  for (int k = 0; k < 10; ++k) {
    automatic.spawn("walk", {10.0f * k, 0, 0});
    fixed.spawn("walk", {10.0f * k, 0, 0});
  }
  automatic.tick(1);
  fixed.tick(1);
  EXPECT_EQ(automatic.world->anim_pressure(), 0.0f);
  EXPECT_EQ(fixed.world->anim_pressure(), 1.25f);
  automatic.world->update(kDt, 2, 2 * kDt, true);  // the tick before overran
  fixed.world->update(kDt, 2, 2 * kDt, true);
  EXPECT_DOUBLE_EQ(automatic.world->anim_budget_ms(), kShrunkMs);
  EXPECT_DOUBLE_EQ(fixed.world->anim_budget_ms(), kShrunkMs);
  EXPECT_EQ(automatic.world->anim_pressure(), 1.25f);
  EXPECT_EQ(fixed.world->anim_pressure(), 1.25f);
  // From the next tick on each character of both worlds is evaluated every 2nd tick.
  for (uint64_t t = 3; t <= 6; ++t) {
    automatic.tick(t);
    fixed.tick(t);
  }
  for (TestWorld* w : {&automatic, &fixed}) {
    EXPECT_EQ(w->world->anim_pressure(), 1.25f);
    const auto list = w->run(ListCharacters{}, 6);
    ASSERT_TRUE(list);
    EXPECT_EQ(std::get<CharacterList>(*list).characters.size(), 10u);
    for (const auto& c : std::get<CharacterList>(*list).characters)
      EXPECT_EQ(c.update_interval, 2u) << "character " << c.character_id;
    EXPECT_GT(w->metrics.character_updates_skipped.load(), 0u);
  }
}

// The events a character's clocks cross while a command catches them up fire then, and come
// in the snapshot of its next evaluation (with the weights they had then: before the command).
TEST(WorldUpdateRates, AnEventCrossedBeforeACommandComesWithTheNextEvaluation) {
  TestWorld w(kTinyBudget, 4);
  const uint32_t id = w.spawn("walk");
  const float duration = w.asset->clips[static_cast<size_t>(w.asset->find_clip("walk"))].duration;
  uint64_t t = 1;
  for (; t <= 12; ++t) w.tick(t);
  ASSERT_EQ(w.interval_of(id), 4u);
  // Just after an evaluation B: the next one is at B + 4.
  while (w.evaluated_time(id, t - 1) == w.evaluated_time(id, t - 2)) w.tick(t++);
  const uint64_t b = t - 1;
  // An event 0.15 s of clip time after B's: the ticks B + 1 and B + 2 cross it.
  AddClipEvents add;
  add.asset = "builtin";
  add.clip = "walk";
  add.events = {{"mark", std::fmod(w.evaluated_time(id, b) + 0.15f, duration), ""}};
  ASSERT_TRUE(w.run(add, t));
  // The "mark" events of the character in a snapshot.
  auto marks = [&](const Snapshot& s) {
    std::vector<anim::FiredEvent> out;
    const SnapshotCharacter* sc = s.find(id);
    EXPECT_NE(sc, nullptr);
    if (!sc) return out;
    for (uint32_t i = 0; i < sc->events_count; ++i) {
      const anim::FiredEvent& e = s.events[sc->events_begin + i];
      if (e.source != anim::EventSource::kMontage &&
          sc->event_table->clips[static_cast<size_t>(e.clip)][e.event].name == "mark")
        out.push_back(e);
    }
    return out;
  };
  EXPECT_TRUE(marks(*w.tick(t++)).empty());  // B + 1
  EXPECT_TRUE(marks(*w.tick(t++)).empty());  // B + 2
  // B + 3: a crossfade to run. Its catch-up crosses the mark while the walk is all of the pose.
  CrossfadeClip fade;
  fade.character = id;
  fade.clip = "run";
  fade.duration = 1.0f;
  ASSERT_TRUE(w.run(fade, t));
  EXPECT_TRUE(marks(*w.tick(t)).empty());  // B + 3: skipped
  EXPECT_EQ(w.evaluated_time(id, t), w.evaluated_time(id, b));
  ++t;
  SnapshotPtr next = w.tick(t);  // B + 4: evaluated
  ASSERT_NE(w.evaluated_time(id, t), w.evaluated_time(id, b));
  const auto fired = marks(*next);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].source, anim::EventSource::kBase);
  EXPECT_EQ(fired[0].weight, 1.0f) << "crossed after the crossfade, under its fade";
  // Delivered once.
  for (uint64_t k = t + 1; k <= t + 3; ++k) EXPECT_TRUE(marks(*w.tick(k)).empty()) << k;
}

// An exported state is the one the tick's update starts from: with the time of the ticks
// that skipped the character since its last evaluation. Exporting changes nothing: the
// character steps that time at its next evaluation, as before.
TEST(WorldUpdateRates, AnExportedStateIncludesTheTicksSinceTheLastEvaluation) {
  TestWorld w(kTinyBudget, 4);
  const uint32_t id = w.spawn("walk");
  HandDriven hand(*w.asset);
  ASSERT_TRUE(hand.animator.play(w.asset->find_clip("walk")));
  uint64_t t = 1;
  for (; t <= 14 || !(hand.pending > 0.0f); ++t) {
    w.tick(t);
    hand.after_tick(evaluated_at(w, id, t), kDt);
  }
  ExportCharacters request;
  request.characters = {id};
  auto exported = w.run(request, t);
  ASSERT_TRUE(exported) << exported.error().message();
  const anim::AnimatorState& state = std::get<CharactersExported>(*exported).characters.at(0).state;
  anim::Animator caught_up = hand.animator;
  ASSERT_TRUE(caught_up.update(hand.pending));
  const float saved = state.main.base.time, expected = caught_up.current_clip_time();
  EXPECT_EQ(std::memcmp(&saved, &expected, sizeof saved), 0) << saved << " vs " << expected;
  EXPECT_NE(saved, hand.animator.current_clip_time());
  int compared = 0;
  for (const uint64_t end = t + 8; t <= end; ++t) {
    SnapshotPtr s = w.tick(t);
    hand.after_tick(evaluated_at(w, id, t), kDt);
    if (w.shown(id, t).ticks_back != 0) continue;
    EXPECT_TRUE(same(palette_of(*s, id), hand.evaluated_palette)) << "tick " << t;
    ++compared;
  }
  EXPECT_GE(compared, 2);
}

TEST(WorldUpdateRates, TheBoundOfAnInterpolatedPoseHoldsItsJoints) {
  // The hit queries' broad phase: every joint of the pose shown lies within the placement, also
  // between evaluations as far apart as the largest floor allows.
  for (const auto& [palettes, floor, ticks] :
       {std::tuple{true, 8, 90}, std::tuple{false, 8, 90},
        std::tuple{true, kMaxUpdateInterval, 3 * kMaxUpdateInterval}}) {
    SCOPED_TRACE(testing::Message() << "palettes " << palettes << ", floor " << floor);
    TestWorld w(kTinyBudget, floor);
    // Without palettes the update computes no matrices: placements come from the clips' reach.
    w.metrics.float_subscriptions = palettes ? 1 : 0;
    std::vector<uint32_t> ids;
    int clip = 0;
    for (const auto& c : w.asset->clips)
      ids.push_back(w.spawn(c.name.c_str(), {4.0f * clip++, 0, 0}));
    int checked = 0;
    for (uint64_t t = 1; t <= static_cast<uint64_t>(ticks); ++t) {
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
    EXPECT_EQ(checked, ticks * static_cast<int>(ids.size()));
  }
}

TEST(WorldUpdateRates, AtTheLargestFloorTheOldestTickOfTheWindowStillAnswers) {
  // The floor kMaxUpdateInterval: an unwatched character is evaluated every 64th tick, and
  // the oldest tick of the history's window, whose two poses were evaluated up to two
  // intervals before it, answers what the snapshot showed at that tick.
  TestWorld w(kTinyBudget, kMaxUpdateInterval);
  const uint32_t id = w.spawn("walk", {50, 0, 0});
  const uint64_t window = static_cast<uint64_t>(w.config.history_ticks());
  const uint64_t floor = kMaxUpdateInterval;
  // The oldest tick of the window: two before an evaluation N (on the character's phase,
  // (N + id) % floor == 0), the deepest interpolation (tick N - 1 shows pose B itself), from
  // pose A evaluated 2 x floor - 2 ticks before it.
  uint64_t oldest = 2 * floor + 1;
  while ((oldest + 2 + id) % floor != 0) ++oldest;
  const uint64_t last = oldest + window - 1;
  std::vector<std::vector<anim::PaletteMatrix>> shown;
  std::vector<uint64_t> evaluations;
  for (uint64_t t = 1; t <= last; ++t) {
    SnapshotPtr s = w.tick(t);
    const auto streamed = palette_of(*s, id);
    shown.emplace_back(streamed.begin(), streamed.end());
    if (t > 1 && evaluated_at(w, id, t)) evaluations.push_back(t);
  }
  EXPECT_EQ(w.interval_of(id), floor);
  ASSERT_GE(evaluations.size(), 4u);
  // From the third on: the first two came before the pressure put the character at the floor.
  for (size_t k = 3; k < evaluations.size(); ++k)
    EXPECT_EQ(evaluations[k] - evaluations[k - 1], floor);
  // Every tick still in the window, the oldest first.
  ASSERT_TRUE(w.world->history()->at(oldest)) << "tick " << oldest;
  EXPECT_EQ(w.shown(id, oldest).ticks_back, 2 * floor - 2);
  for (uint64_t t = oldest; t <= last; ++t) {
    QueryPose q;
    q.character = id;
    q.tick = t;
    auto answer = query_history(*w.world->history(), q);
    ASSERT_TRUE(answer && *answer) << "tick " << t;
    EXPECT_TRUE(same(shown[t - 1], (**answer).palette)) << "tick " << t;
  }
}

}  // namespace world_update_rates_test
}  // namespace animd

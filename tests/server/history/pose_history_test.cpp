// The pose history (pose_history.h, pose_query.h) driven through the World as the tick thread
// does: every tick in the window, re-evaluated from its compact record, gives exactly the
// palette the tick put in its snapshot (and the root), under random command sequences with
// every feature and with update-rate LOD skipping ticks; the history's bytes per character
// are bounded and stay put once the window is full; queries from several threads while the
// tick runs (TSan sees them: the tsan preset runs this label too).
#include <atomic>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "history/history_record.h"
#include "history/pose_query.h"
#include "history/shown_pose.h"
#include "world/world.h"

namespace animd {
namespace pose_history_test {

constexpr float kDt = 1.0f / 60.0f;

bool same_bits(std::span<const anim::PaletteMatrix> a, std::span<const anim::PaletteMatrix> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}
bool same_bits(const anim::Transform& a, const anim::Transform& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

class PoseHistoryTest : public ::testing::Test {
 protected:
  PoseHistoryTest() {
    config_.tick_rate = 60.0;
    config_.history_seconds = 0.5;  // 30 ticks
    config_.ik_budget = 1u << 30;
    metrics_.float_subscriptions = 1;  // these tests read the snapshots' palettes
    make_world(std::numeric_limits<double>::infinity());
  }
  // A World with this --anim-budget-ms: unlimited, degraded ticks skip characters; tiny,
  // update rates are allocated (the least significant every 8th tick, the ticks between
  // interpolated).
  void make_world(double budget_ms) {
    config_.anim_budget_ms = budget_ms;
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  }
  void every_tick_reevaluates(bool allocated_rates);
  anim::Expected<WorldResult> run(const WorldRequest& r) {
    return world_->execute(r, Caller{1, 0}, tick_, double(tick_) * kDt);
  }
  uint32_t spawn(const std::string& clip) {
    auto s = run(SpawnCharacter{"builtin", clip, {}, false});
    EXPECT_TRUE(s) << s.error().message();
    return s ? std::get<Spawned>(*s).character_id : 0;
  }
  SnapshotPtr tick(bool degrade) {
    ++tick_;
    return world_->update(kDt, tick_, double(tick_) * kDt, degrade);
  }
  // Every character of every snapshot still in the window, queried from the history and
  // compared with the snapshot bit for bit. Returns the number of poses compared.
  int check_window(const std::deque<SnapshotPtr>& kept) {
    const PoseHistory& h = *world_->history();
    const auto [oldest, newest] = h.window();
    int compared = 0;
    for (const SnapshotPtr& snap : kept) {
      if (snap->tick < oldest) continue;
      for (const SnapshotCharacter& c : snap->characters) {
        QueryPose q;
        q.character = c.id;
        q.tick = snap->tick;
        auto answer = query_history(h, q);
        if (!answer) {
          ADD_FAILURE() << "character " << c.id << " missing from the newest frame";
          continue;
        }
        if (!*answer) {
          ADD_FAILURE() << answer->error().message();
          continue;
        }
        const PoseAnswer& p = **answer;
        const auto streamed = std::span(snap->palettes).subspan(c.palette_offset, c.num_joints);
        EXPECT_TRUE(same_bits(p.palette, streamed))
            << "character " << c.id << " tick " << snap->tick << " (newest " << newest << ")";
        EXPECT_TRUE(same_bits(p.root, c.root)) << "character " << c.id << " tick " << snap->tick;
        EXPECT_EQ(p.tick, snap->tick);
        EXPECT_EQ(p.server_time, snap->server_time);
        ++compared;
      }
    }
    return compared;
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{2};
  std::unique_ptr<World> world_;
  uint64_t tick_ = 0;
};

TEST_F(PoseHistoryTest, BlendSpacesReEvaluateBitForBit) {
  ASSERT_TRUE(run(DefineBlendSpace{
      "builtin", "move", {"speed"}, {{"idle", {0, 0}}, {"walk", {1.4f, 0}}, {"run", {4, 0}}}}));
  ASSERT_TRUE(run(DefineBlendSpace{
      "builtin",
      "dir",
      {"x", "speed"},
      {{"idle", {0, 0}}, {"walk", {-1, 1.4f}}, {"run", {1, 1.4f}}, {"wave", {0, 3}}}}));
  std::mt19937 rng(14);
  auto uniform = [&](float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  };
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  const char* motions[] = {"move", "dir", "walk", "move", "dir"};
  std::vector<uint32_t> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(spawn("idle"));
  ASSERT_TRUE(run(SetRootMotion{ids[0], anim::RootMotionMode::kExtract, "", false}));
  std::deque<SnapshotPtr> kept;
  int compared = 0;
  for (int step = 0; step < 150; ++step) {
    for (int k = pick(3); k > 0; --k) {
      const uint32_t id = ids[pick(ids.size())];
      switch (pick(4)) {
        case 0:
          ASSERT_TRUE(run(PlayClip{id, motions[pick(5)], true, uniform(0.5f, 1.5f), 0.0f}));
          break;
        case 1:
          ASSERT_TRUE(run(CrossfadeClip{id, motions[pick(5)], uniform(0.05f, 0.5f), true,
                                        uniform(0.5f, 1.5f), pick(2) == 0}));
          break;
        default:
          ASSERT_TRUE(run(SetParameter{id, pick(2) == 0 ? "speed" : "x", uniform(-1.0f, 4.5f),
                                       pick(2) == 0 ? 0.0f : uniform(0.05f, 0.5f)}));
      }
    }
    kept.push_back(tick(step % 7 == 3));
    if (kept.size() > 40) kept.pop_front();
    if (step % 10 == 9) compared += check_window(kept);
  }
  EXPECT_GT(compared, 300);
}

TEST_F(PoseHistoryTest, EveryTickInTheWindowReEvaluatesToItsPaletteBitForBit) {
  every_tick_reevaluates(false);
}

TEST_F(PoseHistoryTest, EveryInterpolatedTickReEvaluatesToItsPaletteBitForBit) {
  make_world(1e-9);
  every_tick_reevaluates(true);
}

void PoseHistoryTest::every_tick_reevaluates(bool allocated_rates) {
  std::mt19937 rng(2026);
  auto uniform = [&](float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  };
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  const char* clips[] = {"idle", "walk", "run", "wave", "lean"};
  std::vector<uint32_t> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(spawn(clips[i % 5]));
  // One character is watched: under LOD it keeps every tick while the others skip.
  ASSERT_TRUE(run(Subscribe{{ids[0]}, false, 1, std::nullopt}));
  std::map<uint32_t, std::vector<uint32_t>> layers, goals;
  const anim::IkSolver solvers[] = {anim::IkSolver::kCcd, anim::IkSolver::kFabrik,
                                    anim::IkSolver::kTwoBone};

  std::deque<SnapshotPtr> kept;
  int compared = 0, skipped_moves = 0;
  std::map<std::string, int> applied;
  for (int step = 0; step < 240; ++step) {
    // A few commands before each tick, on random characters.
    for (int k = pick(4); k > 0; --k) {
      const uint32_t id = ids[pick(ids.size())];
      std::string what;
      anim::Expected<WorldResult> r = anim::Expected<WorldResult>(WorldResult(Done{}));
      switch (pick(12)) {
        case 0:
          what = "play";
          r = run(PlayClip{id, clips[pick(5)], pick(2) == 0, uniform(-1.5f, 2.0f), 0.0f});
          break;
        case 1:
        case 2:  // often, so that fades overlap
          what = "crossfade";
          r = run(CrossfadeClip{id, clips[pick(5)], uniform(0.05f, 0.6f), pick(2) == 0,
                                uniform(-1.0f, 2.0f), pick(2) == 0});
          break;
        case 3:
          what = "speed";
          r = run(SetCharacterSpeed{id, uniform(-2.0f, 2.0f)});
          break;
        case 4:
          if (layers[id].size() < 3) {
            what = "add_layer";
            AddLayer a;
            a.character = id;
            a.clip = clips[pick(5)];
            a.weight = uniform(0.0f, 1.0f);
            a.speed = uniform(-1.0f, 1.5f);
            a.parameter = uniform(0.0f, 1.0f);
            a.time_source = static_cast<anim::LayerTimeSource>(pick(3));
            if (pick(2)) a.mask.blend_root = "chest";
            r = run(a);
            if (r) layers[id].push_back(std::get<LayerAdded>(*r).layer_id);
          }
          break;
        case 5:
          if (!layers[id].empty()) {
            what = "update_layer";
            UpdateLayer u;
            u.character = id;
            u.layer = layers[id][pick(layers[id].size())];
            u.weight = uniform(0.0f, 1.0f);
            if (pick(2)) u.speed = uniform(-1.0f, 1.0f);
            if (pick(2)) u.parameter = uniform(0.0f, 1.0f);
            r = run(u);
          }
          break;
        case 6:
          if (!layers[id].empty()) {
            what = "remove_layer";
            const size_t i = pick(layers[id].size());
            r = run(RemoveLayer{id, layers[id][i]});
            layers[id].erase(layers[id].begin() + static_cast<std::ptrdiff_t>(i));
          }
          break;
        case 7:
          if (goals[id].size() < 2) {
            what = "set_ik_goal";
            SetIkGoal g;
            g.character = id;
            g.solver = solvers[pick(3)];
            const bool left = pick(2) == 0;
            g.root_joint = left ? "upper_arm_l" : "thigh_r";
            g.effector_joint = left ? "hand_l" : "foot_r";
            g.space = pick(2) ? anim::IkSpace::kWorld : anim::IkSpace::kModel;
            g.target = {uniform(-0.4f, 0.4f), uniform(0.2f, 1.4f), uniform(-0.3f, 0.3f)};
            g.weight = uniform(0.0f, 1.0f);
            if (g.solver == anim::IkSolver::kTwoBone && pick(2)) g.pole = glm::vec3(0, 1, 1);
            if (g.solver == anim::IkSolver::kFabrik && pick(2)) {
              anim::JointConstraint c;
              c.kind = anim::JointConstraint::Kind::kBallSocket;
              c.cone_angle = 0.9f;
              g.constraints.push_back({g.root_joint, c});
            }
            r = run(g);
            if (r) goals[id].push_back(std::get<IkGoalSet>(*r).goal_id);
          }
          break;
        case 8:
          if (!goals[id].empty()) {
            what = "move_ik_goal";
            MoveIkGoal m;
            m.character = id;
            m.goal = goals[id][pick(goals[id].size())];
            m.target = {uniform(-0.4f, 0.4f), uniform(0.2f, 1.4f), uniform(-0.3f, 0.3f)};
            if (pick(2)) m.weight = uniform(0.0f, 1.0f);
            r = run(m);
          }
          break;
        case 9:
          if (!goals[id].empty()) {
            what = "clear_ik_goal";
            const size_t i = pick(goals[id].size());
            r = run(ClearIkGoal{id, goals[id][i]});
            goals[id].erase(goals[id].begin() + static_cast<std::ptrdiff_t>(i));
          }
          break;
        case 10: {
          what = "set_root_motion";
          SetRootMotion m;
          m.character = id;
          m.mode = pick(3) == 0 ? anim::RootMotionMode::kOff : anim::RootMotionMode::kExtract;
          m.joint = pick(2) ? "" : "hips";
          m.extract_vertical = pick(2) == 0;
          r = run(m);
          break;
        }
        default: {
          what = "set_root";
          anim::Transform root;
          root.translation = {uniform(-5, 5), 0.0f, uniform(-5, 5)};
          root.rotation = glm::angleAxis(uniform(0.0f, 6.0f), glm::vec3(0, 1, 0));
          if (pick(3) == 0) root.scale = glm::vec3(uniform(0.5f, 2.0f));
          r = run(SetRootTransform{id, root});
          break;
        }
      }
      ASSERT_TRUE(r) << what << ": " << r.error().message();
      if (!what.empty()) ++applied[what];
    }
    // Every third stretch of ticks is degraded: unwatched characters skip alternate ticks.
    const bool degrade = (step / 20) % 3 == 2;
    SnapshotPtr snap = tick(degrade);
    if (degrade && (step % 7) == 0) {
      // Move a character after a tick; if the next tick skips it, its pose stays and its
      // root moves (the record carries both roots).
      anim::Transform root;
      root.translation = {uniform(-5, 5), 1.0f, 0.0f};
      ASSERT_TRUE(run(SetRootTransform{ids[1 + pick(ids.size() - 1)], root}));
      ++skipped_moves;
    }
    kept.push_back(snap);
    if (kept.size() > 40) kept.pop_front();
    if (step % 25 == 24) compared += check_window(kept);
  }
  compared += check_window(kept);
  // The sequence did what it says (the test can fail for each).
  for (const char* what :
       {"play", "crossfade", "speed", "add_layer", "update_layer", "remove_layer", "set_ik_goal",
        "move_ik_goal", "clear_ik_goal", "set_root", "set_root_motion"})
    EXPECT_GT(applied[what], 3) << what;
  EXPECT_GT(skipped_moves, 5);
  if (allocated_rates)
    EXPECT_GT(metrics_.character_updates_skipped.load(), 7u * 240u / 2u);
  else
    EXPECT_GT(metrics_.degraded_ticks.load(), 40u);
  EXPECT_GT(compared, 8 * 30 * 9);
}

TEST_F(PoseHistoryTest, QueriesOutsideTheHistoryAreRefusedWithTheRange) {
  const uint32_t id = spawn("walk");
  QueryPose q;
  q.character = id;
  EXPECT_FALSE(query_history(*world_->history(), q));  // nothing published yet
  for (int i = 0; i < 40; ++i) tick(false);            // window: ticks 11..40
  q.tick = 41;
  auto future = query_history(*world_->history(), q);
  ASSERT_TRUE(future && !*future);
  EXPECT_EQ(future->error().message(),
            "query_pose.tick 41 is in the future; available ticks 11..40");
  q.tick = 10;
  auto old = query_history(*world_->history(), q);
  ASSERT_TRUE(old && !*old);
  EXPECT_EQ(old->error().code(), anim::StatusCode::kNotFound);
  EXPECT_EQ(old->error().message(),
            "query_pose.tick 10 is not in the pose history; available ticks 11..40");
  // A character spawned later: its range starts at its first tick.
  const uint32_t late = spawn("run");
  for (int i = 0; i < 5; ++i) tick(false);  // late's first tick is 41
  q.character = late;
  q.tick = 20;
  auto before = query_history(*world_->history(), q);
  ASSERT_TRUE(before && !*before);
  EXPECT_EQ(before->error().message(),
            "query_pose.tick 20 is not in the pose history; available ticks 41..45");
  // Despawned: the newest frame does not have it; the World answers unknown character.
  ASSERT_TRUE(run(DespawnCharacter{id}));
  tick(false);
  q.character = id;
  q.tick.reset();
  EXPECT_FALSE(query_history(*world_->history(), q));
  auto gone = run(q);
  EXPECT_EQ(gone.error().message(),
            "query_pose.character_id: unknown character " + std::to_string(id));
}

// Ticks numbered from an epoch are large and skip numbers when the loop is late: the window
// spans tick numbers (a skipped one has no frame and is answered as skipped), and every tick
// that ran still re-evaluates bit for bit.
TEST_F(PoseHistoryTest, SkippedTickNumbersAreAnsweredAsSkipped) {
  const uint32_t id = spawn("walk");
  std::deque<SnapshotPtr> kept;
  auto run_tick = [&](uint64_t t) {
    tick_ = t - 1;
    kept.push_back(tick(false));
  };
  const uint64_t base = 105'000'000'000;  // about now at 60 Hz from the Unix epoch
  for (uint64_t t = base; t < base + 10; ++t) run_tick(t);
  run_tick(base + 13);  // base + 10 .. base + 12 skipped
  run_tick(base + 14);
  EXPECT_EQ(world_->history()->window(), std::make_pair(base, base + 14));
  EXPECT_TRUE(world_->history()->skipped(base + 11));
  EXPECT_FALSE(world_->history()->skipped(base + 13));
  EXPECT_FALSE(world_->history()->skipped(base - 1));
  EXPECT_EQ(check_window(kept), 12);
  QueryPose q;
  q.character = id;
  q.tick = base + 11;
  auto skipped = query_history(*world_->history(), q);
  ASSERT_TRUE(skipped && !*skipped);
  EXPECT_EQ(skipped->error().code(), anim::StatusCode::kNotFound);
  EXPECT_EQ(skipped->error().message(),
            "query_pose.tick " + std::to_string(base + 11) +
                " was skipped: the daemon ran no tick of that number (it was late); available "
                "ticks " +
                std::to_string(base) + ".." + std::to_string(base + 14));
  // A skip longer than the window: the frames before it leave the window.
  run_tick(base + 100);
  EXPECT_EQ(world_->history()->window(), std::make_pair(base + 71, base + 100));
  q.tick = base + 14;
  auto old = query_history(*world_->history(), q);
  ASSERT_TRUE(old && !*old);
  EXPECT_EQ(old->error().message(), "query_pose.tick " + std::to_string(base + 14) +
                                        " is not in the pose history; available ticks " +
                                        std::to_string(base + 100) + ".." +
                                        std::to_string(base + 100));
  EXPECT_EQ(check_window(kept), 1);
}

TEST_F(PoseHistoryTest, BytesPerCharacterAreBoundedAndSteadyOnceTheWindowIsFull) {
  constexpr uint32_t kCharacters = 200;
  for (uint32_t i = 0; i < kCharacters; ++i) spawn(i % 2 ? "walk" : "run");
  // Every record the same shape: one long crossfade running on each character.
  for (uint32_t id = 1; id <= kCharacters; ++id)
    ASSERT_TRUE(run(CrossfadeClip{id, "idle", 1000.0f, true, 1.0f, false}));
  const size_t window = static_cast<size_t>(world_->history()->kept_ticks());
  auto fill = [&] {
    for (size_t i = 0; i < window + 2; ++i) tick(false);
  };
  fill();
  const size_t full = world_->history()->bytes();
  fill();
  fill();
  EXPECT_EQ(world_->history()->bytes(), full) << "the history grew once its window was full";
  // Per character and tick: a 24-byte entry and a 13-word (52-byte) record; the vectors may
  // hold up to twice that in capacity; frames exist for the window + the one being filled.
  const size_t per_character = full / kCharacters;
  EXPECT_LE(per_character, (window + 1) * 2 * (24 + 52)) << per_character;
  EXPECT_GE(per_character, window * (24 + 52)) << per_character;  // the count is real
  // Versus the model matrices kept before (22 joints x 48 bytes per tick).
  EXPECT_LT(per_character * 4, window * 22 * 48) << per_character;
}

TEST_F(PoseHistoryTest, QueriesFromManyThreadsWhileTheTickRuns) {
  std::vector<uint32_t> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(spawn(i % 2 ? "walk" : "wave"));
  for (int i = 0; i < 3; ++i) tick(false);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> answered{0}, refused{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      while (!stop.load()) {
        QueryPose q;
        q.character = ids[rng() % ids.size()];
        const auto [oldest, newest] = world_->history()->window();
        if (rng() % 2) q.tick = oldest + rng() % (newest - oldest + 1);
        auto a = query_history(*world_->history(), q);
        if (a && *a) {
          // Self-consistent: the palette is the skin of the answered joints.
          EXPECT_EQ((*a)->palette.size(), 22u);
          ++answered;
        } else {
          ++refused;  // the window moved past the tick between window() and the query
        }
      }
    });
  // The tick thread: commands (new setups, freed ones) and updates meanwhile.
  for (int i = 0; i < 200; ++i) {
    const uint32_t id = ids[static_cast<size_t>(i) % ids.size()];
    if (i % 3 == 0) {
      AddLayer a;
      a.character = id;
      a.clip = "lean";
      auto r = run(a);
      ASSERT_TRUE(r);
      ASSERT_TRUE(run(RemoveLayer{id, std::get<LayerAdded>(*r).layer_id}));
    }
    if (i % 5 == 0) {
      ASSERT_TRUE(run(CrossfadeClip{id, i % 2 ? "run" : "idle", 0.2f}));
    }
    tick(i % 4 == 0);
    while (answered.load() < static_cast<uint64_t>(i)) std::this_thread::yield();
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_GE(answered.load(), 200u);
}

TEST_F(PoseHistoryTest, FootAndAimIkReEvaluateBitForBit) {
  // Foot IK with locks and per-tick ground samples, and aim IK with a moving world target, on
  // walking characters that the game server moves every tick: every tick in the window
  // re-evaluates to its streamed palette, including degraded ticks.
  std::vector<uint32_t> ids;
  for (const char* clip : {"walk", "run", "idle"}) ids.push_back(spawn(clip));
  for (uint32_t id : ids) {
    ASSERT_TRUE(run(SetFootIk{id, {}}));
    SetAimIk aim{id, {}};
    aim.desc.root_joint = "chest";
    aim.desc.end_joint = "head";
    aim.desc.space = anim::IkSpace::kWorld;
    aim.desc.target = {0.0f, 1.6f, 5.0f};
    ASSERT_TRUE(run(aim));
  }
  std::deque<SnapshotPtr> kept;
  int compared = 0;
  for (int step = 0; step < 120; ++step) {
    for (size_t i = 0; i < ids.size(); ++i) {
      const float z = 0.02f * static_cast<float>(step) * static_cast<float>(i + 1);
      anim::Transform root;
      root.translation = {static_cast<float>(i), 0.05f * z, z};
      ASSERT_TRUE(run(SetRootTransform{ids[i], root}));
      SetGround g{ids[i], {}, std::nullopt};
      if (step % 2) {
        g.ground.kind = anim::GroundDesc::Kind::kFootSamples;
        g.ground.heights = {0.05f * z, 0.05f * z - 0.03f};
      } else {
        g.ground.normal = {0.0f, 1.0f, -0.05f};
      }
      if (step == 60) g.weight = 0.5f;
      ASSERT_TRUE(run(g));
      ASSERT_TRUE(
          run(MoveAimTarget{ids[i], {std::sin(0.1f * step), 1.5f, z + 3.0f}, std::nullopt}));
    }
    kept.push_back(tick((step / 20) % 2 == 1));
    if (kept.size() > 40) kept.pop_front();
    if (step % 25 == 24) compared += check_window(kept);
  }
  compared += check_window(kept);
  EXPECT_GT(compared, 3 * 30 * 4);
  // Refused requests change nothing and name the problem.
  auto bad = run(MoveAimTarget{9999, {0, 0, 0}, std::nullopt});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), anim::StatusCode::kNotFound);
  const uint32_t plain = spawn("idle");
  bad = run(SetGround{plain, {}, 0.5f});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("set_ground.weight"), std::string::npos);
  bad = run(MoveAimTarget{plain, {0, 0, 0}, std::nullopt});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("no aim IK"), std::string::npos);
  SetFootIk feet{plain, {}};
  feet.desc.legs[0].ankle = "hoof";
  bad = run(feet);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("hoof"), std::string::npos);
}

}  // namespace pose_history_test
}  // namespace animd

// World, driven with its own request types as the tick thread does, with ticks chosen by the
// test: who may drive a character, when orphaned characters go (counted in ticks, so no
// sleeping), the daemon-wide IK budget's iteration scale, and how apply() answers (wire
// replies in command order, large ones charged to the outbound budget).
#include "world/world.h"

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "moving_asset.h"
#include "protocol/reply_sink.h"

namespace animd {
namespace world_test {

using Result = anim::Expected<WorldResult>;

struct Delivered {
  uint64_t seq;
  anim::v1::Reply reply;
  size_t drawn;
};

class RecordingSink : public ReplySink {
 public:
  explicit RecordingSink(ByteBudget* outbound = nullptr) : ReplySink(outbound) {}
  void deliver(uint64_t seq, anim::v1::Reply reply, size_t drawn) override {
    replies.push_back(Delivered{seq, std::move(reply), drawn});
  }
  std::vector<Delivered> replies;
};

anim::StatusCode code(const Result& r) {
  return r ? anim::StatusCode::kOk : r.error().code();
}

class WorldTest : public ::testing::Test {
 protected:
  WorldTest() {
    config_.tick_rate = 10.0;  // grace of 1 s = 10 ticks
    config_.orphan_grace_s = 1.0;
    config_.ik_budget = 100;
    make_world(nullptr);
  }
  void make_world(ByteBudget* outbound) {
    metrics_.float_subscriptions = 1;  // these tests read the snapshots' palettes
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    sink_ = std::make_shared<RecordingSink>(outbound);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  }

  // One request from `session` (acting as `owner`: a token's key, 0 without tokens) at
  // `tick`.
  Result run(uint64_t session, uint64_t owner, const WorldRequest& r, uint64_t tick) {
    return world_->execute(r, Caller{session, owner}, tick, double(tick) / config_.tick_rate);
  }
  void close_session(uint64_t session, uint64_t tick) {
    std::vector<Command> batch(1);
    batch[0].kind = Command::Kind::kSessionClosed;
    batch[0].session_id = session;
    world_->apply(batch, tick, 0.0);
  }
  void idle_tick(uint64_t tick) {
    std::vector<Command> none;
    world_->apply(none, tick, 0.0);
  }
  uint32_t spawn(uint64_t session, uint64_t owner, bool shared, uint64_t tick) {
    SpawnCharacter r;
    r.asset = "builtin";
    r.clip = "walk";
    r.shared = shared;
    const auto result = run(session, owner, r, tick);
    EXPECT_TRUE(result) << result.error().message();
    if (!result) return 0;
    const auto& spawned = std::get<Spawned>(*result);
    EXPECT_EQ(spawned.tick, tick);
    return spawned.character_id;
  }
  anim::StatusCode play(uint64_t session, uint64_t owner, uint32_t id, uint64_t tick) {
    PlayClip r;
    r.character = id;
    r.clip = "idle";
    return code(run(session, owner, r, tick));
  }
  std::set<uint32_t> ids(uint64_t tick) {
    const auto result = run(999, 0, ListCharacters{}, tick);
    std::set<uint32_t> out;
    for (const auto& c : std::get<CharacterList>(*result).characters) out.insert(c.character_id);
    return out;
  }
  SetIkGoal ik_goal(uint32_t id, int iterations) {
    SetIkGoal g;
    g.character = id;
    g.root_joint = "shoulder_r";
    g.effector_joint = "hand_r";  // 4 joints: shoulder, upper arm, forearm, hand
    g.solver = anim::IkSolver::kCcd;
    g.space = anim::IkSpace::kModel;
    g.max_iterations = iterations;
    g.target = glm::vec3(-0.5f, 1.3f, 0.3f);
    return g;
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{1};
  std::unique_ptr<World> world_;
  std::shared_ptr<RecordingSink> sink_ = std::make_shared<RecordingSink>();
};

TEST_F(WorldTest, SpawnUnownedCountsTheCharacter) {
  // The characters gauge feeds /metrics and the Agones Counter before any command arrives.
  ASSERT_TRUE(world_->spawn_unowned("builtin", "walk"));
  ASSERT_TRUE(world_->spawn_unowned("builtin", "walk"));
  EXPECT_EQ(metrics_.characters.load(), 2u);
}

TEST_F(WorldTest, OnlyTheOwnerDrivesAnOwnedCharacter) {
  const uint32_t owned = spawn(1, 0, false, 1);
  const uint32_t shared = spawn(1, 0, true, 1);
  EXPECT_EQ(play(2, 0, owned, 2), anim::StatusCode::kPermissionDenied);
  EXPECT_EQ(play(1, 0, owned, 2), anim::StatusCode::kOk);
  EXPECT_EQ(play(2, 0, shared, 2), anim::StatusCode::kOk);
  // With tokens the owner is the token, whichever connection carries it.
  const uint64_t k1 = 0x1234, k2 = 0x5678;
  const uint32_t token_owned = spawn(3, k1, false, 3);
  EXPECT_EQ(play(4, k1, token_owned, 3), anim::StatusCode::kOk);
  EXPECT_EQ(play(5, k2, token_owned, 3), anim::StatusCode::kPermissionDenied);
  const auto despawn = run(5, k2, DespawnCharacter{token_owned}, 3);
  EXPECT_EQ(code(despawn), anim::StatusCode::kPermissionDenied);
  EXPECT_EQ(despawn.error().message(),
            "despawn.character_id: character " + std::to_string(token_owned) +
                " belongs to another client (spawn with shared = true to let others drive it)");
  EXPECT_TRUE(ids(3).count(token_owned));
}

TEST_F(WorldTest, OrphansGoAfterTheGraceSharedOnesStay) {
  const uint32_t owned = spawn(1, 0, false, 1);
  const uint32_t shared = spawn(1, 0, true, 1);
  const uint32_t other = spawn(2, 0, false, 1);
  close_session(1, 5);
  idle_tick(14);  // 9 ticks after: within the grace
  EXPECT_EQ(ids(14), (std::set<uint32_t>{owned, shared, other}));
  idle_tick(15);  // 10 ticks = 1 s
  EXPECT_EQ(ids(15), (std::set<uint32_t>{shared, other}));
  EXPECT_EQ(metrics_.orphans_despawned.load(), 1u);
}

TEST_F(WorldTest, AReconnectWithTheSameTokenKeepsTheCharacters) {
  const uint64_t k = 0xABCDEF;
  const uint32_t id = spawn(1, k, false, 1);
  close_session(1, 5);
  EXPECT_EQ(play(2, k, id, 10), anim::StatusCode::kOk);  // session 2, same token
  idle_tick(100);
  EXPECT_TRUE(ids(100).count(id));
  // When that connection goes too, the grace starts again from its close.
  close_session(2, 200);
  idle_tick(209);
  EXPECT_TRUE(ids(209).count(id));
  idle_tick(210);
  EXPECT_FALSE(ids(210).count(id));
}

TEST_F(WorldTest, AnAssetLoadedAfterItsConnectionClosedDoesNotKeepTheOwnerAlive) {
  // A load finishes on the loader thread after its connection closed: the insert reaches the
  // World after the close. The token must still count as gone.
  const uint64_t k = 0x4242;
  const uint32_t id = spawn(1, k, false, 1);
  close_session(1, 5);
  std::vector<Command> late(1);
  late[0].kind = Command::Kind::kInsertAsset;
  late[0].session_id = 1;
  late[0].owner = k;
  late[0].request_id = 31;
  late[0].sink = sink_;
  auto asset = std::make_shared<anim::Asset>(anim::make_builtin_character());
  asset->name = "late";
  late[0].asset = asset;
  world_->apply(late, 6, 0.0);
  ASSERT_EQ(sink_->replies.size(), 1u);
  const auto& reply = sink_->replies.back().reply;
  ASSERT_EQ(reply.status().code(), anim::v1::STATUS_OK) << reply.status().message();
  EXPECT_EQ(reply.request_id(), 31u);
  EXPECT_EQ(reply.load_asset().asset().name(), "late");
  idle_tick(15);
  EXPECT_FALSE(ids(15).count(id)) << "the owner's characters outlived the grace";
}

TEST_F(WorldTest, IkBudgetScalesIterationsAcrossTheDaemon) {
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 1.0f);
  const uint32_t a = spawn(1, 0, false, 1);
  const uint32_t b = spawn(1, 0, false, 1);
  // 25 iterations x 4 joints = 100: exactly the budget.
  auto r = run(1, 0, ik_goal(a, 25), 2);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 1.0f);
  // 1000 x 4 more: 4,100 asked, 100 allowed.
  r = run(1, 0, ik_goal(b, 1000), 3);
  ASSERT_TRUE(r) << r.error().message();
  const uint32_t goal_b = std::get<IkGoalSet>(*r).goal_id;
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 100.0f / 4100.0f);
  // Poses stay finite with the scaled-down iterations.
  auto snap = world_->update(0.1f, 4, 0.4, false);
  for (const auto& m : snap->palettes)
    for (float v : m.m) ASSERT_TRUE(std::isfinite(v));
  // Clearing the big goal restores the full iterations.
  ASSERT_TRUE(run(1, 0, ClearIkGoal{b, goal_b}, 5));
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 1.0f);
  // And a despawn does the same.
  ASSERT_TRUE(run(1, 0, ik_goal(b, 1000), 6));
  EXPECT_LT(metrics_.ik_scale.load(), 1.0f);
  ASSERT_TRUE(run(1, 0, DespawnCharacter{b}, 7));
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 1.0f);
  // Above 1000 iterations: the conversion refuses it (request_convert_test); one made
  // without the conversion is still refused, by the Animator.
  r = run(1, 0, ik_goal(a, 1001), 8);
  EXPECT_EQ(code(r), anim::StatusCode::kInvalidArgument);
}

TEST_F(WorldTest, MovingAGoalAnswersItsIdAndAnUnknownGoalIsNotFound) {
  const uint32_t id = spawn(1, 0, false, 1);
  auto goal = ik_goal(id, 8);
  goal.weight = 0.25f;
  auto set = run(1, 0, goal, 2);
  ASSERT_TRUE(set) << set.error().message();
  const uint32_t goal_id = std::get<IkGoalSet>(*set).goal_id;
  auto moved = run(1, 0, MoveIkGoal{id, goal_id, glm::vec3(0.0f, 1.0f, 0.0f), std::nullopt}, 3);
  ASSERT_TRUE(moved) << moved.error().message();
  EXPECT_EQ(std::get<IkGoalSet>(*moved).goal_id, goal_id);
  auto unknown = run(1, 0, MoveIkGoal{id, goal_id + 1, glm::vec3(0.0f), 0.5f}, 3);
  EXPECT_EQ(code(unknown), anim::StatusCode::kNotFound);
  EXPECT_EQ(unknown.error().message(), "set_ik_goal.goal_id: unknown IK goal " +
                                           std::to_string(goal_id + 1) + " on character " +
                                           std::to_string(id));
}

TEST_F(WorldTest, UnloadAssetRefusedWhileUsed) {
  const uint32_t id = spawn(1, 0, true, 1);
  auto r = run(1, 0, UnloadAsset{"builtin"}, 2);
  EXPECT_EQ(code(r), anim::StatusCode::kFailedPrecondition);
  EXPECT_EQ(catalog_.get()->size(), 1u);
  ASSERT_TRUE(run(1, 0, DespawnCharacter{id}, 3));
  EXPECT_TRUE(run(1, 0, UnloadAsset{"builtin"}, 4));
  EXPECT_EQ(catalog_.get()->size(), 0u);
  EXPECT_EQ(metrics_.assets.load(), 0u);
}

TEST_F(WorldTest, QueryPoseAnswersTheJointsAskedForInTheSpaceAsked) {
  SpawnCharacter s;
  s.asset = "builtin";
  s.root.translation = glm::vec3(10.0f, 0.0f, 0.0f);
  auto spawned = run(1, 0, s, 1);
  ASSERT_TRUE(spawned);
  const uint32_t id = std::get<Spawned>(*spawned).character_id;
  QueryPose q;
  q.character = id;
  EXPECT_EQ(code(run(1, 0, q, 1)), anim::StatusCode::kNotFound);  // no pose before an update
  world_->update(0.1f, 1, 0.1, false);

  const anim::Asset& a = *catalog_.get()->at("builtin");
  const int hand = a.skeleton.find_joint("hand_r");
  ASSERT_GE(hand, 0);
  q.joint_names = {"hand_r"};
  q.joint_indices = {0};
  auto model = run(1, 0, q, 2);
  ASSERT_TRUE(model) << model.error().message();
  const auto& m = std::get<PoseAnswer>(*model);
  EXPECT_EQ(m.tick, 1u);
  EXPECT_DOUBLE_EQ(m.server_time, 0.1);
  EXPECT_EQ(m.root.translation, glm::vec3(10.0f, 0.0f, 0.0f));
  ASSERT_EQ(m.joints.size(), 2u);  // names first, then indices
  EXPECT_EQ(m.joints[0].index, static_cast<uint32_t>(hand));
  EXPECT_EQ(m.joints[1].index, 0u);
  EXPECT_EQ(m.palette.size(), static_cast<size_t>(a.skeleton.num_joints()));
  EXPECT_EQ(m.asset->name, "builtin");

  // World space: the same matrices, moved by the root's translation.
  q.space = PoseSpace::kWorld;
  auto world = run(1, 0, q, 2);
  ASSERT_TRUE(world);
  const auto& w = std::get<PoseAnswer>(*world);
  for (size_t j = 0; j < 2; ++j) {
    EXPECT_FLOAT_EQ(w.joints[j].matrix.m[3], m.joints[j].matrix.m[3] + 10.0f);
    EXPECT_FLOAT_EQ(w.joints[j].matrix.m[7], m.joints[j].matrix.m[7]);
    EXPECT_FLOAT_EQ(w.joints[j].matrix.m[0], m.joints[j].matrix.m[0]);
  }

  q.joint_names = {"tail_99"};
  auto bad = run(1, 0, q, 2);
  EXPECT_EQ(code(bad), anim::StatusCode::kNotFound);
  EXPECT_EQ(bad.error().message(),
            "query_pose.joint_names: unknown joint 'tail_99' in asset 'builtin'");
  q.joint_names.clear();
  q.tick = 5;
  auto future = run(1, 0, q, 2);
  EXPECT_EQ(code(future), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(future.error().message(), "query_pose.tick 5 is in the future; available ticks 1..1");
}

TEST_F(WorldTest, RootMotionMovesTheStreamedAndQueriedRootAndSetRootWins) {
  ASSERT_TRUE(world_->add_asset(moving_asset()));
  SpawnCharacter s;
  s.asset = "strider";
  s.clip = "stride";
  s.root.translation = {10, 0, 0};
  auto spawned = run(1, 0, s, 1);
  ASSERT_TRUE(spawned);
  const uint32_t id = std::get<Spawned>(*spawned).character_id;
  // Bad requests change nothing (the character stays in place below until it is switched on).
  auto bad_joint = run(1, 0, SetRootMotion{id, anim::RootMotionMode::kExtract, "tail", false}, 1);
  EXPECT_EQ(code(bad_joint), anim::StatusCode::kNotFound);
  EXPECT_EQ(bad_joint.error().message(),
            "set_root_motion.joint: unknown joint 'tail' in asset 'strider'");
  auto bad_id = run(1, 0, SetRootMotion{id + 7, anim::RootMotionMode::kExtract, "", false}, 1);
  EXPECT_EQ(code(bad_id), anim::StatusCode::kNotFound);
  EXPECT_EQ(bad_id.error().message(),
            "set_root_motion.character_id: unknown character " + std::to_string(id + 7));
  EXPECT_EQ(code(run(2, 0, SetRootMotion{id, anim::RootMotionMode::kExtract, "", false}, 1)),
            anim::StatusCode::kPermissionDenied);  // another connection's character
  SnapshotPtr snap = world_->update(0.1f, 1, 0.1, false);
  EXPECT_EQ(snap->find(id)->root.translation, glm::vec3(10, 0, 0));

  ASSERT_TRUE(run(1, 0, SetRootMotion{id, anim::RootMotionMode::kExtract, "", false}, 2));
  for (uint64_t tick = 2; tick <= 6; ++tick) snap = world_->update(0.1f, tick, 0.1 * tick, false);
  // Five updates of 0.1 s at 1.5 per second, in the snapshot (what the stream sends).
  const glm::vec3 at6 = snap->find(id)->root.translation;
  EXPECT_NEAR(at6.z, 0.75f, 1e-5f);
  EXPECT_EQ(at6.x, 10.0f);
  // The history has each tick's root, and world-space joints follow it.
  QueryPose q;
  q.character = id;
  q.tick = 4;
  q.joint_indices = {0};
  q.space = PoseSpace::kWorld;
  auto past = run(1, 0, q, 7);
  ASSERT_TRUE(past) << past.error().message();
  const auto& p = std::get<PoseAnswer>(*past);
  EXPECT_NEAR(p.root.translation.z, 0.45f, 1e-5f);
  // The root joint is pinned at its rest spot: in the world it is where the root is.
  EXPECT_NEAR(p.joints[0].matrix.m[11], p.root.translation.z, 1e-5f);
  EXPECT_NEAR(p.joints[0].matrix.m[3], 10.0f, 1e-5f);

  // set_root at tick 7 wins that tick; tick 8 moves on from it.
  anim::Transform placed;
  placed.translation = {-3, 0, 4};
  ASSERT_TRUE(run(1, 0, SetRootTransform{id, placed}, 7));
  snap = world_->update(0.1f, 7, 0.7, false);
  EXPECT_EQ(snap->find(id)->root.translation, placed.translation);
  snap = world_->update(0.1f, 8, 0.8, false);
  EXPECT_NEAR(snap->find(id)->root.translation.z, 4.15f, 1e-5f);
  // Off: the root stays, the travel is back in the pose.
  ASSERT_TRUE(run(1, 0, SetRootMotion{id, anim::RootMotionMode::kOff, "", false}, 9));
  const glm::vec3 held = snap->find(id)->root.translation;
  snap = world_->update(0.1f, 9, 0.9, false);
  EXPECT_EQ(snap->find(id)->root.translation, held);
}

TEST_F(WorldTest, ClipEventsReachEveryCharacterOfTheAssetAndTheSnapshot) {
  SpawnCharacter s;
  s.asset = "builtin";
  s.clip = "walk";  // 1 s
  s.shared = true;
  const uint32_t before = std::get<Spawned>(*run(1, 0, s, 1)).character_id;
  auto walk_events = [](std::vector<anim::ClipEvent> events, bool replace = false) {
    return AddClipEvents{"builtin", "walk", std::move(events), replace};
  };
  // Refused, naming the problem, and nothing changes (no event fires below from these).
  auto bad_asset = run(1, 0, AddClipEvents{"nobody", "walk", {{"x", 0.1f, ""}}, false}, 1);
  EXPECT_EQ(code(bad_asset), anim::StatusCode::kNotFound);
  EXPECT_EQ(bad_asset.error().message(), "add_clip_events.asset: unknown asset 'nobody'");
  auto bad_clip = run(1, 0, AddClipEvents{"builtin", "moonwalk", {{"x", 0.1f, ""}}, false}, 1);
  EXPECT_EQ(code(bad_clip), anim::StatusCode::kNotFound);
  EXPECT_EQ(bad_clip.error().message(),
            "add_clip_events.clip: unknown clip 'moonwalk' in asset 'builtin'");
  auto late = run(1, 0, walk_events({{"ok", 0.1f, ""}, {"late", 5.0f, ""}}), 1);
  EXPECT_EQ(code(late), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(late.error().message(),
            "add_clip_events.events[1].time 5.000000 is outside [0, 1.000000] of clip 'walk'");

  auto added = run(1, 0, walk_events({{"step_r", 0.75f, "r"}, {"step_l", 0.25f, "l"}}), 1);
  ASSERT_TRUE(added) << added.error().message();
  const auto& listed = std::get<ClipEventsAnswer>(*added).events;
  ASSERT_EQ(listed.size(), 2u);  // by time
  EXPECT_EQ(listed[0].name, "step_l");
  EXPECT_EQ(listed[1].name, "step_r");
  const uint32_t after = std::get<Spawned>(*run(1, 0, s, 1)).character_id;  // gets them too

  // Ten updates of 0.1 s: each character crosses step_l at 0.25 s and step_r at 0.75 s.
  std::map<uint32_t, std::vector<std::string>> seen;
  for (uint64_t tick = 1; tick <= 10; ++tick) {
    const SnapshotPtr snap = world_->update(0.1f, tick, 0.1 * tick, false);
    for (const SnapshotCharacter& c : snap->characters)
      for (uint32_t k = 0; k < c.events_count; ++k) {
        const anim::FiredEvent& f = snap->events[c.events_begin + k];
        seen[c.id].push_back(std::to_string(tick) + ":" +
                             c.event_table->clips[static_cast<size_t>(f.clip)][f.event].name);
      }
  }
  const std::vector<std::string> want{"3:step_l", "8:step_r"};
  EXPECT_EQ(seen[before], want);
  EXPECT_EQ(seen[after], want);
  EXPECT_EQ(metrics_.events_fired.load(), 4u);
  EXPECT_EQ(std::get<StatsAnswer>(*run(1, 0, GetStats{}, 11)).events_fired, 4u);

  // replace clears them (an empty list); the reply lists what is left.
  auto cleared = run(1, 0, walk_events({}, true), 11);
  ASSERT_TRUE(cleared);
  EXPECT_TRUE(std::get<ClipEventsAnswer>(*cleared).events.empty());
  for (uint64_t tick = 11; tick <= 22; ++tick) world_->update(0.1f, tick, 0.1 * tick, false);
  EXPECT_EQ(metrics_.events_fired.load(), 4u);
  // The limit per clip.
  std::vector<anim::ClipEvent> many(anim::kMaxEventsPerClip, anim::ClipEvent{"e", 0.5f, ""});
  ASSERT_TRUE(run(1, 0, walk_events(many), 23));
  EXPECT_EQ(code(run(1, 0, walk_events({{"one_more", 0.5f, ""}}), 23)),
            anim::StatusCode::kResourceExhausted);
}

TEST_F(WorldTest, BlendSpacesAreDefinedPerAssetAndPlayedByName) {
  auto define = [&](std::string name, std::vector<std::string> axes,
                    std::vector<std::pair<std::string, glm::vec2>> samples,
                    std::string asset = "builtin") {
    return run(1, 0, DefineBlendSpace{asset, name, axes, samples}, 1);
  };
  const std::vector<std::pair<std::string, glm::vec2>> move{
      {"idle", {0, 0}}, {"walk", {1.4f, 0}}, {"run", {4, 0}}};
  // Refusals name the field and change nothing.
  auto bad_asset = define("move", {"speed"}, move, "nobody");
  EXPECT_EQ(code(bad_asset), anim::StatusCode::kNotFound);
  EXPECT_EQ(bad_asset.error().message(), "define_blend_space.asset: unknown asset 'nobody'");
  auto bad_clip = define("move", {"speed"}, {{"idle", {0, 0}}, {"moonwalk", {1, 0}}});
  EXPECT_EQ(code(bad_clip), anim::StatusCode::kNotFound);
  EXPECT_EQ(bad_clip.error().message(),
            "define_blend_space.samples[1].clip: unknown clip 'moonwalk' in asset 'builtin'");
  auto clash = define("walk", {"speed"}, move);
  EXPECT_EQ(code(clash), anim::StatusCode::kFailedPrecondition);
  auto line = define("line", {"x", "y"}, {{"idle", {0, 0}}, {"walk", {1, 1}}, {"run", {2, 2}}});
  EXPECT_EQ(code(line), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      line.error().message().rfind("define_blend_space.samples: all points are on one line", 0), 0u)
      << line.error().message();
  const uint32_t id = spawn(1, 0, false, 1);
  PlayClip p{id, "move", true, 1.0f, 0.0f};
  EXPECT_EQ(code(run(1, 0, p, 1)), anim::StatusCode::kNotFound);  // not defined yet

  auto defined = define("move", {"speed"}, move);
  ASSERT_TRUE(defined) << defined.error().message();
  EXPECT_EQ(std::get<BlendSpaceDefined>(*defined).triangles, 0u);
  EXPECT_EQ(code(define("move", {"speed"}, move)), anim::StatusCode::kFailedPrecondition);
  auto dir = define("dir", {"x", "speed"},
                    {{"idle", {0, 0}}, {"walk", {-1, 1.4f}}, {"run", {1, 1.4f}}, {"walk", {0, 3}}});
  ASSERT_TRUE(dir) << dir.error().message();
  EXPECT_EQ(std::get<BlendSpaceDefined>(*dir).triangles, 2u);

  // A character on the space at walk's point, and one playing walk: the same palettes, tick
  // by tick (one spawned before the definitions, one after).
  ASSERT_TRUE(run(1, 0, SetParameter{id, "speed", 1.4f, 0.0f}, 1));
  ASSERT_TRUE(run(1, 0, p, 1));
  const uint32_t walker = spawn(1, 0, false, 1);
  const uint32_t later = spawn(1, 0, false, 1);
  ASSERT_TRUE(run(1, 0, SetParameter{later, "speed", 1.4f, 0.0f}, 1));
  ASSERT_TRUE(run(1, 0, PlayClip{later, "move", true, 1.0f, 0.0f}, 1));
  for (uint64_t tick = 1; tick <= 5; ++tick) {
    const SnapshotPtr snap = world_->update(0.1f, tick, 0.1 * tick, false);
    auto palette = [&](uint32_t c) {
      const SnapshotCharacter* sc = snap->find(c);
      return std::vector<anim::PaletteMatrix>(
          snap->palettes.begin() + static_cast<std::ptrdiff_t>(sc->palette_offset),
          snap->palettes.begin() +
              static_cast<std::ptrdiff_t>(sc->palette_offset + sc->num_joints));
    };
    EXPECT_EQ(std::memcmp(palette(id).data(), palette(walker).data(),
                          palette(id).size() * sizeof(anim::PaletteMatrix)),
              0)
        << tick;
    EXPECT_EQ(std::memcmp(palette(later).data(), palette(walker).data(),
                          palette(id).size() * sizeof(anim::PaletteMatrix)),
              0)
        << tick;
  }
  // Crossfades in and out by name; parameters are checked and owned.
  EXPECT_TRUE(run(1, 0, CrossfadeClip{id, "dir", 0.3f, true, 1.0f, true}, 6));
  EXPECT_TRUE(run(1, 0, CrossfadeClip{id, "run", 0.3f, true, 1.0f, true}, 6));
  EXPECT_EQ(code(run(2, 0, SetParameter{id, "speed", 1.0f, 0.0f}, 6)),
            anim::StatusCode::kPermissionDenied);
  auto unknown = run(1, 0, SetParameter{id + 100, "speed", 1.0f, 0.0f}, 6);
  EXPECT_EQ(code(unknown), anim::StatusCode::kNotFound);
  EXPECT_EQ(unknown.error().message().rfind("set_parameter.character_id", 0), 0u);
}

TEST_F(WorldTest, ApplyRepliesInCommandOrderOnTheWire) {
  auto command = [&](uint64_t seq, uint64_t request_id, WorldRequest r) {
    Command c;
    c.session_id = 1;
    c.seq = seq;
    c.request_id = request_id;
    c.sink = sink_;
    c.request = std::move(r);
    return c;
  };
  std::vector<Command> batch;
  batch.push_back(command(0, 100, SpawnCharacter{"builtin", "walk", {}, false}));
  batch.push_back(command(1, 101, PlayClip{4242, "idle"}));
  batch.push_back(command(2, 102, ListCharacters{}));
  world_->apply(batch, 7, 0.7);
  ASSERT_EQ(sink_->replies.size(), 3u);
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(sink_->replies[i].seq, i);
    EXPECT_EQ(sink_->replies[i].reply.request_id(), 100 + i);
    EXPECT_EQ(sink_->replies[i].reply.tick(), 7u);
    EXPECT_EQ(sink_->replies[i].drawn, 0u);  // no outbound budget given
  }
  const auto& spawned = sink_->replies[0].reply;
  EXPECT_EQ(spawned.status().code(), anim::v1::STATUS_OK);
  EXPECT_EQ(spawned.spawn().character_id(), 1u);
  EXPECT_EQ(spawned.spawn().tick(), 7u);
  const auto& refused = sink_->replies[1].reply;
  EXPECT_EQ(refused.status().code(), anim::v1::STATUS_NOT_FOUND);
  EXPECT_EQ(refused.status().message(), "play.character_id: unknown character 4242");
  EXPECT_EQ(refused.result_case(), anim::v1::Reply::RESULT_NOT_SET);
  const auto& list = sink_->replies[2].reply.list_characters();
  ASSERT_EQ(list.characters_size(), 1);
  EXPECT_EQ(list.characters(0).asset(), "builtin");
  EXPECT_EQ(list.characters(0).clip(), "walk");
  EXPECT_EQ(list.characters(0).root().rotation().w(), 1.0f);
}

TEST_F(WorldTest, LargeRepliesDrawFourTimesTheirWireSizeOnTheOutboundBudget) {
  auto pose_query = [&](uint64_t tick) {
    std::vector<Command> batch(1);
    batch[0].session_id = 1;
    batch[0].request_id = 9;
    batch[0].sink = sink_;
    batch[0].request = QueryPose{1, std::nullopt, {}, {}, PoseSpace::kModel};
    world_->apply(batch, tick, 0.0);
    return sink_->replies.back();
  };
  ByteBudget roomy(1 << 20), tight(2048);  // outlive the worlds using them
  {
    // Room for it: the reply (every joint of the built-in character: well above the 1 KiB
    // that is never charged) draws 4 x (its size + the 4-byte frame header).
    make_world(&roomy);
    spawn(1, 0, false, 1);
    world_->update(0.1f, 1, 0.1, false);
    const auto d = pose_query(2);
    ASSERT_EQ(d.reply.status().code(), anim::v1::STATUS_OK);
    const size_t wire = d.reply.ByteSizeLong() + 4;
    EXPECT_GT(wire, 1024u);
    EXPECT_EQ(d.drawn, 4 * wire);
    EXPECT_EQ(roomy.used(), 4 * wire);  // until the session gives it back
    roomy.release(d.drawn);
  }
  {
    // No room: RESOURCE_EXHAUSTED instead, holding nothing.
    make_world(&tight);
    spawn(1, 0, false, 1);
    world_->update(0.1f, 1, 0.1, false);
    const auto d = pose_query(2);
    EXPECT_EQ(d.reply.status().code(), anim::v1::STATUS_RESOURCE_EXHAUSTED);
    EXPECT_EQ(d.reply.status().message(),
              "the daemon's outbound budget is spent (--max-stream-bytes-total; clients are not "
              "reading what was sent to them): retry later");
    EXPECT_EQ(d.reply.request_id(), 9u);
    EXPECT_EQ(d.reply.tick(), 2u);
    EXPECT_EQ(d.reply.result_case(), anim::v1::Reply::RESULT_NOT_SET);
    EXPECT_EQ(d.drawn, 0u);
    EXPECT_EQ(tight.used(), 0u);
  }
}

}  // namespace world_test
}  // namespace animd

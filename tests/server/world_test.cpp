// World, driven by commands as the tick thread does, with ticks chosen by the test: who may
// drive a character, when orphaned characters go (counted in ticks, so no sleeping), and the
// daemon-wide IK budget's iteration scale.
#include "world.h"

#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "anim/builtin_character.h"

namespace animd {
namespace {

using anim::v1::Request;

class RecordingSink : public ReplySink {
 public:
  void deliver(uint64_t, anim::v1::Reply reply) override { replies.push_back(std::move(reply)); }
  std::vector<anim::v1::Reply> replies;
};

class WorldTest : public ::testing::Test {
 protected:
  WorldTest() {
    config_.tick_rate = 10.0;  // grace of 1 s = 10 ticks
    config_.orphan_grace_s = 1.0;
    config_.ik_budget = 100;
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  }

  // Applies one request from `session` (acting as `owner`: a token's key, 0 without tokens)
  // at `tick` and returns its reply.
  anim::v1::Reply run(uint64_t session, uint64_t owner, Request r, uint64_t tick) {
    std::vector<Command> batch(1);
    batch[0].session_id = session;
    batch[0].owner = owner;
    batch[0].sink = sink_;
    batch[0].request = std::move(r);
    const size_t before = sink_->replies.size();
    world_->apply(batch, tick, double(tick) / config_.tick_rate);
    EXPECT_EQ(sink_->replies.size(), before + 1);
    return sink_->replies.back();
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
    Request r;
    r.mutable_spawn()->set_asset("builtin");
    r.mutable_spawn()->set_clip("walk");
    r.mutable_spawn()->set_shared(shared);
    const auto reply = run(session, owner, r, tick);
    EXPECT_EQ(reply.status().code(), anim::v1::STATUS_OK) << reply.status().message();
    return reply.spawn().character_id();
  }
  anim::v1::StatusCode play(uint64_t session, uint64_t owner, uint32_t id, uint64_t tick) {
    Request r;
    r.mutable_play()->set_character_id(id);
    r.mutable_play()->set_clip("idle");
    return run(session, owner, r, tick).status().code();
  }
  std::set<uint32_t> ids(uint64_t tick) {
    Request r;
    r.mutable_list_characters();
    const auto reply = run(999, 0, r, tick);
    std::set<uint32_t> out;
    for (const auto& c : reply.list_characters().characters()) out.insert(c.character_id());
    return out;
  }
  Request ik_goal(uint32_t id, uint32_t iterations) {
    Request r;
    auto* g = r.mutable_set_ik_goal();
    g->set_character_id(id);
    g->set_root_joint("shoulder_r");
    g->set_effector_joint("hand_r");  // 4 joints: shoulder, upper arm, forearm, hand
    g->set_solver(anim::v1::IK_SOLVER_CCD);
    g->set_space(anim::v1::SPACE_MODEL);
    g->set_max_iterations(iterations);
    g->mutable_target()->set_x(-0.5f);
    g->mutable_target()->set_y(1.3f);
    g->mutable_target()->set_z(0.3f);
    return r;
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{1};
  std::unique_ptr<World> world_;
  std::shared_ptr<RecordingSink> sink_ = std::make_shared<RecordingSink>();
};

TEST_F(WorldTest, OnlyTheOwnerDrivesAnOwnedCharacter) {
  const uint32_t owned = spawn(1, 0, false, 1);
  const uint32_t shared = spawn(1, 0, true, 1);
  EXPECT_EQ(play(2, 0, owned, 2), anim::v1::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(play(1, 0, owned, 2), anim::v1::STATUS_OK);
  EXPECT_EQ(play(2, 0, shared, 2), anim::v1::STATUS_OK);
  // With tokens the owner is the token, whichever connection carries it.
  const uint64_t k1 = 0x1234, k2 = 0x5678;
  const uint32_t token_owned = spawn(3, k1, false, 3);
  EXPECT_EQ(play(4, k1, token_owned, 3), anim::v1::STATUS_OK);
  EXPECT_EQ(play(5, k2, token_owned, 3), anim::v1::STATUS_PERMISSION_DENIED);
  Request despawn;
  despawn.mutable_despawn()->set_character_id(token_owned);
  EXPECT_EQ(run(5, k2, despawn, 3).status().code(), anim::v1::STATUS_PERMISSION_DENIED);
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
  EXPECT_EQ(play(2, k, id, 10), anim::v1::STATUS_OK);  // session 2, same token
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
  late[0].sink = sink_;
  auto asset = std::make_shared<anim::Asset>(anim::make_builtin_character());
  asset->name = "late";
  late[0].asset = asset;
  world_->apply(late, 6, 0.0);
  ASSERT_EQ(sink_->replies.back().status().code(), anim::v1::STATUS_OK);
  idle_tick(15);
  EXPECT_FALSE(ids(15).count(id)) << "the owner's characters outlived the grace";
}

TEST_F(WorldTest, IkBudgetScalesIterationsAcrossTheDaemon) {
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 1.0f);
  const uint32_t a = spawn(1, 0, false, 1);
  const uint32_t b = spawn(1, 0, false, 1);
  // 25 iterations x 4 joints = 100: exactly the budget.
  auto r = run(1, 0, ik_goal(a, 25), 2);
  ASSERT_EQ(r.status().code(), anim::v1::STATUS_OK) << r.status().message();
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 1.0f);
  // 1000 x 4 more: 4,100 asked, 100 allowed.
  r = run(1, 0, ik_goal(b, 1000), 3);
  ASSERT_EQ(r.status().code(), anim::v1::STATUS_OK) << r.status().message();
  const uint32_t goal_b = r.set_ik_goal().goal_id();
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 100.0f / 4100.0f);
  // Poses stay finite with the scaled-down iterations.
  auto snap = world_->update(0.1f, 4, 0.4, false);
  for (const auto& m : snap->palettes)
    for (float v : m.m) ASSERT_TRUE(std::isfinite(v));
  // Clearing the big goal restores the full iterations.
  Request clear;
  clear.mutable_clear_ik_goal()->set_character_id(b);
  clear.mutable_clear_ik_goal()->set_goal_id(goal_b);
  ASSERT_EQ(run(1, 0, clear, 5).status().code(), anim::v1::STATUS_OK);
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 1.0f);
  // And a despawn does the same.
  ASSERT_EQ(run(1, 0, ik_goal(b, 1000), 6).status().code(), anim::v1::STATUS_OK);
  EXPECT_LT(metrics_.ik_scale.load(), 1.0f);
  Request despawn;
  despawn.mutable_despawn()->set_character_id(b);
  ASSERT_EQ(run(1, 0, despawn, 7).status().code(), anim::v1::STATUS_OK);
  EXPECT_FLOAT_EQ(metrics_.ik_scale.load(), 1.0f);
  // Above 1000 iterations is refused outright.
  r = run(1, 0, ik_goal(a, 1001), 8);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
}

TEST_F(WorldTest, UnloadAssetRefusedWhileUsed) {
  const uint32_t id = spawn(1, 0, true, 1);
  Request unload;
  unload.mutable_unload_asset()->set_asset("builtin");
  auto r = run(1, 0, unload, 2);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(catalog_.get()->size(), 1u);
  Request despawn;
  despawn.mutable_despawn()->set_character_id(id);
  ASSERT_EQ(run(1, 0, despawn, 3).status().code(), anim::v1::STATUS_OK);
  EXPECT_EQ(run(1, 0, unload, 4).status().code(), anim::v1::STATUS_OK);
  EXPECT_EQ(catalog_.get()->size(), 0u);
  EXPECT_EQ(metrics_.assets.load(), 0u);
}

}  // namespace
}  // namespace animd

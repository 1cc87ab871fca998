// Subscription cameras in the World (docs/animation.md, "Update rates"): under a budget a
// character in front of a subscription's camera and near it keeps every tick while one behind
// it is slowed, with the significances the rules give (lod/significance.h); the camera follows
// update_subscription (turned, cleared, kept by a region move, all or none when refused) and
// goes with its subscription. The budget is made tiny (the allocator then takes its highest
// pressure), so no timing decides anything.
#include <memory>
#include <numbers>
#include <optional>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"
#include "world/world.h"

namespace animd {
namespace world_camera_test {

constexpr float kDt = 0.1f;
constexpr uint64_t kViewer = 2;  // the session holding the subscriptions

class WorldCameraTest : public ::testing::Test {
 protected:
  WorldCameraTest() {
    config_.tick_rate = 10.0;
    config_.anim_budget_ms = 1e-9;  // nothing fits: the highest pressure
    config_.max_update_interval = 4;
    world_ = std::make_unique<World>(config_, metrics_, catalog_, pool_);
    EXPECT_TRUE(world_->add_asset(std::make_shared<anim::Asset>(anim::make_builtin_character())));
  }

  anim::Expected<WorldResult> run(const WorldRequest& r, uint64_t session = 1) {
    return world_->execute(r, Caller{session, 0}, tick_, double(tick_) * kDt);
  }
  uint32_t spawn_at(glm::vec3 at) {
    SpawnCharacter r;
    r.asset = "builtin";
    r.clip = "walk";
    auto s = run(r);
    EXPECT_TRUE(s) << s.error().message();
    const uint32_t id = s ? std::get<Spawned>(*s).character_id : 0;
    SetRootTransform move;
    move.character = id;
    move.root.translation = at;
    EXPECT_TRUE(run(move));
    return id;
  }
  // Runs `n` ticks: what the last one computed is what list_characters reports.
  void ticks(int n) {
    for (int k = 0; k < n; ++k, ++tick_) world_->update(kDt, tick_, double(tick_) * kDt, false);
  }
  CharacterEntry entry(uint32_t id) {
    auto list = run(ListCharacters{});
    for (const auto& c : std::get<CharacterList>(*list).characters)
      if (c.character_id == id) return c;
    ADD_FAILURE() << "no character " << id;
    return {};
  }
  // At the origin, 90 degrees square, looking along `forward`.
  static ViewCamera camera(glm::vec3 forward) {
    ViewCamera c;
    c.forward = forward;
    c.vertical_fov = std::numbers::pi_v<float> / 2;
    c.aspect = 1.0f;
    return c;
  }
  static UpdateSubscription change(uint32_t id) {
    UpdateSubscription u;
    u.subscription_id = id;
    return u;
  }

  Config config_;
  Metrics metrics_;
  AssetCatalog catalog_;
  WorkerPool pool_{2};
  std::unique_ptr<World> world_;
  uint64_t tick_ = 1;
};

TEST_F(WorldCameraTest, InFrontOfTheCameraEveryTickBehindItSlowed) {
  const uint32_t watched = spawn_at({500, 0, 0});
  const uint32_t front = spawn_at({0, 0, -10});  // on screen, 10 m away
  const uint32_t behind = spawn_at({0, 0, 15});  // off screen, 15 m away
  const uint32_t far = spawn_at({0, 0, -80});    // on screen, 80 m away
  Subscribe sub;  // by id: the camera adds to what the subscription streams
  sub.character_ids = {watched};
  sub.subscription_id = 1;
  sub.camera = camera({0, 0, -1});
  ASSERT_TRUE(run(sub, kViewer));
  ticks(12);
  EXPECT_EQ(entry(watched).significance, 1.0f);
  EXPECT_EQ(entry(front).significance, 1.0f);
  EXPECT_EQ(entry(front).update_interval, 1u);
  EXPECT_FLOAT_EQ(entry(behind).significance, 0.5f / (1.0f + 15.0f / 10.0f));
  EXPECT_EQ(entry(behind).update_interval, 4u);
  EXPECT_FLOAT_EQ(entry(far).significance, 20.0f / 80.0f);
  EXPECT_EQ(entry(far).update_interval, 4u);

  // Turned around (the camera alone; a by-id subscription has no region to resend).
  UpdateSubscription turn = change(1);
  turn.camera = camera({0, 0, 1});
  ASSERT_TRUE(run(turn, kViewer));
  ticks(6);
  EXPECT_EQ(entry(behind).significance, 1.0f);
  EXPECT_EQ(entry(behind).update_interval, 1u);
  EXPECT_FLOAT_EQ(entry(front).significance, 0.5f / (1.0f + 10.0f / 10.0f));
  EXPECT_EQ(entry(front).update_interval, 4u);

  // Cleared: nothing sees them.
  UpdateSubscription clear = change(1);
  clear.clear_camera = true;
  ASSERT_TRUE(run(clear, kViewer));
  ticks(6);
  for (uint32_t id : {front, behind, far}) {
    EXPECT_EQ(entry(id).significance, 0.0f) << id;
    EXPECT_EQ(entry(id).update_interval, 4u) << id;
  }
  EXPECT_EQ(entry(watched).update_interval, 1u);
}

TEST_F(WorldCameraTest, ARegionMoveKeepsTheCameraAndACameraMoveKeepsTheRegion) {
  const uint32_t front = spawn_at({0, 0, -10});
  const uint32_t member = spawn_at({1000, 0, 0});  // in the region, behind the camera
  Subscribe sub;
  sub.subscription_id = 1;
  sub.region = StreamRegion{};
  sub.region->center = {1000, 0, 0};
  sub.region->radius = 5.0f;
  sub.camera = camera({0, 0, -1});
  ASSERT_TRUE(run(sub, kViewer));
  ticks(6);
  EXPECT_EQ(entry(front).update_interval, 1u);
  EXPECT_EQ(entry(member).update_interval, 1u);

  UpdateSubscription move = change(1);  // the region alone: the camera stays
  move.region = sub.region;
  move.region->center = {1000, 0, 3};
  ASSERT_TRUE(run(move, kViewer));
  ticks(6);
  EXPECT_EQ(entry(front).significance, 1.0f);
  EXPECT_EQ(entry(member).significance, 1.0f);

  UpdateSubscription turn = change(1);  // the camera alone: the region stays
  turn.camera = camera({0, 0, 1});
  ASSERT_TRUE(run(turn, kViewer));
  ticks(6);
  EXPECT_FLOAT_EQ(entry(front).significance, 0.25f);
  EXPECT_EQ(entry(member).significance, 1.0f);
  EXPECT_EQ(entry(member).update_interval, 1u);
}

TEST_F(WorldCameraTest, ARefusedUpdateChangesNothingAndTheCameraGoesWithItsSubscription) {
  const uint32_t front = spawn_at({0, 0, -10});
  Subscribe sub;  // every character: significance 1 for all of them, the camera adds nothing
  sub.all_characters = true;
  sub.subscription_id = 1;
  ASSERT_TRUE(run(sub, kViewer));
  Subscribe ids;
  ids.character_ids = {front};
  ids.subscription_id = 2;
  ids.camera = camera({0, 0, -1});
  ASSERT_TRUE(run(ids, kViewer));
  ASSERT_TRUE(run(Unsubscribe{1}, kViewer));
  ASSERT_TRUE(run(Unsubscribe{2}, kViewer));  // the named one goes, and its camera
  const uint32_t other = spawn_at({0, 0, -12});
  ticks(6);
  EXPECT_EQ(entry(front).significance, 0.0f);
  EXPECT_EQ(entry(other).significance, 0.0f);

  Subscribe again;
  again.character_ids = {front};
  again.subscription_id = 3;
  again.camera = camera({0, 0, -1});
  ASSERT_TRUE(run(again, kViewer));
  ticks(6);
  EXPECT_EQ(entry(other).significance, 1.0f);
  // A region for a by-id subscription: refused, and its camera with it.
  UpdateSubscription bad = change(3);
  bad.region = StreamRegion{};
  bad.region->radius = 1.0f;
  bad.camera = camera({0, 0, 1});
  auto refused = run(bad, kViewer);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.error().message().find("not a region"), std::string::npos);
  // Another connection cannot turn it.
  UpdateSubscription foreign = change(3);
  foreign.camera = camera({0, 0, 1});
  EXPECT_FALSE(run(foreign, 1));
  ticks(6);
  EXPECT_EQ(entry(other).significance, 1.0f) << "a refused update moved the camera";
  EXPECT_EQ(entry(other).update_interval, 1u);
}

}  // namespace world_camera_test
}  // namespace animd

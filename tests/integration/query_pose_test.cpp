// query_pose answers from the pose history: a past tick gives exactly the palette that was
// streamed for that tick; model and world space; out-of-range ticks name the range.
#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace query_pose_test {

using anim::v1::Request;

TEST(QueryPose, PastTickEqualsStreamedPalette) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto sp = client->spawn("builtin", "run");
  ASSERT_TRUE(sp) << sp.error().to_string();
  const uint32_t id = sp->character_id();

  // Placed at (1, 2, 3), turned 90 degrees about Y.
  Request root;
  root.mutable_set_root()->set_character_id(id);
  auto* t = root.mutable_set_root()->mutable_root();
  t->mutable_translation()->set_x(1.0f);
  t->mutable_translation()->set_y(2.0f);
  t->mutable_translation()->set_z(3.0f);
  t->mutable_rotation()->set_y(std::sqrt(0.5f));
  t->mutable_rotation()->set_w(std::sqrt(0.5f));
  const uint64_t root_tick = call_ok(*client, root).tick();

  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  auto frames = collect_frames(*client, s->subscription_id(), root_tick + 20);
  ASSERT_GE(frames.size(), 10u);

  // A tick a few frames back, after the root was placed.
  auto it = frames.rbegin();
  std::advance(it, 5);
  const uint64_t tick = it->first;
  ASSERT_GT(tick, root_tick);
  const auto& streamed = it->second.characters(0);

  Request q;
  q.mutable_query_pose()->set_character_id(id);
  q.mutable_query_pose()->set_tick(tick);
  q.mutable_query_pose()->add_joint_names("hand_l");
  q.mutable_query_pose()->add_joint_indices(0);
  q.mutable_query_pose()->set_space(anim::v1::SPACE_WORLD);
  auto world = call_ok(*client, q).query_pose();
  EXPECT_EQ(world.tick(), tick);
  EXPECT_DOUBLE_EQ(world.server_time(), it->second.server_time());
  ASSERT_EQ(world.palette_size(), streamed.palette_size());
  for (int k = 0; k < world.palette_size(); ++k)
    EXPECT_NEAR(world.palette(k), streamed.palette(k), 1e-6) << "element " << k;
  ASSERT_EQ(world.joints_size(), 2);
  EXPECT_EQ(world.joints(0).name(), "hand_l");
  EXPECT_EQ(world.joints(1).index(), 0u);
  EXPECT_NEAR(world.root().translation().x(), 1.0f, 1e-6);

  // The same joint in model space; world = root * model: with a 90-degree turn about Y,
  // world = (1 + m.z, 2 + m.y, 3 - m.x).
  q.mutable_query_pose()->set_space(anim::v1::SPACE_MODEL);
  auto model = call_ok(*client, q).query_pose();
  ASSERT_EQ(model.joints_size(), 2);
  const auto& m = model.joints(0).position();
  const auto& w = world.joints(0).position();
  EXPECT_NEAR(w.x(), 1.0f + m.z(), 1e-5);
  EXPECT_NEAR(w.y(), 2.0f + m.y(), 1e-5);
  EXPECT_NEAR(w.z(), 3.0f - m.x(), 1e-5);
  EXPECT_EQ(model.joints(0).matrix_size(), 12);
  EXPECT_FLOAT_EQ(model.joints(0).matrix(3), m.x());  // row-major: translation is column 3

  // Unset tick: the latest tick.
  Request latest;
  latest.mutable_query_pose()->set_character_id(id);
  auto l = call_ok(*client, latest).query_pose();
  EXPECT_GE(l.tick(), frames.rbegin()->first);
  EXPECT_EQ(l.joints_size(), 22);  // every joint of the built-in character
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(QueryPose, TicksOutsideHistoryNameTheRange) {
  DaemonProcess daemon({"--history-seconds", "0.25"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto sp = client->spawn("builtin", "idle");
  ASSERT_TRUE(sp);
  const uint32_t id = sp->character_id();

  Request q;
  q.mutable_query_pose()->set_character_id(id);
  q.mutable_query_pose()->set_tick(sp->tick() + 1000000);
  auto future = call(*client, q);
  EXPECT_EQ(future.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(future.status().message().find("future"), std::string::npos)
      << future.status().message();
  EXPECT_NE(future.status().message().find("available ticks"), std::string::npos);

  // Wait until the spawn tick has left the 15-tick history.
  while (current_tick(*client) < sp->tick() + 40) std::this_thread::sleep_for(20ms);
  q.mutable_query_pose()->set_tick(sp->tick());
  auto old = call(*client, q);
  EXPECT_EQ(old.status().code(), anim::v1::STATUS_NOT_FOUND);
  EXPECT_NE(old.status().message().find("available ticks"), std::string::npos)
      << old.status().message();

  q.mutable_query_pose()->clear_tick();
  q.mutable_query_pose()->add_joint_indices(999);
  auto bad_index = call(*client, q);
  EXPECT_EQ(bad_index.status().code(), anim::v1::STATUS_NOT_FOUND);
  EXPECT_NE(bad_index.status().message().find("999"), std::string::npos);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace query_pose_test
}  // namespace animtest

// query_pose answered from the immutable pose history on the network threads: a query for
// the present answers with the newest published tick (the reply's tick is that tick, not
// the next one the World would have applied it at); past ticks with layers, IK goals and
// crossfades running equal the streamed palettes exactly; many connections query while the
// tick runs and commands change the characters (the tsan preset runs this label).
#include <atomic>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace query_pose_history_test {

using anim::v1::Request;

Request query(uint32_t id, std::optional<uint64_t> tick = std::nullopt) {
  Request q;
  q.mutable_query_pose()->set_character_id(id);
  if (tick) q.mutable_query_pose()->set_tick(*tick);
  return q;
}

// Waits (bounded) until the character has a pose in the history.
bool wait_for_pose(animclient::Client& c, uint32_t id) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    if (call(c, query(id)).status().code() == anim::v1::STATUS_OK) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(QueryPoseHistory, ThePresentIsTheNewestPublishedTick) {
  // Two ticks a second: a query that went through the tick would be answered at the tick
  // after the newest published one.
  DaemonProcess daemon({"--tick-rate", "2"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto sp = client->spawn("builtin", "walk");
  ASSERT_TRUE(sp) << sp.error().to_string();
  ASSERT_TRUE(wait_for_pose(*client, sp->character_id()));
  for (int i = 0; i < 3; ++i) {
    auto present = call_ok(*client, query(sp->character_id()));
    EXPECT_EQ(present.tick(), present.query_pose().tick());
    // A past tick (the one before, when there is one) names the newest tick too.
    const uint64_t newest = present.tick();
    if (newest > sp->tick()) {
      auto past = call_ok(*client, query(sp->character_id(), newest - 1));
      EXPECT_EQ(past.query_pose().tick(), newest - 1);
      EXPECT_GE(past.tick(), newest);
    }
  }
  // A character whose first pose is not published yet gets the World's answer (ids are
  // handed out in order): a query sent right behind its spawn is not "unknown character".
  Request spawn;
  spawn.mutable_spawn()->set_asset("builtin");
  std::atomic<bool> spawned{false};
  client->call_async(spawn, [&](animclient::Result<anim::v1::Reply> r) {
    EXPECT_TRUE(r && r->status().code() == anim::v1::STATUS_OK);
    spawned = true;
  });
  auto early = call(*client, query(sp->character_id() + 1));
  if (early.status().code() != anim::v1::STATUS_OK) {
    EXPECT_NE(early.status().message().find("has no pose yet"), std::string::npos)
        << early.status().message();
  }
  while (!spawned) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(QueryPoseHistory, PastTicksWithLayersGoalsAndFadesEqualTheStreamExactly) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto sp = client->spawn("builtin", "walk");
  ASSERT_TRUE(sp) << sp.error().to_string();
  const uint32_t id = sp->character_id();
  anim::v1::AddLayerRequest layer;
  layer.set_character_id(id);
  layer.set_clip("lean");
  layer.set_weight(0.7f);
  ASSERT_TRUE(client->add_layer(layer));
  anim::v1::SetIkGoalRequest goal;
  goal.set_character_id(id);
  goal.set_root_joint("upper_arm_l");
  goal.set_effector_joint("hand_l");
  goal.set_solver(anim::v1::IK_SOLVER_FABRIK);
  goal.mutable_target()->set_x(0.3f);
  goal.mutable_target()->set_y(1.2f);
  goal.mutable_target()->set_z(0.2f);
  goal.set_weight(0.8f);
  ASSERT_TRUE(client->set_ik_goal(goal));
  ASSERT_TRUE(client->crossfade(id, "run", 0.5f));
  ASSERT_TRUE(client->set_speed(id, -0.7f));

  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  const uint64_t from = current_tick(*client);
  auto frames = collect_frames(*client, s->subscription_id(), from + 20);
  ASSERT_GE(frames.size(), 10u);
  const int compared = expect_history_matches_stream(*client, id, frames);
  EXPECT_GE(compared, 10);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(QueryPoseHistory, ManyConnectionsQueryWhileTheTickChangesTheCharacters) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto control = connect_client(daemon);
  ASSERT_TRUE(control);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 6; ++i) {
    auto sp = control->spawn("builtin", i % 2 ? "walk" : "idle");
    ASSERT_TRUE(sp) << sp.error().to_string();
    ids.push_back(sp->character_id());
  }
  ASSERT_TRUE(wait_for_pose(*control, ids.back()));
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, out_of_window{0}, other{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&, t] {
      auto c = connect_client(daemon);
      if (!c) return;
      uint64_t newest = 0;
      for (int i = 0; i < 150 && !stop; ++i) {
        const uint32_t id = ids[static_cast<size_t>(i + t) % ids.size()];
        auto r = call(*c, i % 3 == 0 || newest < 30 ? query(id) : query(id, newest - i % 30));
        if (r.status().code() == anim::v1::STATUS_OK) {
          newest = std::max(newest, r.tick());
          if (r.query_pose().palette_size() == 22 * 12)
            ++ok;
          else
            ++other;
        } else if (r.status().code() == anim::v1::STATUS_NOT_FOUND) {
          ++out_of_window;  // the window moved on
        } else {
          ++other;
        }
      }
    });
  // Meanwhile: commands that make new setups (layers, goals) and free old ones.
  for (int i = 0; i < 40; ++i) {
    const uint32_t id = ids[static_cast<size_t>(i) % ids.size()];
    anim::v1::AddLayerRequest layer;
    layer.set_character_id(id);
    layer.set_clip("wave");
    auto added = control->add_layer(layer);
    ASSERT_TRUE(added) << added.error().to_string();
    ASSERT_TRUE(control->crossfade(id, i % 2 ? "run" : "walk", 0.2f));
    ASSERT_TRUE(control->remove_layer(id, added->layer_id()));
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_GT(ok.load(), 100);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(QueryPoseHistory, AConnectionThatOnlyQueriesKeepsItsTokensCharacters) {
  // Orphaning counts the connections that act for a token; one that only sends query_pose
  // (answered without the tick) still counts.
  const std::string token = "query-owner-token-0123456789";
  const std::string watcher_token = "watcher-token-0123456789";
  DaemonProcess daemon(
      {"--control-token", token, "--observe-token", watcher_token, "--orphan-grace-seconds", "1"});
  ANIMD_START(daemon);
  auto a1 = connect_client(daemon, token);
  auto watcher = connect_client(daemon, watcher_token);
  ASSERT_TRUE(a1 && watcher);
  auto sp = a1->spawn("builtin", "walk");
  ASSERT_TRUE(sp) << sp.error().to_string();
  const uint32_t id = sp->character_id();
  ASSERT_TRUE(wait_for_pose(*watcher, id));
  auto a2 = connect_client(daemon, token);
  ASSERT_TRUE(a2);
  EXPECT_EQ(call(*a2, query(id)).status().code(), anim::v1::STATUS_OK);  // a2's only request
  a1.reset();
  // Three times the grace (in daemon ticks, 60 Hz): still there, a2 acts for the token.
  const uint64_t start = current_tick(*watcher);
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (current_tick(*watcher) < start + 3 * 60 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  auto list = watcher->list_characters();
  ASSERT_TRUE(list);
  ASSERT_EQ(list->characters_size(), 1) << daemon.log_tail();
  EXPECT_EQ(list->characters(0).character_id(), id);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace query_pose_history_test
}  // namespace animtest

// Character ownership on a real daemon: a character belongs to the connection (no tokens) or
// token that spawned it unless spawned shared; others may read it but not drive it. Owned
// characters are despawned after --orphan-grace-seconds once their owner has no connection,
// unless a connection with the same token comes back in time.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace ownership_test {

using anim::v1::Request;

const std::string kTokenA = "owner-a-token-0123456789";
const std::string kTokenB = "owner-b-token-0123456789";

uint32_t spawn(animclient::Client& c, bool shared) {
  anim::v1::SpawnRequest s;
  s.set_asset("builtin");
  s.set_clip("walk");
  s.set_shared(shared);
  auto r = c.spawn(s);
  EXPECT_TRUE(r) << r.error().to_string();
  return r ? r->character_id() : 0;
}

std::set<uint32_t> character_ids(animclient::Client& c) {
  std::set<uint32_t> ids;
  auto list = c.list_characters();
  EXPECT_TRUE(list) << list.error().to_string();
  if (list)
    for (const auto& ch : list->characters()) ids.insert(ch.character_id());
  return ids;
}

// Polls list_characters until `id` is gone (bounded). True when it went.
bool wait_gone(animclient::Client& c, uint32_t id) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!character_ids(c).count(id)) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

Request ik_goal(uint32_t id) {
  Request r;
  auto* g = r.mutable_set_ik_goal();
  g->set_character_id(id);
  g->set_root_joint("shoulder_r");
  g->set_effector_joint("hand_r");
  g->set_solver(anim::v1::IK_SOLVER_CCD);
  g->set_space(anim::v1::SPACE_MODEL);
  g->mutable_target()->set_x(-0.4f);
  g->mutable_target()->set_y(1.2f);
  g->mutable_target()->set_z(0.3f);
  return r;
}

void expect_denied(animclient::Client& c, Request r, uint32_t id) {
  auto reply = call(c, std::move(r));
  EXPECT_EQ(reply.status().code(), anim::v1::STATUS_PERMISSION_DENIED) << reply.status().message();
  EXPECT_NE(reply.status().message().find("belongs to another client"), std::string::npos)
      << reply.status().message();
  EXPECT_NE(reply.status().message().find(std::to_string(id)), std::string::npos)
      << reply.status().message();
}

TEST(Ownership, OthersReadButCannotDriveUnlessShared) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto a = connect_client(daemon);
  auto b = connect_client(daemon);
  ASSERT_TRUE(a && b);
  const uint32_t owned = spawn(*a, false);
  const uint32_t shared = spawn(*a, true);
  ASSERT_TRUE(owned && shared);

  Request play;
  play.mutable_play()->set_character_id(owned);
  play.mutable_play()->set_clip("idle");
  expect_denied(*b, play, owned);
  Request despawn;
  despawn.mutable_despawn()->set_character_id(owned);
  expect_denied(*b, despawn, owned);
  expect_denied(*b, ik_goal(owned), owned);
  Request speed;
  speed.mutable_set_speed()->set_character_id(owned);
  speed.mutable_set_speed()->set_speed(2.0f);
  expect_denied(*b, speed, owned);

  // Reading is for everyone: query_pose (once it has a pose) and subscribe.
  anim::v1::QueryPoseRequest q;
  q.set_character_id(owned);
  bool posed = false;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!posed && std::chrono::steady_clock::now() < deadline) {
    auto p = b->query_pose(q);
    posed = p.ok();
    if (!posed) {
      ASSERT_EQ(p.error().code, anim::v1::STATUS_NOT_FOUND) << p.error().to_string();
      std::this_thread::sleep_for(20ms);
    }
  }
  EXPECT_TRUE(posed);
  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(owned);
  auto s = b->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  const uint64_t until = current_tick(*b) + 2;
  auto frames = collect_frames(*b, s->subscription_id(), until);
  ASSERT_FALSE(frames.empty());
  ASSERT_EQ(frames.rbegin()->second.characters_size(), 1);
  EXPECT_EQ(frames.rbegin()->second.characters(0).character_id(), owned);

  // The owner still drives it; nothing B did changed it.
  EXPECT_TRUE(a->play(owned, "idle"));
  EXPECT_TRUE(character_ids(*a).count(owned));

  // A shared character can be driven (and despawned) by B.
  EXPECT_TRUE(b->play(shared, "idle"));
  auto ik = call(*b, ik_goal(shared));
  EXPECT_EQ(ik.status().code(), anim::v1::STATUS_OK) << ik.status().message();
  EXPECT_TRUE(b->despawn(shared));
  EXPECT_FALSE(character_ids(*a).count(shared));
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Ownership, OwnedCharactersOfAClosedConnectionGoAfterTheGrace) {
  DaemonProcess daemon({"--orphan-grace-seconds", "1"});
  ANIMD_START(daemon);
  auto b = connect_client(daemon);
  ASSERT_TRUE(b);
  uint32_t owned = 0, shared = 0;
  {
    auto a = connect_client(daemon);
    ASSERT_TRUE(a);
    owned = spawn(*a, false);
    shared = spawn(*a, true);
    ASSERT_TRUE(owned && shared);
  }  // A disconnects
  EXPECT_TRUE(wait_gone(*b, owned)) << daemon.log_tail();
  const auto ids = character_ids(*b);
  EXPECT_TRUE(ids.count(shared)) << "the shared character must outlive its spawner";
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Ownership, TheSameTokenTakesCharactersBackWithinTheGrace) {
  DaemonProcess daemon(
      {"--control-token", kTokenA, "--control-token", kTokenB, "--orphan-grace-seconds", "5"});
  ANIMD_START(daemon);
  uint32_t kept = 0;
  {
    auto a = connect_client(daemon, kTokenA);
    ASSERT_TRUE(a);
    kept = spawn(*a, false);
    ASSERT_NE(kept, 0u);
  }  // A's only connection closes: its token's characters are orphaned.

  // Another token's client may not drive it; it spawns its own and leaves (later than A).
  uint32_t witness = 0;
  {
    auto b = connect_client(daemon, kTokenB);
    ASSERT_TRUE(b);
    Request play;
    play.mutable_play()->set_character_id(kept);
    play.mutable_play()->set_clip("idle");
    expect_denied(*b, play, kept);
    witness = spawn(*b, false);
    ASSERT_NE(witness, 0u);
  }

  // A reconnects with its token within the grace and drives the character.
  auto a2 = connect_client(daemon, kTokenA);
  ASSERT_TRUE(a2);
  auto p = a2->play(kept, "idle");
  ASSERT_TRUE(p) << p.error().to_string() << "\n" << daemon.log_tail();

  // B's character, orphaned after A's, expires: A's grace has certainly passed by then.
  EXPECT_TRUE(wait_gone(*a2, witness)) << daemon.log_tail();
  EXPECT_TRUE(character_ids(*a2).count(kept)) << "reclaimed character despawned\n"
                                              << daemon.log_tail();
  // And it is still A's: B's token is still refused.
  auto b2 = connect_client(daemon, kTokenB);
  ASSERT_TRUE(b2);
  Request despawn;
  despawn.mutable_despawn()->set_character_id(kept);
  expect_denied(*b2, despawn, kept);
  EXPECT_TRUE(a2->despawn(kept));
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Ownership, TwoConnectionsOfOneTokenShareItsCharacters) {
  DaemonProcess daemon({"--control-token", kTokenA, "--orphan-grace-seconds", "1"});
  ANIMD_START(daemon);
  auto a1 = connect_client(daemon, kTokenA);
  auto a2 = connect_client(daemon, kTokenA);
  ASSERT_TRUE(a1 && a2);
  ASSERT_TRUE(a2->stats());  // a2 has acted as the token
  const uint32_t id = spawn(*a1, false);
  ASSERT_NE(id, 0u);
  EXPECT_TRUE(a2->play(id, "idle"));
  // a1 leaves; the token still has a2, so nothing is orphaned: after three times the grace
  // (counted in daemon ticks, 60 Hz) the character is still there.
  a1.reset();
  const uint64_t start = current_tick(*a2);
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (current_tick(*a2) < start + 3 * 60 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(character_ids(*a2).count(id)) << daemon.log_tail();
  EXPECT_TRUE(a2->despawn(id));
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace ownership_test
}  // namespace animtest

// Subscription cameras through the real daemon (docs/animation.md, "Update rates"): under a
// budget, a character in front of a region subscription's camera is evaluated every tick and
// one behind it less often, with the significances list_characters reports; turning the
// camera (update_subscription with the camera alone) swaps them; the camera never adds a
// character to what the subscription streams; bad cameras are refused through the request
// path with the field named, and change nothing. The budget is far below what 200 characters
// take on any machine, so no timing decides the outcome (waits are bounded, not measured).
#include <numbers>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace camera_significance_test {

using anim::v1::Request;

anim::v1::CharacterInfo info_of(animclient::Client& c, uint32_t id) {
  if (auto ch = listed_character(c, id)) return *ch;
  ADD_FAILURE() << "no character " << id;
  return {};
}

// Waits (bounded) until `id`'s update interval satisfies `ok`.
template <class Pred>
bool wait_interval(animclient::Client& c, uint32_t id, Pred ok) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ok(info_of(c, id).update_interval())) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

void place(animclient::Client& c, uint32_t id, float z) {
  Request r;
  r.mutable_set_root()->set_character_id(id);
  r.mutable_set_root()->mutable_root()->mutable_translation()->set_z(z);
  call_ok(c, r);
}

// At (0, 0, 50), 90 degrees square, looking along z = `dir` (-1 or 1).
anim::v1::Camera camera(float dir) {
  anim::v1::Camera c;
  c.mutable_eye()->set_z(50.0f);
  c.mutable_forward()->set_z(dir);
  c.set_vertical_fov(std::numbers::pi_v<float> / 2);
  c.set_aspect(1.0f);
  return c;
}

TEST(CameraSignificance, InFrontOfTheCameraEveryTickBehindItSlowedAndTurnsWithIt) {
  DaemonProcess daemon({"--anim-budget-ms", "0.1", "--max-update-interval", "4"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 200; ++i) {
    auto sp = client->spawn("builtin", i % 2 ? "walk" : "run");
    ASSERT_TRUE(sp) << sp.error().to_string();
    ids.push_back(sp->character_id());
  }
  // The others stand at the origin, 50 m in front of the camera.
  const uint32_t front = ids[10], behind = ids[11], member = ids[12];
  place(*client, front, 40.0f);     // 10 m in front of the eye
  place(*client, behind, 65.0f);    // 15 m behind it
  place(*client, member, -500.0f);  // in the region, 550 m in front

  anim::v1::SubscribeRequest sub;
  sub.mutable_region()->mutable_sphere()->mutable_center()->set_z(-500.0f);
  sub.mutable_region()->mutable_sphere()->set_radius(5.0f);
  *sub.mutable_camera() = camera(-1.0f);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_TRUE(wait_interval(*client, behind, [](uint32_t n) { return n > 1; }))
      << "character " << behind << " is behind the camera, yet evaluated every tick";
  EXPECT_EQ(info_of(*client, front).update_interval(), 1u);
  EXPECT_EQ(info_of(*client, front).significance(), 1.0f);
  EXPECT_FLOAT_EQ(info_of(*client, behind).significance(), 0.5f / (1.0f + 15.0f / 10.0f));
  EXPECT_FLOAT_EQ(info_of(*client, ids[0]).significance(), 20.0f / 50.0f);
  EXPECT_EQ(info_of(*client, member).update_interval(), 1u);  // in the region

  // The camera adds nobody to the stream: the region's member only.
  const uint64_t now = current_tick(*client);
  std::set<uint32_t> streamed;
  for (const auto& [tick, f] : collect_frames(*client, s->subscription_id(), now + 3))
    for (const auto& ch : f.characters()) streamed.insert(ch.character_id());
  EXPECT_EQ(streamed, std::set<uint32_t>{member});

  // Turned around, without resending the region.
  anim::v1::UpdateSubscriptionRequest turn;
  turn.set_subscription_id(s->subscription_id());
  *turn.mutable_camera() = camera(1.0f);
  auto turned = client->update_subscription(turn);
  ASSERT_TRUE(turned) << turned.error().to_string();
  ASSERT_TRUE(wait_interval(*client, front, [](uint32_t n) { return n > 1; }));
  ASSERT_TRUE(wait_interval(*client, behind, [](uint32_t n) { return n == 1; }));
  EXPECT_EQ(info_of(*client, member).update_interval(), 1u) << "the region was kept";

  // Bad cameras through the request path: refused, the field named, nothing changed.
  anim::v1::SubscribeRequest bad_sub = sub;
  bad_sub.mutable_camera()->set_vertical_fov(0.0f);
  Request r;
  *r.mutable_subscribe() = bad_sub;
  expect_status(*client, r, anim::v1::STATUS_INVALID_ARGUMENT,
                "subscribe.camera.vertical_fov must be in (0, pi) radians");
  anim::v1::UpdateSubscriptionRequest bad = turn;
  *bad.mutable_camera() = camera(-1.0f);
  bad.mutable_camera()->mutable_forward()->clear_z();
  r.Clear();
  *r.mutable_update_subscription() = bad;
  expect_status(*client, r, anim::v1::STATUS_INVALID_ARGUMENT,
                "update_subscription.camera.forward must not be zero");
  r.Clear();
  r.mutable_update_subscription()->set_subscription_id(s->subscription_id());
  expect_status(*client, r, anim::v1::STATUS_INVALID_ARGUMENT, "nothing to change");
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(info_of(*client, behind).update_interval(), 1u) << "a refused update turned it";
  EXPECT_EQ(info_of(*client, behind).significance(), 1.0f);

  // Cleared: behind is slowed again.
  anim::v1::UpdateSubscriptionRequest clear;
  clear.set_subscription_id(s->subscription_id());
  clear.set_clear_camera(true);
  ASSERT_TRUE(client->update_subscription(clear));
  ASSERT_TRUE(wait_interval(*client, behind, [](uint32_t n) { return n > 1; }));
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace camera_significance_test
}  // namespace animtest

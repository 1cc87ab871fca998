// Interest management through the real daemon: a region subscription streams the characters
// whose root is inside it, names the ones that walk out (StreamFrame.left) once, follows
// update_subscription, and sends an outer zone at a lower rate. Characters are moved with
// set_root (placement is what the region tests), and every check waits for frames at or
// after the tick the move took effect: no timing assertions.
#include <set>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace region_test {

using anim::v1::Request;

uint32_t spawn_at(animclient::Client& c, float x) {
  Request r;
  r.mutable_spawn()->set_asset("builtin");
  r.mutable_spawn()->set_clip("walk");
  r.mutable_spawn()->mutable_root()->mutable_translation()->set_x(x);
  return call_ok(c, r).spawn().character_id();
}

uint64_t move_to(animclient::Client& c, uint32_t id, float x) {
  Request r;
  r.mutable_set_root()->set_character_id(id);
  r.mutable_set_root()->mutable_root()->mutable_translation()->set_x(x);
  return call_ok(c, r).tick();
}

anim::v1::Region sphere(float x, float radius) {
  anim::v1::Region g;
  g.mutable_sphere()->mutable_center()->set_x(x);
  g.mutable_sphere()->set_radius(radius);
  return g;
}

// Frames of `sub` from tick `from` on, until one at tick >= `until` (inclusive).
struct Seen {
  std::set<uint32_t> last_members;  // characters of the last frame read
  std::multiset<uint32_t> left;     // every `left` entry of the frames read
  uint64_t last_tick = 0;
};
Seen read_until(animclient::Client& c, uint32_t sub, uint64_t from, uint64_t until) {
  Seen seen;
  for (const auto& [tick, f] : collect_frames(c, sub, until)) {
    if (tick < from) continue;
    seen.last_members.clear();
    for (const auto& ch : f.characters()) seen.last_members.insert(ch.character_id());
    seen.left.insert(f.left().begin(), f.left().end());
    seen.last_tick = tick;
  }
  return seen;
}

TEST(Region, CharactersEnterLeaveAndFollowTheMovedRegion) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  const uint32_t a = spawn_at(*client, 0.0f), b = spawn_at(*client, 5.0f),
                 c = spawn_at(*client, 20.0f);

  anim::v1::SubscribeRequest sub;
  *sub.mutable_region() = sphere(0.0f, 3.0f);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  const uint32_t id = s->subscription_id();
  uint64_t now = current_tick(*client);
  Seen seen = read_until(*client, id, 0, now + 2);
  EXPECT_EQ(seen.last_members, std::set<uint32_t>{a});
  EXPECT_TRUE(seen.left.empty());

  // a walks out, b walks in.
  const uint64_t t1 = std::max(move_to(*client, a, 10.0f), move_to(*client, b, 1.0f));
  seen = read_until(*client, id, 0, t1 + 3);
  EXPECT_EQ(seen.last_members, std::set<uint32_t>{b}) << "tick " << seen.last_tick;
  EXPECT_EQ(seen.left.count(a), 1u);  // named once
  EXPECT_EQ(seen.left.count(b), 0u);

  // The camera moves to c: b leaves, c comes in.
  auto moved = client->update_subscription(id, sphere(20.0f, 3.0f));
  ASSERT_TRUE(moved) << moved.error().to_string();
  Request update;
  update.mutable_update_subscription()->set_subscription_id(id);
  now = current_tick(*client);
  seen = read_until(*client, id, 0, now + 3);
  EXPECT_EQ(seen.last_members, std::set<uint32_t>{c});
  EXPECT_EQ(seen.left.count(b), 1u);

  // Refusals: a bad region, an unknown subscription, a subscription that is not a region one.
  update.mutable_update_subscription()->mutable_region()->mutable_sphere()->set_radius(-1.0f);
  auto r = call(*client, update);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(r.status().message().find("update_subscription.region.sphere.radius"),
            std::string::npos);
  *update.mutable_update_subscription()->mutable_region() = sphere(0.0f, 1.0f);
  update.mutable_update_subscription()->set_subscription_id(id + 100);
  EXPECT_EQ(call(*client, update).status().code(), anim::v1::STATUS_NOT_FOUND);
  anim::v1::SubscribeRequest listed;
  listed.add_character_ids(a);
  auto plain = client->subscribe(listed);
  ASSERT_TRUE(plain);
  update.mutable_update_subscription()->set_subscription_id(plain->subscription_id());
  EXPECT_EQ(call(*client, update).status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  // The region subscription kept streaming c throughout.
  now = current_tick(*client);
  seen = read_until(*client, id, 0, now + 2);
  EXPECT_EQ(seen.last_members, std::set<uint32_t>{c});
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// A sphere of 3 m around the origin with an outer zone 10 m wider, sent every 3rd frame.
anim::v1::SubscribeRequest outer_zone_subscription() {
  anim::v1::SubscribeRequest sub;
  *sub.mutable_region() = sphere(0.0f, 3.0f);
  sub.mutable_region()->set_outer_margin(10.0f);
  sub.mutable_region()->set_outer_rate_divisor(3);
  return sub;
}

TEST(Region, TheOuterZoneIsStreamedEveryNthFrameAndNeverLeaves) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  const uint32_t near = spawn_at(*client, 1.0f), far = spawn_at(*client, 8.0f);
  spawn_at(*client, 50.0f);  // outside both

  auto s = client->subscribe(outer_zone_subscription());
  ASSERT_TRUE(s) << s.error().to_string();
  const auto frames = collect_frames(*client, s->subscription_id(), current_tick(*client) + 30);
  ASSERT_GE(frames.size(), 10u);
  size_t with_far = 0, total = 0;
  for (const auto& [tick, f] : frames) {
    ++total;
    std::set<uint32_t> ids;
    for (const auto& ch : f.characters()) ids.insert(ch.character_id());
    EXPECT_TRUE(ids.count(near)) << "tick " << tick;
    EXPECT_EQ(ids.size(), ids.count(far) ? 2u : 1u) << "tick " << tick;
    with_far += ids.count(far);
    EXPECT_EQ(f.left_size(), 0) << "tick " << tick;
  }
  // Every 3rd frame encoded carries `far`; frames dropped on a loaded machine can only lower
  // the count, never raise it above a third (rounded up).
  EXPECT_GE(with_far, 1u);
  EXPECT_LE(with_far, (total + 2) / 3 + 1);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// ENCODING_COMPACT at a rate divisor, with an outer zone: the frames between ticks and an outer
// member's turns are deltas naming the ticks between, and libanimclient decodes every one.
TEST(Region, CompactOuterZoneAndRateDivisorDecodeAsDeltas) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  const uint32_t near = spawn_at(*client, 1.0f), far = spawn_at(*client, 8.0f);

  anim::v1::SubscribeRequest sub = outer_zone_subscription();
  sub.set_rate_divisor(2);
  sub.set_encoding(anim::v1::ENCODING_COMPACT);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  const auto frames = collect_frames(*client, s->subscription_id(), current_tick(*client) + 60);
  ASSERT_GE(frames.size(), 10u);
  size_t with_far = 0;
  for (const auto& [tick, f] : frames) {
    for (const auto& ch : f.characters()) {
      EXPECT_TRUE(ch.character_id() == near || ch.character_id() == far);
      EXPECT_EQ(ch.palette_size(), 12 * 22) << "tick " << tick;  // decoded
      with_far += ch.character_id() == far;
    }
  }
  EXPECT_GE(with_far, 3u);  // a key frame and deltas after it
  const auto counters = client->counters();
  EXPECT_EQ(counters.compact_errors, 0u) << client->last_compact_error();
  // Deltas, not a key frame every time: ~94 bytes a frame (two characters and the frame's
  // own fields); a key frame every time was ~225.
  EXPECT_LT(static_cast<double>(counters.stream_bytes_received) / counters.frames_received, 150.0);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace region_test
}  // namespace animtest

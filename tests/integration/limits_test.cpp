// Limits on a real daemon: memory bounded before trust (pre-auth frame size, auth and read
// deadlines, per-address connections), asset caps and unload_asset, subscriptions ended with
// a reason instead of going dark, frames split into parts, and the IK budget.
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <gtest/gtest.h>

#include "gltf_uri_cases.h"
#include "integration_support.h"

namespace animtest {
namespace limits_test {

using anim::v1::Request;
using anim::v1::ServerMessage;

Request list_assets_request(uint64_t id = 1) {
  Request r;
  r.set_request_id(id);
  r.mutable_list_assets();
  return r;
}

// Sends a valid request on `raw` and reads its OK reply: the connection is now trusted.
void authenticate(RawConnection& raw, uint64_t id = 1) {
  ASSERT_TRUE(raw.send_request(list_assets_request(id)));
  auto m = raw.read_message();
  ASSERT_TRUE(m && m->has_reply());
  EXPECT_EQ(m->reply().request_id(), id);
  EXPECT_EQ(m->reply().status().code(), anim::v1::STATUS_OK) << m->reply().status().message();
}

// Polls the daemon log (bounded) for `needle`.
bool wait_for_log(const DaemonProcess& d, const std::string& needle) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    if (d.log().find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

TEST(Limits, BigFrameBeforeTrustClosesAfterTrustIsRead) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  {
    RawConnection raw(daemon.port());
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(raw.send_bytes(RawConnection::header(100000) + std::string(1000, 'x')));
    EXPECT_TRUE(raw.wait_closed()) << daemon.log_tail();
    EXPECT_NE(daemon.log().find("--max-preauth-frame-bytes"), std::string::npos)
        << daemon.log_tail();
  }
  // The same size after one valid request is read and answered (an upload that is not glTF).
  RawConnection raw(daemon.port());
  ASSERT_TRUE(raw.ok());
  authenticate(raw);
  Request load;
  load.set_request_id(2);
  load.mutable_load_asset()->set_name("junk");
  load.mutable_load_asset()->set_glb_data(std::string(100000, 'j'));
  ASSERT_GT(load.ByteSizeLong(), 100000u);
  ASSERT_TRUE(raw.send_request(load));
  auto m = raw.read_message();
  ASSERT_TRUE(m && m->has_reply()) << daemon.log_tail();
  EXPECT_EQ(m->reply().request_id(), 2u);
  EXPECT_NE(m->reply().status().code(), anim::v1::STATUS_OK);
  EXPECT_FALSE(m->reply().status().message().empty());
  // Still open.
  authenticate(raw, 3);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Partly received request bodies of all connections draw on one budget: when it is spent the
// connection that needs more is closed, the others carry on, and the bytes come back.
TEST(Limits, InboundBudgetIsSharedByAllConnections) {
  DaemonProcess daemon({"--max-inbound-bytes-total", "65536"});
  ANIMD_START(daemon);
  Request load;
  load.set_request_id(1);
  load.mutable_load_asset()->set_name("junk");
  load.mutable_load_asset()->set_glb_data(std::string(59000, 'j'));
  const std::string body = load.SerializeAsString();
  ASSERT_LE(body.size(), 65536u);  // under the pre-auth frame limit
  const std::string frame = RawConnection::header(static_cast<uint32_t>(body.size())) + body;
  const size_t part = 40000;  // two of these do not fit the budget together

  // Whichever the daemon read second is closed. When its network threads read both halves at
  // the same moment, both draws can fail and both connections close: then try again (each
  // attempt gives its bytes back on close).
  std::unique_ptr<RawConnection> a, b;
  RawConnection* survivor = nullptr;
  for (int attempt = 0; attempt < 5 && !survivor; ++attempt) {
    a = std::make_unique<RawConnection>(daemon.port());
    b = std::make_unique<RawConnection>(daemon.port());
    ASSERT_TRUE(a->ok() && b->ok());
    ASSERT_TRUE(a->send_bytes(frame.substr(0, part)));
    ASSERT_TRUE(b->send_bytes(frame.substr(0, part)));
    RawConnection* closed = nullptr;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (!closed && std::chrono::steady_clock::now() < deadline) {
      if (a->wait_closed(100ms))
        closed = a.get();
      else if (b->wait_closed(100ms))
        closed = b.get();
    }
    ASSERT_NE(closed, nullptr) << "neither connection was closed\n" << daemon.log_tail();
    RawConnection* other = closed == a.get() ? b.get() : a.get();
    if (!other->wait_closed(300ms)) survivor = other;
  }
  ASSERT_NE(survivor, nullptr) << daemon.log_tail();
  EXPECT_NE(daemon.log().find("--max-inbound-bytes-total"), std::string::npos) << daemon.log_tail();
  // The other finishes its frame and is answered.
  ASSERT_TRUE(survivor->send_bytes(frame.substr(part)));
  auto m = survivor->read_message();
  ASSERT_TRUE(m && m->has_reply()) << daemon.log_tail();
  EXPECT_EQ(m->reply().request_id(), 1u);
  EXPECT_NE(m->reply().status().code(), anim::v1::STATUS_OK);
  // The budget came back: a new connection can send the whole frame.
  RawConnection c(daemon.port());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c.send_bytes(frame));
  m = c.read_message();
  ASSERT_TRUE(m && m->has_reply()) << daemon.log_tail();
  EXPECT_EQ(m->reply().request_id(), 1u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// What an attacker can trigger at will is logged in a burst per kind, then only counted:
// oversized headers of 40 different sizes are one kind (the numbers do not make new kinds).
TEST(Limits, RepeatedClosesAreRateLimitedInTheLog) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  for (uint32_t i = 0; i < 40; ++i) {
    RawConnection raw(daemon.port());
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(raw.send_bytes(RawConnection::header(100000 + i * 7919)));
    ASSERT_TRUE(raw.wait_closed()) << "connection " << i << "\n" << daemon.log_tail();
  }
  // Every close was logged before its socket closed, so the log is complete here.
  const std::string log = daemon.log();
  size_t lines = 0;
  for (size_t pos = log.find("--max-preauth-frame-bytes"); pos != std::string::npos;
       pos = log.find("--max-preauth-frame-bytes", pos + 1))
    ++lines;
  EXPECT_GE(lines, 1u);
  EXPECT_LE(lines, 20u) << daemon.log_tail();
  // The daemon still serves.
  RawConnection good(daemon.port());
  ASSERT_TRUE(good.ok());
  authenticate(good);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, SilentConnectionClosedAtTheAuthTimeout) {
  DaemonProcess daemon({"--auth-timeout", "1"});
  ANIMD_START(daemon);
  RawConnection silent(daemon.port());
  ASSERT_TRUE(silent.ok());
  // A connection that sent a valid request is not affected.
  RawConnection good(daemon.port());
  ASSERT_TRUE(good.ok());
  authenticate(good);
  EXPECT_TRUE(silent.wait_closed()) << daemon.log_tail();
  EXPECT_NE(daemon.log().find("--auth-timeout"), std::string::npos) << daemon.log_tail();
  authenticate(good, 2);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, HalfAHeaderClosedAtTheReadTimeout) {
  DaemonProcess daemon({"--read-timeout", "1"});
  ANIMD_START(daemon);
  RawConnection raw(daemon.port());
  ASSERT_TRUE(raw.ok());
  authenticate(raw);
  ASSERT_TRUE(raw.send_bytes(std::string("\x10\x00", 2)));
  EXPECT_TRUE(raw.wait_closed()) << daemon.log_tail();
  EXPECT_NE(daemon.log().find("slow sender"), std::string::npos) << daemon.log_tail();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, ConnectionsPerAddress) {
  DaemonProcess daemon({"--max-connections-per-address", "3"});
  ANIMD_START(daemon);
  std::vector<std::unique_ptr<RawConnection>> conns;
  for (int i = 0; i < 3; ++i) {
    conns.push_back(std::make_unique<RawConnection>(daemon.port()));
    ASSERT_TRUE(conns.back()->ok());
    authenticate(*conns.back(), 1);
  }
  RawConnection fourth(daemon.port());
  ASSERT_TRUE(fourth.ok());  // the kernel accepts; the daemon closes it
  EXPECT_TRUE(fourth.wait_closed()) << daemon.log_tail();
  EXPECT_NE(daemon.log().find("--max-connections-per-address"), std::string::npos)
      << daemon.log_tail();
  for (auto& c : conns) authenticate(*c, 2);
  // A slot freed is a slot available again.
  conns.pop_back();
  bool admitted = false;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!admitted && std::chrono::steady_clock::now() < deadline) {
    RawConnection again(daemon.port());
    ASSERT_TRUE(again.ok());
    if (again.send_request(list_assets_request())) {
      auto m = again.read_message(2000ms);
      admitted = m && m->has_reply();
    }
  }
  EXPECT_TRUE(admitted) << daemon.log_tail();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, UnloadAsset) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto c = connect_client(daemon);
  ASSERT_TRUE(c);
  Request unknown;
  unknown.mutable_unload_asset()->set_asset("no-such-asset");
  auto r = call(*c, unknown);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_NOT_FOUND) << r.status().message();
  EXPECT_NE(r.status().message().find("no-such-asset"), std::string::npos);

  auto sp = c->spawn("builtin", "walk");
  ASSERT_TRUE(sp) << sp.error().to_string();
  Request unload;
  unload.mutable_unload_asset()->set_asset("builtin");
  r = call(*c, unload);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_FAILED_PRECONDITION) << r.status().message();
  EXPECT_NE(r.status().message().find("1 character"), std::string::npos) << r.status().message();
  // Refused: the character still plays, the asset is still listed.
  EXPECT_TRUE(c->play(sp->character_id(), "idle"));
  auto assets = c->list_assets();
  ASSERT_TRUE(assets);
  ASSERT_EQ(assets->assets_size(), 1);

  ASSERT_TRUE(c->despawn(sp->character_id()));
  r = call(*c, unload);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_OK) << r.status().message();
  assets = c->list_assets();
  ASSERT_TRUE(assets);
  EXPECT_EQ(assets->assets_size(), 0);
  auto again = c->spawn("builtin", "walk");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, anim::v1::STATUS_NOT_FOUND) << again.error().to_string();
  auto data = c->get_asset_data("builtin", true);
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().code, anim::v1::STATUS_NOT_FOUND);
  // Unloading again: gone.
  r = call(*c, unload);
  EXPECT_EQ(r.status().code(), anim::v1::STATUS_NOT_FOUND);

  // An uploaded asset unloads too, and its name can be loaded again.
  anim::v1::LoadAssetRequest up;
  up.set_name("small");
  up.set_glb_data(glb_of(one_joint_document(embedded_buffer())));
  ASSERT_TRUE(c->load_asset(up));
  Request unload_small;
  unload_small.mutable_unload_asset()->set_asset("small");
  call_ok(*c, unload_small);
  auto reload = c->load_asset(up);
  EXPECT_TRUE(reload) << reload.error().to_string();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, MaxAssets) {
  DaemonProcess daemon({"--max-assets", "1"});
  ANIMD_START(daemon);
  auto c = connect_client(daemon);
  ASSERT_TRUE(c);
  anim::v1::LoadAssetRequest up;
  up.set_name("small");
  up.set_glb_data(glb_of(one_joint_document(embedded_buffer())));
  auto r = c->load_asset(up);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, anim::v1::STATUS_RESOURCE_EXHAUSTED) << r.error().to_string();
  EXPECT_NE(r.error().message.find("--max-assets"), std::string::npos) << r.error().message;
  auto assets = c->list_assets();
  ASSERT_TRUE(assets);
  EXPECT_EQ(assets->assets_size(), 1);
  // Unloading the built-in one makes room.
  Request unload;
  unload.mutable_unload_asset()->set_asset("builtin");
  call_ok(*c, unload);
  auto ok = c->load_asset(up);
  EXPECT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, StalledSubscriberGetsSubscriptionEnded) {
  DaemonProcess daemon(
      {"--spawn-builtin", "50", "--max-queued-bytes", "65536", "--stream-stall-seconds", "1"});
  ANIMD_START(daemon);
  RawConnection raw(daemon.port(), 4096);
  ASSERT_TRUE(raw.ok());
  Request sub;
  sub.set_request_id(1);
  sub.mutable_subscribe()->set_all_characters(true);
  ASSERT_TRUE(raw.send_request(sub));
  // Do not read until the daemon says it ended the subscription.
  ASSERT_TRUE(wait_for_log(daemon, "subscription(s) ended")) << daemon.log_tail();
  std::optional<anim::v1::SubscriptionEnded> ended;
  bool replied = false;
  for (int i = 0; i < 100000 && !ended; ++i) {
    auto m = raw.read_message();
    if (!m) break;
    if (m->has_reply()) {
      EXPECT_EQ(m->reply().status().code(), anim::v1::STATUS_OK);
      replied = true;
    }
    if (m->has_subscription_ended()) ended = m->subscription_ended();
  }
  EXPECT_TRUE(replied);
  ASSERT_TRUE(ended) << daemon.log_tail();
  EXPECT_EQ(ended->subscription_id(), 1u);
  EXPECT_EQ(ended->code(), anim::v1::STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(ended->reason().find("--stream-stall-seconds"), std::string::npos) << ended->reason();
  EXPECT_GT(ended->frames_dropped(), 0u);
  // No frame of it follows: the connection answers requests, quietly.
  ASSERT_TRUE(raw.send_request(list_assets_request(2)));
  for (int i = 0;; ++i) {
    ASSERT_LT(i, 100000) << "no reply among the frames";
    auto m = raw.read_message();
    ASSERT_TRUE(m) << daemon.log_tail();
    if (m->has_reply()) {
      EXPECT_EQ(m->reply().request_id(), 2u);
      break;
    }
    ASSERT_TRUE(m->has_frame()) << "unexpected message";  // frames already queued, then none
  }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, LargeFramesArriveInPartsAndTheClientJoinsThem) {
  DaemonProcess daemon({"--spawn-builtin", "40", "--max-queued-bytes", "65536"});
  ANIMD_START(daemon);
  auto c = connect_client(daemon);
  ASSERT_TRUE(c);
  anim::v1::SubscribeRequest sub;
  sub.set_all_characters(true);
  auto s = c->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  int whole = 0;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (whole < 5 && std::chrono::steady_clock::now() < deadline) {
    auto f = c->next_frame(1000ms);
    if (!f) continue;
    EXPECT_EQ(f->parts(), 0u);
    EXPECT_EQ(f->part(), 0u);
    EXPECT_EQ(f->characters_size(), 40);
    std::set<uint32_t> ids;
    for (const auto& ch : f->characters()) ids.insert(ch.character_id());
    EXPECT_EQ(ids.size(), 40u);
    ++whole;
  }
  EXPECT_EQ(whole, 5) << daemon.log_tail();
  EXPECT_TRUE(c->ended_subscriptions().empty());

  // On the wire: several messages per tick with part/parts set.
  RawConnection raw(daemon.port());
  ASSERT_TRUE(raw.ok());
  Request r;
  r.set_request_id(1);
  r.mutable_subscribe()->set_all_characters(true);
  ASSERT_TRUE(raw.send_request(r));
  std::map<uint32_t, int> characters_by_part;
  uint32_t parts = 0;
  uint64_t tick = 0;
  for (int i = 0; i < 10000; ++i) {
    auto m = raw.read_message();
    ASSERT_TRUE(m) << daemon.log_tail();
    if (!m->has_frame()) continue;
    const auto& f = m->frame();
    if (tick == 0) {
      if (f.part() != 0) continue;  // start at a tick's first part
      tick = f.tick();
      parts = f.parts();
      ASSERT_GT(parts, 1u) << "a 40-character frame should not fit one 16 KiB part";
    }
    ASSERT_EQ(f.tick(), tick);
    EXPECT_EQ(f.parts(), parts);
    EXPECT_EQ(f.part(), characters_by_part.size());
    characters_by_part[f.part()] = f.characters_size();
    if (f.part() + 1 == parts) break;
  }
  ASSERT_EQ(characters_by_part.size(), parts);
  int total = 0;
  for (const auto& [p, n] : characters_by_part) total += n;
  EXPECT_EQ(total, 40);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, FrameLargerThanTheQueueEndsTheSubscription) {
  DaemonProcess daemon({"--spawn-builtin", "40", "--max-queued-bytes", "16384"});
  ANIMD_START(daemon);
  auto c = connect_client(daemon);
  ASSERT_TRUE(c);
  anim::v1::SubscribeRequest sub;
  sub.set_all_characters(true);
  auto s = c->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  std::vector<anim::v1::SubscriptionEnded> ended;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (ended.empty() && std::chrono::steady_clock::now() < deadline) {
    ended = c->ended_subscriptions();
    if (ended.empty()) std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(ended.size(), 1u) << daemon.log_tail();
  EXPECT_EQ(ended[0].subscription_id(), s->subscription_id());
  EXPECT_EQ(ended[0].code(), anim::v1::STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(ended[0].reason().find("--max-queued-bytes"), std::string::npos) << ended[0].reason();
  // A subscription to a few characters still works on the same connection.
  anim::v1::SubscribeRequest few;
  few.add_character_ids(1);
  few.add_character_ids(2);
  auto s2 = c->subscribe(few);
  ASSERT_TRUE(s2) << s2.error().to_string();
  const uint64_t until = current_tick(*c) + 2;
  auto frames = collect_frames(*c, s2->subscription_id(), until);
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.rbegin()->second.characters_size(), 2);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Limits, IkBudgetKeepsHugeGoalsAcceptedAndPosesFinite) {
  DaemonProcess daemon({"--ik-budget", "100"});
  ANIMD_START(daemon);
  auto c = connect_client(daemon);
  ASSERT_TRUE(c);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 4; ++i) {
    auto sp = c->spawn("builtin", "walk");
    ASSERT_TRUE(sp) << sp.error().to_string();
    ids.push_back(sp->character_id());
    for (const char* side : {"l", "r"}) {
      anim::v1::SetIkGoalRequest g;
      g.set_character_id(sp->character_id());
      g.set_root_joint(std::string("shoulder_") + side);
      g.set_effector_joint(std::string("hand_") + side);
      g.set_solver(anim::v1::IK_SOLVER_CCD);
      g.set_space(anim::v1::SPACE_MODEL);
      g.set_max_iterations(1000);
      g.set_tolerance(1e-9f);  // never converges early: every iteration is spent
      g.mutable_target()->set_x(side[0] == 'l' ? 0.6f : -0.6f);
      g.mutable_target()->set_y(1.6f);
      g.mutable_target()->set_z(0.4f);
      auto r = c->set_ik_goal(g);
      ASSERT_TRUE(r) << r.error().to_string();
      EXPECT_GT(r->goal_id(), 0u);
    }
  }
  // The daemon keeps ticking and every pose stays finite.
  const uint64_t start = current_tick(*c);
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (current_tick(*c) < start + 30 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  EXPECT_GE(current_tick(*c), start + 30) << daemon.log_tail();
  for (uint32_t id : ids) {
    anim::v1::QueryPoseRequest q;
    q.set_character_id(id);
    auto p = c->query_pose(q);
    ASSERT_TRUE(p) << p.error().to_string();
    ASSERT_GT(p->palette_size(), 0);
    for (float v : p->palette()) ASSERT_TRUE(std::isfinite(v)) << "character " << id;
    for (const auto& j : p->joints())
      for (float v : j.matrix()) ASSERT_TRUE(std::isfinite(v)) << "character " << id;
  }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace limits_test
}  // namespace animtest

// Migrating characters between real daemons on loopback (fleet.proto; docs/operations.md,
// "Migrating characters"). Two daemons share the fleet clock (the same --tick-epoch): a
// character migrated from one to the other goes on without a pop (across the handover every
// joint moves no further than in the ticks around it), its watcher is told where it went,
// and the source has it no more. A target that refuses, one nobody listens on and one that
// dies after the import leave the characters on the source, unfrozen, and nothing on the
// target.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace migrate_test {

using anim::v1::Request;

uint32_t spawn(animclient::Client& c, const std::string& clip) {
  Request r;
  r.mutable_spawn()->set_asset("builtin");
  r.mutable_spawn()->set_clip(clip);
  return call_ok(c, r).spawn().character_id();
}

Request migrate(const std::vector<uint32_t>& ids, uint16_t port, const std::string& token = {},
                uint32_t deadline_ms = 0) {
  Request r;
  for (uint32_t id : ids) r.mutable_migrate()->add_character_ids(id);
  r.mutable_migrate()->mutable_target()->set_host("127.0.0.1");
  r.mutable_migrate()->mutable_target()->set_port(port);
  r.mutable_migrate()->mutable_target()->set_token(token);
  r.mutable_migrate()->set_deadline_ms(deadline_ms);
  return r;
}

std::vector<uint32_t> listed(animclient::Client& c) {
  Request r;
  r.mutable_list_characters();
  std::vector<uint32_t> ids;
  const auto reply = call_ok(c, r);
  for (const auto& ch : reply.list_characters().characters()) ids.push_back(ch.character_id());
  return ids;
}

// The translation of every joint's skinning matrix (rows of 3x4).
std::vector<float> translations(const google::protobuf::RepeatedField<float>& p) {
  std::vector<float> out;
  for (int j = 0; j + 12 <= p.size(); j += 12) {
    out.push_back(p[j + 3]);
    out.push_back(p[j + 7]);
    out.push_back(p[j + 11]);
  }
  return out;
}

// The joints of character `id` at `tick` from the daemon's pose history, or empty when it has
// none (a skipped tick, or the character is not there).
std::vector<float> joints_at(animclient::Client& c, uint32_t id, uint64_t tick) {
  Request q;
  q.mutable_query_pose()->set_character_id(id);
  q.mutable_query_pose()->set_tick(tick);
  const auto reply = call(c, q);
  if (reply.status().code() != anim::v1::STATUS_OK) return {};
  return translations(reply.query_pose().palette());
}

// The joints of character `id` in the frames `c` receives, by tick, up to one of tick `last`
// or later (bounded: at most 2,000 frames).
std::map<uint64_t, std::vector<float>> streamed(animclient::Client& c, uint32_t id, uint64_t last) {
  std::map<uint64_t, std::vector<float>> out;
  for (int i = 0; i < 2000; ++i) {
    auto f = c.next_frame(std::chrono::milliseconds(2000));
    if (!f) break;
    for (const auto& ch : f->characters())
      if (ch.character_id() == id) out[f->tick()] = translations(ch.palette());
    if (f->tick() >= last) break;
  }
  return out;
}

float largest_move(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0.0f;
  for (size_t i = 0; i + 2 < std::min(a.size(), b.size()); i += 3)
    worst = std::max(worst, std::hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return worst;
}

TEST(Migrate, ACharacterGoesOnOnTheTargetWithoutAPop) {
  DaemonProcess source({"--history-seconds", "5", "--tick-epoch", "0"}),
      target({"--history-seconds", "5", "--tick-epoch", "0"});
  ANIMD_START(source);
  ANIMD_START(target);
  auto a = connect_client(source);
  auto b = connect_client(target);
  ASSERT_TRUE(a && b);
  const uint32_t id = spawn(*a, "walk");
  Request fade;
  fade.mutable_crossfade()->set_character_id(id);
  fade.mutable_crossfade()->set_clip("run");
  fade.mutable_crossfade()->set_duration(1.0f);
  call_ok(*a, fade);
  Request lean;
  lean.mutable_add_layer()->set_character_id(id);
  lean.mutable_add_layer()->set_clip("lean");
  lean.mutable_add_layer()->set_weight(0.5f);
  call_ok(*a, lean);
  // A watcher on the source, reading raw messages (it is told where the character went).
  RawConnection watcher(source.port());
  ASSERT_TRUE(watcher.ok());
  Request sub;
  sub.set_request_id(1);
  sub.mutable_subscribe()->add_character_ids(id);
  sub.mutable_subscribe()->set_rate_divisor(30);
  ASSERT_TRUE(watcher.send_request(sub));
  // Every frame of it on the source, to see its last ticks there (the history forgets a
  // character that left).
  Request every;
  every.mutable_subscribe()->add_character_ids(id);
  call_ok(*a, every);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  const auto reply = call_ok(*a, migrate({id}, target.port()));
  ASSERT_TRUE(reply.has_migrate());
  const auto& moved = reply.migrate();
  EXPECT_EQ(moved.target(), "127.0.0.1:" + std::to_string(target.port()));
  ASSERT_EQ(moved.character_ids_size(), 1);
  const uint32_t there = moved.character_ids(0);
  const uint64_t first = moved.tick();
  EXPECT_GT(first, 0u);
  EXPECT_LE(first, reply.tick());  // the source forgot it once the target had it

  // The source has it no more; the target has it.
  EXPECT_TRUE(listed(*a).empty());
  const auto on_target = listed(*b);
  EXPECT_NE(std::find(on_target.begin(), on_target.end(), there), on_target.end());
  Request play;
  play.mutable_play()->set_character_id(id);
  play.mutable_play()->set_clip("idle");
  expect_status(*a, play, anim::v1::STATUS_NOT_FOUND, "unknown character");

  // The watcher hears where it went.
  bool told = false;
  for (int i = 0; i < 200 && !told; ++i) {
    auto m = watcher.read_message(std::chrono::milliseconds(2000));
    if (!m) break;
    if (!m->has_characters_moved()) continue;
    told = true;
    EXPECT_EQ(m->characters_moved().target(), moved.target());
    EXPECT_EQ(m->characters_moved().tick(), first);
    ASSERT_EQ(m->characters_moved().from_ids_size(), 1);
    EXPECT_EQ(m->characters_moved().from_ids(0), id);
    EXPECT_EQ(m->characters_moved().to_ids(0), there);
  }
  EXPECT_TRUE(told) << "no CharactersMoved";

  // No pop: the source's poses up to the handover, the target's from it; the largest joint
  // move across the handover is within what a tick moves around it.
  const auto before = streamed(*a, id, reply.tick());
  std::map<uint64_t, std::vector<float>> poses;
  for (const auto& [t, p] : before)
    if (t + 12 >= first && t < first) poses[t] = p;
  for (int i = 0; i < 100 && current_tick(*b) <= first + 12; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (uint64_t t = first; t < first + 12; ++t)
    if (auto p = joints_at(*b, there, t); !p.empty()) poses[t] = p;
  std::string have;
  for (const auto& [t, p] : poses) have.append(" ").append(std::to_string(t));
  ASSERT_TRUE(poses.count(first - 1) && poses.count(first))
      << "both sides of the handover must be in the history; first " << first << ", have" << have;
  float around = 0.0f;
  for (auto it = poses.begin(); std::next(it) != poses.end(); ++it) {
    auto next = std::next(it);
    const float per_tick =
        largest_move(it->second, next->second) / static_cast<float>(next->first - it->first);
    if (it->first != first - 1) around = std::max(around, per_tick);
  }
  const float across = largest_move(poses[first - 1], poses[first]);
  EXPECT_GT(around, 0.0f) << "the character must move";
  EXPECT_LE(across, 1.25f * around + 1e-4f) << "a pop at the handover";
  // Where both had it (the ticks before the source heard of the commit), they agreed.
  for (const auto& [t, here] : before) {
    if (t < first) continue;
    const auto far = joints_at(*b, there, t);
    if (far.empty()) continue;
    EXPECT_LE(largest_move(here, far), 1e-4f) << "tick " << t;
  }
}

TEST(Migrate, ARefusingTargetLeavesTheCharactersOnTheSource) {
  DaemonProcess source, target({"--control-token", "right-control-token-0123"});
  ANIMD_START(source);
  ANIMD_START(target);
  auto a = connect_client(source);
  auto b = connect_client(target, "right-control-token-0123");
  ASSERT_TRUE(a && b);
  const uint32_t id = spawn(*a, "walk");
  expect_status(*a, migrate({id}, target.port(), "wrong"), anim::v1::STATUS_PERMISSION_DENIED,
                "refused");
  EXPECT_EQ(listed(*a), std::vector<uint32_t>{id});
  EXPECT_TRUE(listed(*b).empty());
  Request play;
  play.mutable_play()->set_character_id(id);
  play.mutable_play()->set_clip("idle");
  call_ok(*a, play);  // unfrozen
  // Unknown and foreign characters, bad targets: refused before anything is frozen.
  expect_status(*a, migrate({id + 100}, target.port(), "right-control-token-0123"),
                anim::v1::STATUS_NOT_FOUND, "unknown character");
  expect_status(*a, migrate({id}, 0, "right-control-token-0123"), anim::v1::STATUS_INVALID_ARGUMENT,
                "port");
  expect_status(*a, migrate({id, id}, target.port(), "right-control-token-0123"),
                anim::v1::STATUS_INVALID_ARGUMENT, "twice");
  // And with the right token it goes.
  const auto reply = call_ok(*a, migrate({id}, target.port(), "right-control-token-0123"));
  EXPECT_TRUE(listed(*a).empty());
  EXPECT_EQ(listed(*b).size(), 1u);
}

TEST(Migrate, NobodyListeningLeavesTheCharactersOnTheSource) {
  DaemonProcess source;
  ANIMD_START(source);
  auto a = connect_client(source);
  ASSERT_TRUE(a);
  const uint32_t id = spawn(*a, "walk");
  // A port just closed: nothing listens there.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  expect_status(*a, migrate({id}, ntohs(addr.sin_port), "", 2000), anim::v1::STATUS_UNAVAILABLE,
                "the characters stay here");
  EXPECT_EQ(listed(*a), std::vector<uint32_t>{id});
}

// A target that takes the import and dies when asked to commit: it never confirmed, so the
// characters stay on the source.
TEST(Migrate, ATargetDyingBeforeItConfirmsLeavesTheCharactersOnTheSource) {
  DaemonProcess source;
  ANIMD_START(source);
  auto a = connect_client(source);
  ASSERT_TRUE(a);
  const uint32_t id = spawn(*a, "walk");

  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::atomic<int> imports{0};
  std::thread fake([&] {
    const int fd = ::accept(listener, nullptr, nullptr);
    ::close(listener);  // no second connection: the commit's retries find nobody
    if (fd < 0) return;
    for (;;) {
      std::string head(4, '\0');
      if (::recv(fd, head.data(), 4, MSG_WAITALL) != 4) break;
      uint32_t n = 0;
      for (int i = 0; i < 4; ++i) n |= uint32_t(uint8_t(head[i])) << (8 * i);
      std::string body(n, '\0');
      if (n > 0 && ::recv(fd, body.data(), n, MSG_WAITALL) != static_cast<ssize_t>(n)) break;
      Request r;
      if (!r.ParseFromString(body) || r.has_commit_migration()) break;  // dies
      if (r.has_import_characters()) ++imports;
      anim::v1::ServerMessage m;
      m.mutable_reply()->set_request_id(r.request_id());
      const std::string out = m.SerializeAsString();
      const std::string frame = RawConnection::header(static_cast<uint32_t>(out.size())) + out;
      if (::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL) < 0) break;
    }
    ::close(fd);
  });
  expect_status(*a, migrate({id}, ntohs(addr.sin_port), "", 1500), anim::v1::STATUS_UNAVAILABLE,
                "commit_migration");
  fake.join();
  EXPECT_EQ(imports.load(), 1);
  EXPECT_EQ(listed(*a), std::vector<uint32_t>{id});
  Request play;
  play.mutable_play()->set_character_id(id);
  play.mutable_play()->set_clip("idle");
  call_ok(*a, play);  // unfrozen
}

}  // namespace migrate_test
}  // namespace animtest

#pragma once
// Helpers shared by the integration tests: starting a daemon and connecting clients with
// gtest assertions, a raw socket for malformed input, and collecting stream frames.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "anim/tick_clock.h"

#include "animclient/client.h"
#include "daemon_process.h"

namespace animtest {

using namespace std::chrono_literals;

// Generous: the suite runs under ASan on a loaded 2-core machine. Not timing assertions,
// only bounds on how long a broken daemon can make a test hang.
inline constexpr auto kWait = std::chrono::milliseconds(20000);

inline std::unique_ptr<animclient::Client> connect_client(const DaemonProcess& d,
                                                          const std::string& token = {}) {
  animclient::ClientOptions o;
  o.host = d.host();
  o.port = d.port();
  o.request_timeout = kWait;
  o.connect_timeout = kWait;
  o.auth_token = token;
  o.frame_queue_capacity = 4096;
  auto c = animclient::Client::connect(o);
  if (!c) {
    ADD_FAILURE() << "connect: " << c.error().to_string();
    return nullptr;
  }
  return std::move(c.value());
}

// Sends a request and returns the reply, failing the test on a transport error.
inline anim::v1::Reply call(animclient::Client& c, anim::v1::Request r) {
  auto reply = c.call(std::move(r), kWait);
  if (!reply) {
    ADD_FAILURE() << "call: " << reply.error().to_string();
    return {};
  }
  return reply.value();
}

// As call(), and the reply must be OK.
inline anim::v1::Reply call_ok(animclient::Client& c, anim::v1::Request r) {
  auto reply = call(c, std::move(r));
  EXPECT_EQ(reply.status().code(), anim::v1::STATUS_OK) << reply.status().message();
  return reply;
}

// Writes `text` to `path`, creating its folders (a test failure when it cannot).
inline void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  EXPECT_TRUE(out.good()) << path;
}

// Sends a request that must be refused with `code` and a message containing `message_part`
// (the field it names).
inline void expect_status(animclient::Client& c, anim::v1::Request r, anim::v1::StatusCode code,
                          const std::string& message_part) {
  const auto reply = call(c, std::move(r));
  EXPECT_EQ(reply.status().code(), code) << message_part << ": " << reply.status().message();
  EXPECT_NE(reply.status().message().find(message_part), std::string::npos)
      << reply.status().message();
}

// query_pose of character `id` at `tick` (every joint, or those named), which must answer.
inline anim::v1::QueryPoseReply pose_at(animclient::Client& c, uint32_t id, uint64_t tick,
                                        const std::vector<std::string>& joints = {}) {
  anim::v1::Request q;
  q.mutable_query_pose()->set_character_id(id);
  q.mutable_query_pose()->set_tick(tick);
  for (const auto& j : joints) q.mutable_query_pose()->add_joint_names(j);
  return call_ok(c, q).query_pose();
}

// Reads frames of `subscription` until one with tick >= last_tick arrives (or the wait
// ends). Returns them by tick.
inline std::map<uint64_t, anim::v1::StreamFrame> collect_frames(animclient::Client& c,
                                                                uint32_t subscription,
                                                                uint64_t last_tick) {
  std::map<uint64_t, anim::v1::StreamFrame> frames;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    auto f = c.next_frame(1000ms);
    if (!f) continue;
    if (f->subscription_id() != subscription) continue;
    const uint64_t tick = f->tick();
    frames[tick] = std::move(*f);
    if (tick >= last_tick) break;
  }
  return frames;
}

// query_pose of character `id` at each streamed frame's tick (those within 40 ticks of the
// newest: well inside the 60-tick default history) must give the palette the stream carried,
// bit for bit (the history re-evaluates what the tick evaluated). Returns how many frames were
// compared.
inline int expect_history_matches_stream(animclient::Client& c, uint32_t id,
                                         const std::map<uint64_t, anim::v1::StreamFrame>& frames) {
  if (frames.empty()) return 0;
  int compared = 0;
  for (const auto& [tick, frame] : frames) {
    if (tick + 40 < frames.rbegin()->first) continue;
    anim::v1::Request q;
    q.mutable_query_pose()->set_character_id(id);
    q.mutable_query_pose()->set_tick(tick);
    auto reply = call_ok(c, q);
    const auto& pose = reply.query_pose();
    const auto& streamed = frame.characters(0);
    EXPECT_EQ(pose.palette_size(), streamed.palette_size()) << "tick " << tick;
    if (pose.palette_size() != streamed.palette_size()) continue;
    EXPECT_EQ(std::memcmp(pose.palette().data(), streamed.palette().data(),
                          sizeof(float) * static_cast<size_t>(pose.palette_size())),
              0)
        << "tick " << tick;
    ++compared;
  }
  return compared;
}

// The daemon's latest completed tick, from stats.
inline uint64_t current_tick(animclient::Client& c) {
  auto s = c.stats();
  EXPECT_TRUE(s.ok());
  return s ? s->tick() : 0;
}

// The dt the daemon gave each tick it ran, for replaying it with core (tick/tick_numbering.h):
// its TickClock counts tick periods from the daemon's first tick (StatsReply.first_tick), one
// a tick; a tick after skipped numbers covers them (at most a quarter second at 60 Hz).
// Exact while the daemon dropped no time (no stall beyond that) before the replay.
class DaemonDts {
 public:
  // Positioned just before tick `from` (> first_tick), as if every tick between ran.
  DaemonDts(double rate, uint64_t first_tick, uint64_t from)
      : clock_(rate),
        max_steps_(std::max<uint64_t>(1, static_cast<uint64_t>(0.25 * rate))),
        last_(from - 1) {
    for (uint64_t t = first_tick; t < from; ++t) clock_.next();
  }
  // The dt of tick `tick` (> the last one asked for; those between were skipped).
  float dt(uint64_t tick) {
    const float d = clock_.advance(std::min(tick - last_, max_steps_));
    last_ = tick;
    return d;
  }

 private:
  anim::TickClock clock_;
  uint64_t max_steps_;
  uint64_t last_;
};

// What list_characters says of character `id` (nullopt: not listed, or the call failed).
inline std::optional<anim::v1::CharacterInfo> listed_character(animclient::Client& c, uint32_t id) {
  auto list = c.list_characters();
  EXPECT_TRUE(list.ok());
  if (!list.ok()) return std::nullopt;
  for (const auto& ch : list->characters())
    if (ch.character_id() == id) return ch;
  return std::nullopt;
}

// The daemon's first tick, from stats.
inline uint64_t first_tick(animclient::Client& c) {
  auto s = c.stats();
  EXPECT_TRUE(s.ok());
  return s ? s->first_tick() : 0;
}

// A plain blocking TCP connection for sending malformed bytes.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port, int rcvbuf = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() { close(); }
  bool ok() const { return fd_ >= 0; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // Closes with RST (SO_LINGER 0) instead of an orderly FIN.
  void abort() {
    linger lg{1, 0};
    if (fd_ >= 0) ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close();
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

  bool send_bytes(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  static std::string header(uint32_t length) {
    std::string h(4, '\0');
    for (int i = 0; i < 4; ++i) h[i] = static_cast<char>((length >> (8 * i)) & 0xff);
    return h;
  }
  bool send_request(const anim::v1::Request& r) {
    const std::string body = r.SerializeAsString();
    return send_bytes(header(static_cast<uint32_t>(body.size())) + body);
  }

  // Reads one ServerMessage (nullopt on timeout, close or a bad frame).
  std::optional<anim::v1::ServerMessage> read_message(std::chrono::milliseconds timeout = kWait) {
    std::string h;
    if (!read_exact(4, timeout, h)) return std::nullopt;
    uint32_t len = 0;
    for (int i = 0; i < 4; ++i) len |= uint32_t(uint8_t(h[i])) << (8 * i);
    std::string body;
    if (!read_exact(len, timeout, body)) return std::nullopt;
    anim::v1::ServerMessage m;
    if (!m.ParseFromString(body)) return std::nullopt;
    return m;
  }

  // True when the peer closes the connection (EOF or reset) within the timeout; any data
  // received first is discarded.
  bool wait_closed(std::chrono::milliseconds timeout = kWait) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return true;
    }
    return false;
  }

 private:
  bool read_exact(size_t n, std::chrono::milliseconds timeout, std::string& out) {
    out.resize(n);
    size_t got = 0;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (got < n) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      const ssize_t r = ::recv(fd_, out.data() + got, n - got, 0);
      if (r <= 0) return false;
      got += static_cast<size_t>(r);
    }
    return true;
  }
  int fd_ = -1;
};

// A started daemon, or a failed test (with the daemon's log).
#define ANIMD_START(daemon) \
  ASSERT_TRUE((daemon).start()) << (daemon).error() << "\n" << (daemon).log_tail()

}  // namespace animtest

#include "hostile.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>

#include "frames.h"
#include "tls_socket.h"

namespace animhostile {

namespace {

using Clock = std::chrono::steady_clock;
using Buffer = std::shared_ptr<const std::string>;

constexpr auto kConnectTimeout = std::chrono::seconds(5);
constexpr auto kMaxPollWait = std::chrono::milliseconds(50);
constexpr size_t kGarbageBurst = 1024;
constexpr size_t kMaxWriteChunk =
    256 * 1024;  // per send() call, so one socket cannot starve others
constexpr int kFloodBatch = 32;

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// One hostile connection slot: its socket (or none while waiting to reopen) and what it is
// in the middle of sending.
struct Conn {
  Kind kind = Kind::kGarbage;
  int slot = 0;
  int kind_index = 0;  // n-th slot of this kind (huge_header alternates its header on it)
  int fd = -1;
  bool connecting = false;
  bool blocked = false;            // the last send hit EAGAIN: wait for POLLOUT
  bool started = false;            // the kind's first message was queued
  std::unique_ptr<TlsSocket> tls;  // with --tls (every kind but handshake_stall)
  bool handshaking = false;        // the TLS handshake is under way
  bool tls_wants_write = false;    // ... and waits for the socket to be writable
  Clock::time_point opened{};
  Clock::time_point next_action{};  // when the kind sends again (or reopens, when fd < 0)
  Buffer out;                       // bytes being sent
  size_t out_pos = 0;
  uint64_t requests = 0;
};

class Engine {
 public:
  Engine(const Options& o, uint32_t character, const std::vector<unsigned char>& address,
         const TlsClientContext* tls, Clock::time_point start)
      : o_(o), character_(character), address_(address), tls_(tls), start_(start), rng_(o.seed) {
    std::array<int, kKindCount> per_kind{};
    for (int i = 0; i < o.hostile; ++i) {
      Conn c;
      c.kind = o.kinds[static_cast<size_t>(i) % o.kinds.size()];
      c.slot = i;
      c.kind_index = per_kind[static_cast<int>(c.kind)]++;
      c.next_action = start;
      stats(c.kind).connections++;
      conns_.push_back(std::move(c));
    }
    if (std::find(o.kinds.begin(), o.kinds.end(), Kind::kOversizedUpload) != o.kinds.end() &&
        o.hostile > 0)
      upload_ = std::make_shared<const std::string>(
          upload_frame(1, "animhostile-upload", o.upload_bytes));
  }

  HostileResult run(const std::atomic<bool>& stop) {
    std::vector<pollfd> fds;
    std::vector<size_t> index;
    while (!stop.load()) {
      const auto now = Clock::now();
      for (auto& c : conns_) {
        if (c.fd < 0 && now >= c.next_action) open(c, now);
        if (c.fd >= 0 && c.connecting && now - c.opened > kConnectTimeout) {
          stats(c.kind).connect_failed++;
          drop(c, now);
        }
        if (c.fd >= 0 && !c.connecting && !c.handshaking && !c.blocked && now >= c.next_action)
          act(c, now);
      }
      fds.clear();
      index.clear();
      auto wake = Clock::now() + kMaxPollWait;
      for (size_t i = 0; i < conns_.size(); ++i) {
        const Conn& c = conns_[i];
        if (c.fd < 0) {
          if (c.next_action != Clock::time_point::max()) wake = std::min(wake, c.next_action);
          continue;
        }
        short events = POLLRDHUP;
        if (c.handshaking) {
          events |= c.tls_wants_write ? POLLOUT : POLLIN;
        } else {
          if (reads(c.kind)) events |= POLLIN;
          if (c.connecting || c.blocked) events |= POLLOUT;
          if (!c.connecting && !c.blocked) wake = std::min(wake, c.next_action);
        }
        fds.push_back(pollfd{c.fd, events, 0});
        index.push_back(i);
      }
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
      const int timeout_ms = static_cast<int>(std::max<int64_t>(0, wait.count()));
      const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
      if (ready <= 0) continue;
      const auto after = Clock::now();
      for (size_t k = 0; k < fds.size(); ++k) {
        if (fds[k].revents == 0) continue;
        handle(conns_[index[k]], fds[k].revents, after);
      }
    }
    for (auto& c : conns_) {
      if (c.fd < 0) continue;
      if (!c.connecting) stats(c.kind).open_at_end++;
      c.tls.reset();
      ::close(c.fd);
      c.fd = -1;
    }
    return std::move(result_);
  }

 private:
  KindStats& stats(Kind k) { return result_.kinds[static_cast<int>(k)]; }
  static bool reads(Kind k) { return k != Kind::kSubscribeNoRead; }

  void open(Conn& c, Clock::time_point now) {
    if (result_.connects >= o_.max_connects) {
      c.next_action = Clock::time_point::max();
      return;
    }
    result_.connects++;
    const auto* sa = reinterpret_cast<const sockaddr*>(address_.data());
    const int fd = ::socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      stats(c.kind).connect_failed++;
      c.next_action = now + std::chrono::seconds(1);
      return;
    }
    c.fd = fd;
    c.opened = now;
    c.blocked = false;
    c.started = false;
    c.out.reset();
    c.out_pos = 0;
    c.next_action = now;
    if (::connect(fd, sa, static_cast<socklen_t>(address_.size())) == 0) {
      connected(c, now);
    } else if (errno == EINPROGRESS) {
      c.connecting = true;
    } else {
      stats(c.kind).connect_failed++;
      drop(c, now);
    }
  }

  void connected(Conn& c, Clock::time_point now) {
    c.connecting = false;
    c.opened = now;
    c.next_action = now;
    stats(c.kind).opened++;
    if (!tls_ || c.kind == Kind::kHandshakeStall) return;
    c.tls = TlsSocket::attach(*tls_, c.fd);
    if (!c.tls) {
      stats(c.kind).connect_failed++;
      drop(c, now);
      return;
    }
    c.handshaking = true;
    c.tls_wants_write = true;
    step_handshake(c, now);
  }

  // Moves the TLS handshake on; once done, the kind starts acting.
  void step_handshake(Conn& c, Clock::time_point now) {
    switch (c.tls->handshake()) {
      case TlsIo::kDone:
        c.handshaking = false;
        c.next_action = now;
        stats(c.kind).tls_handshakes++;
        return;
      case TlsIo::kWantRead:
        c.tls_wants_write = false;
        return;
      case TlsIo::kWantWrite:
        c.tls_wants_write = true;
        return;
      case TlsIo::kClosed:
        return closed_by_server(c, now, "eof during the TLS handshake");
      case TlsIo::kError:
        return closed_by_server(c, now, "TLS handshake: " + c.tls->error());
    }
  }

  // Closes our side and schedules the reopen.
  void drop(Conn& c, Clock::time_point now) {
    c.tls.reset();
    ::close(c.fd);
    c.fd = -1;
    c.connecting = false;
    c.handshaking = false;
    c.blocked = false;
    c.next_action = o_.reconnect ? now + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(o_.reconnect_delay_s))
                                 : Clock::time_point::max();
  }

  void closed_by_server(Conn& c, Clock::time_point now, std::string how) {
    KindStats& s = stats(c.kind);
    s.closed_by_server++;
    const double at = seconds(now - start_);
    const double lifetime = seconds(now - c.opened);
    if (s.first_close_s < 0) s.first_close_s = at;
    s.lifetimes_s.push_back(lifetime);
    if (result_.closes.size() < HostileResult::kMaxCloseEvents)
      result_.closes.push_back(CloseEvent{c.kind, c.slot, at, lifetime, std::move(how)});
    else
      result_.closes_not_listed++;
    drop(c, now);
  }

  void handle(Conn& c, short revents, Clock::time_point now) {
    if (c.fd < 0) return;
    if (c.connecting) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0 || (revents & (POLLERR | POLLHUP))) {
        stats(c.kind).connect_failed++;
        drop(c, now);
      } else if (revents & POLLOUT) {
        connected(c, now);
      }
      return;
    }
    if (c.handshaking) {
      if (revents & (POLLERR | POLLHUP))
        closed_by_server(c, now, "hup during the TLS handshake");
      else
        step_handshake(c, now);
      return;
    }
    if ((revents & POLLIN) && reads(c.kind)) {
      if (!drain(c, now)) return;
    }
    if (revents & (POLLERR | POLLHUP | POLLRDHUP)) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      closed_by_server(c, now,
                       err                     ? std::string("error: ") + std::strerror(err)
                       : (revents & POLLRDHUP) ? "eof"
                                               : "hup");
      return;
    }
    if ((revents & POLLOUT) && c.blocked) {
      c.blocked = false;
      flush(c, now);
    }
  }

  // Reads and discards what is there. False when the connection turned out closed.
  bool drain(Conn& c, Clock::time_point now) {
    if (c.tls) return drain_tls(c, now);
    for (int round = 0; round < 16; ++round) {
      const ssize_t n = ::recv(c.fd, scratch_, sizeof scratch_, MSG_DONTWAIT);
      if (n > 0) {
        stats(c.kind).bytes_received += static_cast<uint64_t>(n);
        continue;
      }
      if (n == 0) {
        closed_by_server(c, now, "eof");
        return false;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return true;
      closed_by_server(c, now, std::string("recv: ") + std::strerror(errno));
      return false;
    }
    return true;
  }

  bool drain_tls(Conn& c, Clock::time_point now) {
    for (int round = 0; round < 16; ++round) {
      size_t n = 0;
      switch (c.tls->read(scratch_, sizeof scratch_, n)) {
        case TlsIo::kDone:
          stats(c.kind).bytes_received += n;
          continue;
        case TlsIo::kWantRead:
        case TlsIo::kWantWrite:
          return true;
        case TlsIo::kClosed:
          closed_by_server(c, now, "eof");
          return false;
        case TlsIo::kError:
          closed_by_server(c, now, "TLS read: " + c.tls->error());
          return false;
      }
    }
    return true;
  }

  Buffer random_bytes(size_t n) {
    std::string s(n, '\0');
    for (auto& ch : s) ch = static_cast<char>(rng_() & 0xFF);
    return std::make_shared<const std::string>(std::move(s));
  }

  // The kind's next step: queue what it sends now and when it acts again, then send.
  void act(Conn& c, Clock::time_point now) {
    const bool idle = !c.out || c.out_pos >= c.out->size();
    switch (c.kind) {
      case Kind::kGarbage:
        if (idle) queue(c, random_bytes(kGarbageBurst));
        c.next_action = now + std::chrono::milliseconds(200);
        break;
      case Kind::kHugeHeader:
        if (idle) {
          if (!c.started) {
            const uint32_t length = (c.kind_index % 2 == 0) ? (64u << 20) : 0xFFFFFFFFu;
            queue(c, std::make_shared<const std::string>(frame_header(length) +
                                                         *random_bytes(kGarbageBurst)));
          } else {
            queue(c, random_bytes(kGarbageBurst));
          }
        }
        c.next_action = now + std::chrono::seconds(1);
        break;
      case Kind::kSlowloris:
        if (idle) queue(c, std::make_shared<const std::string>(stats_frame(++c.requests)));
        c.next_action = now + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(o_.slowloris_interval_s));
        break;
      case Kind::kSubscribeNoRead:
        if (!c.started) queue(c, std::make_shared<const std::string>(subscribe_all_frame(1)));
        c.next_action = Clock::time_point::max();
        break;
      case Kind::kQueryFlood:
        if (idle) {
          std::string batch;
          for (int i = 0; i < kFloodBatch; ++i) {
            const uint64_t id = ++c.requests;
            switch (id % 3) {
              case 0:
                batch += query_pose_frame(id, character_);
                break;
              case 1:
                batch += stats_frame(id);
                break;
              default:
                batch += list_characters_frame(id);
                break;
            }
          }
          queue(c, std::make_shared<const std::string>(std::move(batch)));
        }
        c.next_action = now;
        break;
      case Kind::kOversizedUpload:
        if (idle && upload_) queue(c, upload_);
        c.next_action = now;  // re-armed with the interval once the upload is out (flush)
        break;
      case Kind::kHandshakeStall:
        // A TLS record header (handshake, 512 bytes to follow) and nothing more.
        if (!c.started)
          queue(c, std::make_shared<const std::string>(std::string("\x16\x03\x01\x02\x00", 5)));
        c.next_action = Clock::time_point::max();
        break;
    }
    c.started = true;
    flush(c, now);
  }

  void queue(Conn& c, Buffer b) {
    c.out = std::move(b);
    c.out_pos = 0;
  }

  void flush(Conn& c, Clock::time_point now) {
    if (!c.out) return;
    // Slowloris sends one byte per step; everything else as much as the socket takes.
    const size_t limit = c.kind == Kind::kSlowloris ? 1 : kMaxWriteChunk;
    size_t budget = c.kind == Kind::kSlowloris ? 1 : 4 * kMaxWriteChunk;
    while (c.out_pos < c.out->size() && budget > 0) {
      const size_t n = std::min({c.out->size() - c.out_pos, limit, budget});
      if (c.tls) {
        if (!send_tls(c, n, budget, now)) return;
        continue;
      }
      const ssize_t sent = ::send(c.fd, c.out->data() + c.out_pos, n, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (sent > 0) {
        c.out_pos += static_cast<size_t>(sent);
        budget -= static_cast<size_t>(sent);
        stats(c.kind).bytes_sent += static_cast<uint64_t>(sent);
        continue;
      }
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        c.blocked = true;
        return;
      }
      if (sent < 0 && errno == EINTR) continue;
      closed_by_server(c, now, std::string("send: ") + std::strerror(errno));
      return;
    }
    if (c.out_pos >= c.out->size() && c.kind == Kind::kOversizedUpload)
      c.next_action = now + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(o_.upload_interval_s));
  }

  // One TLS write of up to n bytes of c.out. False when the caller must stop (blocked or
  // closed).
  bool send_tls(Conn& c, size_t n, size_t& budget, Clock::time_point now) {
    size_t sent = 0;
    switch (c.tls->write(c.out->data() + c.out_pos, n, sent)) {
      case TlsIo::kDone:
        c.out_pos += sent;
        budget -= std::min(budget, sent);
        stats(c.kind).bytes_sent += sent;
        return true;
      case TlsIo::kWantRead:
      case TlsIo::kWantWrite:
        c.blocked = true;
        return false;
      case TlsIo::kClosed:
        closed_by_server(c, now, "eof");
        return false;
      case TlsIo::kError:
        closed_by_server(c, now, "TLS write: " + c.tls->error());
        return false;
    }
    return false;
  }

  const Options& o_;
  uint32_t character_;
  const std::vector<unsigned char>& address_;
  const TlsClientContext* tls_;  // null without --tls
  Clock::time_point start_;
  std::mt19937_64 rng_;
  std::vector<Conn> conns_;
  Buffer upload_;
  HostileResult result_;
  char scratch_[64 * 1024];
};

}  // namespace

HostileLoad::HostileLoad(const Options& options, uint32_t query_character_id)
    : options_(options), query_character_id_(query_character_id) {}

HostileLoad::~HostileLoad() = default;

bool HostileLoad::resolve(std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const std::string port = std::to_string(options_.port);
  if (int rc = ::getaddrinfo(options_.host.c_str(), port.c_str(), &hints, &list); rc != 0) {
    error = "cannot resolve '" + options_.host + "': " + ::gai_strerror(rc);
    return false;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(list->ai_addr);
  address_.assign(bytes, bytes + list->ai_addrlen);
  ::freeaddrinfo(list);
  return true;
}

bool HostileLoad::setup_tls(std::string& error) {
  if (!options_.tls.tls) return true;
  tls_ = TlsClientContext::create(error);
  return tls_ != nullptr;
}

HostileResult HostileLoad::run(const std::atomic<bool>& stop, Clock::time_point start) {
  auto engine =
      std::make_unique<Engine>(options_, query_character_id_, address_, tls_.get(), start);
  return engine->run(stop);
}

}  // namespace animhostile

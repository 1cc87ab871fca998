#pragma once
// Test helpers: a blocking Beast HTTP client for loopback requests, a raw connection that
// sends what a hostile client sends (nothing, or half a request), and an io_context run on a
// background thread for the code under test.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace opstest {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct HttpResult {
  int status = 0;  // 0 = transport error (see error)
  std::string content_type;
  std::string allow;
  std::string body;
  std::string error;
};

// One request on a fresh connection (Connection: close), with Host `host`. Times out after
// 10 s so a broken server fails the test instead of hanging it.
inline HttpResult http_request(uint16_t port, http::verb method, const std::string& target,
                               const std::string& body = {},
                               const std::string& host = "127.0.0.1") {
  HttpResult out;
  asio::io_context io;
  beast::tcp_stream stream(io);
  beast::error_code ec;
  stream.expires_after(std::chrono::seconds(10));
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) {
    out.error = "connect: " + ec.message();
    return out;
  }
  http::request<http::string_body> req{method, target, 11};
  req.set(http::field::host, host);
  req.keep_alive(false);
  if (!body.empty()) req.body() = body;
  req.prepare_payload();
  http::write(stream, req, ec);
  if (ec) {
    out.error = "write: " + ec.message();
    return out;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.skip(method == http::verb::head);  // a HEAD response has headers only
  http::read(stream, buffer, parser, ec);
  if (ec) {
    out.error = "read: " + ec.message();
    return out;
  }
  const auto& res = parser.get();
  out.status = res.result_int();
  out.content_type = std::string(res[http::field::content_type]);
  out.allow = std::string(res[http::field::allow]);
  out.body = res.body();
  return out;
}

inline HttpResult http_get(uint16_t port, const std::string& target) {
  return http_request(port, http::verb::get, target);
}

inline HttpResult http_get_host(uint16_t port, const std::string& target, const std::string& host) {
  return http_request(port, http::verb::get, target, {}, host);
}

// A TCP connection to 127.0.0.1:port that sends only what the test tells it to.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(RawConnection&& o) noexcept : fd_(o.fd_), received_(std::move(o.received_)) {
    o.fd_ = -1;
  }
  RawConnection& operator=(RawConnection&& o) noexcept {
    std::swap(fd_, o.fd_);
    std::swap(received_, o.received_);
    return *this;
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  bool send(std::string_view bytes) {
    return fd_ >= 0 && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                           static_cast<ssize_t>(bytes.size());
  }
  // Whether the server closed the connection (end of stream or reset), waiting at most
  // `limit` for it; bytes it sent before are kept in received(). A bound, not a deadline the
  // server must meet.
  bool closed_within(std::chrono::milliseconds limit) {
    if (fd_ < 0) return true;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return false;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) {
        received_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      return true;  // 0: end of stream; < 0: reset
    }
  }
  const std::string& received() const { return received_; }

 private:
  int fd_ = -1;
  std::string received_;
};

// Runs an io_context on one background thread until destroyed.
class IoThread {
 public:
  IoThread() : work_(asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~IoThread() {
    work_.reset();
    io_.stop();
    thread_.join();
  }
  asio::io_context& io() { return io_; }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace opstest

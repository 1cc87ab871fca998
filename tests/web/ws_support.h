#pragma once
// A blocking Beast WebSocket client for the tests of animd's WebSocket endpoint (/ws on the
// HTTP port): one binary message = one serialized Request / ServerMessage. Every read is
// bounded (a socket receive timeout), so a broken daemon fails a test instead of hanging it.

#include <sys/socket.h>
#include <sys/time.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "anim/v1/envelope.pb.h"
#include "daemon_process.h"

namespace wstest {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// A daemon with its HTTP port (the viewer, /ws) on an ephemeral port, read from
// --http-port-file once the daemon has written it.
class WebDaemon {
 public:
  explicit WebDaemon(std::vector<std::string> args = {}) {
    port_path_ = dir_.path() / "http-port";
    std::vector<std::string> a = {"--http-port", "0", "--http-port-file", port_path_.string()};
    a.insert(a.end(), args.begin(), args.end());
    daemon_ = std::make_unique<animtest::DaemonProcess>(std::move(a));
  }
  bool start() {
    if (!daemon_->start()) return false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream f(port_path_);
      int p = 0;
      if (f >> p && p > 0 && p < 65536) {
        http_port_ = static_cast<uint16_t>(p);
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  animtest::DaemonProcess& process() { return *daemon_; }
  uint16_t http_port() const { return http_port_; }

 private:
  animtest::TempDir dir_{"animd-web"};
  std::filesystem::path port_path_;
  std::unique_ptr<animtest::DaemonProcess> daemon_;
  uint16_t http_port_ = 0;
};

// The HTTP answer to a WebSocket upgrade request at /ws (with `origin` unless empty): what a
// refused upgrade says. Status 0: transport error.
struct Refusal {
  unsigned status = 0;
  std::string body;
};
inline Refusal refused_upgrade(uint16_t port, const std::string& origin) {
  Refusal out;
  asio::io_context io;
  beast::tcp_stream stream(io);
  beast::error_code ec;
  stream.expires_after(std::chrono::seconds(20));
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) return out;
  http::request<http::string_body> req{http::verb::get, "/ws", 11};
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  req.set(http::field::connection, "Upgrade");
  req.set(http::field::upgrade, "websocket");
  req.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  req.set(http::field::sec_websocket_version, "13");
  if (!origin.empty()) req.set(http::field::origin, origin);
  http::write(stream, req, ec);
  if (ec) return out;
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res, ec);
  if (ec) return out;
  out.status = res.result_int();
  out.body = res.body();
  return out;
}

// Upgrades at /ws by hand, sends `bytes` raw (not framed by a client library), and returns
// what the daemon sent back until it closed (empty on a transport error before that).
inline std::string raw_after_upgrade(uint16_t port, const std::string& bytes) {
  asio::io_context io;
  beast::tcp_stream stream(io);
  beast::error_code ec;
  stream.expires_after(std::chrono::seconds(20));
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) return {};
  http::request<http::string_body> req{http::verb::get, "/ws", 11};
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  req.set(http::field::connection, "Upgrade");
  req.set(http::field::upgrade, "websocket");
  req.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  req.set(http::field::sec_websocket_version, "13");
  http::write(stream, req, ec);
  beast::flat_buffer buffer;
  http::response_parser<http::empty_body> res;
  res.skip(true);  // a 101 has no body
  http::read_header(stream, buffer, res, ec);
  if (ec || res.get().result() != http::status::switching_protocols) return {};
  asio::write(stream, asio::buffer(bytes), ec);
  std::string out = beast::buffers_to_string(buffer.data());
  char chunk[4096];
  for (;;) {
    const size_t n = stream.read_some(asio::buffer(chunk), ec);
    out.append(chunk, n);
    if (ec) break;
  }
  return out;
}

class WsClient {
 public:
  // Connects and upgrades at `target` with the given Origin (none when empty). ok() says
  // whether the upgrade was accepted (refused_upgrade() shows the answer to a refused one).
  // receive_buffer > 0 sets the socket's receive buffer first (a reader that falls behind
  // fills it quickly).
  WsClient(uint16_t port, const std::string& origin = {}, const std::string& target = "/ws",
           int receive_buffer = 0)
      : ws_(io_) {
    beast::error_code ec;
    auto& sock = ws_.next_layer();
    if (receive_buffer > 0) {
      sock.open(tcp::v4(), ec);
      if (!ec) sock.set_option(asio::socket_base::receive_buffer_size(receive_buffer), ec);
      if (ec) {
        error_ = "socket: " + ec.message();
        return;
      }
    }
    sock.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
    if (ec) {
      error_ = "connect: " + ec.message();
      return;
    }
    timeval tv{20, 0};
    ::setsockopt(sock.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ws_.binary(true);
    ws_.set_option(websocket::stream_base::decorator([origin](websocket::request_type& req) {
      if (!origin.empty()) req.set(http::field::origin, origin);
    }));
    ws_.handshake("127.0.0.1:" + std::to_string(port), target, ec);
    if (ec) {
      error_ = "handshake: " + ec.message();
      return;
    }
    ok_ = true;
  }

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }

  bool send(const anim::v1::Request& r) { return send_binary(r.SerializeAsString()); }
  bool send_binary(const std::string& bytes) {
    beast::error_code ec;
    ws_.binary(true);
    ws_.write(asio::buffer(bytes), ec);
    return !ec;
  }
  bool send_text(const std::string& text) {
    beast::error_code ec;
    ws_.text(true);
    ws_.write(asio::buffer(text), ec);
    ws_.binary(true);
    return !ec;
  }

  // The next message, parsed; nullopt on close (close_reason() then says why), timeout or
  // a message that is not a ServerMessage.
  std::optional<anim::v1::ServerMessage> read() {
    beast::flat_buffer buf;
    beast::error_code ec;
    ws_.read(buf, ec);
    if (ec) {
      read_error_ = ec;
      return std::nullopt;
    }
    anim::v1::ServerMessage m;
    if (!ws_.got_binary() || !m.ParseFromString(beast::buffers_to_string(buf.data())))
      return std::nullopt;
    return m;
  }
  // The next reply (stream frames in between are skipped).
  std::optional<anim::v1::Reply> reply() {
    for (int i = 0; i < 10000; ++i) {
      auto m = read();
      if (!m) return std::nullopt;
      if (m->has_reply()) return m->reply();
    }
    return std::nullopt;
  }
  std::optional<anim::v1::Reply> call(anim::v1::Request r) {
    if (!send(r)) return std::nullopt;
    return reply();
  }
  // Reads until the daemon closes; true when it sent a close frame (code(), reason()).
  bool wait_closed() {
    for (int i = 0; i < 100000; ++i) {
      if (read()) continue;
      return read_error_ == websocket::error::closed;
    }
    return false;
  }
  uint16_t close_code() const { return ws_.reason().code; }
  std::string close_reason() const { return std::string(ws_.reason().reason.c_str()); }
  beast::error_code read_error() const { return read_error_; }

 private:
  asio::io_context io_;
  websocket::stream<tcp::socket> ws_;
  bool ok_ = false;
  std::string error_;
  beast::error_code read_error_;
};

}  // namespace wstest

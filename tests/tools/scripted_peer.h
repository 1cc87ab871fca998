#pragma once
// A scripted TCP peer on 127.0.0.1 for libanimclient's transport tests: it accepts one
// connection and runs a script (read requests, answer in any order, send garbage, close).
// It stands in for the daemon only for cases the real daemon never produces on purpose
// (out-of-order replies, oversized or unparsable frames, silence).

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "anim/v1/envelope.pb.h"

namespace animtest {

class ScriptedPeer {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  using Script = std::function<void(Socket&)>;

  explicit ScriptedPeer(Script script)
      : acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this, script = std::move(script)] {
      Socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (!ec) script(socket);
      // Leaving the script closes the connection.
    });
  }
  ~ScriptedPeer() { thread_.join(); }
  ScriptedPeer(const ScriptedPeer&) = delete;
  ScriptedPeer& operator=(const ScriptedPeer&) = delete;

  uint16_t port() const { return port_; }

  // One request frame from the client; nullopt when the client closed or sent no Request.
  static std::optional<anim::v1::Request> read_request(Socket& socket) {
    std::array<uint8_t, 4> header{};
    boost::system::error_code ec;
    boost::asio::read(socket, boost::asio::buffer(header), ec);
    if (ec) return std::nullopt;
    const uint32_t n =
        header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
    std::string body(n, '\0');
    boost::asio::read(socket, boost::asio::buffer(body), ec);
    anim::v1::Request request;
    if (ec || !request.ParseFromString(body)) return std::nullopt;
    return request;
  }

  // Writes a length header for `n` bytes followed by `body` (which may differ from n on purpose).
  static bool write_raw(Socket& socket, uint32_t n, const std::string& body) {
    std::string bytes(4, '\0');
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    bytes += body;
    boost::system::error_code ec;
    boost::asio::write(socket, boost::asio::buffer(bytes), ec);
    return !ec;
  }

  static bool write_message(Socket& socket, const anim::v1::ServerMessage& message) {
    const std::string body = message.SerializeAsString();
    return write_raw(socket, static_cast<uint32_t>(body.size()), body);
  }

  // `message` as the wire carries it (length header, then the message), to be written in any
  // pieces.
  static std::string framed(const anim::v1::ServerMessage& message) {
    const std::string body = message.SerializeAsString();
    std::string bytes(4, '\0');
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>((body.size() >> (8 * i)) & 0xff);
    return bytes + body;
  }

  // An OK reply to `request_id` (the caller fills the result).
  static anim::v1::ServerMessage ok_reply(uint64_t request_id) {
    anim::v1::ServerMessage message;
    message.mutable_reply()->set_request_id(request_id);
    message.mutable_reply()->mutable_status()->set_code(anim::v1::STATUS_OK);
    return message;
  }

  static anim::v1::ServerMessage frame(uint64_t tick) {
    anim::v1::ServerMessage message;
    message.mutable_frame()->set_subscription_id(1);
    message.mutable_frame()->set_tick(tick);
    return message;
  }

  // Blocks until the client closes the connection (reads and discards what it sends).
  static void wait_for_close(Socket& socket) {
    while (read_request(socket)) {
    }
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace animtest

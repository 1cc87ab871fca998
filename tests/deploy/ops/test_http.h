#pragma once
// Test helpers: a blocking Beast HTTP client for loopback requests, and an io_context run
// on a background thread for the code under test.

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

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

// One request on a fresh connection (Connection: close). Times out after 10 s so a broken
// server fails the test instead of hanging it.
inline HttpResult http_request(uint16_t port, http::verb method, const std::string& target,
                               const std::string& body = {}) {
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
  req.set(http::field::host, "127.0.0.1");
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

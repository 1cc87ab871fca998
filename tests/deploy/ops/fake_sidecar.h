#pragma once
// A small HTTP server on loopback standing in for the Agones SDK sidecar: it records every
// request (method, path, content type, body, arrival time) and answers with a status chosen
// per path.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_http.h"

namespace opstest {

struct RecordedCall {
  std::string method;
  std::string path;
  std::string content_type;
  std::string body;
  std::chrono::steady_clock::time_point at;  // when the request had been read
};

class FakeSidecar {
 public:
  FakeSidecar() : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeSidecar() {
    stopping_ = true;
    beast::error_code ignored;
    // Wake the blocking accept with a connection of our own.
    tcp::socket poke(io_);
    poke.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_), ignored);
    thread_.join();
  }

  uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // The next `n` requests to `path` get `status` (then 200 again).
  void fail_next(const std::string& path, int n, http::status status) {
    std::lock_guard lock(mu_);
    failures_[path] = {n, status};
  }

  std::vector<RecordedCall> calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  size_t count(const std::string& path) const {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (const auto& c : calls_) n += c.path == path;
    return n;
  }
  // The calls to `path`, in arrival order.
  std::vector<RecordedCall> calls_to(const std::string& path) const {
    std::lock_guard lock(mu_);
    std::vector<RecordedCall> out;
    for (const auto& c : calls_)
      if (c.path == path) out.push_back(c);
    return out;
  }

  // Polls `pred` until it holds, up to 20 s (a broken client then fails instead of
  // hanging the test). Polling, because some conditions concern the client's own state,
  // which changes after the sidecar has answered.
  static bool wait_until(const std::function<bool()>& pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!pred()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

 private:
  void serve() {
    while (!stopping_) {
      tcp::socket socket(io_);
      beast::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) continue;
      beast::flat_buffer buffer;
      http::request<http::string_body> req;
      http::read(socket, buffer, req, ec);
      if (ec) continue;
      http::status status = http::status::ok;
      {
        std::lock_guard lock(mu_);
        const std::string path(req.target());
        calls_.push_back({std::string(req.method_string()), path,
                          std::string(req[http::field::content_type]), req.body(),
                          std::chrono::steady_clock::now()});
        if (auto it = failures_.find(path); it != failures_.end() && it->second.first > 0) {
          --it->second.first;
          status = it->second.second;
        }
      }
      http::response<http::string_body> res{status, 11};
      res.set(http::field::content_type, "application/json");
      res.body() = "{}";
      res.keep_alive(false);
      res.prepare_payload();
      http::write(socket, res, ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
    }
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<RecordedCall> calls_;
  std::map<std::string, std::pair<int, http::status>> failures_;
};

}  // namespace opstest

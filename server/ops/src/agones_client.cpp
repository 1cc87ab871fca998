#include "animops/agones_client.h"

#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <mutex>

#include <spdlog/spdlog.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace animops {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string default_agones_sdk_url() {
  std::string port = "9358";
  if (const char* env = std::getenv("AGONES_SDK_HTTP_PORT"); env && *env) port = env;
  return "http://127.0.0.1:" + port;
}

bool parse_http_url(const std::string& url, std::string* host, uint16_t* port) {
  constexpr std::string_view scheme = "http://";
  std::string_view rest(url);
  if (rest.substr(0, scheme.size()) != scheme) return false;
  rest.remove_prefix(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  std::string_view h;
  std::string_view p;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
      return false;
    h = rest.substr(1, close - 1);
    p = rest.substr(close + 2);
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) return false;
    h = rest.substr(0, colon);
    p = rest.substr(colon + 1);
  }
  const bool bracketed = rest.front() == '[';
  if (h.empty() || p.empty()) return false;
  // Paths, queries and user info are not supported; an unbracketed host has no ':'.
  if (h.find_first_of(bracketed ? "/?#@[]" : "/:?#@[]") != std::string_view::npos) return false;
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), value);
  if (ec != std::errc{} || end != p.data() + p.size() || value == 0 || value > 65535) return false;
  *host = std::string(h);
  *port = static_cast<uint16_t>(value);
  return true;
}

namespace {

// One POST with an empty JSON object body; calls `done(ok, error)` once.
class PostOp : public std::enable_shared_from_this<PostOp> {
 public:
  using Done = std::function<void(bool ok, const std::string& error)>;

  PostOp(asio::io_context& io, std::string host, uint16_t port, std::string path,
         std::chrono::milliseconds timeout, Done done)
      : resolver_(asio::make_strand(io)),
        stream_(resolver_.get_executor()),
        host_(std::move(host)),
        port_(port),
        timeout_(timeout),
        done_(std::move(done)) {
    req_.method(http::verb::post);
    req_.target(path);
    req_.version(11);
    req_.set(http::field::host, host_ + ":" + std::to_string(port_));
    req_.set(http::field::user_agent, "animd");
    req_.set(http::field::content_type, "application/json");
    req_.keep_alive(false);
    req_.body() = "{}";
    req_.prepare_payload();
  }

  void run() {
    resolver_.async_resolve(
        host_, std::to_string(port_),
        [self = shared_from_this()](beast::error_code ec, tcp::resolver::results_type results) {
          if (ec) return self->finish(false, "resolve: " + ec.message());
          self->connect(results);
        });
  }

 private:
  void connect(const tcp::resolver::results_type& results) {
    stream_.expires_after(timeout_);
    stream_.async_connect(
        results, [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
          if (ec) return self->finish(false, "connect: " + ec.message());
          self->stream_.expires_after(self->timeout_);
          http::async_write(self->stream_, self->req_, [self](beast::error_code wec, size_t) {
            if (wec) return self->finish(false, "write: " + wec.message());
            self->read();
          });
        });
  }

  void read() {
    stream_.expires_after(timeout_);
    parser_.body_limit(64 * 1024);
    http::async_read(
        stream_, buffer_, parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
          if (ec) return self->finish(false, "read: " + ec.message());
          const auto& res = self->parser_.get();
          const unsigned code = res.result_int();
          if (code < 200 || code >= 300) {
            return self->finish(false,
                                "HTTP " + std::to_string(code) + " " + std::string(res.reason()));
          }
          self->finish(true, {});
        });
  }

  void finish(bool ok, const std::string& error) {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
    if (done_) {
      auto done = std::move(done_);
      done_ = nullptr;
      done(ok, error);
    }
  }

  tcp::resolver resolver_;
  beast::tcp_stream stream_;
  std::string host_;
  uint16_t port_;
  std::chrono::milliseconds timeout_;
  Done done_;
  http::request<http::string_body> req_;
  beast::flat_buffer buffer_;
  http::response_parser<http::string_body> parser_;
};

}  // namespace

struct AgonesClient::State : std::enable_shared_from_this<AgonesClient::State> {
  State(asio::io_context& io_in, AgonesOptions o, std::function<bool()> h)
      : io(io_in), options(std::move(o)), healthy(std::move(h)), timer(asio::make_strand(io)) {}

  asio::io_context& io;
  AgonesOptions options;
  std::function<bool()> healthy;
  asio::steady_timer timer;
  std::string host;
  uint16_t port = 0;
  std::atomic<bool> stopped{false};
  std::atomic<bool> ready_ok{false};
  std::atomic<uint64_t> health_ok{0};
  std::atomic<uint64_t> failures{0};
  // Failures are logged when the streak starts and then every 12th, so a missing sidecar
  // does not flood the log at one line per interval.
  std::atomic<uint64_t> failure_streak{0};
  // A /ready or /health request is under way; shutdown() lets it finish first so that the
  // sidecar never sees a ping after /shutdown.
  std::mutex flight_mu;
  std::condition_variable flight_cv;
  bool in_flight = false;

  // Marks a request under way unless stopped; under the lock, so that shutdown() either
  // waits for this request or the request is never sent.
  bool begin_flight() {
    std::lock_guard lock(flight_mu);
    if (stopped.load()) return false;
    in_flight = true;
    return true;
  }
  void end_flight() {
    {
      std::lock_guard lock(flight_mu);
      in_flight = false;
    }
    flight_cv.notify_all();
  }
  void stop() {
    std::lock_guard lock(flight_mu);
    stopped.store(true);
  }

  void note_failure(const char* path, const std::string& error) {
    failures.fetch_add(1);
    if (failure_streak.fetch_add(1) % 12 == 0) {
      spdlog::warn("agones: POST {} to {}:{} failed: {}", path, host, port, error);
    }
  }

  void step() {
    if (stopped.load()) return;
    auto self = shared_from_this();
    if (!ready_ok.load()) {
      if (!begin_flight()) return;
      std::make_shared<PostOp>(io, host, port, "/ready", options.request_timeout,
                               [self](bool ok, const std::string& error) {
                                 self->end_flight();
                                 if (ok) {
                                   self->ready_ok.store(true);
                                   self->failure_streak.store(0);
                                   spdlog::info("agones: ready acknowledged by the SDK sidecar");
                                   return self->step();  // first health ping right away
                                 }
                                 self->note_failure("/ready", error);
                                 self->schedule();
                               })
          ->run();
      return;
    }
    if (healthy && !healthy()) {
      // Deliberately silent towards Agones: a missed ping is how it learns we are stuck.
      return schedule();
    }
    if (!begin_flight()) return;
    std::make_shared<PostOp>(io, host, port, "/health", options.request_timeout,
                             [self](bool ok, const std::string& error) {
                               self->end_flight();
                               if (ok) {
                                 self->health_ok.fetch_add(1);
                                 self->failure_streak.store(0);
                               } else {
                                 self->note_failure("/health", error);
                               }
                               self->schedule();
                             })
        ->run();
  }

  void schedule() {
    if (stopped.load()) return;
    asio::post(timer.get_executor(), [self = shared_from_this()] {
      if (self->stopped.load()) return;
      self->timer.expires_after(self->options.health_interval);
      self->timer.async_wait([self](beast::error_code ec) {
        if (!ec) self->step();
      });
    });
  }
};

AgonesClient::AgonesClient(asio::io_context& io, AgonesOptions options,
                           std::function<bool()> healthy)
    : state_(std::make_shared<State>(io, std::move(options), std::move(healthy))) {
  if (state_->options.sdk_url.empty()) state_->options.sdk_url = default_agones_sdk_url();
}

AgonesClient::~AgonesClient() {
  state_->stop();
  asio::post(state_->timer.get_executor(), [st = state_] { st->timer.cancel(); });
}

std::string AgonesClient::start() {
  if (!parse_http_url(state_->options.sdk_url, &state_->host, &state_->port)) {
    return "agones: bad SDK URL '" + state_->options.sdk_url + "' (want http://HOST:PORT)";
  }
  if (state_->options.health_interval.count() <= 0) {
    return "agones: health interval must be > 0";
  }
  spdlog::info("agones: SDK sidecar at {}, health every {} ms", state_->options.sdk_url,
               state_->options.health_interval.count());
  asio::post(state_->timer.get_executor(), [st = state_] { st->step(); });
  return {};
}

void AgonesClient::stop() {
  state_->stop();
  asio::post(state_->timer.get_executor(), [st = state_] { st->timer.cancel(); });
}

bool AgonesClient::shutdown() {
  stop();
  if (state_->port == 0) return false;  // never started
  // Let a request under way finish (it is bounded by its own timeouts), unless the daemon's
  // io_context no longer runs, or we are on one of its threads (the daemon's drain calls us
  // there): then it may never finish while we wait.
  if (!state_->io.get_executor().running_in_this_thread()) {
    std::unique_lock lock(state_->flight_mu);
    const auto limit = state_->options.request_timeout * 3 + std::chrono::milliseconds(100);
    state_->flight_cv.wait_for(lock, limit,
                               [&] { return !state_->in_flight || state_->io.stopped(); });
  }
  // A private io_context: the daemon's may already be draining or stopped.
  asio::io_context io;
  bool accepted = false;
  std::make_shared<PostOp>(io, state_->host, state_->port, "/shutdown",
                           state_->options.request_timeout,
                           [&](bool ok, const std::string& error) {
                             accepted = ok;
                             if (ok) {
                               spdlog::info("agones: shutdown acknowledged");
                             } else {
                               spdlog::warn("agones: POST /shutdown failed: {}", error);
                             }
                           })
      ->run();
  io.run();
  return accepted;
}

bool AgonesClient::ready_acknowledged() const {
  return state_->ready_ok.load();
}
uint64_t AgonesClient::health_pings_acknowledged() const {
  return state_->health_ok.load();
}
uint64_t AgonesClient::failures() const {
  return state_->failures.load();
}

}  // namespace animops

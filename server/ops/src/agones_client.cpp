#include "animops/agones_client.h"

#include <algorithm>
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

bool valid_agones_counter_name(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

std::string check_agones_options(const AgonesOptions& options) {
  const std::string url = options.sdk_url.empty() ? default_agones_sdk_url() : options.sdk_url;
  std::string host;
  uint16_t port = 0;
  if (!parse_http_url(url, &host, &port)) {
    return "agones: bad SDK URL '" + url + "' (want http://HOST:PORT)";
  }
  if (options.health_interval.count() <= 0) return "agones: health interval must be > 0";
  if (options.request_timeout.count() <= 0) return "agones: request timeout must be > 0";
  if (options.counter.empty()) return {};
  if (!valid_agones_counter_name(options.counter)) {
    return "agones: bad counter name '" + options.counter +
           "' (1 to 63 letters, digits, '.', '_', '-')";
  }
  if (options.counter_capacity < 0) return "agones: counter capacity must be >= 0";
  if (!options.counter_count) return "agones: counter '" + options.counter + "' has no count";
  if (options.counter_interval.count() <= 0) return "agones: counter interval must be > 0";
  return {};
}

namespace {

// One request with a JSON body; calls `done(ok, error)` once (ok = a 2xx answer).
class HttpOp : public std::enable_shared_from_this<HttpOp> {
 public:
  using Done = std::function<void(bool ok, const std::string& error)>;

  HttpOp(asio::io_context& io, std::string host, uint16_t port, http::verb method, std::string path,
         std::string body, std::chrono::milliseconds timeout, Done done)
      : resolver_(asio::make_strand(io)),
        stream_(resolver_.get_executor()),
        host_(std::move(host)),
        port_(port),
        timeout_(timeout),
        done_(std::move(done)) {
    req_.method(method);
    req_.target(path);
    req_.version(11);
    req_.set(http::field::host, host_ + ":" + std::to_string(port_));
    req_.set(http::field::user_agent, "animd");
    req_.set(http::field::content_type, "application/json");
    req_.keep_alive(false);
    req_.body() = std::move(body);
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
      : io(io_in),
        options(std::move(o)),
        healthy(std::move(h)),
        timer(asio::make_strand(io)),
        counter_timer(timer.get_executor()) {}

  asio::io_context& io;
  AgonesOptions options;
  std::function<bool()> healthy;
  // Both timers share one strand: every callback that touches the timers or the counter
  // state below runs there.
  asio::steady_timer timer;          // the ready/health loop
  asio::steady_timer counter_timer;  // the counter loop
  std::string host;
  uint16_t port = 0;
  std::atomic<bool> stopped{false};
  std::atomic<bool> ready_ok{false};
  std::atomic<uint64_t> health_ok{0};
  std::atomic<uint64_t> failures{0};
  // Failures are logged when the streak starts and then every 12th, so a missing sidecar
  // does not flood the log at one line per interval.
  std::atomic<uint64_t> failure_streak{0};
  // The counter loop: the count the sidecar last accepted (none yet: -1), and its own
  // failure streak, logged when it starts and then every 60th failure.
  int64_t counter_acked = -1;
  std::atomic<uint64_t> counter_ok{0};
  std::atomic<uint64_t> counter_failed{0};
  uint64_t counter_failure_streak = 0;
  // Requests under way; shutdown() lets them finish first so that the sidecar never sees a
  // ping or a counter update after /shutdown.
  std::mutex flight_mu;
  std::condition_variable flight_cv;
  int in_flight = 0;

  // Marks a request under way unless stopped; under the lock, so that shutdown() either
  // waits for this request or the request is never sent.
  bool begin_flight() {
    std::lock_guard lock(flight_mu);
    if (stopped.load()) return false;
    ++in_flight;
    return true;
  }
  void end_flight() {
    {
      std::lock_guard lock(flight_mu);
      --in_flight;
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

  void post(const char* path, HttpOp::Done done) {
    std::make_shared<HttpOp>(io, host, port, http::verb::post, path, "{}", options.request_timeout,
                             std::move(done))
        ->run();
  }

  void step() {
    if (stopped.load()) return;
    auto self = shared_from_this();
    if (!ready_ok.load()) {
      if (!begin_flight()) return;
      post("/ready", [self](bool ok, const std::string& error) {
        self->end_flight();
        if (ok) {
          self->ready_ok.store(true);
          self->failure_streak.store(0);
          spdlog::info("agones: ready acknowledged by the SDK sidecar");
          if (!self->options.counter.empty()) {
            asio::post(self->timer.get_executor(), [self] { self->counter_step(); });
          }
          return self->step();  // first health ping right away
        }
        self->note_failure("/ready", error);
        self->schedule();
      });
      return;
    }
    if (healthy && !healthy()) {
      // Deliberately silent towards Agones: a missed ping is how it learns we are stuck.
      return schedule();
    }
    if (!begin_flight()) return;
    post("/health", [self](bool ok, const std::string& error) {
      self->end_flight();
      if (ok) {
        self->health_ok.fetch_add(1);
        self->failure_streak.store(0);
      } else {
        self->note_failure("/health", error);
      }
      self->schedule();
    });
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

  // On the strand. Sends the count when it differs from the last accepted one, then waits
  // an interval (after the answer, when a request was sent) and looks again.
  void counter_step() {
    if (stopped.load()) return;
    const int64_t capacity = options.counter_capacity;
    const int64_t count = std::clamp<int64_t>(options.counter_count(), 0, capacity);
    if (count == counter_acked) return counter_schedule();
    if (!begin_flight()) return;
    std::string body = R"({"count":")" + std::to_string(count) + R"(","capacity":")" +
                       std::to_string(capacity) + R"("})";
    auto self = shared_from_this();
    std::make_shared<HttpOp>(
        io, host, port, http::verb::patch, "/v1beta1/counters/" + options.counter, std::move(body),
        options.request_timeout,
        [self, count](bool ok, const std::string& error) {
          self->end_flight();
          asio::post(self->timer.get_executor(), [self, count, ok, error] {
            if (ok) {
              self->counter_acked = count;
              self->counter_ok.fetch_add(1);
              self->counter_failure_streak = 0;
            } else {
              self->counter_failed.fetch_add(1);
              if (self->counter_failure_streak++ % 60 == 0) {
                spdlog::warn(
                    "agones: PATCH /v1beta1/counters/{} to {}:{} failed: {} (retried every {} "
                    "ms; is the Counter declared in the GameServer spec?)",
                    self->options.counter, self->host, self->port, error,
                    self->options.counter_interval.count());
              }
            }
            self->counter_schedule();
          });
        })
        ->run();
  }

  // On the strand.
  void counter_schedule() {
    if (stopped.load()) return;
    counter_timer.expires_after(options.counter_interval);
    counter_timer.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->counter_step();
    });
  }

  // Cancels both timers (on the strand).
  void cancel_timers() {
    asio::post(timer.get_executor(), [self = shared_from_this()] {
      self->timer.cancel();
      self->counter_timer.cancel();
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
  state_->cancel_timers();
}

std::string AgonesClient::start() {
  if (auto err = check_agones_options(state_->options); !err.empty()) return err;
  parse_http_url(state_->options.sdk_url, &state_->host, &state_->port);
  if (state_->options.counter.empty()) {
    spdlog::info("agones: SDK sidecar at {}, health every {} ms", state_->options.sdk_url,
                 state_->options.health_interval.count());
  } else {
    spdlog::info(
        "agones: SDK sidecar at {}, health every {} ms, Counter '{}' (capacity {}) at most "
        "every {} ms",
        state_->options.sdk_url, state_->options.health_interval.count(), state_->options.counter,
        state_->options.counter_capacity, state_->options.counter_interval.count());
  }
  asio::post(state_->timer.get_executor(), [st = state_] { st->step(); });
  return {};
}

void AgonesClient::stop() {
  state_->stop();
  state_->cancel_timers();
}

bool AgonesClient::shutdown() {
  stop();
  if (state_->port == 0) return false;  // never started
  // Let requests under way finish (each is bounded by its own timeouts), unless the daemon's
  // io_context no longer runs, or we are on one of its threads (the daemon's drain calls us
  // there): then they may never finish while we wait.
  if (!state_->io.get_executor().running_in_this_thread()) {
    std::unique_lock lock(state_->flight_mu);
    const auto limit = state_->options.request_timeout * 3 + std::chrono::milliseconds(100);
    state_->flight_cv.wait_for(lock, limit,
                               [&] { return state_->in_flight == 0 || state_->io.stopped(); });
  }
  // A private io_context: the daemon's may already be draining or stopped.
  asio::io_context io;
  bool accepted = false;
  std::make_shared<HttpOp>(io, state_->host, state_->port, http::verb::post, "/shutdown", "{}",
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
uint64_t AgonesClient::counter_updates_acknowledged() const {
  return state_->counter_ok.load();
}
uint64_t AgonesClient::counter_failures() const {
  return state_->counter_failed.load();
}

}  // namespace animops

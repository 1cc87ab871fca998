#include "animops/http_endpoint.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <spdlog/spdlog.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "animops/connection_table.h"
#include "animops/host_check.h"
#include "http_routes.h"

namespace animops {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Named rather than anonymous: HttpEndpoint::State (external linkage) holds Connections.
namespace http_connection {
class Connection;
}  // namespace http_connection

namespace {

std::string seconds_text(std::chrono::milliseconds d) {
  const auto ms = d.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

}  // namespace

struct HttpEndpoint::State : std::enable_shared_from_this<HttpEndpoint::State> {
  State(asio::io_context& io_in, Metrics& m, const Health& h, HttpOptions o)
      : io(io_in),
        metrics(m),
        health(h),
        options(std::move(o)),
        table(ConnectionTable::Limits{options.max_connections, options.max_connections_per_address,
                                      options.reserve_connections}),
        acceptor(asio::make_strand(io)) {}

  asio::io_context& io;
  Metrics& metrics;
  const Health& health;
  HttpOptions options;
  ConnectionTable table;
  tcp::acceptor acceptor;
  std::atomic<uint16_t> port{0};
  std::atomic<bool> stopped{false};

  std::mutex conns_mu;
  std::unordered_map<uint64_t, std::weak_ptr<http_connection::Connection>>
      conns;  // by table id, for stop()

  void accept();
  void admit(tcp::socket socket);
  // A connection is gone: its slot and its entry for stop().
  void forget(uint64_t id);
  void log(PeerLogLevel level, const std::string& key, const std::string& line) const;
  // Counts and logs (warn) one refusal.
  void refused(HttpRefusal reason, const std::string& key, const std::string& line) const;
};

namespace http_connection {

// One HTTP connection: plain, or (with HttpOptions::tls) TLS when its first bytes are a TLS
// hello, so that probes and scrapers keep plain HTTP while browsers use https and wss.
// `reserve`: an operations-reserve slot (ConnectionTable): one body-less request for the
// probes or /metrics, answered at once, so that the slot never waits for its client beyond
// its header.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::shared_ptr<HttpEndpoint::State> state, uint64_t id,
             std::string address, bool reserve)
      : plain_(std::in_place, std::move(socket)),
        state_(std::move(state)),
        id_(id),
        address_(std::move(address)),
        reserve_(reserve) {}
  ~Connection() { state_->forget(id_); }

  void start() {
    asio::dispatch(lowest().get_executor(), [self = shared_from_this()] {
      self->waiting_since_ = std::chrono::steady_clock::now();
      if (self->state_->options.tls)
        self->detect();
      else
        self->read_header();
    });
  }

  // Thread-safe: runs the close on the connection's strand.
  void close_async() {
    asio::post(lowest().get_executor(), [self = shared_from_this()] {
      beast::error_code ignored;
      self->lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
      self->lowest().close();
    });
  }

 private:
  beast::tcp_stream& lowest() { return tls_ ? beast::get_lowest_layer(*tls_) : *plain_; }
  // Runs f(stream) on the stream in use (tcp_stream or ssl_stream over it).
  template <class F>
  void with_stream(F&& f) {
    if (tls_)
      f(*tls_);
    else
      f(*plain_);
  }
  std::chrono::steady_clock::time_point header_deadline() const {
    return waiting_since_ + state_->options.header_timeout;
  }

  // The first bytes decide: a TLS hello gets the TLS handshake (the bytes read so far are
  // handed to it), anything else is plain HTTP. Both count against the header deadline.
  void detect() {
    lowest().expires_at(header_deadline());
    beast::async_detect_ssl(
        *plain_, buffer_, [self = shared_from_this()](beast::error_code ec, bool is_tls) {
          if (ec) return self->on_header_error(ec);
          if (!is_tls) return self->read_header();
          self->tls_.emplace(std::move(*self->plain_), *self->state_->options.tls);
          self->plain_.reset();
          self->tls_->async_handshake(asio::ssl::stream_base::server, self->buffer_.data(),
                                      [self](beast::error_code e, size_t used) {
                                        if (e) return self->on_header_error(e);
                                        self->buffer_.consume(used);
                                        self->read_header();
                                      });
        });
  }

  void read_header() {
    if (state_->stopped.load()) return;
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(state_->options.max_request_bytes));
    parser_->body_limit(state_->options.max_request_bytes);
    lowest().expires_at(header_deadline());
    with_stream([&](auto& stream) {
      http::async_read_header(
          stream, buffer_, *parser_,
          [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
    });
  }

  void on_header(beast::error_code ec) {
    if (ec) return on_header_error(ec);
    // Evicted while its header arrived: the slot is someone else's now.
    if (!state_->table.begin_request(id_)) return close();
    const HttpRequest& req = parser_->get();
    const auto host_it = req.find(http::field::host);
    const std::string_view host =
        host_it == req.end() ? std::string_view()
                             : std::string_view(host_it->value().data(), host_it->value().size());
    if (!host_allowed(host, state_->options.allowed_hosts)) {
      state_->refused(HttpRefusal::kHost, "http: request refused: Host not allowed",
                      "http: request from " + address_ + " refused: Host " + quoted_header(host) +
                          " is not allowed (--http-allowed-host)");
      return answer(refusal_response(
          req, http::status::forbidden,
          "Host " + quoted_header(host) +
              " is not served here; the operator lists the names this daemon serves with "
              "--http-allowed-host (docs/security.md)"));
    }
    // A reserve slot must never wait for its client: body-less probes and /metrics only.
    if (reserve_ && (!is_operations_path(request_path(req)) || !parser_->is_done())) {
      state_->refused(HttpRefusal::kReserveOnly, "http: request refused: connections busy",
                      "http: request from " + address_ +
                          " refused: every connection slot is busy, its connection has a slot "
                          "of the operations reserve (GET /healthz, /readyz, /metrics only)");
      return answer(refusal_response(
          req, http::status::service_unavailable,
          "every connection slot of this port is busy (--http-max-connections); try again"));
    }
    if (parser_->is_done()) return on_request();
    lowest().expires_after(state_->options.read_timeout);
    with_stream([&](auto& stream) {
      http::async_read(stream, buffer_, *parser_,
                       [self = shared_from_this()](beast::error_code e, size_t) {
                         if (e) return self->on_read_error(e);
                         self->on_request();
                       });
    });
  }

  // No complete header: a timeout is the header deadline (counted, logged); the rest as
  // on_read_error.
  void on_header_error(beast::error_code ec) {
    if (ec == beast::error::timeout && !state_->stopped.load()) {
      state_->metrics.count_http_refusal(HttpRefusal::kHeaderTimeout);
      state_->log(PeerLogLevel::kInfo, "http: connection closed: no request header in time",
                  "http: closed a connection from " + address_ +
                      " that sent no complete request header within " +
                      seconds_text(state_->options.header_timeout) + " (--http-header-timeout)");
      return close();
    }
    on_read_error(ec);
  }

  void on_read_error(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::ssl::error::stream_truncated ||
        state_->stopped.load()) {
      return close();
    }
    // Tell the client what was wrong (best effort) and close: the stream is out of sync.
    http::status status = http::status::bad_request;
    if (ec == http::error::header_limit) status = http::status::request_header_fields_too_large;
    if (ec == http::error::body_limit) status = http::status::payload_too_large;
    HttpRequest dummy{http::verb::get, "/", 11};
    answer(refusal_response(dummy, status, ec.message()));
  }

  void on_request() {
    HttpRequest& req = parser_->get();
    const HttpOptions& options = state_->options;
    const std::string_view path = request_path(req);
    if (!options.upgrade_path.empty() && path == options.upgrade_path) return upgrade(req);
    HttpResponse res = route(req, options, state_->metrics, state_->health);
    if (reserve_) res.keep_alive(false);
    answer(std::move(res));
  }

  // A request to the upgrade path: a WebSocket upgrade goes to its owner (or is refused with
  // the reason), anything else is told what the path is for.
  void upgrade(HttpRequest& req) {
    const auto& handler = state_->options.upgrade;
    if (!beast::websocket::is_upgrade(req)) {
      auto res = refusal_response(req, http::status::upgrade_required,
                                  "this path takes WebSocket upgrades only (Upgrade: websocket; "
                                  "see docs/web-viewer.md)");
      res.set(http::field::upgrade, "websocket");
      return answer(std::move(res));
    }
    if (buffer_.size() > 0)
      return answer(refusal_response(req, http::status::bad_request,
                                     "bytes sent after the upgrade request, before its answer"));
    if (auto no = handler.check(req, address_, tls_.has_value()); !no.message.empty())
      return answer(refusal_response(req, static_cast<http::status>(no.status), no.message));
    if (tls_) {
      lowest().expires_never();  // the new owner keeps its own deadlines
      handler.take(UpgradeHandler::Stream(std::in_place_index<1>, std::move(*tls_)),
                   std::move(req));
    } else {
      handler.take(UpgradeHandler::Stream(std::in_place_index<0>, plain_->release_socket()),
                   std::move(req));
    }
  }

  void answer(HttpResponse res) {
    res_.emplace(std::move(res));
    lowest().expires_after(state_->options.read_timeout);
    with_stream([&](auto& stream) {
      http::async_write(stream, *res_, [self = shared_from_this()](beast::error_code ec, size_t) {
        self->on_write(ec);
      });
    });
  }

  void on_write(beast::error_code ec) {
    const bool keep = res_->keep_alive();
    res_.reset();
    if (ec || !keep) return close();
    state_->table.end_request(id_);
    waiting_since_ = std::chrono::steady_clock::now();
    read_header();
  }

  // No TLS close_notify exchange (a peer that stopped reading must not hold the connection).
  void close() {
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    lowest().close();
  }

  // Exactly one is engaged: plain_ until a TLS hello was detected, then tls_ over it.
  std::optional<beast::tcp_stream> plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<HttpResponse> res_;
  std::shared_ptr<HttpEndpoint::State> state_;
  const uint64_t id_;
  const std::string address_;
  const bool reserve_;
  std::chrono::steady_clock::time_point waiting_since_{};
};

}  // namespace http_connection

void HttpEndpoint::State::log(PeerLogLevel level, const std::string& key,
                              const std::string& line) const {
  if (options.log) return options.log(level, key, line);
  spdlog::log(level == PeerLogLevel::kWarn ? spdlog::level::warn : spdlog::level::info, "{}", line);
}

void HttpEndpoint::State::refused(HttpRefusal reason, const std::string& key,
                                  const std::string& line) const {
  metrics.count_http_refusal(reason);
  log(PeerLogLevel::kWarn, key, line);
}

void HttpEndpoint::State::forget(uint64_t id) {
  table.remove(id);
  std::lock_guard lock(conns_mu);
  conns.erase(id);
}

void HttpEndpoint::State::admit(tcp::socket socket) {
  beast::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  const std::string address = ec ? std::string("?") : remote.address().to_string();
  const ConnectionTable::Admission a = table.admit(address);
  if (a.refused()) {
    if (a.verdict == ConnectionTable::Verdict::kRefusedAddress)
      refused(HttpRefusal::kAddressLimit, "http: connection refused: address limit",
              "http: connection from " + address + " refused: its address holds " +
                  std::to_string(options.max_connections_per_address) +
                  " connections (--http-max-connections-per-address), all busy, and so is the "
                  "operations reserve");
    else
      refused(HttpRefusal::kConnectionLimit, "http: connection refused: connection limit",
              "http: connection from " + address +
                  " refused: " + std::to_string(options.max_connections) +
                  " connections (--http-max-connections) and the operations reserve, all busy");
    beast::error_code ignored;
    socket.close(ignored);
    return;
  }
  const bool reserve = a.verdict == ConnectionTable::Verdict::kReserve;
  auto conn = std::make_shared<http_connection::Connection>(std::move(socket), shared_from_this(),
                                                            a.id, address, reserve);
  std::shared_ptr<http_connection::Connection> victim;
  {
    std::lock_guard lock(conns_mu);
    conns.emplace(a.id, conn);
    if (a.evicted != 0)
      if (auto it = conns.find(a.evicted); it != conns.end()) victim = it->second.lock();
  }
  if (a.evicted != 0) {
    refused(HttpRefusal::kIdleEvicted, "http: idle connection closed to make room",
            "http: closed a connection from " + a.evicted_address +
                " that had sent no complete request, to make room for one from " + address +
                " (--http-max-connections " + std::to_string(options.max_connections) +
                ", --http-max-connections-per-address " +
                std::to_string(options.max_connections_per_address) + ")");
    if (victim) victim->close_async();
  }
  if (reserve)
    log(PeerLogLevel::kWarn, "http: connection admitted to the operations reserve",
        "http: every connection slot is busy with a request; a connection from " + address +
            " gets a slot of the operations reserve (/healthz, /readyz, /metrics only)");
  conn->start();
}

void HttpEndpoint::State::accept() {
  acceptor.async_accept(asio::make_strand(io), [self = shared_from_this()](beast::error_code ec,
                                                                           tcp::socket socket) {
    if (self->stopped.load() || ec == asio::error::operation_aborted) return;
    if (ec)
      self->log(PeerLogLevel::kWarn, "http: accept failed", "http: accept failed: " + ec.message());
    else
      self->admit(std::move(socket));
    self->accept();
  });
}

HttpEndpoint::HttpEndpoint(asio::io_context& io, Metrics& metrics, const Health& health,
                           HttpOptions options)
    : state_(std::make_shared<State>(io, metrics, health, std::move(options))) {}

HttpEndpoint::~HttpEndpoint() {
  stop();
}

std::string HttpEndpoint::start() {
  auto& s = *state_;
  if (s.options.max_connections == 0 || s.options.max_connections_per_address == 0)
    return "http: the connection limits must be at least 1";
  for (const auto& entry : s.options.allowed_hosts)
    if (auto why = check_allowed_host_entry(entry); !why.empty())
      return "http: allowed host " + why;
  beast::error_code ec;
  const auto address = asio::ip::make_address(s.options.address, ec);
  const std::string where = s.options.address + ":" + std::to_string(s.options.port);
  if (ec) return "http: bad address '" + s.options.address + "': " + ec.message();
  const tcp::endpoint endpoint{address, s.options.port};
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    beast::error_code ignored;
    s.acceptor.close(ignored);
    return "http: cannot listen on " + where + ": " + ec.message();
  }
  s.port.store(s.acceptor.local_endpoint().port());
  spdlog::info("http: serving /metrics /healthz /readyz on {}:{}", s.options.address,
               s.port.load());
  if (!s.options.files.empty())
    spdlog::info(
        "http: web viewer at http://{}:{}{}{}", s.options.address, s.port.load(),
        s.options.files.front().path,
        s.options.upgrade_path.empty() ? "" : ", WebSocket endpoint " + s.options.upgrade_path);
  std::string hosts = "IP addresses, localhost";
  for (const auto& h : s.options.allowed_hosts) hosts += ", " + h;
  spdlog::info("http: Host names served: {} (--http-allowed-host)", hosts);
  // Start accepting on the acceptor's strand.
  asio::post(s.acceptor.get_executor(), [st = state_] { st->accept(); });
  return {};
}

uint16_t HttpEndpoint::port() const {
  return state_->port.load();
}

size_t HttpEndpoint::busy_connections() const {
  return state_->table.busy();
}

void HttpEndpoint::stop() {
  if (state_->stopped.exchange(true)) return;
  asio::post(state_->acceptor.get_executor(), [st = state_] {
    beast::error_code ignored;
    st->acceptor.close(ignored);
  });
  std::unordered_map<uint64_t, std::weak_ptr<http_connection::Connection>> conns;
  {
    std::lock_guard lock(state_->conns_mu);
    conns.swap(state_->conns);
  }
  for (auto& [id, w] : conns) {
    if (auto c = w.lock()) c->close_async();
  }
}

}  // namespace animops

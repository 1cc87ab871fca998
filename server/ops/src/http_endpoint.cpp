#include "animops/http_endpoint.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

namespace animops {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

class Connection;

}  // namespace

struct HttpEndpoint::State : std::enable_shared_from_this<HttpEndpoint::State> {
  State(asio::io_context& io_in, Metrics& m, const Health& h, HttpOptions o)
      : io(io_in), metrics(m), health(h), options(std::move(o)), acceptor(asio::make_strand(io)) {}

  asio::io_context& io;
  Metrics& metrics;
  const Health& health;
  HttpOptions options;
  tcp::acceptor acceptor;
  std::atomic<uint16_t> port{0};
  std::atomic<bool> stopped{false};
  std::atomic<size_t> open_connections{0};

  std::mutex conns_mu;
  std::vector<std::weak_ptr<Connection>> conns;  // for stop(); pruned on accept

  void accept();
  void track(const std::shared_ptr<Connection>& c);
};

namespace {

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

Response make_response(const Request& req, http::status status, std::string_view content_type,
                       std::string body) {
  Response res{status, req.version()};
  res.set(http::field::server, "animd");
  res.set(http::field::content_type, std::string(content_type));
  res.set(http::field::cache_control, "no-store");
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

std::string_view request_path(const Request& req) {
  std::string_view target(req.target().data(), req.target().size());
  if (const auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
  return target;
}

// The routing table; pure function of the request, the files and the current health/metrics.
Response route(const Request& req, const HttpOptions& options, Metrics& metrics,
               const Health& health) {
  const std::string_view target = request_path(req);
  const StaticFile* file = nullptr;
  for (const auto& f : options.files)
    if (f.path == target) file = &f;
  const bool known = file || target == "/metrics" || target == "/healthz" || target == "/readyz";
  if (!known) {
    return make_response(req, http::status::not_found, "text/plain; charset=utf-8",
                         options.files.empty()
                             ? "not found; try /metrics, /healthz or /readyz\n"
                             : "not found; try /view, /metrics, /healthz or /readyz\n");
  }
  if (req.method() != http::verb::get) {
    auto res = make_response(req, http::status::method_not_allowed, "text/plain; charset=utf-8",
                             "method not allowed; use GET\n");
    res.set(http::field::allow, "GET");
    return res;
  }
  if (file)
    return make_response(req, http::status::ok, file->content_type, std::string(file->body));
  if (target == "/metrics") {
    return make_response(req, http::status::ok, "text/plain; version=0.0.4; charset=utf-8",
                         metrics.render());
  }
  if (target == "/healthz") {
    return make_response(req, http::status::ok, "text/plain; charset=utf-8", "ok\n");
  }
  const Health::Verdict v = health.ready();
  return make_response(req, v.ready ? http::status::ok : http::status::service_unavailable,
                       "text/plain; charset=utf-8", v.reason + "\n");
}

// A response to HEAD carries the headers (Content-Length included) but never a body.
Response finish_for(const Request& req, Response res) {
  if (req.method() == http::verb::head) {
    const auto length = res.body().size();
    res.body().clear();
    res.content_length(length);
  }
  return res;
}

// One HTTP connection: plain, or (with HttpOptions::tls) TLS when its first bytes are a TLS
// hello, so that probes and scrapers keep plain HTTP while browsers use https and wss.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::shared_ptr<HttpEndpoint::State> state)
      : plain_(std::in_place, std::move(socket)), state_(std::move(state)) {
    state_->open_connections.fetch_add(1, std::memory_order_relaxed);
  }
  ~Connection() { state_->open_connections.fetch_sub(1, std::memory_order_relaxed); }

  void start() {
    asio::dispatch(lowest().get_executor(), [self = shared_from_this()] {
      if (self->state_->options.tls)
        self->detect();
      else
        self->read();
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

  // The first bytes decide: a TLS hello gets the TLS handshake (the bytes read so far are
  // handed to it), anything else is plain HTTP.
  void detect() {
    lowest().expires_after(state_->options.read_timeout);
    beast::async_detect_ssl(
        *plain_, buffer_, [self = shared_from_this()](beast::error_code ec, bool is_tls) {
          if (ec) return self->close();
          if (!is_tls) return self->read();
          self->tls_.emplace(std::move(*self->plain_), *self->state_->options.tls);
          self->plain_.reset();
          self->tls_->async_handshake(
              asio::ssl::stream_base::server, self->buffer_.data(),
              [self](beast::error_code e, size_t used) {
                if (e) return self->close();
                self->buffer_.consume(used);
                self->read();
              });
        });
  }

  void read() {
    if (state_->stopped.load()) return;
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(state_->options.max_request_bytes));
    parser_->body_limit(state_->options.max_request_bytes);
    lowest().expires_after(state_->options.read_timeout);
    with_stream([&](auto& stream) {
      http::async_read(
          stream, buffer_, *parser_,
          [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
    });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::ssl::error::stream_truncated ||
        state_->stopped.load()) {
      return close();
    }
    if (ec) {
      // Tell the client what was wrong (best effort) and close: the stream is out of sync.
      http::status status = http::status::bad_request;
      if (ec == http::error::header_limit) status = http::status::request_header_fields_too_large;
      if (ec == http::error::body_limit) status = http::status::payload_too_large;
      Request dummy{http::verb::get, "/", 11};
      dummy.keep_alive(false);
      res_.emplace(make_response(dummy, status, "text/plain; charset=utf-8", ec.message() + "\n"));
      res_->keep_alive(false);
      return write();
    }
    Request& req = parser_->get();
    const HttpOptions& options = state_->options;
    if (!options.upgrade_path.empty() && request_path(req) == options.upgrade_path)
      return upgrade(req);
    res_.emplace(finish_for(req, route(req, options, state_->metrics, state_->health)));
    write();
  }

  // A request to the upgrade path: a WebSocket upgrade goes to its owner (or is refused with
  // the reason), anything else is told what the path is for.
  void upgrade(Request& req) {
    const auto& handler = state_->options.upgrade;
    auto refuse = [&](http::status status, std::string message) {
      res_.emplace(make_response(req, status, "text/plain; charset=utf-8", message + "\n"));
      res_->keep_alive(false);
      write();
    };
    if (!beast::websocket::is_upgrade(req)) {
      refuse(http::status::upgrade_required,
             "this path takes WebSocket upgrades only (Upgrade: websocket; see "
             "docs/web-viewer.md)");
      res_->set(http::field::upgrade, "websocket");
      return;
    }
    if (buffer_.size() > 0)
      return refuse(http::status::bad_request,
                    "bytes sent after the upgrade request, before its answer");
    beast::error_code ec;
    const auto remote = lowest().socket().remote_endpoint(ec);
    const std::string peer = ec ? std::string("?") : remote.address().to_string();
    if (auto no = handler.check(req, peer, tls_.has_value()); !no.message.empty())
      return refuse(static_cast<http::status>(no.status), std::move(no.message));
    if (tls_) {
      lowest().expires_never();  // the new owner keeps its own deadlines
      handler.take(UpgradeHandler::Stream(std::in_place_index<1>, std::move(*tls_)),
                   std::move(req));
    } else {
      handler.take(UpgradeHandler::Stream(std::in_place_index<0>, plain_->release_socket()),
                   std::move(req));
    }
  }

  void write() {
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
    read();
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
  std::optional<Response> res_;
  std::shared_ptr<HttpEndpoint::State> state_;
};

}  // namespace

void HttpEndpoint::State::track(const std::shared_ptr<Connection>& c) {
  std::lock_guard lock(conns_mu);
  std::erase_if(conns, [](const std::weak_ptr<Connection>& w) { return w.expired(); });
  conns.push_back(c);
}

void HttpEndpoint::State::accept() {
  acceptor.async_accept(
      asio::make_strand(io), [self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
        if (self->stopped.load() || ec == asio::error::operation_aborted) return;
        if (ec) {
          spdlog::warn("http: accept failed: {}", ec.message());
        } else if (self->open_connections.load() >= self->options.max_connections) {
          spdlog::warn("http: {} connections open (limit); closing a new one",
                       self->options.max_connections);
          beast::error_code ignored;
          socket.close(ignored);
        } else {
          auto conn = std::make_shared<Connection>(std::move(socket), self);
          self->track(conn);
          conn->start();
        }
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
  // Start accepting on the acceptor's strand.
  asio::post(s.acceptor.get_executor(), [st = state_] { st->accept(); });
  return {};
}

uint16_t HttpEndpoint::port() const {
  return state_->port.load();
}

void HttpEndpoint::stop() {
  if (state_->stopped.exchange(true)) return;
  asio::post(state_->acceptor.get_executor(), [st = state_] {
    beast::error_code ignored;
    st->acceptor.close(ignored);
  });
  std::vector<std::weak_ptr<Connection>> conns;
  {
    std::lock_guard lock(state_->conns_mu);
    conns.swap(state_->conns);
  }
  for (auto& w : conns) {
    if (auto c = w.lock()) c->close_async();
  }
}

}  // namespace animops

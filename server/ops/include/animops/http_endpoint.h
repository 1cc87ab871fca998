#pragma once
// HttpEndpoint: the operations HTTP/1.1 server (Boost.Beast) on its own address and port.
//
//   GET /metrics  200, Prometheus text format (text/plain; version=0.0.4)
//   GET /healthz  200 "ok" while the process is alive and its io_context runs
//   GET /readyz   200 "ready" when Health says so, else 503 with the reason
//   files         GET/HEAD of each HttpOptions::files path: that file (the web viewer)
//   upgrade_path  a WebSocket upgrade, handed to HttpOptions::upgrade (the daemon's protocol
//                 over WebSocket); anything else there: 426 Upgrade Required
//   other paths   404;   a method other than GET on the paths above: 405 (Allow: GET)
//
// Hostile clients (docs/security.md, "The HTTP port"):
//   - a request whose Host is not allowed (host_check.h, --http-allowed-host) is answered
//     403 and the connection closed, on every path, WebSocket upgrades included;
//   - connections are capped in total and per remote address; when full, a new connection
//     pushes out the one that has waited longest without sending a complete request header,
//     or, when every connection is busy with a request, takes a slot of the operations
//     reserve, which answers the probes and /metrics only (connection_table.h);
//   - a connection has header_timeout to deliver a complete request header (from its accept
//     or its previous response, TLS handshake included), then read_timeout for the body and
//     for writing the response; header and body are bounded in size;
//   - every refusal and forced close is counted (Metrics::count_http_refusal) and logged
//     through HttpOptions::log, which the daemon rate-limits.
// The query string is ignored. Keep-alive is honoured (a reserve connection serves one
// request).
//
// Runs on the io_context the daemon gives it (any number of threads may run it: every
// connection has its own strand). The Metrics and Health objects must outlive the
// io_context's last handler (stop the io_context before destroying them).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <variant>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "animops/health.h"
#include "animops/metrics.h"

namespace animops {

// A file served from memory (the web viewer's page and scripts, embedded at build time).
struct StaticFile {
  std::string path;          // exact request path, e.g. "/view" (the query string is ignored)
  std::string content_type;  // e.g. "text/html; charset=utf-8"
  std::string_view body;     // outlives the endpoint (static data)
};

// Hands a WebSocket upgrade request on to its owner. check() runs first and may refuse:
// a non-empty message is answered with `status` (403, 503, ...) and that text, and the
// connection closed (`tls`: the request came over TLS). Otherwise take() receives the
// connection (nothing read past the request): the socket, or the TLS stream after its
// handshake; and the request, and owns the connection from then on.
struct UpgradeHandler {
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  using Stream = std::variant<boost::asio::ip::tcp::socket,
                              boost::beast::ssl_stream<boost::beast::tcp_stream>>;
  struct Refusal {
    unsigned status = 0;
    std::string message;  // empty: accepted
  };
  std::function<Refusal(const Request& request, const std::string& peer_address, bool tls)> check;
  std::function<void(Stream stream, Request request)> take;
};

// Writes one log line a peer can cause (a refusal, an eviction, a timeout). `key` names its
// kind (a constant string) so that the daemon can rate-limit each kind.
enum class PeerLogLevel { kInfo, kWarn };
using PeerLog =
    std::function<void(PeerLogLevel level, const std::string& key, const std::string& line)>;

struct HttpOptions {
  std::string address = "127.0.0.1";  // IPv4 or IPv6 literal to bind
  uint16_t port = 7451;               // 0 = an ephemeral port chosen by the OS (see port())
  size_t max_request_bytes = 8192;    // header and body limit each; larger: 431 / 413 + close
  // From a connection's accept (or its previous response) to a complete request header.
  std::chrono::milliseconds header_timeout{3000};
  std::chrono::milliseconds read_timeout{5000};  // for the body, and per response write
  size_t max_connections = 64;                   // normal slots (ConnectionTable::Limits)
  size_t max_connections_per_address = 16;       // normal slots of one remote address
  size_t reserve_connections = 4;                // operations-only slots beyond those
  // Host names served besides IP literals and localhost (host_check.h); "*" = any.
  std::vector<std::string> allowed_hosts;
  PeerLog log;                    // null: spdlog, not rate-limited
  std::vector<StaticFile> files;  // served with GET and HEAD
  std::string upgrade_path;       // where WebSocket upgrades go ("" = none)
  UpgradeHandler upgrade;         // set with upgrade_path
  // TLS server context, or null. Set: a connection whose first bytes are a TLS hello is
  // served over TLS (https, wss); others stay plain HTTP (probes, scrapers).
  std::shared_ptr<boost::asio::ssl::context> tls;
};

class HttpEndpoint {
 public:
  HttpEndpoint(boost::asio::io_context& io, Metrics& metrics, const Health& health,
               HttpOptions options);
  ~HttpEndpoint();  // stop()
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  // Binds, listens and starts accepting (handlers run on the io_context). Returns an empty
  // string on success, else why not ("http: cannot bind 127.0.0.1:7451: Address in use").
  std::string start();
  // The bound port (the OS's choice when options.port was 0); 0 before start().
  uint16_t port() const;
  // Closes the listener and every open connection. Idempotent; any thread.
  void stop();
  // Connections busy with a request: its header received, its answer not yet written
  // (diagnostics, tests).
  size_t busy_connections() const;

  struct State;  // implementation detail (shared with in-flight connections)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace animops

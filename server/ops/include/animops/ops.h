#pragma once
// Ops: everything operational the daemon wires in with a handful of calls.
//
//   animops::Ops ops(io, config.ops, {version, build_type});   // after the io_context
//   ops.set_agones_capacity([&] { return live_characters; }, max_characters);  // optional
//   if (auto err = ops.start(); !err.empty()) { log; exit 1 }  // HTTP up: probes say 503
//   ... load assets, open the protocol port ...
//   ops.ready("serving N assets on :7450");   // readyz 200, READY=1, Agones /ready + /health
//   tick loop: ops.on_tick(tick_duration, tick_period);        // metrics, readiness, watchdog
//   SIGTERM:   ops.stopping();   // readyz 503 "draining", STOPPING=1
//   after the drain: ops.shutdown();                            // Agones /shutdown, HTTP closed
//
// Gauges and counters the daemon keeps elsewhere are copied in at scrape time through
// metrics().set_collector(...). Declare the Ops after the io_context (so it is destroyed
// first) and stop the io_context before destroying the Ops.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

#include "animops/agones_client.h"
#include "animops/health.h"
#include "animops/http_endpoint.h"
#include "animops/metrics.h"
#include "animops/ops_config.h"
#include "animops/systemd_notifier.h"

namespace animops {

// This binary's version (the CMake project version) and build type.
BuildInfo this_build();

class Ops {
 public:
  Ops(boost::asio::io_context& io, OpsConfig config, BuildInfo build);
  ~Ops();
  Ops(const Ops&) = delete;
  Ops& operator=(const Ops&) = delete;

  // Starts the HTTP endpoint (unless http_port is -1) and writes --http-port-file. Returns
  // an empty string on success, else the reason (bad address, port in use, bad Agones URL or
  // counter): a misconfigured daemon should exit rather than run unobservable.
  std::string start();

  // Before start(): files the HTTP endpoint serves as well, where its WebSocket upgrades go,
  // and its TLS context (HttpOptions::files, upgrade_path, upgrade, tls).
  void serve_web(std::vector<StaticFile> files, std::string upgrade_path, UpgradeHandler upgrade,
                 std::shared_ptr<boost::asio::ssl::context> tls = nullptr);

  // Before start(): what the Agones Counter of --agones-counter reports. `count` is the
  // current count (live characters), called on the io_context's threads at most once per
  // --agones-counter-seconds: thread-safe and cheap (an atomic load). `capacity` (>= 0) is
  // the fixed capacity (--max-characters). Without it, --agones-counter fails start().
  void set_agones_capacity(std::function<int64_t()> count, int64_t capacity) {
    agones_count_ = std::move(count);
    agones_capacity_ = capacity;
  }

  // Before start(): where the HTTP endpoint logs what a peer can cause (refusals,
  // evictions, timeouts); the daemon passes its rate-limited log (HttpOptions::log).
  void set_peer_log(PeerLog log) { peer_log_ = std::move(log); }

  // Start-up finished: readiness may turn true, systemd gets READY=1 (with `status` as
  // STATUS=), and with --agones the ready/health loop starts.
  void ready(const std::string& status = {});

  // One tick finished, having taken `duration` of a `period` budget. Updates the tick
  // metrics, the readiness clock and the systemd watchdog. Tick thread only.
  void on_tick(std::chrono::nanoseconds duration, std::chrono::nanoseconds period);

  // SIGTERM: readiness turns false ("draining"), systemd gets STOPPING=1, and the HTTP
  // endpoint and the Agones pings stop so that the daemon's io_context can run dry and
  // return (probes then get "connection refused", which Kubernetes also reads as not ready).
  void stopping(const std::string& status = "draining");

  // After the drain: Agones /shutdown (blocking, bounded), HTTP endpoint closed. Idempotent.
  void shutdown();

  Metrics& metrics() { return metrics_; }
  Health& health() { return health_; }
  SystemdNotifier& systemd() { return systemd_; }
  // The bound HTTP port; 0 when HTTP is disabled or not started.
  uint16_t http_port() const;

 private:
  boost::asio::io_context& io_;
  OpsConfig config_;
  Metrics metrics_;
  Health health_;
  SystemdNotifier systemd_;
  std::unique_ptr<HttpEndpoint> http_;
  std::vector<StaticFile> web_files_;
  std::string upgrade_path_;
  UpgradeHandler upgrade_;
  std::shared_ptr<boost::asio::ssl::context> web_tls_;
  PeerLog peer_log_;
  std::unique_ptr<AgonesClient> agones_;
  std::function<int64_t()> agones_count_;
  int64_t agones_capacity_ = 0;
  std::chrono::steady_clock::time_point last_status_{};
  bool shut_down_ = false;
};

}  // namespace animops

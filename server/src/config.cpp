#include "config.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include <CLI/CLI.hpp>

namespace animd {

int Config::history_ticks() const {
  return std::max(1, static_cast<int>(std::lround(history_seconds * tick_rate)));
}

size_t Config::max_accepted_frame() const {
  return std::max(max_frame_bytes, max_upload_bytes);
}

std::optional<int> parse_config(int argc, char** argv, Config& c) {
  CLI::App app{"animd: server-authoritative skeletal animation daemon"};
  app.set_config("--config", "", "Read options from a TOML/INI file (keys = long flag names)");
  app.get_formatter()->column_width(44);
  // A flag given twice (e.g. on the command line after the config file) takes the last value.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  app.add_option("--address", c.address, "Listen address")->capture_default_str();
  app.add_option("--port", c.port, "Listen port (0 = ephemeral)")->capture_default_str();
  app.add_option("--port-file", c.port_file, "Write the bound port number to this file");
  app.add_option("--io-threads", c.io_threads, "Network threads")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--assets", c.assets_dir,
                 "Asset root: every .glb/.gltf/.md5mesh under it is loaded at start; "
                 "load_asset paths are relative to it");
  app.add_option("--tick-rate", c.tick_rate, "Fixed tick rate in Hz")
      ->check(CLI::Range(1.0, 1000.0))
      ->capture_default_str();
  app.add_option("--workers", c.workers, "Character update threads (0 = number of cores)")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  app.add_option("--history-seconds", c.history_seconds, "Pose history kept per character")
      ->check(CLI::Range(0.0, 60.0))
      ->capture_default_str();
  app.add_option("--spawn-builtin", c.spawn_builtin,
                 "Debug/benchmark: spawn N built-in characters playing 'walk' at start")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  app.add_option("--max-frame-bytes", c.max_frame_bytes, "Largest request frame (uploads aside)")
      ->check(CLI::Range(size_t{16}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--max-upload-bytes", c.max_upload_bytes,
                 "Largest load_asset glb_data frame (0 disables uploads)")
      ->check(CLI::Range(size_t{0}, size_t{1} << 31))
      ->capture_default_str();
  app.add_option("--max-queued-bytes", c.max_queued_bytes, "Per-connection write queue bound")
      ->check(CLI::Range(size_t{4096}, size_t{1} << 32))
      ->capture_default_str();
  app.add_option("--max-characters", c.max_characters, "Characters in the daemon")
      ->capture_default_str();
  app.add_option("--max-characters-per-connection", c.max_characters_per_connection,
                 "Live characters spawned by one connection")
      ->capture_default_str();
  app.add_option("--max-subscriptions-per-connection", c.max_subscriptions_per_connection,
                 "Subscriptions of one connection")
      ->capture_default_str();
  app.add_option("--max-connections", c.max_connections, "Concurrent connections")
      ->capture_default_str();
  app.add_option("--max-requests-per-second", c.max_requests_per_second,
                 "Per connection (token bucket, burst = one second's worth)")
      ->check(CLI::Range(1.0, 1e9))
      ->capture_default_str();
  app.add_option("--max-connections-per-address", c.max_connections_per_address,
                 "Concurrent connections from one IP address")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  app.add_option("--max-pending-commands-per-connection", c.max_pending_commands_per_connection,
                 "Requests of one connection waiting for the tick")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  app.add_option("--max-queued-commands", c.max_queued_commands,
                 "Requests of all connections waiting for the tick")
      ->check(CLI::Range(1u, 10000000u))
      ->capture_default_str();
  app.add_option("--max-commands-per-tick", c.max_commands_per_tick,
                 "Requests applied in one tick (oldest first); the rest wait for the next")
      ->check(CLI::Range(1u, 10000000u))
      ->capture_default_str();
  app.add_option("--max-assets", c.max_assets, "Loaded assets (the built-in one included)")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
  app.add_option("--max-asset-bytes-total", c.max_asset_bytes_total,
                 "Memory of all loaded assets (meshes, clips, skeletons)")
      ->capture_default_str();
  app.add_option("--ik-budget", c.ik_budget,
                 "IK joint-iterations per tick for the whole daemon; above it every goal's "
                 "iterations are scaled down")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40))
      ->capture_default_str();
  app.add_option("--max-preauth-frame-bytes", c.max_preauth_frame_bytes,
                 "Largest frame before a connection's first valid request")
      ->check(CLI::Range(size_t{64}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--auth-timeout", c.auth_timeout_s,
                 "Seconds a new connection has to send its first valid request")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  app.add_option("--read-timeout", c.read_timeout_s,
                 "Seconds a frame in progress has to deliver each 64 KiB (slow senders)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  app.add_option("--idle-timeout", c.idle_timeout_s,
                 "Close connections that sent nothing this long and have no subscription "
                 "(0 = never)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--max-inbound-bytes-total", c.max_inbound_bytes_total,
                 "Request bytes being received on all connections together")
      ->check(CLI::Range(size_t{1} << 16, size_t{1} << 40))
      ->capture_default_str();
  app.add_option("--max-stream-bytes-total", c.max_stream_bytes_total,
                 "Replies and stream frames queued on all connections together")
      ->check(CLI::Range(size_t{1} << 16, size_t{1} << 40))
      ->capture_default_str();
  app.add_option("--stream-stall-seconds", c.stream_stall_s,
                 "A subscriber whose frames are all dropped this long loses its subscriptions")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  app.add_option("--max-failed-auth", c.max_failed_auth,
                 "Requests with a wrong token before the connection is closed")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  app.add_option("--control-token", c.control_tokens,
                 "A token of the control role (repeatable, >= 16 bytes); with any token set, "
                 "every request needs one")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  std::vector<std::string> older_tokens;
  app.add_option("--auth-token", older_tokens, "Same as --control-token (older name)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--observe-token", c.observe_tokens,
                 "A token of the observe role: stream and query only (repeatable, >= 16 bytes)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--token-file", c.token_file,
                 "File of 'control TOKEN' / 'observe TOKEN' lines; re-read on SIGHUP");
  app.add_option("--orphan-grace-seconds", c.orphan_grace_s,
                 "Owned characters are despawned this long after their owner's last connection "
                 "closed (a reconnect with the same token takes them back)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  // TLS: each flag names what it needs, so a half configuration is refused at start-up.
  auto* tls_cert = app.add_option("--tls-cert", c.tls.cert_file,
                                  "Serve TLS (1.2+ only) with this PEM certificate (chain)")
                       ->check(CLI::ExistingFile);
  auto* tls_key =
      app.add_option("--tls-key", c.tls.key_file, "PEM private key of --tls-cert (unencrypted)")
          ->check(CLI::ExistingFile);
  auto* tls_client_ca =
      app.add_option("--tls-client-ca", c.tls.client_ca_file,
                     "Request TLS client certificates and verify them against these PEM CAs")
          ->check(CLI::ExistingFile);
  auto* tls_require = app.add_flag("--tls-require-client-cert", c.tls.require_client_cert,
                                   "Refuse TLS clients without a certificate verified by "
                                   "--tls-client-ca");
  tls_cert->needs(tls_key);
  tls_key->needs(tls_cert);
  tls_client_ca->needs(tls_cert);
  tls_require->needs(tls_client_ca);
  app.add_option("--log-level", c.log_level, "trace, debug, info, warn, error, critical, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str();
  app.add_option("--shutdown-timeout", c.shutdown_timeout_s,
                 "Seconds to wait for pending writes on SIGTERM/SIGINT")
      ->check(CLI::Range(0.0, 60.0))
      ->capture_default_str();
  app.add_option("--summary-interval", c.summary_interval_s, "Seconds between summary log lines")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();

  animops::add_ops_options(app, c.ops);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  c.control_tokens.insert(c.control_tokens.end(), older_tokens.begin(), older_tokens.end());
  if (c.workers == 0) c.workers = std::max(1u, std::thread::hardware_concurrency());
  return std::nullopt;
}

}  // namespace animd

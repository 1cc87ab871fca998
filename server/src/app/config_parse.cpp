#include "app/config_parse.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>

#include <CLI/CLI.hpp>

#include "lod/update_rates.h"

namespace animd {

namespace {

// A flag whose default shows in --help.
template <class T>
void shown(CLI::App& app, const char* flag, T& value, const char* help) {
  app.add_option(flag, value, help)->capture_default_str();
}

// Refuses "nan" (and its spellings): CLI::Range compares, and every comparison with NaN is
// false, so a range alone lets it through. Every floating-point range check comes after it.
const CLI::Validator kNotNaN(
    [](std::string& v) -> std::string {
      return std::isnan(std::strtod(v.c_str(), nullptr)) ? "not a number: " + v : std::string();
    },
    "");

// A flag whose default shows in --help and whose value must lie in [low, high].
template <class T, class Bound>
void in_range(CLI::App& app, const char* flag, T& value, Bound low, Bound high, const char* help) {
  CLI::Option* option = app.add_option(flag, value, help);
  if constexpr (std::is_floating_point_v<T>) option->check(kNotNaN);
  option->check(CLI::Range(low, high))->capture_default_str();
}

}  // namespace

std::optional<int> parse_config(int argc, char** argv, Config& c) {
  CLI::App app{"animd: server-authoritative skeletal animation daemon"};
  app.set_config("--config", "", "Read options from a TOML/INI file (keys = long flag names)");
  app.get_formatter()->column_width(44);
  // A flag given twice (e.g. on the command line after the config file) takes the last value.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  shown(app, "--address", c.address, "Listen address");
  shown(app, "--port", c.port, "Listen port (0 = ephemeral)");
  app.add_option("--port-file", c.port_file, "Write the bound port number to this file");
  in_range(app, "--io-threads", c.io_threads, 1, 256, "Network threads");
  app.add_option("--assets", c.assets_dir,
                 "Asset root: every .glb/.gltf/.md5mesh under it is loaded at start; "
                 "load_asset paths are relative to it");
  in_range(app, "--tick-rate", c.tick_rate, 1.0, 1000.0, "Fixed tick rate in Hz");
  app.add_option("--tick-epoch", c.tick_epoch,
                 "Tick numbering epoch, seconds since the Unix epoch (0 = the Unix epoch): "
                 "tick T is the instant epoch + T / tick-rate on the wall clock, the same on "
                 "every daemon of a fleet with synchronized clocks")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            // The value is converted after the check: a non-number is refused by CLI11.
            long long s = 0;
            try {
              size_t used = 0;
              s = std::stoll(v, &used);
              if (used != v.size()) return {};
            } catch (const std::exception&) {
              return {};
            }
            if (s < 0)
              return "--tick-epoch " + v + " is negative: it is seconds since the Unix epoch";
            const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
            if (s > now)
              return "--tick-epoch " + v + " is later than the wall clock (" + std::to_string(now) +
                     " s since the Unix epoch): ticks count up from it";
            return {};
          },
          "EPOCH_SECONDS"))
      ->capture_default_str();
  in_range(app, "--workers", c.workers, 0, 256, "Character update threads (0 = number of cores)");
  in_range(app, "--tick-slice-us", c.tick_slice_us, 0, 100000,
           "Scheduler slice of the tick thread and workers, microseconds (0 = kernel default); "
           "short slices let network threads answer without waiting for the tick");
  shown(app, "--tick-yield", c.tick_yield,
        "The tick thread and workers yield their core after each block of characters "
        "(true/false), so that a waiting network thread runs without waiting for the tick");
  shown(app, "--pin-tick-threads", c.pin_tick_threads,
        "The tick thread and each worker keep to a core of their own (true/false), when they "
        "are as many as the cores the process may use (the default --workers); otherwise none "
        "is pinned");
  in_range(app, "--encode-threads", c.encode_threads, 0, 64,
           "Threads encoding compact stream frames ahead of the network threads (0 = the "
           "network threads encode them)");
  shown(app, "--encode-idle", c.encode_idle,
        "The encode threads run only on CPU nothing else in the machine wants (SCHED_IDLE; "
        "true/false). Either way they wait for the tick while its threads fill the cores");
  in_range(app, "--history-seconds", c.history_seconds, 0.0, 60.0,
           "Pose history kept per character");
  in_range(app, "--spawn-builtin", c.spawn_builtin, 0, 1000000,
           "Debug/benchmark: spawn N built-in characters playing 'walk' at start");
  in_range(app, "--max-frame-bytes", c.max_frame_bytes, size_t{16}, size_t{1} << 30,
           "Largest request frame (uploads aside)");
  in_range(app, "--max-upload-bytes", c.max_upload_bytes, size_t{0}, size_t{1} << 31,
           "Largest load_asset glb_data frame (0 disables uploads)");
  in_range(app, "--max-queued-bytes", c.max_queued_bytes, size_t{4096}, size_t{1} << 32,
           "Per-connection write queue bound");
  shown(app, "--max-characters", c.max_characters, "Characters in the daemon");
  shown(app, "--max-characters-per-connection", c.max_characters_per_connection,
        "Live characters spawned by one connection");
  shown(app, "--max-subscriptions-per-connection", c.max_subscriptions_per_connection,
        "Subscriptions of one connection");
  shown(app, "--max-connections", c.max_connections, "Concurrent connections");
  in_range(app, "--max-requests-per-second", c.max_requests_per_second, 1.0, 1e9,
           "Per connection (token bucket, burst = one second's worth)");
  in_range(app, "--max-connections-per-address", c.max_connections_per_address, 1u, 1000000u,
           "Concurrent connections from one IP address");
  in_range(app, "--max-pending-commands-per-connection", c.max_pending_commands_per_connection, 1u,
           1000000u, "Requests of one connection waiting for the tick");
  in_range(app, "--max-queued-commands", c.max_queued_commands, 1u, 10000000u,
           "Requests of all connections waiting for the tick");
  in_range(app, "--max-commands-per-tick", c.max_commands_per_tick, 1u, 10000000u,
           "Requests applied in one tick (oldest first); the rest wait for the next");
  in_range(app, "--max-schedule-ahead-ticks", c.max_schedule_ahead_ticks, 0u, 1000000u,
           "How many ticks ahead a request's at_tick may be (0: no scheduling)");
  in_range(app, "--max-assets", c.max_assets, 1u, 100000u,
           "Loaded assets (the built-in one included)");
  shown(app, "--max-asset-bytes-total", c.max_asset_bytes_total,
        "Memory of all loaded assets (meshes, clips, skeletons)");
  in_range(app, "--loader-threads", c.loader_threads, 1, 64,
           "Threads loading assets; an owner's loads run one at a time, owners take turns");
  in_range(app, "--max-load-bytes", c.max_load_bytes, size_t{1} << 20, size_t{1} << 40,
           "Working memory one asset load may take (parsed document and decoded data); past "
           "it the load fails with RESOURCE_EXHAUSTED");
  in_range(app, "--max-load-seconds", c.max_load_seconds, 0.1, 3600.0,
           "Time one asset load may run; past it the load fails with RESOURCE_EXHAUSTED");
  in_range(app, "--ik-budget", c.ik_budget, uint64_t{1}, uint64_t{1} << 40,
           "IK joint-iterations per tick for the whole daemon; above it every goal's "
           "iterations are scaled down");
  app.add_option_function<std::string>(
         "--anim-budget-ms",
         [&c](const std::string& v) {
           if (v == "auto")
             c.anim_budget_ms = -1.0;
           else if (v == "unlimited")
             c.anim_budget_ms = std::numeric_limits<double>::infinity();
           else
             c.anim_budget_ms = std::stod(v);
         },
         "Wall time per tick the characters' update may take, in ms: 'auto' (3/4 of the tick "
         "period), 'unlimited' (every character every tick), or a number in [0.1, 10000]; "
         "beyond it the least significant characters are updated at reduced rates")
      ->check(kNotNaN)
      ->check(CLI::IsMember({"auto", "unlimited"}) | CLI::Range(0.1, 10000.0))
      ->default_str("auto");
  in_range(app, "--max-update-interval", c.max_update_interval, 1, kMaxUpdateInterval,
           "Ticks between two updates of the least significant character at most (1: every "
           "character every tick)");
  app.add_option("--anim-cost-us", c.anim_cost_us,
                 "Wall time one evaluated character costs the update, in microseconds: 0 (learnt "
                 "from the ticks) or in [0.001, 1000000]. Fixed, with a budget in ms, the "
                 "update rates depend on the characters' significances alone")
      ->check(kNotNaN)
      ->check(CLI::Range(0.0, 0.0) | CLI::Range(0.001, 1e6))
      ->capture_default_str();
  in_range(app, "--max-hit-query-poses", c.max_hit_query_poses, 1u, 1000000u,
           "Characters one raycast or overlap_sphere may pose (evaluate) at most; a query "
           "needing more gets RESOURCE_EXHAUSTED");
  in_range(app, "--max-preauth-frame-bytes", c.max_preauth_frame_bytes, size_t{64}, size_t{1} << 30,
           "Largest frame before a connection's first valid request");
  in_range(app, "--auth-timeout", c.auth_timeout_s, 0.1, 3600.0,
           "Seconds a new connection has to send its first valid request");
  in_range(app, "--read-timeout", c.read_timeout_s, 0.1, 3600.0,
           "Seconds a frame in progress has to deliver each 64 KiB (slow senders)");
  in_range(app, "--idle-timeout", c.idle_timeout_s, 0.0, 1e6,
           "Close connections that sent nothing this long and have no subscription "
           "(0 = never)");
  in_range(app, "--max-inbound-bytes-total", c.max_inbound_bytes_total, size_t{1} << 16,
           size_t{1} << 40, "Request bytes being received on all connections together");
  in_range(app, "--max-stream-bytes-total", c.max_stream_bytes_total, size_t{1} << 16,
           size_t{1} << 40, "Replies and stream frames queued on all connections together");
  in_range(app, "--stream-stall-seconds", c.stream_stall_s, 0.1, 3600.0,
           "A subscriber whose frames are all dropped this long loses its subscriptions");
  in_range(app, "--max-failed-auth", c.max_failed_auth, 1u, 1000000u,
           "Requests with a wrong token before the connection is closed");
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
  app.add_option("--ws-allowed-origin", c.ws_allowed_origins,
                 "A page origin (scheme://host[:port], or * for any) allowed to open the "
                 "WebSocket endpoint /ws of the HTTP port (repeatable; default: same host only)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--token-file", c.token_file,
                 "File of 'control TOKEN' / 'observe TOKEN' lines; re-read on SIGHUP");
  in_range(app, "--orphan-grace-seconds", c.orphan_grace_s, 0.0, 86400.0,
           "Owned characters are despawned this long after their owner's last connection "
           "closed (a reconnect with the same token takes them back)");
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
  app.add_option("--peer-ca-file", c.peer_ca_file,
                 "PEM CAs the certificates of migrate targets with TLS are verified against "
                 "(default: the system's trusted CAs)")
      ->check(CLI::ExistingFile);
  auto* peer_cert = app.add_option("--peer-cert-file", c.peer_cert_file,
                                   "PEM client certificate offered to migrate targets with TLS")
                        ->check(CLI::ExistingFile);
  auto* peer_key = app.add_option("--peer-key-file", c.peer_key_file,
                                  "PEM private key of --peer-cert-file (unencrypted)")
                       ->check(CLI::ExistingFile);
  peer_cert->needs(peer_key);
  peer_key->needs(peer_cert);
  app.add_option("--log-level", c.log_level, "trace, debug, info, warn, error, critical, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str();
  in_range(app, "--shutdown-timeout", c.shutdown_timeout_s, 0.0, 60.0,
           "Seconds to wait for pending writes on SIGTERM/SIGINT");
  in_range(app, "--summary-interval", c.summary_interval_s, 1.0, 86400.0,
           "Seconds between summary log lines");

  app.add_option("--state-dir", c.state_dir,
                 "Directory where the daemon saves its characters (periodically and on "
                 "SIGTERM/SIGINT) and restores them from at start; empty = nothing saved");
  in_range(app, "--state-interval-seconds", c.state_interval_s, 0.1, 3600.0,
           "With --state-dir: every character is saved at least this often");

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

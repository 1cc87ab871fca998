#pragma once
// The daemon's configuration: every command-line flag (and config-file key) in one struct of
// plain values that every layer reads its part of; app/config_parse.h fills it from argv.
// Defaults are chosen so that a plain `animd` starts on the built-in character.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "animops/ops_config.h"
#include "base/tls_config.h"

namespace animd {

struct Config {
  // Network.
  std::string address = "127.0.0.1";  // listen address
  uint16_t port = 7450;               // 0 = pick an ephemeral port
  std::string port_file;              // when set, the bound port is written here
  int io_threads = 2;                 // network threads (Asio)

  // World.
  std::string assets_dir;   // asset root; every .glb/.gltf/.md5mesh under it loads at start
  double tick_rate = 60.0;  // Hz
  // Tick numbering epoch, seconds since the Unix epoch, 0 .. the wall clock at start: tick T
  // is the wall-clock instant tick_epoch + T / tick_rate (tick/tick_numbering.h).
  int64_t tick_epoch = 0;
  int workers = 0;          // threads updating characters; 0 = hardware concurrency
  int tick_slice_us = 100;  // scheduler slice the tick thread and workers ask for (thread_slice.h);
                            // 0 = the kernel's default
  bool tick_yield = true;   // the tick's threads yield their core after each block (WorkerPool)
  // The tick thread and each worker keep to a CPU of their own (thread_affinity.h), when they
  // are as many as the CPUs the process may use (WorkerPool).
  bool pin_tick_threads = true;
  // Compact stream frames encoded ahead of the sessions (encode_stage.h): threads (0 = none:
  // the network threads encode), and whether they run only on CPU nothing else wants
  // (SCHED_IDLE) rather than at normal priority.
  int encode_threads = 2;
  bool encode_idle = false;
  double history_seconds = 1.0;  // pose history kept per character
  int spawn_builtin = 0;         // debug/bench: spawn N built-in characters at start

  // Limits.
  size_t max_frame_bytes = 1u << 20;    // any request frame except uploads
  size_t max_upload_bytes = 32u << 20;  // LoadAssetRequest.glb_data frames; 0 = no uploads
  size_t max_queued_bytes = 4u << 20;   // per-session write queue
  uint32_t max_characters = 10000;      // in the whole daemon
  uint32_t max_characters_per_connection = 2000;
  uint32_t max_subscriptions_per_connection = 16;
  uint32_t max_connections = 1000;
  double max_requests_per_second = 5000;  // per connection, token bucket (burst = 1 s worth)
  uint32_t max_connections_per_address = 128;
  uint32_t max_pending_commands_per_connection = 64;  // requests waiting for the tick
  uint32_t max_queued_commands = 16384;               // all connections, waiting for the tick
  uint32_t max_commands_per_tick = 4096;           // applied per tick (oldest first); the rest wait
  uint32_t max_schedule_ahead_ticks = 600;         // how far ahead Request.at_tick may name a tick
  uint32_t max_assets = 256;                       // loaded assets, built-in included
  size_t max_asset_bytes_total = size_t{1} << 30;  // their memory (mesh, clips, skeleton)
  // Asset loading (asset_loader.h): threads, and what one load may take. Loads in flight
  // hold at most loader_threads * max_load_bytes of working memory; an upload waiting for
  // its turn keeps its bytes drawn on the inbound budget (max_inbound_bytes_total).
  int loader_threads = 2;
  size_t max_load_bytes = size_t{256} << 20;  // bytes
  double max_load_seconds = 10.0;
  uint64_t ik_budget = 200000;         // IK joint-iterations per tick, whole daemon (see docs)
  uint32_t max_hit_query_poses = 256;  // characters one raycast / overlap_sphere may pose
  // Update-rate LOD (docs/animation.md, "Update rates"): the wall time per tick the
  // characters' update may take, in milliseconds. < 0: auto (kAutoBudgetShare of the tick
  // period, less for a while after a tick overran: lod/update_rates.h); +infinity: unlimited
  // (every character evaluated every tick, no allocation).
  double anim_budget_ms = -1.0;
  // The floor of the update rate: every character is evaluated at least every this many
  // ticks, in [1, 16] (1: no reduced rates).
  int max_update_interval = 8;
  // What one evaluated character costs the update, in wall-time microseconds, 0 or in
  // [0.001, 1e6] (a skipped one RatePolicy::skipped_cost of it), for the allocator; 0: learnt
  // from the ticks' wall time (TickCostModel). A fixed cost with a budget in milliseconds makes
  // the update rates a function of the characters' significances alone (no clock decides them).
  double anim_cost_us = 0.0;
  static constexpr double kAutoBudgetShare = 0.75;
  // anim_budget_ms resolved against the tick rate (+infinity: none); with auto the most the
  // budget may be (World::anim_budget_ms() is the budget in force).
  double anim_budget() const;

  // Bounded memory before trust, and for everyone.
  size_t max_preauth_frame_bytes = 64u << 10;  // until a connection's first valid request
  double auth_timeout_s = 10.0;                // a connection must send a valid request within this
  double read_timeout_s = 10.0;  // a frame in progress must deliver each 64 KiB within this
  double idle_timeout_s = 0.0;   // close connections silent this long (0 = never)
  size_t max_inbound_bytes_total = 64u << 20;  // request bodies being received, all connections
  size_t max_stream_bytes_total = 64u << 20;   // frames queued to send, all connections
  double stream_stall_s =
      5.0;  // a subscriber dropping every frame this long loses its subscriptions
  uint32_t max_failed_auth = 10;  // requests with a bad token before the connection is closed

  // Auth (see auth.h). Any token configured: every request needs one.
  std::vector<std::string> control_tokens;  // --control-token (and the old --auth-token)
  std::vector<std::string> observe_tokens;  // --observe-token
  std::string token_file;                   // --token-file, re-read on SIGHUP
  double orphan_grace_s = 10.0;  // owned characters outlive their owner's last connection this long

  // TLS (--tls-cert, --tls-key, --tls-client-ca, --tls-require-client-cert); off unless
  // tls.cert_file is set. See tls_context.h.
  TlsConfig tls;
  // How this daemon reaches peers it migrates characters to when a migrate asks for TLS
  // (--peer-ca-file: CAs their certificates are checked against, empty: the system's;
  // --peer-cert-file/--peer-key-file: the client certificate offered, empty: none).
  std::string peer_ca_file, peer_cert_file, peer_key_file;

  // Operation.
  std::string log_level = "info";
  double shutdown_timeout_s = 2.0;   // bounded wait for pending writes on SIGTERM
  double summary_interval_s = 60.0;  // the periodic summary log line

  // Saved state (--state-dir; docs/operations.md, "Saved state"): empty = none. Every
  // character is captured once per state_interval_s (in slices, a bounded number per tick)
  // and written there off the tick; all of them on SIGTERM/SIGINT; restored at start.
  std::string state_dir;
  double state_interval_s = 1.0;  // [0.1, 3600]

  // HTTP metrics/probes, systemd notify, Agones (server/ops; flags --http-*, --agones*).
  animops::OpsConfig ops;

  // The web viewer on the HTTP port (docs/web-viewer.md): /view and the WebSocket endpoint
  // /ws. --ws-allowed-origin (repeatable): page origins ("scheme://host[:port]", "*" = any)
  // that may open the WebSocket; none given = pages of this daemon's own host only.
  std::vector<std::string> ws_allowed_origins;

  // Derived helpers.
  int history_ticks() const;          // >= 1
  size_t max_accepted_frame() const;  // the largest frame the reader buffers at all
};

}  // namespace animd

#include "options.h"

#include <cstdio>
#include <iostream>

#include "tool_options.h"

namespace animload {

int parse_options(int argc, char** argv, Options& o) {
  CLI::App app{
      "animload: load generator for animd. Opens N connections, spawns M characters on each,\n"
      "drives a command mix, subscribes to the stream, runs for a bounded time, despawns\n"
      "what it spawned and reports throughput and latency. Exit: 0 ok, 1 errors occurred,\n"
      "2 bad command line, 3 could not connect or spawn.",
      "animload"};
  app.add_option("--host", o.host, "daemon host")->capture_default_str();
  app.add_option("--port", o.port, "daemon port")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  app.add_option("--token", o.token, "auth token for control commands")->envname("ANIMD_TOKEN");
  animtool::add_tls_flags(app, o.tls);
  app.add_option("--connections", o.connections, "TCP connections")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  app.add_option("--characters-per-connection", o.characters_per_connection,
                 "characters spawned by each connection")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  auto* total = app.add_option("--characters", o.characters,
                               "characters in all, spread over the connections (instead of "
                               "--characters-per-connection; the last connections take one less)")
                    ->check(CLI::Range(1, 10'000'000));
  app.get_option("--characters-per-connection")->excludes(total);
  app.add_option("--assets", o.assets, "assets, assigned round-robin (e.g. builtin,Fox)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--play-rate", o.play_rate, "play commands per character per second")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 1000.0));
  app.add_option("--crossfade-rate", o.crossfade_rate, "crossfades per character per second")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 1000.0));
  app.add_option("--additive-rate", o.additive_rate,
                 "additive layer add/update/remove per character per second")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 1000.0));
  app.add_option("--ik-rate", o.ik_rate, "IK goal set/move/clear per character per second")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 1000.0));
  app.add_option("--query-rate", o.query_rate,
                 "query_pose per character per second (the present and 1 to 30 ticks back)")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 1000.0));
  app.add_option("--additive-clip", o.additive_clip,
                 "additive clip (default lean, else the last clip)");
  app.add_option("--ik-chain", o.ik_chain, "IK chain ROOT..EFFECTOR (default: from the skeleton)");
  app.add_option("--ik-solver", o.ik_solver, "fabrik | ccd | two-bone")
      ->capture_default_str()
      ->check(CLI::IsMember({"fabrik", "ccd", "two-bone"}));
  app.add_option("--cycle-every", o.cycle_every_s,
                 "seconds: every character crossfades (0.5 s) to its asset's next clip in turn, "
                 "A -> B -> A ... (spawned on the first clip); 0 = off")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 3600.0));
  app.add_flag("--cycle-spread", o.cycle_spread,
               "with --cycle-every: each character's crossfades at its own phase of the cycle, "
               "the commands spread evenly over it (default: all characters at once)");
  app.add_option("--subscribers", o.subscribers, "connections that subscribe (default: all)")
      ->check(CLI::Range(0, 10000));
  auto* all = app.add_flag("--subscribe-all", o.subscribe_all,
                           "subscribers receive every character (default: their own connection's)");
  app.add_option("--region-characters", o.region_characters,
                 "subscribe by region instead: a sphere around about N characters of the spawn "
                 "grid, the subscribers' regions spread over it")
      ->excludes(all)
      ->check(CLI::Range(1, 10'000'000));
  auto* regions =
      app.add_option("--regions", o.regions,
                     "KxM: K subscribers, each subscribed to a region of about M characters "
                     "(the crowd scenario: --subscribers K --region-characters M)")
          ->excludes(all)
          ->check([](const std::string& v) {
            int k = 0, m = 0;
            char x = 0, rest = 0;
            if (std::sscanf(v.c_str(), "%d%c%d%c", &k, &x, &m, &rest) != 3 || x != 'x' || k < 1 ||
                m < 1)
              return std::string("expected KxM with K, M >= 1 (e.g. 10x500)");
            return std::string();
          });
  app.get_option("--region-characters")->excludes(regions);
  app.get_option("--subscribers")->excludes(regions);
  app.add_option("--rate-divisor", o.rate_divisor, "stream every Nth tick")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  app.add_option("--encoding", o.encoding,
                 "stream encoding: compact (quantized, delta-coded) | float (3x4 matrices)")
      ->capture_default_str()
      ->check(CLI::IsMember({"compact", "float"}));
  app.add_flag("--skip-decode", o.skip_decode,
               "compact frames are counted, not decoded to palettes (measures the daemon without "
               "this tool's decoding on the same cores)");
  auto* duration = app.add_option("--duration", o.duration_s, "run seconds")
                       ->capture_default_str()
                       ->check(animtool::finite() & CLI::Range(0.0, 86400.0));
  app.add_option("--ticks", o.ticks,
                 "run until the server advanced N ticks (instead of --duration)")
      ->excludes(duration)
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  app.add_option("--max-duration", o.max_duration_s, "upper bound on the run in --ticks mode (s)")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.1, 86400.0));
  app.add_option("--max-inflight", o.max_inflight, "commands in flight per connection")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--timeout", o.request_timeout_ms, "reply timeout in ms")
      ->capture_default_str()
      ->check(CLI::Range(1, 3'600'000));
  app.add_option("--seed", o.seed, "random seed (the command mix is reproducible)")
      ->capture_default_str();
  app.add_option("--spacing", o.spacing, "metres between characters on the spawn grid")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 1000.0));
  app.add_flag("--quiet", o.quiet, "no progress line");
  app.add_option("--json-out", o.json_out, "write the summary as JSON to this file");
  if (int code = animtool::parse_command_line(app, argc, argv); code >= 0) return code;
  if (o.assets.empty()) {
    std::cerr << "animload: --assets: give at least one asset\n";
    return 2;
  }
  if (!o.regions.empty()) {
    char x = 0;
    std::sscanf(o.regions.c_str(), "%d%c%d", &o.subscribers, &x, &o.region_characters);
    if (o.subscribers > o.connections) {
      std::cerr << "animload: --regions " << o.regions << ": " << o.subscribers
                << " subscribers need as many --connections (" << o.connections << ")\n";
      return 2;
    }
  }
  if (o.characters > 0) {
    o.characters_per_connection = (o.characters + o.connections - 1) / o.connections;
    if (o.characters_per_connection > 100000) {
      std::cerr << "animload: --characters " << o.characters << " over " << o.connections
                << " connections is more than 100000 a connection\n";
      return 2;
    }
  }
  if (o.subscribers < 0 || o.subscribers > o.connections) o.subscribers = o.connections;
  return -1;
}

}  // namespace animload

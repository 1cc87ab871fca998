#pragma once
// animload's configuration (command line) and its parsing.

#include <cstdint>
#include <string>
#include <vector>

#include "tool_options.h"

namespace animload {

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 7450;
  std::string token;
  animtool::TlsFlags tls;  // --tls, --ca, --cert, --key, --server-name
  int connections = 4;
  int characters_per_connection = 10;
  // > 0: characters in all (--characters), spread over the connections: the first
  // `characters % connections` ... each connection spawns characters_per_connection of them
  // until the total is reached.
  int characters = 0;
  std::vector<std::string> assets{"builtin"};  // characters are assigned round-robin
  // Commands per character per second (Poisson arrivals; the total rate is each rate times
  // connections x characters-per-connection).
  double play_rate = 0.2;
  double crossfade_rate = 0.5;
  double additive_rate = 0.2;
  double ik_rate = 0.2;
  // query_pose per character per second: half for the present, half for a tick 1 to 30
  // ticks back (inside the default 1 s history). Their round trips are reported apart.
  double query_rate = 0.0;
  std::string additive_clip;  // default: "lean" when the asset has it, else its last clip
  std::string ik_chain;       // ROOT..EFFECTOR; default: picked from the skeleton (a hand)
  std::string ik_solver = "two-bone";
  // > 0: every this many seconds each character crossfades (0.5 s) to the next clip of its
  // asset, in order (spawned on the first): A -> B -> A ... (the compact stream benchmark).
  double cycle_every_s = 0.0;
  // With cycle_every_s: character k of N crossfades at k/N of each cycle (a steady flow of
  // commands, as a game server's AI retargets characters) instead of all at the cycle's start
  // (a burst of N commands).
  bool cycle_spread = false;
  int subscribers = -1;        // connections that subscribe; -1 = all
  bool subscribe_all = false;  // subscribe to every character instead of the connection's own
  // > 0: each subscriber subscribes by region instead, a sphere holding about this many
  // characters of the spawn grid; the subscribers' centres are spread over the grid (cells
  // of a k x k split, k = ceil(sqrt(subscribers))). Interest-management benchmarks.
  int region_characters = 0;
  std::string regions;  // --regions KxM as given (sets subscribers and region_characters)
  int rate_divisor = 1;
  std::string encoding = "float";  // the stream's: float (the protocol default) | compact
  // Compact frames are counted as received, not decoded to palettes: the daemon's capacity
  // measured without this process's decoding on the same cores.
  bool skip_decode = false;
  double duration_s = 5.0;        // run length, unless ticks > 0
  uint64_t ticks = 0;             // run until the server advanced this many ticks
  double max_duration_s = 600.0;  // hard bound in --ticks mode
  int max_inflight = 256;         // per connection; commands beyond it are skipped and counted
  int request_timeout_ms = 10000;
  uint64_t seed = 1;
  double spacing = 1.5;  // metres between characters on the spawn grid
  bool quiet = false;
  std::string json_out;
};

// Parses argv. Returns -1 to go on, else the exit code (0 after --help, 2 on a usage error;
// the message is already printed).
int parse_options(int argc, char** argv, Options& options);

}  // namespace animload

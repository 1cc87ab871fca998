#pragma once
// animhostile's configuration (command line) and its parsing.

#include <cstdint>
#include <string>
#include <vector>

#include "animclient/client.h"
#include "tool_options.h"

namespace animhostile {

// What one hostile connection does (see hostile.h for the exact bytes).
enum class Kind {
  kGarbage,          // random bytes in bursts
  kHugeHeader,       // a header announcing 0xFFFFFFFF or 64 MiB, then a trickle of body
  kSlowloris,        // a valid small request, one byte every --slowloris-interval seconds
  kSubscribeNoRead,  // subscribe to all characters, then never read
  kQueryFlood,       // query_pose / stats / list_characters pipelined as fast as the socket takes
  kOversizedUpload,  // load_asset uploads of --upload-bytes, sent in full, again and again
  kHandshakeStall,   // the first bytes of a TLS record, then silence (a handshake that stalls)
};
inline constexpr int kKindCount = 7;
const char* kind_name(Kind kind);  // "garbage", "huge_header", ...

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 7450;
  std::string token;          // for the well-behaved clients' control commands
  animtool::TlsFlags tls;     // --tls: every connection (hostile ones too) speaks TLS
  bool allow_remote = false;  // without it only loopback addresses are accepted
  int hostile = 100;          // hostile connections open at once, spread over `kinds`
  std::vector<Kind> kinds;    // default: all (handshake_stall with --tls only); i gets
                              // kinds[i % size]
  int good = 10;              // well-behaved clients
  double good_rate = 20.0;    // requests per second per well-behaved client
  double duration_s = 30.0;   // the attack phase; then everything stops
  bool reconnect = true;      // a hostile connection closed by the server is opened again
  double reconnect_delay_s = 0.5;
  uint64_t max_connects = 100000;  // bound on hostile connects over the run (reconnects included)
  int spawn_characters = 0;  // extra built-in characters spawned (and despawned) for streaming
  double slowloris_interval_s = 3.0;
  uint32_t upload_bytes = (64u << 20) - 1024;  // glb_data size of one oversized upload
  double upload_interval_s = 1.0;              // pause after an upload was sent in full
  int request_timeout_ms = 30000;              // a good reply later than this counts as lost
  int daemon_pid = 0;                          // sample /proc/PID/status VmRSS when > 0
  uint64_t seed = 1;
  bool json = false;     // print the report as JSON instead of text
  std::string json_out;  // also write the JSON report to this file
  bool quiet = false;    // no progress lines on stderr
};

// The connection settings of a well-behaved client (host, port, TLS, timeout); the token is
// set only where control commands are sent.
animclient::ClientOptions client_options(const Options& options);

// Parses argv. Returns -1 to go on, else the exit code (0 after --help, 2 on a usage error;
// the message is already printed). Refuses a non-loopback --host unless --allow-remote.
int parse_options(int argc, char** argv, Options& options);

// True when every address `host` resolves to is loopback (127.0.0.0/8 or ::1); `error` says
// why not (or that it does not resolve).
bool is_loopback_host(const std::string& host, std::string& error);

}  // namespace animhostile

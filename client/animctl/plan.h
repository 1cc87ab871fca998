#pragma once
// What one animctl invocation does, decided entirely while parsing the command line (so that
// every usage error is reported before anything is sent), and how its result is printed.

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "anim/v1/envelope.pb.h"

namespace animctl {

// Exit codes (documented in docs/tools.md and --help).
inline constexpr int kExitOk = 0;
inline constexpr int kExitServerError = 1;  // the daemon answered with a non-OK status
inline constexpr int kExitUsage = 2;        // bad command line: unknown command, bad number
inline constexpr int kExitTransport = 3;    // could not connect, timeout, connection lost

struct GlobalOptions {
  std::string host = "127.0.0.1";
  std::string port = "7450";  // validated as 1..65535 before connecting
  std::string token;
  std::string timeout_ms = "5000";
  bool json = false;
  // TLS (animclient::ClientOptions): --tls, --ca, --cert, --key, --server-name.
  bool tls = false;
  std::string ca_file;      // PEM CAs the server's certificate must chain to (default: system)
  std::string cert_file;    // client certificate, for daemons that verify clients
  std::string key_file;     // its private key
  std::string server_name;  // name the certificate must carry (default: --host)
};

// One request of a command that sends several.
struct PlanStep {
  std::string command;        // for messages, as Plan::command ("machine define 'loco'")
  anim::v1::Request request;  // sent once every request before it was answered OK
  // Prints its OK reply for people. Unset: "ok: <command> (tick N)". For scripts: the Reply as
  // protobuf JSON, one line.
  std::function<void(const anim::v1::Reply&, std::ostream&)> print_human;
};

struct Plan {
  std::string command;        // subcommand name, for messages ("play")
  anim::v1::Request request;  // the request to send (every command sends exactly one first)
  // Prints an OK reply for people. Unset: "ok (tick N)".
  std::function<void(const anim::v1::Reply&, std::ostream&)> print_human;
  // Prints an OK reply for scripts. Unset: the Reply as protobuf JSON.
  std::function<void(const anim::v1::Reply&, std::ostream&)> print_json;
  // Requests sent after `request`, in order, each once the one before it was answered OK; the
  // first refusal ends the run and those before it stay in effect (`machine define` sends one
  // per machine of its file).
  std::vector<PlanStep> then;

  // watch/subscribe: after the subscribe reply, print frames as they stream.
  bool watch = false;
  uint64_t watch_frames = 0;  // stop after this many frames; 0 = until Ctrl-C
  uint32_t watch_joint = 0;   // palette joint whose translation the summary line shows
};

}  // namespace animctl

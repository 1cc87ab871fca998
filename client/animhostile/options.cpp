#include "options.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <iostream>
#include <map>

#include "tool_options.h"

namespace animhostile {

namespace {

const std::map<std::string, Kind>& kinds_by_name() {
  static const std::map<std::string, Kind> m = {
      {"garbage", Kind::kGarbage},
      {"huge_header", Kind::kHugeHeader},
      {"slowloris", Kind::kSlowloris},
      {"subscribe_no_read", Kind::kSubscribeNoRead},
      {"query_flood", Kind::kQueryFlood},
      {"oversized_upload", Kind::kOversizedUpload},
      {"handshake_stall", Kind::kHandshakeStall},
  };
  return m;
}

}  // namespace

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kGarbage:
      return "garbage";
    case Kind::kHugeHeader:
      return "huge_header";
    case Kind::kSlowloris:
      return "slowloris";
    case Kind::kSubscribeNoRead:
      return "subscribe_no_read";
    case Kind::kQueryFlood:
      return "query_flood";
    case Kind::kOversizedUpload:
      return "oversized_upload";
    case Kind::kHandshakeStall:
      return "handshake_stall";
  }
  return "unknown";
}

bool is_loopback_host(const std::string& host, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &list); rc != 0) {
    error = "cannot resolve '" + host + "': " + ::gai_strerror(rc);
    return false;
  }
  bool all_loopback = list != nullptr;
  for (addrinfo* a = list; a; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      if ((ntohl(in->sin_addr.s_addr) >> 24) != 127) all_loopback = false;
    } else if (a->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) all_loopback = false;
    } else {
      all_loopback = false;
    }
  }
  ::freeaddrinfo(list);
  if (!all_loopback)
    error = "'" + host + "' is not a loopback address (use --allow-remote to attack another host)";
  return all_loopback;
}

animclient::ClientOptions client_options(const Options& o) {
  animclient::ClientOptions co;
  co.host = o.host;
  co.port = o.port;
  co.request_timeout = std::chrono::milliseconds(o.request_timeout_ms);
  co.tls = o.tls.tls;
  co.ca_file = o.tls.ca_file;
  co.cert_file = o.tls.cert_file;
  co.key_file = o.tls.key_file;
  co.server_name = o.tls.server_name;
  return co;
}

int parse_options(int argc, char** argv, Options& o) {
  CLI::App app{
      "animhostile: hostile load for animd. Opens --hostile raw connections that misbehave\n"
      "(garbage, huge headers, slowloris, subscribe-and-never-read, query floods, oversized\n"
      "uploads; with --tls each does its TLS handshake first, and stalled handshakes join)\n"
      "beside --good well-behaved clients, for --duration seconds, and reports the\n"
      "good clients' reply latency and losses, the daemon's tick p99 and RSS peak, and when\n"
      "the server closed the hostile connections. Loopback only unless --allow-remote.\n"
      "Exit: 0 every good reply arrived and the daemon answers afterwards, 1 otherwise,\n"
      "2 bad command line, 3 could not connect or set up.",
      "animhostile"};
  app.add_option("--host", o.host, "daemon host (loopback)")->capture_default_str();
  app.add_option("--port", o.port, "daemon port")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  app.add_option("--token", o.token, "auth token for the good clients' control commands")
      ->envname("ANIMD_TOKEN");
  app.add_flag("--allow-remote", o.allow_remote, "allow a non-loopback --host");
  // The good clients verify the daemon with these; the hostile ones do not check anything.
  animtool::add_tls_flags(app, o.tls);
  app.add_option("--hostile", o.hostile, "hostile connections open at once")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  std::vector<std::string> kind_names;
  app.add_option("--kinds", kind_names,
                 "hostile kinds, comma-separated (default: the first six, and "
                 "handshake_stall with --tls): garbage, huge_header, slowloris, "
                 "subscribe_no_read, query_flood, oversized_upload, handshake_stall")
      ->delimiter(',');
  app.add_option("--good", o.good, "well-behaved clients")
      ->capture_default_str()
      ->check(CLI::Range(0, 10000));
  app.add_option("--good-rate", o.good_rate, "requests per second per good client")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.1, 10000.0));
  app.add_option("--duration", o.duration_s, "seconds of attack")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.5, 86400.0));
  app.add_flag("!--no-reconnect", o.reconnect,
               "do not reopen hostile connections the server closed");
  app.add_option("--reconnect-delay", o.reconnect_delay_s, "seconds before a reopen")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 3600.0));
  app.add_option("--max-connects", o.max_connects, "bound on hostile connects in the run")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, uint64_t{100'000'000}));
  app.add_option("--spawn-characters", o.spawn_characters,
                 "built-in characters spawned for the streams (despawned at the end)")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  app.add_option("--slowloris-interval", o.slowloris_interval_s, "seconds between bytes")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.01, 3600.0));
  app.add_option("--upload-bytes", o.upload_bytes, "glb_data bytes of one oversized upload")
      ->capture_default_str()
      ->check(CLI::Range(uint32_t{4}, uint32_t{1u << 30}));
  app.add_option("--upload-interval", o.upload_interval_s, "seconds between uploads")
      ->capture_default_str()
      ->check(animtool::finite() & CLI::Range(0.0, 3600.0));
  app.add_option("--timeout", o.request_timeout_ms, "good reply timeout in ms (later = lost)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3'600'000));
  app.add_option("--daemon-pid", o.daemon_pid, "sample this process's VmRSS")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--seed", o.seed, "random seed")->capture_default_str();
  app.add_flag("--json", o.json, "print the report as JSON");
  app.add_option("--json-out", o.json_out, "also write the JSON report to this file");
  app.add_flag("--quiet", o.quiet, "no progress lines");
  if (int code = animtool::parse_command_line(app, argc, argv); code >= 0) return code;
  for (const auto& name : kind_names) {
    auto it = kinds_by_name().find(name);
    if (it == kinds_by_name().end()) {
      std::cerr << "animhostile: --kinds: unknown kind '" << name << "'\n";
      return 2;
    }
    o.kinds.push_back(it->second);
  }
  if (o.kinds.empty()) {
    for (int k = 0; k < kKindCount; ++k) o.kinds.push_back(static_cast<Kind>(k));
    if (!o.tls.tls) o.kinds.pop_back();  // handshake_stall is about TLS handshakes
  }
  std::string error;
  if (!o.allow_remote && !is_loopback_host(o.host, error)) {
    std::cerr << "animhostile: --host: " << error << "\n";
    return 2;
  }
  return -1;
}

}  // namespace animhostile

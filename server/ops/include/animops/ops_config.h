#pragma once
// The operations part of animd's configuration, and its command-line / config-file options.
//
// The daemon embeds an OpsConfig in its own Config and calls add_ops_options() on its CLI11
// app, so these options are also keys of the TOML config file (same names without "--").

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace animops {

struct OpsConfig {
  std::string http_address = "127.0.0.1";  // --http-address: where /metrics etc. listen
  int http_port = 7451;                    // --http-port: 0 = ephemeral, -1 = no HTTP server
  std::string http_port_file;  // --http-port-file: write the bound HTTP port here (for tests)
  // Hostile clients of the HTTP port (HttpOptions, docs/security.md "The HTTP port").
  size_t http_max_connections = 64;              // --http-max-connections
  size_t http_max_connections_per_address = 16;  // --http-max-connections-per-address
  double http_header_timeout_s = 3.0;            // --http-header-timeout
  std::vector<std::string> http_allowed_hosts;   // --http-allowed-host (repeatable)
  bool agones = false;                           // --agones: talk to the Agones SDK sidecar
  std::string agones_sdk_url;  // --agones-sdk-url: "" = http://127.0.0.1:$AGONES_SDK_HTTP_PORT
                               //   (9358 when unset)
  double agones_health_seconds = 5.0;  // --agones-health-seconds: /health ping period (> 0)
  // --agones-counter: the Agones Counter that gets the live character count and capacity
  // (Ops::set_agones_capacity); "" = none. 1 to 63 letters, digits, '.', '_', '-'.
  std::string agones_counter;
  double agones_counter_seconds = 1.0;  // --agones-counter-seconds: at most one update per
                                        //   this many seconds (> 0)
};

// Adds --http-address, --http-port, --http-port-file, --http-max-connections,
// --http-max-connections-per-address, --http-header-timeout, --http-allowed-host, --agones,
// --agones-sdk-url, --agones-health-seconds, --agones-counter and --agones-counter-seconds
// (group "Operations") bound to `config`, with range checks.
void add_ops_options(CLI::App& app, OpsConfig& config);

}  // namespace animops

#include "animops/ops_config.h"

#include <CLI/CLI.hpp>

namespace animops {

void add_ops_options(CLI::App& app, OpsConfig& config) {
  const std::string group = "Operations";
  // A flag given twice takes the last value (e.g. a wrapper's default then the user's).
  const auto last = CLI::MultiOptionPolicy::TakeLast;
  app.add_option("--http-address", config.http_address,
                 "Address of the metrics/health HTTP server (IPv4 or IPv6 literal)")
      ->capture_default_str()
      ->multi_option_policy(last)
      ->group(group);
  app.add_option("--http-port", config.http_port,
                 "Port of the metrics/health HTTP server; 0 = ephemeral, -1 = disabled")
      ->capture_default_str()
      ->check(CLI::Range(-1, 65535))
      ->multi_option_policy(last)
      ->group(group);
  app.add_option("--http-port-file", config.http_port_file,
                 "Write the bound HTTP port (one line) to this file once listening")
      ->multi_option_policy(last)
      ->group(group);
  app.add_flag("--agones", config.agones,
               "Report ready/health/shutdown to the Agones SDK sidecar over its HTTP API")
      ->multi_option_policy(last)
      ->group(group);
  app.add_option("--agones-sdk-url", config.agones_sdk_url,
                 "Agones SDK sidecar base URL (default http://127.0.0.1:$AGONES_SDK_HTTP_PORT, "
                 "port 9358 when unset)")
      ->multi_option_policy(last)
      ->group(group);
  app.add_option("--agones-health-seconds", config.agones_health_seconds,
                 "Seconds between Agones health pings")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->multi_option_policy(last)
      ->group(group);
}

}  // namespace animops

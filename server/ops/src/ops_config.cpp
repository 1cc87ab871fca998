#include "animops/ops_config.h"

#include <CLI/CLI.hpp>

#include "animops/agones_client.h"
#include "animops/host_check.h"

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
  app.add_option("--http-max-connections", config.http_max_connections,
                 "Connections the HTTP port holds (beyond them: the oldest one that has sent no "
                 "complete request is closed; 4 more serve only /healthz /readyz /metrics)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{100000}))
      ->multi_option_policy(last)
      ->group(group);
  app.add_option("--http-max-connections-per-address", config.http_max_connections_per_address,
                 "Connections of the HTTP port one remote IP address holds (beyond them: its "
                 "oldest one that has sent no complete request is closed)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{100000}))
      ->multi_option_policy(last)
      ->group(group);
  app.add_option("--http-header-timeout", config.http_header_timeout_s,
                 "Seconds an HTTP connection has to send a complete request header (after its "
                 "connect or its previous response)")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 3600.0))
      ->multi_option_policy(last)
      ->group(group);
  app.add_option("--http-allowed-host", config.http_allowed_hosts,
                 "A Host name the HTTP port serves (repeatable; NAME, NAME:PORT, .DOMAIN for a "
                 "domain and its subdomains, * for any): the DNS-rebinding defence. IP addresses "
                 "and localhost are always served")
      ->check(CLI::Validator([](std::string& entry) { return check_allowed_host_entry(entry); },
                             "HOST"))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
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
  app.add_option("--agones-counter", config.agones_counter,
                 "Agones Counter (declared in the GameServer spec) that gets the live character "
                 "count and --max-characters as its capacity; empty = none")
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            if (name.empty() || valid_agones_counter_name(name)) return {};
            return "Agones Counter name: 1 to 63 letters, digits, '.', '_', '-'";
          },
          "NAME"))
      ->multi_option_policy(last)
      ->group(group);
  app.add_option("--agones-counter-seconds", config.agones_counter_seconds,
                 "At most one Agones Counter update per this many seconds (and only on change)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->multi_option_policy(last)
      ->group(group);
}

}  // namespace animops

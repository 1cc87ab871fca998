#pragma once
// The Host check of the HTTP endpoint: the defence against DNS rebinding (docs/security.md,
// "The HTTP port"). Pure functions of header values and the configured list.
//
// A page from rebind.attacker.example whose name is later made to resolve to the daemon's
// address is, for the browser, same-origin with the daemon: it may read /metrics and its
// WebSocket's Origin names the Host it sends. What the browser cannot hide is that name in
// the Host header. So a request is served only when its Host is one of:
//   - absent or empty (not a browser: browsers always send it);
//   - an IP literal ("10.0.0.5", "[::1]"), with or without a port: no name, nothing to rebind
//     (Kubernetes probes and Prometheus scrapes by pod IP send these);
//   - "localhost" (browsers resolve it to loopback themselves);
//   - an entry of --http-allowed-host: "name" (any port), "name:port" (that port only),
//     ".example.com" (that name and every name under it), or "*" (anything: the check off).
// Names compare ignoring ASCII case and one trailing dot.

#include <string>
#include <string_view>
#include <vector>

namespace animops {

// True when a request carrying Host `host` may be served (rules above).
bool host_allowed(std::string_view host, const std::vector<std::string>& allowed);

// Empty when `entry` is a valid --http-allowed-host value, else why not.
std::string check_allowed_host_entry(std::string_view entry);

// `value` (an attacker's header) as printable ASCII in quotes, at most 100 characters of it.
std::string quoted_header(std::string_view value);

}  // namespace animops

#include "animops/host_check.h"

#include <arpa/inet.h>

#include <optional>

namespace animops {

namespace {

// A Host value (or an allow-list entry) taken apart: `name` in lower case without its
// trailing dot ("[...]" kept for IPv6), `port` or -1 when none was given.
struct HostParts {
  std::string name;
  int port = -1;
  bool ip = false;
};

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

// ":" followed by 0..5 digits (at most 65535); empty = no port.
std::optional<int> parse_port(std::string_view rest) {
  if (rest.empty()) return -1;
  if (rest[0] != ':' || rest.size() > 6) return std::nullopt;
  if (rest.size() == 1) return -1;  // "host:" (an empty port) is "host"
  int port = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port > 65535) return std::nullopt;
  return port;
}

// nullopt: not a well-formed host[:port] (refused as a Host, invalid as an entry).
std::optional<HostParts> parse_host(std::string_view host) {
  if (host.empty()) return std::nullopt;
  HostParts out;
  std::string_view rest;
  if (host[0] == '[') {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string inner(host.substr(1, close - 1));
    in6_addr addr{};
    if (::inet_pton(AF_INET6, inner.c_str(), &addr) != 1) return std::nullopt;
    out.ip = true;
    for (char c : host.substr(0, close + 1)) out.name += lower(c);
    rest = host.substr(close + 1);
  } else {
    const size_t colon = host.find(':');
    if (colon != std::string_view::npos && host.find(':', colon + 1) != std::string_view::npos)
      return std::nullopt;  // an unbracketed IPv6 address is not a Host
    std::string_view name = host.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : host.substr(colon);
    if (!name.empty() && name.back() == '.') name.remove_suffix(1);
    if (name.empty()) return std::nullopt;
    for (char c : name) {
      const char l = lower(c);
      if (!name_char(l)) return std::nullopt;
      out.name += l;
    }
    in_addr addr{};
    out.ip = ::inet_pton(AF_INET, out.name.c_str(), &addr) == 1;
  }
  const auto port = parse_port(rest);
  if (!port) return std::nullopt;
  out.port = *port;
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool entry_matches(std::string_view entry, const HostParts& host) {
  const bool domain = !entry.empty() && entry[0] == '.';
  const auto e = parse_host(domain ? entry.substr(1) : entry);
  if (!e) return false;
  if (e->port >= 0 && e->port != host.port) return false;
  if (!domain) return e->name == host.name;
  return host.name == e->name || ends_with(host.name, "." + e->name);
}

}  // namespace

bool host_allowed(std::string_view host, const std::vector<std::string>& allowed) {
  if (host.empty()) return true;
  for (const auto& entry : allowed)
    if (entry == "*") return true;
  const auto parts = parse_host(host);
  if (!parts) return false;
  if (parts->ip || parts->name == "localhost") return true;
  for (const auto& entry : allowed)
    if (entry_matches(entry, *parts)) return true;
  return false;
}

std::string check_allowed_host_entry(std::string_view entry) {
  if (entry == "*") return {};
  const bool domain = !entry.empty() && entry[0] == '.';
  if (!parse_host(domain ? entry.substr(1) : entry))
    return "not a host name: " + quoted_header(entry) +
           " (want NAME, NAME:PORT, .DOMAIN or *; e.g. animd.example.com)";
  return {};
}

std::string quoted_header(std::string_view value) {
  std::string out = "'";
  for (char c : value.substr(0, 100)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (value.size() > 100) out += "...";
  return out + "'";
}

}  // namespace animops

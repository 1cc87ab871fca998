#include "net/origin_check.h"

#include <algorithm>

namespace animd {

namespace {

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

// Header values are attacker-chosen: quote them printable and short in the reason.
std::string quoted(std::string_view v) {
  std::string out = "'";
  for (char c : v.substr(0, 100)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (v.size() > 100) out += "...";
  return out + "'";
}

}  // namespace

std::string check_origin(std::string_view origin, std::string_view host,
                         const std::vector<std::string>& allowed) {
  if (origin.empty()) return {};
  if (!allowed.empty()) {
    for (const auto& a : allowed)
      if (a == "*" || iequal(a, origin)) return {};
    return "Origin " + quoted(origin) + " is not in --ws-allowed-origin";
  }
  // Same host: "scheme://authority" with nothing after the authority.
  const size_t sep = origin.find("://");
  const std::string_view scheme = sep == std::string_view::npos ? "" : origin.substr(0, sep);
  const std::string_view authority = sep == std::string_view::npos ? "" : origin.substr(sep + 3);
  const bool well_formed = (iequal(scheme, "http") || iequal(scheme, "https")) &&
                           !authority.empty() &&
                           authority.find_first_of("/?#@ ") == std::string_view::npos;
  if (!well_formed) return "Origin " + quoted(origin) + " is not an http(s) origin";
  if (host.empty() || !iequal(authority, host))
    return "Origin " + quoted(origin) + " is not this daemon's host " + quoted(host) +
           " (only same-host pages may connect; see --ws-allowed-origin)";
  return {};
}

}  // namespace animd

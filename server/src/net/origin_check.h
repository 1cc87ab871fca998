#pragma once
// The Origin check of the WebSocket endpoint (docs/web-viewer.md, "Origins"). Pure: the
// HTTP layer hands it two header values and the configured allow-list.
//
// A browser sends Origin with every WebSocket upgrade and lets any page open a socket to any
// host, so without this check a page from anywhere could drive a daemon on the viewer's
// machine. Clients that are not browsers send no Origin and are governed by tokens alone, as
// on the TCP port.
//
// The same-host rule trusts `host` only because the HTTP endpoint has already refused every
// request whose Host is not allowed (animops/host_check.h, --http-allowed-host): a page from a
// rebinding name sends that name as Origin and as Host alike, and never reaches this check.

#include <string>
#include <string_view>
#include <vector>

namespace animd {

// Returns empty when `origin` (the Origin header; empty = none sent) may open a WebSocket to
// a server reached as `host` (the Host header), else why not. `allowed` (--ws-allowed-origin):
// empty = same host only (the origin's host[:port] equals `host`, as for the page /view
// served by this daemon); otherwise the origin must equal one entry ("scheme://host[:port]",
// ASCII case ignored), and an entry "*" allows every origin.
std::string check_origin(std::string_view origin, std::string_view host,
                         const std::vector<std::string>& allowed);

}  // namespace animd

#pragma once
// The HTTP endpoint's answers (http_endpoint.h): responses and the routing table, as pure
// functions of the request, the options and the current health and metrics.

#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "animops/health.h"
#include "animops/http_endpoint.h"
#include "animops/metrics.h"

namespace animops {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

// A response of `status` with the endpoint's common headers, keeping `req`'s keep-alive.
HttpResponse make_response(const HttpRequest& req, boost::beast::http::status status,
                           std::string_view content_type, std::string body);

// A text/plain answer that closes the connection (refusals: `message` plus a newline).
HttpResponse refusal_response(const HttpRequest& req, boost::beast::http::status status,
                              std::string_view message);

// The request target without its query string.
std::string_view request_path(const HttpRequest& req);

// The paths the operations reserve serves (ConnectionTable): /healthz, /readyz, /metrics.
bool is_operations_path(std::string_view path);

// The answer to `req` (files, /metrics, /healthz, /readyz; 404, 405), HEAD included.
HttpResponse route(const HttpRequest& req, const HttpOptions& options, Metrics& metrics,
                   const Health& health);

}  // namespace animops

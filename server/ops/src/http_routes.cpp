#include "http_routes.h"

namespace animops {

namespace http = boost::beast::http;

HttpResponse make_response(const HttpRequest& req, http::status status,
                           std::string_view content_type, std::string body) {
  HttpResponse res{status, req.version()};
  res.set(http::field::server, "animd");
  res.set(http::field::content_type, std::string(content_type));
  res.set(http::field::cache_control, "no-store");
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

HttpResponse refusal_response(const HttpRequest& req, http::status status,
                              std::string_view message) {
  auto res = make_response(req, status, "text/plain; charset=utf-8", std::string(message) + "\n");
  res.keep_alive(false);
  return res;
}

std::string_view request_path(const HttpRequest& req) {
  std::string_view target(req.target().data(), req.target().size());
  if (const auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
  return target;
}

bool is_operations_path(std::string_view path) {
  return path == "/healthz" || path == "/readyz" || path == "/metrics";
}

namespace {

HttpResponse answer(const HttpRequest& req, const HttpOptions& options, Metrics& metrics,
                    const Health& health) {
  const std::string_view target = request_path(req);
  const StaticFile* file = nullptr;
  for (const auto& f : options.files)
    if (f.path == target) file = &f;
  if (!file && !is_operations_path(target)) {
    return make_response(req, http::status::not_found, "text/plain; charset=utf-8",
                         options.files.empty()
                             ? "not found; try /metrics, /healthz or /readyz\n"
                             : "not found; try /view, /metrics, /healthz or /readyz\n");
  }
  if (req.method() != http::verb::get) {
    auto res = make_response(req, http::status::method_not_allowed, "text/plain; charset=utf-8",
                             "method not allowed; use GET\n");
    res.set(http::field::allow, "GET");
    return res;
  }
  if (file)
    return make_response(req, http::status::ok, file->content_type, std::string(file->body));
  if (target == "/metrics") {
    return make_response(req, http::status::ok, "text/plain; version=0.0.4; charset=utf-8",
                         metrics.render());
  }
  if (target == "/healthz") {
    return make_response(req, http::status::ok, "text/plain; charset=utf-8", "ok\n");
  }
  const Health::Verdict v = health.ready();
  return make_response(req, v.ready ? http::status::ok : http::status::service_unavailable,
                       "text/plain; charset=utf-8", v.reason + "\n");
}

}  // namespace

HttpResponse route(const HttpRequest& req, const HttpOptions& options, Metrics& metrics,
                   const Health& health) {
  HttpResponse res = answer(req, options, metrics, health);
  // A response to HEAD carries the headers (Content-Length included) but never a body.
  if (req.method() == http::verb::head) {
    const auto length = res.body().size();
    res.body().clear();
    res.content_length(length);
  }
  return res;
}

}  // namespace animops

// HttpEndpoint over loopback: a real Beast server on an ephemeral port, a real Beast client.

#include "animops/http_endpoint.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "test_http.h"

namespace http_endpoint_test {

using animops::Health;
using animops::HttpEndpoint;
using animops::HttpOptions;
using animops::Metrics;
using opstest::http_get;
using opstest::http_request;
namespace http = opstest::http;

class HttpEndpointTest : public ::testing::Test {
 protected:
  void start(HttpOptions options = {}) {
    options.port = 0;
    endpoint_ = std::make_unique<HttpEndpoint>(io_.io(), metrics_, health_, options);
    ASSERT_EQ(endpoint_->start(), "");
    ASSERT_NE(endpoint_->port(), 0);
  }
  void TearDown() override { endpoint_.reset(); }

  Metrics metrics_{animops::BuildInfo{"9.9.9", "Test"}};
  Health health_;
  opstest::IoThread io_;
  std::unique_ptr<HttpEndpoint> endpoint_;
};

TEST_F(HttpEndpointTest, MetricsServesThePrometheusExposition) {
  start();
  metrics_.characters.set(3);
  metrics_.requests.inc(5);
  const auto r = http_get(endpoint_->port(), "/metrics");
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  // Nothing changed since the request: the body is exactly the current rendering.
  EXPECT_EQ(r.body, metrics_.render());
  EXPECT_NE(r.body.find("\nanimd_characters 3\n"), std::string::npos);
  EXPECT_NE(r.body.find("\nanimd_requests_total 5\n"), std::string::npos);
  EXPECT_NE(r.body.find("animd_build_info{version=\"9.9.9\",build_type=\"Test\"} 1\n"),
            std::string::npos);

  metrics_.characters.set(4);
  const auto r2 = http_get(endpoint_->port(), "/metrics");
  EXPECT_NE(r2.body.find("\nanimd_characters 4\n"), std::string::npos);
}

TEST_F(HttpEndpointTest, HealthzIsOkWhileAliveEvenWhenNotReady) {
  start();
  const auto r = http_get(endpoint_->port(), "/healthz");
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_EQ(http_get(endpoint_->port(), "/healthz?verbose=1").status, 200);  // query ignored
}

TEST_F(HttpEndpointTest, ReadyzFollowsAssetsTickAgeAndDraining) {
  start();
  auto r = http_get(endpoint_->port(), "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "assets not loaded\n");

  health_.set_assets_loaded(true);
  r = http_get(endpoint_->port(), "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "tick loop has not run yet\n");

  health_.note_tick(Health::Clock::now());
  r = http_get(endpoint_->port(), "/readyz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ready\n");

  // A tick 5 s in the past: stalled (the limit is 1 s).
  health_.note_tick(Health::Clock::now() - std::chrono::seconds(5));
  r = http_get(endpoint_->port(), "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body.rfind("tick stalled: last tick ", 0), 0u) << r.body;
  EXPECT_NE(r.body.find("(limit 1000 ms)"), std::string::npos) << r.body;

  health_.note_tick(Health::Clock::now());
  health_.set_draining();
  r = http_get(endpoint_->port(), "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "draining: shutting down\n");
  // Draining is not dead: liveness stays OK so the drain is not cut short by a restart.
  EXPECT_EQ(http_get(endpoint_->port(), "/healthz").status, 200);
}

TEST_F(HttpEndpointTest, UnknownPathIs404) {
  start();
  const auto r = http_get(endpoint_->port(), "/metricsx");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(http_get(endpoint_->port(), "/").status, 404);
  EXPECT_EQ(http_request(endpoint_->port(), http::verb::post, "/nope", "x").status, 404);
}

TEST_F(HttpEndpointTest, NonGetMethodsAre405WithAllowHeader) {
  start();
  for (auto verb : {http::verb::post, http::verb::put, http::verb::delete_, http::verb::head}) {
    const auto r = http_request(endpoint_->port(), verb, "/metrics", "");
    EXPECT_EQ(r.status, 405) << http::to_string(verb);
    EXPECT_EQ(r.allow, "GET");
  }
  EXPECT_EQ(http_request(endpoint_->port(), http::verb::post, "/readyz", "{}").status, 405);
}

TEST_F(HttpEndpointTest, OversizedRequestsAreRefused) {
  HttpOptions options;
  options.max_request_bytes = 1024;
  start(options);
  // A header block over the limit: 431 and the connection closes.
  opstest::asio::io_context io;
  opstest::beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::seconds(10));
  stream.connect(
      opstest::tcp::endpoint(opstest::asio::ip::make_address("127.0.0.1"), endpoint_->port()));
  http::request<http::string_body> req{http::verb::get, "/metrics", 11};
  req.set(http::field::host, "127.0.0.1");
  req.set("X-Padding", std::string(4000, 'a'));
  http::write(stream, req);
  opstest::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  opstest::beast::error_code ec;
  http::read(stream, buffer, res, ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 431);

  // A body over the limit: 413.
  const auto r =
      http_request(endpoint_->port(), http::verb::get, "/metrics", std::string(5000, 'b'));
  EXPECT_EQ(r.status, 413) << r.error;
}

TEST_F(HttpEndpointTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  start();
  opstest::asio::io_context io;
  opstest::beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::seconds(10));
  stream.connect(
      opstest::tcp::endpoint(opstest::asio::ip::make_address("127.0.0.1"), endpoint_->port()));
  opstest::beast::flat_buffer buffer;
  for (const char* target : {"/healthz", "/readyz", "/healthz"}) {
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.keep_alive(true);
    http::write(stream, req);
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    EXPECT_TRUE(res.keep_alive());
    EXPECT_EQ(res.result_int(), std::string(target) == "/healthz" ? 200 : 503);
  }
}

TEST_F(HttpEndpointTest, SilentClientIsDisconnectedAtTheHeaderDeadline) {
  HttpOptions options;
  options.header_timeout = std::chrono::milliseconds(100);
  start(options);
  opstest::asio::io_context io;
  opstest::beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::seconds(30));  // our own guard against a hang
  stream.connect(
      opstest::tcp::endpoint(opstest::asio::ip::make_address("127.0.0.1"), endpoint_->port()));
  // Send nothing: the server must close the connection (we read EOF, not our own timeout).
  char byte;
  opstest::beast::error_code ec;
  stream.read_some(opstest::asio::buffer(&byte, 1), ec);
  EXPECT_EQ(ec, opstest::asio::error::eof) << ec.message();
}

TEST_F(HttpEndpointTest, StopClosesTheListener) {
  start();
  const uint16_t port = endpoint_->port();
  ASSERT_EQ(http_get(port, "/healthz").status, 200);
  endpoint_->stop();
  endpoint_->stop();  // idempotent
  // The close runs on the io thread; once it has, connections are refused. Poll for it
  // (a connection caught in the listen backlog while closing is reset instead).
  opstest::HttpResult r;
  for (int i = 0; i < 500; ++i) {
    r = http_get(port, "/healthz");
    if (r.error.rfind("connect", 0) == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.error.find("connect"), std::string::npos) << r.error;
}

TEST(HttpEndpointStart, BadAddressOrBusyPortIsAClearError) {
  Metrics metrics;
  Health health;
  opstest::IoThread io;
  HttpOptions bad;
  bad.address = "not-an-ip";
  bad.port = 0;
  HttpEndpoint e1(io.io(), metrics, health, bad);
  EXPECT_EQ(e1.start().rfind("http: bad address 'not-an-ip'", 0), 0u);

  HttpOptions any;
  any.port = 0;
  HttpEndpoint e2(io.io(), metrics, health, any);
  ASSERT_EQ(e2.start(), "");
  HttpOptions same;
  same.port = e2.port();
  HttpEndpoint e3(io.io(), metrics, health, same);
  const std::string err = e3.start();
  EXPECT_EQ(err.rfind("http: cannot listen on 127.0.0.1:" + std::to_string(e2.port()), 0), 0u)
      << err;
  EXPECT_EQ(e3.port(), 0);
}

}  // namespace http_endpoint_test

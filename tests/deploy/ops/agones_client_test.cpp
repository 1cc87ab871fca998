// AgonesClient against a fake SDK sidecar on loopback that records the calls it gets.

#include "animops/agones_client.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "fake_sidecar.h"
#include "test_http.h"

namespace {

using animops::AgonesClient;
using animops::AgonesOptions;
using opstest::FakeSidecar;
using std::chrono::milliseconds;

AgonesOptions options_for(const FakeSidecar& sidecar) {
  AgonesOptions o;
  o.sdk_url = sidecar.url();
  o.health_interval = milliseconds(20);
  o.request_timeout = milliseconds(5000);
  return o;
}

TEST(AgonesClient, ReadyThenHealthPingsThenShutdown) {
  FakeSidecar sidecar;
  opstest::IoThread io;
  AgonesClient client(io.io(), options_for(sidecar));
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.health_pings_acknowledged() >= 3; }));
  EXPECT_TRUE(client.ready_acknowledged());
  EXPECT_TRUE(client.shutdown());

  const auto calls = sidecar.calls();
  ASSERT_GE(calls.size(), 5u);
  EXPECT_EQ(calls.front().path, "/ready");
  EXPECT_EQ(calls.back().path, "/shutdown");
  for (size_t i = 1; i + 1 < calls.size(); ++i) EXPECT_EQ(calls[i].path, "/health") << i;
  for (const auto& c : calls) {
    EXPECT_EQ(c.method, "POST");
    EXPECT_EQ(c.content_type, "application/json");
    EXPECT_EQ(c.body, "{}");
  }
  EXPECT_EQ(sidecar.count("/ready"), 1u);
  EXPECT_EQ(client.failures(), 0u);
}

TEST(AgonesClient, ReadyIsRetriedUntilTheSidecarAcceptsIt) {
  FakeSidecar sidecar;
  sidecar.fail_next("/ready", 2, opstest::http::status::service_unavailable);
  opstest::IoThread io;
  AgonesClient client(io.io(), options_for(sidecar));
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.health_pings_acknowledged() >= 1; }));
  EXPECT_EQ(sidecar.count("/ready"), 3u);  // two refusals, then accepted once
  EXPECT_EQ(client.failures(), 2u);
  EXPECT_TRUE(client.ready_acknowledged());
  client.shutdown();
}

TEST(AgonesClient, NoHealthPingsWhileTheDaemonIsUnhealthy) {
  FakeSidecar sidecar;
  opstest::IoThread io;
  std::atomic<int> polls{0};
  std::atomic<bool> healthy{false};
  AgonesClient client(io.io(), options_for(sidecar), [&] {
    ++polls;
    return healthy.load();
  });
  ASSERT_EQ(client.start(), "");
  // The client asked several times whether we are healthy, and was told no each time.
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return polls.load() >= 3; }));
  EXPECT_TRUE(client.ready_acknowledged());
  EXPECT_EQ(sidecar.count("/health"), 0u);
  healthy = true;
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return sidecar.count("/health") >= 1; }));
  client.shutdown();
}

TEST(AgonesClient, MissingSidecarIsLoggedNotFatal) {
  // A port with nothing listening: bind one, note it, close it.
  uint16_t port = 0;
  {
    opstest::asio::io_context io;
    opstest::tcp::acceptor a(
        io, opstest::tcp::endpoint(opstest::asio::ip::make_address("127.0.0.1"), 0));
    port = a.local_endpoint().port();
  }
  opstest::IoThread io;
  AgonesOptions o;
  o.sdk_url = "http://127.0.0.1:" + std::to_string(port);
  o.health_interval = milliseconds(20);
  o.request_timeout = milliseconds(2000);
  AgonesClient client(io.io(), o);
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.failures() >= 3; }));
  EXPECT_FALSE(client.ready_acknowledged());
  EXPECT_FALSE(client.shutdown());
}

TEST(AgonesClient, BadUrlIsRefusedAtStart) {
  opstest::IoThread io;
  AgonesOptions o;
  o.sdk_url = "https://sidecar:9358";
  AgonesClient client(io.io(), o);
  EXPECT_EQ(client.start(), "agones: bad SDK URL 'https://sidecar:9358' (want http://HOST:PORT)");
  EXPECT_FALSE(client.shutdown());  // never started: nothing sent
}

TEST(AgonesClient, DefaultUrlFollowsTheSidecarPortVariable) {
  const char* old = std::getenv("AGONES_SDK_HTTP_PORT");
  const std::string saved = old ? old : "";
  unsetenv("AGONES_SDK_HTTP_PORT");
  EXPECT_EQ(animops::default_agones_sdk_url(), "http://127.0.0.1:9358");
  setenv("AGONES_SDK_HTTP_PORT", "9999", 1);
  EXPECT_EQ(animops::default_agones_sdk_url(), "http://127.0.0.1:9999");
  if (old) {
    setenv("AGONES_SDK_HTTP_PORT", saved.c_str(), 1);
  } else {
    unsetenv("AGONES_SDK_HTTP_PORT");
  }
}

TEST(ParseHttpUrl, AcceptsHostPortOnly) {
  std::string host = "unchanged";
  uint16_t port = 1;
  EXPECT_TRUE(animops::parse_http_url("http://127.0.0.1:9358", &host, &port));
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9358);
  EXPECT_TRUE(animops::parse_http_url("http://localhost:80/", &host, &port));
  EXPECT_EQ(host, "localhost");
  EXPECT_EQ(port, 80);
  EXPECT_TRUE(animops::parse_http_url("http://[::1]:9358", &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 9358);

  host = "unchanged";
  port = 1;
  for (const char* bad :
       {"", "http://", "127.0.0.1:9358", "https://h:1", "http://h", "http://h:", "http://h:0",
        "http://h:65536", "http://h:12x", "http://h:1/path", "http://u@h:1", "http://::1:9358",
        "http://[::1]9358", "http://[::1]", "http://:9358"}) {
    EXPECT_FALSE(animops::parse_http_url(bad, &host, &port)) << bad;
  }
  EXPECT_EQ(host, "unchanged");
  EXPECT_EQ(port, 1);
}

}  // namespace

// AgonesClient against a fake SDK sidecar on loopback that records the calls it gets.

#include "animops/agones_client.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "fake_sidecar.h"
#include "test_http.h"

namespace agones_client_test {

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

// ---- capacity as an Agones Counter ---------------------------------------------------

constexpr const char* kCounterPath = "/v1beta1/counters/characters";

AgonesOptions counter_options_for(const FakeSidecar& sidecar, const std::atomic<int64_t>& count,
                                  int64_t capacity, milliseconds interval) {
  AgonesOptions o = options_for(sidecar);
  o.counter = "characters";
  o.counter_capacity = capacity;
  o.counter_count = [&count] { return count.load(); };
  o.counter_interval = interval;
  return o;
}

std::string counter_body(int64_t count, int64_t capacity) {
  return R"({"count":")" + std::to_string(count) + R"(","capacity":")" + std::to_string(capacity) +
         R"("})";
}

TEST(AgonesCounter, SentAfterReadyThenOnlyWhenTheCountChanges) {
  FakeSidecar sidecar;
  opstest::IoThread io;
  std::atomic<int64_t> count{7};
  AgonesClient client(io.io(), counter_options_for(sidecar, count, 2000, milliseconds(10)));
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.counter_updates_acknowledged() >= 1; }));

  // The sidecar knows of us before it hears about the count.
  const auto calls = sidecar.calls();
  ASSERT_GE(calls.size(), 2u);
  EXPECT_EQ(calls.front().path, "/ready");
  auto patches = sidecar.calls_to(kCounterPath);
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].method, "PATCH");
  EXPECT_EQ(patches[0].content_type, "application/json");
  EXPECT_EQ(patches[0].body, counter_body(7, 2000));

  // Unchanged: many counter intervals (and health pings) later, nothing more was sent.
  const uint64_t pings = client.health_pings_acknowledged();
  ASSERT_TRUE(
      FakeSidecar::wait_until([&] { return client.health_pings_acknowledged() >= pings + 5; }));
  EXPECT_EQ(sidecar.count(kCounterPath), 1u);

  count = 12;
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.counter_updates_acknowledged() >= 2; }));
  patches = sidecar.calls_to(kCounterPath);
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[1].method, "PATCH");
  EXPECT_EQ(patches[1].body, counter_body(12, 2000));

  // Back to a value sent before: that is a change too.
  count = 7;
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.counter_updates_acknowledged() >= 3; }));
  EXPECT_EQ(sidecar.calls_to(kCounterPath).back().body, counter_body(7, 2000));

  EXPECT_TRUE(client.shutdown());
  EXPECT_EQ(sidecar.calls().back().path, "/shutdown");
  EXPECT_EQ(client.counter_failures(), 0u);
  EXPECT_EQ(client.failures(), 0u);
}

TEST(AgonesCounter, NoUpdateBeforeReadyIsAccepted) {
  FakeSidecar sidecar;
  sidecar.fail_next("/ready", 3, opstest::http::status::service_unavailable);
  opstest::IoThread io;
  std::atomic<int64_t> count{1};
  AgonesClient client(io.io(), counter_options_for(sidecar, count, 10, milliseconds(5)));
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.counter_updates_acknowledged() >= 1; }));
  const auto calls = sidecar.calls();
  size_t first_patch = calls.size();
  size_t readies = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].path == kCounterPath && first_patch == calls.size()) first_patch = i;
    if (calls[i].path == "/ready" && first_patch == calls.size()) ++readies;
  }
  EXPECT_EQ(readies, 4u);  // three refusals, then accepted; only then the counter
  client.shutdown();
}

TEST(AgonesCounter, UpdatesAreRateLimited) {
  FakeSidecar sidecar;
  opstest::IoThread io;
  std::atomic<int64_t> count{0};
  constexpr auto kInterval = milliseconds(100);
  AgonesClient client(io.io(), counter_options_for(sidecar, count, 1000000, kInterval));
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.counter_updates_acknowledged() >= 1; }));
  // The count changes every millisecond for 0.7 s.
  const auto began = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - began < milliseconds(700)) {
    ++count;
    std::this_thread::sleep_for(milliseconds(1));
  }
  const auto elapsed = std::chrono::steady_clock::now() - began;
  client.shutdown();

  const auto patches = sidecar.calls_to(kCounterPath);
  // At most one per interval (plus the first, sent at once), and still following the count.
  EXPECT_LE(patches.size(), static_cast<size_t>(elapsed / kInterval) + 2);
  EXPECT_GE(patches.size(), 3u);
  for (size_t i = 1; i < patches.size(); ++i) {
    EXPECT_GE(patches[i].at - patches[i - 1].at, kInterval) << i;
    EXPECT_NE(patches[i].body, patches[i - 1].body) << i;
  }
}

TEST(AgonesCounter, CountIsClampedToTheCapacity) {
  FakeSidecar sidecar;
  opstest::IoThread io;
  std::atomic<int64_t> count{25};
  AgonesClient client(io.io(), counter_options_for(sidecar, count, 10, milliseconds(5)));
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.counter_updates_acknowledged() >= 1; }));
  EXPECT_EQ(sidecar.calls_to(kCounterPath).back().body, counter_body(10, 10));
  count = -3;
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.counter_updates_acknowledged() >= 2; }));
  EXPECT_EQ(sidecar.calls_to(kCounterPath).back().body, counter_body(0, 10));
  client.shutdown();
}

TEST(AgonesCounter, RefusedUpdateIsRetriedUntilAccepted) {
  FakeSidecar sidecar;
  sidecar.fail_next(kCounterPath, 2, opstest::http::status::internal_server_error);
  opstest::IoThread io;
  std::atomic<int64_t> count{3};
  AgonesClient client(io.io(), counter_options_for(sidecar, count, 10, milliseconds(5)));
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until([&] { return client.counter_updates_acknowledged() >= 1; }));
  EXPECT_EQ(client.counter_failures(), 2u);
  // Then quiet: the accepted count has not changed.
  const uint64_t pings = client.health_pings_acknowledged();
  ASSERT_TRUE(
      FakeSidecar::wait_until([&] { return client.health_pings_acknowledged() >= pings + 3; }));
  const auto patches = sidecar.calls_to(kCounterPath);
  ASSERT_EQ(patches.size(), 3u);
  for (const auto& p : patches) EXPECT_EQ(p.body, counter_body(3, 10));
  client.shutdown();
}

TEST(AgonesCounter, FailingSidecarDoesNotStopHealthPings) {
  FakeSidecar sidecar;
  // The sidecar refuses every counter update (e.g. the Counter is not declared).
  sidecar.fail_next(kCounterPath, 1000000, opstest::http::status::internal_server_error);
  opstest::IoThread io;
  std::atomic<int64_t> count{5};
  AgonesClient client(io.io(), counter_options_for(sidecar, count, 10, milliseconds(10)));
  ASSERT_EQ(client.start(), "");
  ASSERT_TRUE(FakeSidecar::wait_until(
      [&] { return client.counter_failures() >= 5 && client.health_pings_acknowledged() >= 5; }));
  EXPECT_EQ(client.counter_updates_acknowledged(), 0u);
  EXPECT_EQ(client.failures(), 0u);  // the life cycle is unaffected
  EXPECT_TRUE(client.shutdown());
  EXPECT_EQ(sidecar.calls().back().path, "/shutdown");
}

TEST(AgonesCounter, BadCounterOptionsAreRefusedAtStart) {
  opstest::IoThread io;
  auto refused = [&](AgonesOptions o) {
    o.sdk_url = "http://127.0.0.1:9358";
    AgonesClient client(io.io(), o);
    return client.start();
  };
  AgonesOptions o;
  o.counter = "char/acters";
  o.counter_count = [] { return int64_t{0}; };
  EXPECT_EQ(refused(o),
            "agones: bad counter name 'char/acters' (1 to 63 letters, digits, '.', '_', '-')");
  o.counter = "characters";
  o.counter_capacity = -1;
  EXPECT_EQ(refused(o), "agones: counter capacity must be >= 0");
  o.counter_capacity = 10;
  o.counter_interval = milliseconds(0);
  EXPECT_EQ(refused(o), "agones: counter interval must be > 0");
  o.counter_interval = milliseconds(1000);
  o.counter_count = nullptr;
  EXPECT_EQ(refused(o), "agones: counter 'characters' has no count");
  o.counter = "";  // no counter: the counter fields do not matter
  o.counter_capacity = -1;
  EXPECT_EQ(animops::check_agones_options(o), "");
}

TEST(AgonesCounter, NameRules) {
  for (const char* good : {"characters", "c", "rooms.v2", "a_b-C9"})
    EXPECT_TRUE(animops::valid_agones_counter_name(good)) << good;
  for (const char* bad : {"", "a/b", "a b", "a?b", "%41", "caf\xc3\xa9"})
    EXPECT_FALSE(animops::valid_agones_counter_name(bad)) << bad;
  EXPECT_TRUE(animops::valid_agones_counter_name(std::string(63, 'x')));
  EXPECT_FALSE(animops::valid_agones_counter_name(std::string(64, 'x')));
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

}  // namespace agones_client_test

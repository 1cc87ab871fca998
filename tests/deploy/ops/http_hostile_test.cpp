// HttpEndpoint against hostile clients over loopback: connections that send nothing or half a
// header, slots held by requests in progress, the header deadline, Hosts of rebinding names.
// Every refusal is counted in the metrics and written through the peer log.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "animops/http_endpoint.h"
#include "test_http.h"

namespace http_hostile_test {

using animops::Health;
using animops::HttpEndpoint;
using animops::HttpOptions;
using animops::HttpRefusal;
using animops::Metrics;
using animops::PeerLogLevel;
using opstest::http_get;
using opstest::http_get_host;
using opstest::RawConnection;
using namespace std::chrono_literals;

// A bound on how long a broken endpoint can make a test wait; never a timing assertion.
constexpr auto kWaitLimit = 10s;

// Waits (bounded) until `pred` holds.
template <class Pred>
bool eventually(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + kWaitLimit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// The peer log, kept: every line with its level and key.
class PeerLogSink {
 public:
  animops::PeerLog hook() {
    return [this](PeerLogLevel level, const std::string& key, const std::string& line) {
      std::lock_guard lock(mu_);
      lines_.push_back({level, key, line});
    };
  }
  size_t count(const std::string& key) const {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (const auto& l : lines_) n += l.key == key ? 1 : 0;
    return n;
  }
  std::string first_line(const std::string& key) const {
    std::lock_guard lock(mu_);
    for (const auto& l : lines_)
      if (l.key == key) return l.line;
    return {};
  }
  PeerLogLevel first_level(const std::string& key) const {
    std::lock_guard lock(mu_);
    for (const auto& l : lines_)
      if (l.key == key) return l.level;
    return PeerLogLevel::kWarn;
  }

 private:
  struct Line {
    PeerLogLevel level;
    std::string key, line;
  };
  mutable std::mutex mu_;
  std::vector<Line> lines_;
};

const std::string kEvictedKey = "http: idle connection closed to make room";
const std::string kHostKey = "http: request refused: Host not allowed";

std::string upgrade_request(const std::string& host) {
  return "GET /ws HTTP/1.1\r\nHost: " + host +
         "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
         "Origin: http://" +
         host + "\r\n\r\n";
}

class HttpHostileTest : public ::testing::Test {
 protected:
  void start(HttpOptions options) {
    options.port = 0;
    options.log = sink_.hook();
    endpoint_ = std::make_unique<HttpEndpoint>(io_.io(), metrics_, health_, options);
    ASSERT_EQ(endpoint_->start(), "");
    port_ = endpoint_->port();
  }
  // Waits (bounded) until `n` connections are busy with a request.
  bool busy(size_t n) {
    return eventually([&] { return endpoint_->busy_connections() == n; });
  }
  void TearDown() override { endpoint_.reset(); }

  Metrics metrics_{animops::BuildInfo{"9.9.9", "Test"}};
  Health health_;
  PeerLogSink sink_;
  opstest::IoThread io_;
  std::unique_ptr<HttpEndpoint> endpoint_;
  uint16_t port_ = 0;
};

// The attack of the issue: more connections than the limit that send nothing, each reopened
// as soon as it is cut. Every probe still gets its answer.
TEST_F(HttpHostileTest, IdleConnectionsReopenedWhenCutCannotKeepProbesOut) {
  HttpOptions o;
  o.max_connections = 4;
  o.max_connections_per_address = 4;
  o.header_timeout = 60s;  // the limits alone must do it
  start(o);
  std::vector<RawConnection> idle;
  for (int i = 0; i < 8; ++i) {
    idle.emplace_back(port_);
    ASSERT_TRUE(idle.back().connected());
  }
  for (int round = 0; round < 20; ++round) {
    const auto r = http_get(port_, "/healthz");
    ASSERT_EQ(r.status, 200) << "round " << round << ": " << r.error;
    for (auto& c : idle)
      if (c.closed_within(0ms)) c = RawConnection(port_);
  }
  // This accept comes after every earlier one: their evictions are counted by now.
  ASSERT_EQ(http_get(port_, "/healthz").status, 200);
  const uint64_t evicted = metrics_.http_refusals(HttpRefusal::kIdleEvicted);
  EXPECT_GE(evicted, 4u);  // the 4 beyond the limit, at least
  EXPECT_EQ(sink_.count(kEvictedKey), evicted);
  EXPECT_NE(sink_.first_line(kEvictedKey).find("--http-max-connections-per-address 4"),
            std::string::npos)
      << sink_.first_line(kEvictedKey);
  EXPECT_EQ(metrics_.http_refusals(HttpRefusal::kAddressLimit), 0u);
  EXPECT_EQ(metrics_.http_refusals(HttpRefusal::kConnectionLimit), 0u);
}

// Slowloris: headers that never end are waiting connections like silent ones.
TEST_F(HttpHostileTest, HalfSentHeadersArePushedOutLikeIdleConnections) {
  HttpOptions o;
  o.max_connections = 2;
  o.max_connections_per_address = 2;
  o.header_timeout = 60s;
  start(o);
  RawConnection first(port_), second(port_);
  ASSERT_TRUE(first.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  ASSERT_TRUE(second.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  EXPECT_EQ(http_get(port_, "/healthz").status, 200);
  EXPECT_TRUE(first.closed_within(kWaitLimit));  // the oldest made room
  EXPECT_EQ(first.received(), "");               // closed without an answer
  EXPECT_EQ(metrics_.http_refusals(HttpRefusal::kIdleEvicted), 1u);
}

// Slots held by requests in progress cannot be taken over; the operations reserve then
// answers the probes and /metrics, and nothing else.
TEST_F(HttpHostileTest, BusyConnectionsLeaveTheReserveForProbes) {
  HttpOptions o;
  o.max_connections = 2;
  o.max_connections_per_address = 2;
  o.reserve_connections = 4;
  o.header_timeout = 60s;
  o.read_timeout = 60s;
  start(o);
  // Two requests whose bodies never come: busy until the read timeout.
  RawConnection b1(port_), b2(port_);
  const std::string post =
      "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n";
  ASSERT_TRUE(b1.send(post));
  ASSERT_TRUE(b2.send(post));
  ASSERT_TRUE(busy(2));

  EXPECT_EQ(http_get(port_, "/healthz").status, 200);
  EXPECT_EQ(http_get(port_, "/readyz").status, 503);  // answered: not ready yet
  const auto m = http_get(port_, "/metrics");
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("animd_http_refusals_total{reason=\"reserve_only\"} 0"), std::string::npos);
  const auto other = http_get(port_, "/view");
  EXPECT_EQ(other.status, 503);
  EXPECT_NE(other.body.find("--http-max-connections"), std::string::npos) << other.body;
  // Nor may a reserve slot wait for a body: refused at its header.
  RawConnection held(port_);
  ASSERT_TRUE(held.send(post));
  EXPECT_TRUE(held.closed_within(kWaitLimit));
  EXPECT_EQ(held.received().rfind("HTTP/1.1 503 ", 0), 0u) << held.received();
  EXPECT_EQ(metrics_.http_refusals(HttpRefusal::kReserveOnly), 2u);
  EXPECT_EQ(sink_.count("http: request refused: connections busy"), 2u);
  EXPECT_GE(sink_.count("http: connection admitted to the operations reserve"), 4u);
  // The requests in progress were left alone.
  EXPECT_FALSE(b1.closed_within(0ms));
  EXPECT_FALSE(b2.closed_within(0ms));
  EXPECT_TRUE(busy(2));  // once the reserve connections are gone
}

TEST_F(HttpHostileTest, WithoutAReserveABusyAddressIsRefusedAndLogged) {
  HttpOptions o;
  o.max_connections = 8;
  o.max_connections_per_address = 2;
  o.reserve_connections = 0;
  o.header_timeout = 60s;
  o.read_timeout = 60s;
  start(o);
  RawConnection b1(port_), b2(port_);
  const std::string post =
      "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n";
  ASSERT_TRUE(b1.send(post));
  ASSERT_TRUE(b2.send(post));
  ASSERT_TRUE(busy(2));
  RawConnection refused(port_);
  EXPECT_TRUE(refused.closed_within(kWaitLimit));
  EXPECT_EQ(refused.received(), "");
  EXPECT_EQ(metrics_.http_refusals(HttpRefusal::kAddressLimit), 1u);
  const std::string line = sink_.first_line("http: connection refused: address limit");
  EXPECT_NE(line.find("127.0.0.1"), std::string::npos) << line;
  EXPECT_NE(line.find("--http-max-connections-per-address"), std::string::npos) << line;
}

// The header deadline runs from the accept: trickling header lines does not extend it.
TEST_F(HttpHostileTest, HeaderDeadlineClosesATricklingHeader) {
  HttpOptions o;
  o.header_timeout = 200ms;
  start(o);
  RawConnection c(port_);
  ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  bool closed = false;
  for (int i = 0; i < 500 && !closed; ++i) {
    c.send("X-Slow: a\r\n");
    closed = c.closed_within(20ms);
  }
  EXPECT_TRUE(closed);
  EXPECT_EQ(c.received(), "");
  // The stream's timer closes the socket first, then the read reports the timeout.
  EXPECT_TRUE(eventually([&] { return metrics_.http_refusals(HttpRefusal::kHeaderTimeout) == 1; }));
  // The refusal is counted before its log line is written: wait for the line.
  const std::string key = "http: connection closed: no request header in time";
  EXPECT_TRUE(eventually([&] { return !sink_.first_line(key).empty(); }));
  EXPECT_NE(sink_.first_line(key).find("within 200 ms (--http-header-timeout)"), std::string::npos)
      << sink_.first_line(key);
  EXPECT_EQ(sink_.first_level(key), PeerLogLevel::kInfo);
  // The deadline starts again after each answer: keep-alive requests are served.
  EXPECT_EQ(http_get(port_, "/healthz").status, 200);
}

// DNS rebinding: a page from rebind.attacker.example resolving to the daemon sends that name
// as Host (and as Origin). Refused on every path, the upgrade path included, before the
// upgrade handler sees it; IP literals and localhost are served.
TEST_F(HttpHostileTest, RebindingHostsAreRefusedOnEveryPath) {
  int checks = 0;
  HttpOptions o;
  o.upgrade_path = "/ws";
  o.upgrade.check = [&checks](const animops::UpgradeHandler::Request&, const std::string&, bool) {
    ++checks;
    return animops::UpgradeHandler::Refusal{503, "test: no upgrades here"};
  };
  o.upgrade.take = [](animops::UpgradeHandler::Stream, animops::UpgradeHandler::Request) {};
  start(o);
  const std::string port = std::to_string(port_);
  const std::string evil = "rebind.attacker.example:" + port;
  for (const char* target : {"/metrics", "/healthz", "/readyz", "/nope", "/ws"}) {
    const auto r = http_get_host(port_, target, evil);
    EXPECT_EQ(r.status, 403) << target << " " << r.error;
    EXPECT_NE(r.body.find("--http-allowed-host"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find("'rebind.attacker.example:" + port + "'"), std::string::npos) << r.body;
  }
  RawConnection ws(port_);
  ASSERT_TRUE(ws.send(upgrade_request(evil)));
  EXPECT_TRUE(ws.closed_within(kWaitLimit));
  EXPECT_EQ(ws.received().rfind("HTTP/1.1 403 ", 0), 0u) << ws.received();
  EXPECT_EQ(checks, 0);
  EXPECT_EQ(metrics_.http_refusals(HttpRefusal::kHost), 6u);
  EXPECT_EQ(sink_.count(kHostKey), 6u);
  EXPECT_NE(sink_.first_line(kHostKey).find("Host 'rebind.attacker.example:"), std::string::npos);

  for (const std::string& host : std::vector<std::string>{"127.0.0.1:" + port, "127.0.0.1",
                                                          "localhost:" + port, "[::1]:" + port, ""})
    EXPECT_EQ(http_get_host(port_, "/metrics", host).status, 200) << host;
  RawConnection ok(port_);
  ASSERT_TRUE(ok.send(upgrade_request("127.0.0.1:" + port)));
  EXPECT_TRUE(ok.closed_within(kWaitLimit));
  EXPECT_EQ(ok.received().rfind("HTTP/1.1 503 ", 0), 0u) << ok.received();  // the handler's
  EXPECT_EQ(checks, 1);
  EXPECT_EQ(metrics_.http_refusals(HttpRefusal::kHost), 6u);
}

TEST_F(HttpHostileTest, AllowedHostsAddNames) {
  HttpOptions o;
  o.allowed_hosts = {"animd.example", ".corp.example"};
  start(o);
  const std::string port = std::to_string(port_);
  EXPECT_EQ(http_get_host(port_, "/metrics", "animd.example:" + port).status, 200);
  EXPECT_EQ(http_get_host(port_, "/metrics", "viewer.corp.example").status, 200);
  EXPECT_EQ(http_get_host(port_, "/metrics", "rebind.attacker.example:" + port).status, 403);
}

TEST(HttpEndpointOptions, BadAllowedHostOrZeroLimitIsAClearError) {
  Metrics metrics;
  Health health;
  opstest::IoThread io;
  HttpOptions bad;
  bad.port = 0;
  bad.allowed_hosts = {"http://animd.example"};
  HttpEndpoint e1(io.io(), metrics, health, bad);
  EXPECT_EQ(e1.start().rfind("http: allowed host not a host name: 'http://animd.example'", 0), 0u);
  HttpOptions zero;
  zero.port = 0;
  zero.max_connections_per_address = 0;
  HttpEndpoint e2(io.io(), metrics, health, zero);
  EXPECT_NE(e2.start(), "");
}

}  // namespace http_hostile_test

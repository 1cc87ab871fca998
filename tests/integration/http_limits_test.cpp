// The real animd's HTTP port under the attacks of hostile clients (docs/security.md, "The HTTP
// port"), over loopback: connections that send nothing, reopened as soon as they are cut,
// while /healthz must keep answering; the header deadline; Hosts of DNS-rebinding names;
// and floods of refusals that must stay within the daemon's log budget.

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../deploy/ops/test_http.h"
#include "daemon_process.h"
#include "eventually.h"

namespace http_limits_test {

using namespace std::chrono_literals;
using opstest::http_get;
using opstest::http_get_host;
using opstest::RawConnection;

// Bounds on how long a broken daemon can make a test wait; not timing assertions.
constexpr auto kWaitLimit = 20s;

using animtest::eventually;

// A daemon with its HTTP port on an ephemeral port and `args` after that.
class HttpDaemon {
 public:
  explicit HttpDaemon(std::vector<std::string> args = {}) {
    port_file_ = (dir_.path() / "http-port").string();
    std::vector<std::string> a = {"--http-port", "0", "--http-port-file", port_file_};
    a.insert(a.end(), args.begin(), args.end());
    daemon_ = std::make_unique<animtest::DaemonProcess>(std::move(a));
  }
  bool start() {
    if (!daemon_->start()) return false;
    return eventually([&] {
      std::ifstream f(port_file_);
      unsigned p = 0;
      if (f >> p && p > 0 && p < 65536) port_ = static_cast<uint16_t>(p);
      return port_ != 0;
    });
  }
  uint16_t port() const { return port_; }
  animtest::DaemonProcess& process() { return *daemon_; }
  // A counter of /metrics, e.g. refusals("idle_evicted"); -1 when missing.
  double refusals(const std::string& reason) {
    const auto r = http_get(port_, "/metrics");
    const std::string key = "animd_http_refusals_total{reason=\"" + reason + "\"} ";
    const size_t at = r.body.find(key);
    return at == std::string::npos ? -1 : std::stod(r.body.substr(at + key.size()));
  }
  // Lines of the daemon's log containing `text`.
  size_t log_lines(const std::string& text) const {
    std::istringstream in(daemon_->log());
    size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.find(text) != std::string::npos;
    return n;
  }

 private:
  animtest::TempDir dir_{"animd-http"};
  std::string port_file_;
  std::unique_ptr<animtest::DaemonProcess> daemon_;
  uint16_t port_ = 0;
};

// Keeps `count` connections open that send nothing, reopening each one the daemon cuts.
class IdleAttack {
 public:
  IdleAttack(uint16_t port, int count) : port_(port) {
    for (int i = 0; i < count; ++i) conns_.emplace_back(port);
  }
  // Reopens the connections the daemon has closed; returns how many.
  int reopen_cut() {
    int n = 0;
    for (auto& c : conns_)
      if (c.closed_within(0ms)) {
        c = RawConnection(port_);
        ++n;
      }
    return n;
  }

 private:
  uint16_t port_;
  std::vector<RawConnection> conns_;
};

// The attack of issue 39: more silent connections than the limits (72: beyond the 64 of the
// whole port too), from one address, reopened when cut. Kubernetes' liveness probe must keep
// getting 200.
TEST(HttpLimits, SilentConnectionsBeyondTheLimitsCannotFailHealthz) {
  // Default limits (16 per address, 64 in all), then a total limit below the per-address one.
  for (const auto& args : {std::vector<std::string>{},
                           std::vector<std::string>{"--http-max-connections", "8",
                                                    "--http-max-connections-per-address", "64"}}) {
    HttpDaemon d(args);
    ASSERT_TRUE(d.start()) << d.process().error() << d.process().log_tail();
    IdleAttack attack(d.port(), args.empty() ? 64 + 8 : 8 + 8);
    int reopened = 0;
    for (int round = 0; round < 30; ++round) {
      const auto r = http_get(d.port(), "/healthz");
      ASSERT_EQ(r.status, 200) << "round " << round << ": " << r.error << d.process().log_tail();
      EXPECT_EQ(r.body, "ok\n");
      reopened += attack.reopen_cut();
    }
    EXPECT_GT(reopened, 0);
    EXPECT_GE(d.refusals("idle_evicted"), 8) << d.process().log_tail();
    EXPECT_EQ(d.refusals("address_limit"), 0);
    EXPECT_EQ(d.refusals("connection_limit"), 0);
    EXPECT_EQ(d.process().stop(), 0) << d.process().log_tail();
  }
}

TEST(HttpLimits, HeaderDeadlineClosesASilentConnection) {
  HttpDaemon d({"--http-header-timeout", "0.2"});
  ASSERT_TRUE(d.start()) << d.process().error() << d.process().log_tail();
  RawConnection silent(d.port());
  ASSERT_TRUE(silent.connected());
  EXPECT_TRUE(silent.closed_within(kWaitLimit));
  EXPECT_EQ(silent.received(), "");
  EXPECT_TRUE(eventually([&] { return d.refusals("header_timeout") >= 1; }));
  EXPECT_TRUE(eventually([&] { return d.log_lines("within 200 ms (--http-header-timeout)") == 1; }))
      << d.process().log_tail();
  EXPECT_EQ(http_get(d.port(), "/healthz").status, 200);
  EXPECT_EQ(d.process().stop(), 0) << d.process().log_tail();
}

// DNS rebinding: the attacker's name resolves to the daemon; its Host is refused, the
// daemon's own address (and a name the operator lists) served.
TEST(HttpLimits, RebindingHostIsRefusedOnMetricsUnlessListed) {
  HttpDaemon d;
  ASSERT_TRUE(d.start()) << d.process().error() << d.process().log_tail();
  const std::string port = std::to_string(d.port());
  const auto evil = http_get_host(d.port(), "/metrics", "rebind.attacker.example:" + port);
  EXPECT_EQ(evil.status, 403) << evil.error;
  EXPECT_NE(evil.body.find("--http-allowed-host"), std::string::npos) << evil.body;
  EXPECT_EQ(evil.body.find("animd_"), std::string::npos);  // nothing of the metrics leaks
  const auto own = http_get_host(d.port(), "/metrics", "127.0.0.1:" + port);
  EXPECT_EQ(own.status, 200);
  EXPECT_NE(own.body.find("animd_ticks_total"), std::string::npos);
  EXPECT_EQ(http_get_host(d.port(), "/metrics", "localhost:" + port).status, 200);
  EXPECT_EQ(http_get_host(d.port(), "/metrics", "animd.example:" + port).status, 403);
  EXPECT_EQ(d.refusals("host"), 2);
  EXPECT_NE(d.process().log().find("http: request from 127.0.0.1 refused: Host "
                                   "'rebind.attacker.example:" +
                                   port + "' is not allowed"),
            std::string::npos)
      << d.process().log_tail();
  EXPECT_EQ(d.process().stop(), 0);

  HttpDaemon listed({"--http-allowed-host", "animd.example"});
  ASSERT_TRUE(listed.start()) << listed.process().error() << listed.process().log_tail();
  const std::string lport = std::to_string(listed.port());
  EXPECT_EQ(http_get_host(listed.port(), "/metrics", "animd.example:" + lport).status, 200);
  EXPECT_EQ(http_get_host(listed.port(), "/metrics", "rebind.attacker.example:" + lport).status,
            403);
  EXPECT_EQ(listed.process().stop(), 0);
}

// 400 refusals of each kind a peer can cause in bulk: counted in full, logged at most the
// log limiter's 20 lines a kind and minute (docs/security.md, "Logs an attacker cannot
// flood").
TEST(HttpLimits, FourHundredRefusalsStayWithinTheLogBudget) {
  HttpDaemon d;
  ASSERT_TRUE(d.start()) << d.process().error() << d.process().log_tail();
  const std::string port = std::to_string(d.port());
  for (int i = 0; i < 400; ++i)
    ASSERT_EQ(http_get_host(d.port(), "/metrics", "rebind.attacker.example:" + port).status, 403)
        << i;
  {
    // 400 silent connections, held open: each beyond the 16 of the address pushes one out.
    std::vector<RawConnection> silent;
    for (int i = 0; i < 400; ++i) {
      silent.emplace_back(d.port());
      ASSERT_TRUE(silent.back().connected()) << i;
    }
    ASSERT_EQ(http_get(d.port(), "/healthz").status, 200);
  }
  EXPECT_EQ(d.refusals("host"), 400);
  EXPECT_GE(d.refusals("idle_evicted"), 400 - 16);
  EXPECT_EQ(d.log_lines("refused: Host 'rebind.attacker.example"), 20u) << d.process().log_tail();
  EXPECT_EQ(d.log_lines("that had sent no complete request, to make room"), 20u)
      << d.process().log_tail();
  EXPECT_EQ(d.process().stop(), 0) << d.process().log_tail();
}

}  // namespace http_limits_test

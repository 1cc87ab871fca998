// The real animd with its operations HTTP endpoint on an ephemeral port (--http-port 0
// --http-port-file, overriding DaemonProcess's default --http-port -1): /healthz, /readyz and
// /metrics scraped over loopback while characters are spawned through libanimclient, then SIGTERM
// (exit 0).

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "../deploy/ops/test_http.h"
#include "animclient/client.h"
#include "daemon_process.h"
#include "eventually.h"

namespace ops_http_test {

using namespace std::chrono_literals;

// Bounds on how long a broken daemon can make the test wait; not timing assertions.
constexpr auto kWaitLimit = 20s;

using animtest::eventually;

// Sample lines of a Prometheus exposition: "name{labels}" -> value text.
std::map<std::string, std::string> samples(const std::string& body) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find('\n', pos);
    if (end == std::string::npos) end = body.size();
    const std::string line = body.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

double value(const std::map<std::string, std::string>& s, const std::string& key) {
  const auto it = s.find(key);
  if (it == s.end()) {
    ADD_FAILURE() << "metric " << key << " missing";
    return -1;
  }
  return std::stod(it->second);
}

class OpsHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    port_file_ = (dir_.path() / "http-port").string();
    daemon_ = std::make_unique<animtest::DaemonProcess>(
        std::vector<std::string>{"--http-port", "0", "--http-port-file", port_file_});
    ASSERT_TRUE(daemon_->start()) << daemon_->error() << "\n" << daemon_->log_tail();
    // The HTTP port file is written once the endpoint listens (start-up, bounded wait).
    ASSERT_TRUE(eventually([&] {
      std::ifstream f(port_file_);
      unsigned p = 0;
      if (f >> p && p > 0 && p < 65536) http_port_ = static_cast<uint16_t>(p);
      return http_port_ != 0;
    })) << daemon_->log_tail();
  }

  std::map<std::string, std::string> scrape() {
    const auto r = opstest::http_get(http_port_, "/metrics");
    EXPECT_EQ(r.status, 200) << r.error;
    EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
    return samples(r.body);
  }

  animtest::TempDir dir_{"animd-ops"};
  std::string port_file_;
  std::unique_ptr<animtest::DaemonProcess> daemon_;
  uint16_t http_port_ = 0;
};

TEST_F(OpsHttpTest, ProbesAndMetricsFollowTheDaemon) {
  EXPECT_NE(daemon_->log().find("http: serving /metrics /healthz /readyz on 127.0.0.1:" +
                                std::to_string(http_port_)),
            std::string::npos)
      << daemon_->log_tail();

  const auto health = opstest::http_get(http_port_, "/healthz");
  EXPECT_EQ(health.status, 200) << health.error;
  EXPECT_EQ(health.body, "ok\n");
  // Ready once assets are loaded and the tick runs (it starts right after start-up).
  ASSERT_TRUE(eventually([&] { return opstest::http_get(http_port_, "/readyz").status == 200; }))
      << opstest::http_get(http_port_, "/readyz").body << daemon_->log_tail();
  EXPECT_EQ(opstest::http_get(http_port_, "/nope").status, 404);
  EXPECT_EQ(opstest::http_request(http_port_, opstest::http::verb::post, "/metrics").status, 405);

  auto before = scrape();
  EXPECT_EQ(value(before, "animd_characters"), 0);
  EXPECT_EQ(value(before, "animd_sessions"), 0);
  EXPECT_GE(value(before, "animd_assets"), 1);  // the built-in character at least
  EXPECT_EQ(value(before, "animd_request_errors_total{code=\"NOT_FOUND\"}"), 0);
  EXPECT_EQ(value(before, "animd_ticks_total"), value(before, "animd_tick_duration_seconds_count"));
  // Every request so far was well-formed, for 127.0.0.1: no refusal of any kind.
  for (const char* reason : {"host", "address_limit", "connection_limit", "idle_evicted",
                             "header_timeout", "reserve_only"})
    EXPECT_EQ(value(before, std::string("animd_http_refusals_total{reason=\"") + reason + "\"}"), 0)
        << reason;

  // The tick advances on its own.
  const double ticks0 = value(before, "animd_ticks_total");
  ASSERT_TRUE(eventually([&] { return value(scrape(), "animd_ticks_total") > ticks0; }));

  animclient::ClientOptions o;
  o.port = daemon_->port();
  o.request_timeout = kWaitLimit;
  auto client = animclient::Client::connect(o);
  ASSERT_TRUE(client) << client.error().to_string();
  for (int i = 0; i < 3; ++i) {
    auto sp = client.value()->spawn("builtin", "walk");
    ASSERT_TRUE(sp) << sp.error().to_string();
  }
  auto bad = client.value()->spawn("no-such-asset");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, anim::v1::STATUS_NOT_FOUND);

  // Gauges reflect the world after the next tick; counters are already up.
  ASSERT_TRUE(eventually([&] { return value(scrape(), "animd_characters") == 3; }))
      << daemon_->log_tail();
  const auto after = scrape();
  EXPECT_EQ(value(after, "animd_sessions"), 1);
  EXPECT_GE(value(after, "animd_requests_total"), value(before, "animd_requests_total") + 4);
  EXPECT_EQ(value(after, "animd_request_errors_total{code=\"NOT_FOUND\"}"), 1);
  EXPECT_GT(value(after, "animd_bytes_in_total"), value(before, "animd_bytes_in_total"));
  EXPECT_GT(value(after, "animd_bytes_out_total"), value(before, "animd_bytes_out_total"));
  EXPECT_GT(value(after, "animd_ticks_total"), ticks0);
  bool build_info = false;
  for (const auto& [key, v] : after) {
    if (key.rfind("animd_build_info{version=\"0.1.0\",build_type=\"", 0) == 0 && v == "1")
      build_info = true;
  }
  EXPECT_TRUE(build_info);

  client.value().reset();  // disconnect
  ASSERT_TRUE(eventually([&] { return value(scrape(), "animd_sessions") == 0; }));

  EXPECT_EQ(daemon_->stop(), 0) << daemon_->log_tail();
  // After the drain the endpoint is gone with the process.
  EXPECT_EQ(opstest::http_get(http_port_, "/healthz").status, 0);
}

}  // namespace ops_http_test

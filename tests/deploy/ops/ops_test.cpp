// Ops (the facade the daemon calls) and its command-line / config-file options.

#include "animops/ops.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include "fake_sidecar.h"
#include "test_http.h"

namespace ops_test {

using animops::Ops;
using animops::OpsConfig;
using opstest::http_get;

std::string tmp_path(const std::string& name) {
  std::filesystem::create_directories(ANIMD_TEST_TMP_DIR);
  return std::string(ANIMD_TEST_TMP_DIR) + "/" + name + "-" + std::to_string(getpid());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Ops, LifeCycleAsSeenByProbesAndPortFile) {
  const std::string port_file = tmp_path("http-port");
  std::filesystem::remove(port_file);
  opstest::IoThread io;
  OpsConfig config;
  config.http_port = 0;
  config.http_port_file = port_file;
  Ops ops(io.io(), config, {"0.1.0", "Debug"});
  ASSERT_EQ(ops.start(), "");
  ASSERT_NE(ops.http_port(), 0);
  EXPECT_EQ(read_file(port_file), std::to_string(ops.http_port()) + "\n");

  // Up but still loading: alive, not ready.
  EXPECT_EQ(http_get(ops.http_port(), "/healthz").status, 200);
  EXPECT_EQ(http_get(ops.http_port(), "/readyz").body, "assets not loaded\n");

  ops.ready("test");
  ops.on_tick(std::chrono::milliseconds(2), std::chrono::microseconds(16667));
  ops.on_tick(std::chrono::milliseconds(20), std::chrono::microseconds(16667));
  const auto r = http_get(ops.http_port(), "/readyz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(ops.metrics().ticks.value(), 2u);
  EXPECT_EQ(ops.metrics().tick_overruns.value(), 1u);
  const auto m = http_get(ops.http_port(), "/metrics");
  EXPECT_NE(m.body.find("\nanimd_ticks_total 2\n"), std::string::npos);
  EXPECT_NE(m.body.find("\nanimd_tick_overruns_total 1\n"), std::string::npos);
  EXPECT_NE(m.body.find("\nanimd_tick_duration_seconds_sum 0.022\n"), std::string::npos);

  // The drain: not ready any more, and the endpoint closes so the io_context can run dry.
  ops.stopping();
  EXPECT_EQ(ops.health().ready().reason, "draining: shutting down");
  ASSERT_TRUE(opstest::FakeSidecar::wait_until(
      [&] { return http_get(ops.http_port(), "/healthz").error.rfind("connect", 0) == 0; }));
  ops.shutdown();
  ops.shutdown();  // idempotent
  std::filesystem::remove(port_file);
}

TEST(Ops, HttpDisabledWithMinusOne) {
  opstest::IoThread io;
  OpsConfig config;
  config.http_port = -1;
  Ops ops(io.io(), config, {"0.1.0", "Debug"});
  EXPECT_EQ(ops.start(), "");
  EXPECT_EQ(ops.http_port(), 0);
}

TEST(Ops, BusyPortOrBadAgonesUrlFailsStart) {
  opstest::IoThread io;
  OpsConfig first;
  first.http_port = 0;
  Ops a(io.io(), first, {});
  ASSERT_EQ(a.start(), "");
  OpsConfig second;
  second.http_port = a.http_port();
  Ops b(io.io(), second, {});
  EXPECT_NE(b.start().find("cannot listen"), std::string::npos);

  OpsConfig agones;
  agones.http_port = -1;
  agones.agones = true;
  agones.agones_sdk_url = "sidecar:9358";
  Ops c(io.io(), agones, {});
  EXPECT_EQ(c.start(), "agones: bad SDK URL 'sidecar:9358' (want http://HOST:PORT)");
}

TEST(Ops, ReadySendsSystemdReadyAndStartsAgones) {
  // systemd's side: a datagram socket as NOTIFY_SOCKET.
  const std::string sock_path = tmp_path("ops-notify.sock");
  std::filesystem::remove(sock_path);
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  sock_path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const char* old_socket = std::getenv("NOTIFY_SOCKET");
  const std::string saved = old_socket ? old_socket : "";
  setenv("NOTIFY_SOCKET", sock_path.c_str(), 1);

  opstest::FakeSidecar sidecar;
  {
    opstest::IoThread io;
    OpsConfig config;
    config.http_port = -1;
    config.agones = true;
    config.agones_sdk_url = sidecar.url();
    config.agones_health_seconds = 0.02;
    Ops ops(io.io(), config, {});
    ASSERT_EQ(ops.start(), "");
    EXPECT_EQ(sidecar.count("/ready"), 0u);  // not before start-up is done
    ops.ready("serving");
    char buf[256];
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    ASSERT_GT(n, 0);
    EXPECT_EQ(std::string(buf, static_cast<size_t>(n)), "READY=1\nSTATUS=serving");
    // Health pings need a recent tick (Health::ticking).
    ops.on_tick(std::chrono::milliseconds(1), std::chrono::milliseconds(16));
    // The first tick also posts a STATUS= line (then at most every 10 s).
    const ssize_t s = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    ASSERT_GT(s, 0);
    EXPECT_EQ(std::string(buf, static_cast<size_t>(s)), "STATUS=0 characters, 0 sessions, tick 1");
    ASSERT_TRUE(opstest::FakeSidecar::wait_until([&] { return sidecar.count("/health") >= 1; }));
    ops.stopping();
    const ssize_t m = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    ASSERT_GT(m, 0);
    EXPECT_EQ(std::string(buf, static_cast<size_t>(m)), "STOPPING=1\nSTATUS=draining");
    ops.shutdown();
    EXPECT_EQ(sidecar.calls().back().path, "/shutdown");
  }
  close(fd);
  std::filesystem::remove(sock_path);
  if (old_socket) {
    setenv("NOTIFY_SOCKET", saved.c_str(), 1);
  } else {
    unsetenv("NOTIFY_SOCKET");
  }
}

TEST(Ops, AgonesCounterReportsTheCountSource) {
  opstest::FakeSidecar sidecar;
  opstest::IoThread io;
  OpsConfig config;
  config.http_port = -1;
  config.agones = true;
  config.agones_sdk_url = sidecar.url();
  config.agones_health_seconds = 0.02;
  config.agones_counter = "characters";
  config.agones_counter_seconds = 0.01;
  {
    Ops missing(io.io(), config, {});
    EXPECT_EQ(missing.start(), "agones: counter 'characters' has no count");
  }
  std::atomic<int64_t> live{42};
  Ops ops(io.io(), config, {});
  ops.set_agones_capacity([&] { return live.load(); }, 2000);
  ASSERT_EQ(ops.start(), "");
  ops.ready("serving");
  ASSERT_TRUE(opstest::FakeSidecar::wait_until(
      [&] { return sidecar.count("/v1beta1/counters/characters") >= 1; }));
  live = 43;
  ASSERT_TRUE(opstest::FakeSidecar::wait_until(
      [&] { return sidecar.count("/v1beta1/counters/characters") >= 2; }));
  ops.stopping();
  ops.shutdown();
  const auto patches = sidecar.calls_to("/v1beta1/counters/characters");
  EXPECT_EQ(patches[0].body, R"({"count":"42","capacity":"2000"})");
  EXPECT_EQ(patches[1].body, R"({"count":"43","capacity":"2000"})");
  EXPECT_EQ(sidecar.calls().back().path, "/shutdown");
}

TEST(OpsConfig, DefaultsFlagsAndConfigFile) {
  {
    CLI::App app;
    OpsConfig c;
    animops::add_ops_options(app, c);
    app.parse(std::vector<std::string>{});  // no arguments
    EXPECT_EQ(c.http_address, "127.0.0.1");
    EXPECT_EQ(c.http_port, 7451);
    EXPECT_EQ(c.http_port_file, "");
    EXPECT_FALSE(c.agones);
    EXPECT_EQ(c.agones_sdk_url, "");
    EXPECT_EQ(c.agones_health_seconds, 5.0);
    EXPECT_EQ(c.agones_counter, "");
    EXPECT_EQ(c.agones_counter_seconds, 1.0);
    EXPECT_EQ(c.http_max_connections, 64u);
    EXPECT_EQ(c.http_max_connections_per_address, 16u);
    EXPECT_EQ(c.http_header_timeout_s, 3.0);
    EXPECT_TRUE(c.http_allowed_hosts.empty());
  }
  {
    CLI::App app;
    OpsConfig c;
    animops::add_ops_options(app, c);
    // CLI11 parses argv in reverse order when given a vector.
    app.parse(std::vector<std::string>{"0.5", "--agones-counter-seconds", "characters",
                                       "--agones-counter", "2.5", "--agones-health-seconds",
                                       "--agones", "-1", "--http-port", "::1", "--http-address"});
    EXPECT_EQ(c.http_address, "::1");
    EXPECT_EQ(c.http_port, -1);
    EXPECT_TRUE(c.agones);
    EXPECT_EQ(c.agones_health_seconds, 2.5);
    EXPECT_EQ(c.agones_counter, "characters");
    EXPECT_EQ(c.agones_counter_seconds, 0.5);
  }
  {
    // Given twice, the last value wins (a wrapper's default, then the user's choice).
    CLI::App app;
    OpsConfig c;
    animops::add_ops_options(app, c);
    app.parse(std::vector<std::string>{"8000", "--http-port", "0", "--http-port"});
    EXPECT_EQ(c.http_port, 8000);
  }
  for (std::vector<std::string> bad : {std::vector<std::string>{"70000", "--http-port"},
                                       std::vector<std::string>{"-2", "--http-port"},
                                       std::vector<std::string>{"0", "--agones-health-seconds"},
                                       std::vector<std::string>{"0", "--agones-counter-seconds"},
                                       std::vector<std::string>{"a/b", "--agones-counter"}}) {
    CLI::App app;
    OpsConfig c;
    animops::add_ops_options(app, c);
    EXPECT_THROW(app.parse(bad), CLI::ValidationError) << bad[1] << " " << bad[0];
  }
  {
    const std::string path = tmp_path("ops.toml");
    std::ofstream(path) << "http-address = \"0.0.0.0\"\nhttp-port = 0\nagones = true\n"
                           "agones-health-seconds = 1.5\nagones-counter = \"characters\"\n";
    CLI::App app;
    app.set_config("--config");
    OpsConfig c;
    animops::add_ops_options(app, c);
    app.parse(std::vector<std::string>{path, "--config"});
    EXPECT_EQ(c.http_address, "0.0.0.0");
    EXPECT_EQ(c.http_port, 0);
    EXPECT_TRUE(c.agones);
    EXPECT_EQ(c.agones_health_seconds, 1.5);
    EXPECT_EQ(c.agones_counter, "characters");
    std::filesystem::remove(path);
  }
}

TEST(OpsConfig, HttpLimitsAndAllowedHostsFromFlagsAndConfigFile) {
  {
    CLI::App app;
    OpsConfig c;
    animops::add_ops_options(app, c);
    app.parse(std::vector<std::string>{"b.example:8443", "--http-allowed-host", "a.example",
                                       "--http-allowed-host", "0.5", "--http-header-timeout", "4",
                                       "--http-max-connections-per-address", "100",
                                       "--http-max-connections"});
    EXPECT_EQ(c.http_max_connections, 100u);
    EXPECT_EQ(c.http_max_connections_per_address, 4u);
    EXPECT_EQ(c.http_header_timeout_s, 0.5);
    EXPECT_EQ(c.http_allowed_hosts, (std::vector<std::string>{"a.example", "b.example:8443"}));
  }
  for (std::vector<std::string> bad :
       {std::vector<std::string>{"0", "--http-max-connections"},
        std::vector<std::string>{"0", "--http-max-connections-per-address"},
        std::vector<std::string>{"0", "--http-header-timeout"},
        std::vector<std::string>{"http://a.example", "--http-allowed-host"}}) {
    CLI::App app;
    OpsConfig c;
    animops::add_ops_options(app, c);
    EXPECT_THROW(app.parse(bad), CLI::ValidationError) << bad[1] << " " << bad[0];
  }
  {
    const std::string path = tmp_path("ops-hosts.toml");
    std::ofstream(path) << "http-allowed-host = [\"animd.example.com\", \".corp.example\"]\n"
                           "http-max-connections-per-address = 8\nhttp-header-timeout = 2.5\n";
    CLI::App app;
    app.set_config("--config");
    OpsConfig c;
    animops::add_ops_options(app, c);
    app.parse(std::vector<std::string>{path, "--config"});
    EXPECT_EQ(c.http_allowed_hosts,
              (std::vector<std::string>{"animd.example.com", ".corp.example"}));
    EXPECT_EQ(c.http_max_connections_per_address, 8u);
    EXPECT_EQ(c.http_header_timeout_s, 2.5);
    std::filesystem::remove(path);
  }
}

// The options reach the endpoint: a rebinding name is refused, a listed one served.
TEST(Ops, AllowedHostsAndPeerLogReachTheHttpEndpoint) {
  opstest::IoThread io;
  OpsConfig config;
  config.http_port = 0;
  config.http_allowed_hosts = {"animd.example"};
  Ops ops(io.io(), config, {"1", "Test"});
  std::atomic<int> logged{0};
  ops.set_peer_log(
      [&logged](animops::PeerLogLevel, const std::string&, const std::string&) { ++logged; });
  ASSERT_EQ(ops.start(), "");
  const uint16_t port = ops.http_port();
  EXPECT_EQ(opstest::http_get_host(port, "/healthz", "animd.example").status, 200);
  EXPECT_EQ(opstest::http_get_host(port, "/healthz", "rebind.attacker.example").status, 403);
  EXPECT_EQ(logged.load(), 1);
  ops.shutdown();
}

}  // namespace ops_test

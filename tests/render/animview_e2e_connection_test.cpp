// animview end to end, the connection to animd: a server that is down gives a clear message
// and a non-zero exit, a missing character is reported, --region streams only the
// characters near the camera and follows it, several daemons (--connect) are drawn in one
// scene, and the window reconnects after the server restarts.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "animclient/client.h"
#include "animview_e2e_support.h"
#include "daemon_process.h"

namespace animview_e2e_connection_test {

using namespace animview_e2e;

// An animd on a fixed port (DaemonProcess always passes --port 0, and CLI11 refuses a second
// --port): for the restart on the same port. Started with fork/exec, stopped with SIGTERM.
class FixedPortDaemon {
 public:
  FixedPortDaemon(uint16_t port, const fs::path& log) {
    const std::string bin = animtest::animd_binary();
    std::vector<std::string> args = {
        bin, "--address", "127.0.0.1", "--port", std::to_string(port), "--spawn-builtin", "1"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~FixedPortDaemon() { stop(); }
  // Waits (bounded) until the port accepts connections.
  bool wait_ready(uint16_t port) {
    animclient::ClientOptions co;
    co.port = port;
    for (auto end = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(50ms))
      if (animclient::Client::connect(co)) return true;
    return false;
  }
  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (auto end = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(10ms)) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return -1;
  }

 private:
  pid_t pid_ = -1;
};

TEST_F(AnimviewE2e, ServerDownGivesAClearMessageAndNonZeroExit) {
  // A port that was just in use and is free now.
  uint16_t port = 0;
  {
    animtest::DaemonProcess daemon;
    ASSERT_TRUE(daemon.start()) << daemon.error();
    port = daemon.port();
    EXPECT_EQ(daemon.stop(), 0);
  }
  ProcessRun r = run_animview({"--port", std::to_string(port), "--headless", "--frames", "1",
                               "--screenshot", (tmp_.path() / "never.png").string()},
                              tmp_.path(), "down");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cannot connect to animd at 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(tmp_.path() / "never.png"));
}

TEST_F(AnimviewE2e, MissingCharacterIsReportedWithNonZeroExit) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error();
  ProcessRun r =
      run_animview({"--port", std::to_string(daemon.port()), "--headless", "--characters", "4242",
                    "--wait", "2", "--screenshot", (tmp_.path() / "none.png").string()},
                   tmp_.path(), "missing");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4242"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp_.path() / "none.png"));
}

// --region: only the characters in the region around the camera's target are streamed, and
// the region follows the camera (here: it starts at --look-at, then the camera frames the
// character it received and the region is moved there); the camera goes with it.
TEST_F(AnimviewE2e, RegionShowsOnlyItsCharactersAndFollowsTheCamera) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error();
  animclient::ClientOptions co;
  co.port = daemon.port();
  auto client = animclient::Client::connect(co);
  ASSERT_TRUE(client) << client.error().to_string();
  for (float x : {0.0f, 40.0f}) {
    anim::v1::SpawnRequest spawn;
    spawn.set_asset("builtin");
    spawn.set_clip("idle");
    *spawn.mutable_root() = placed(x, 1.0f, 0.0f);
    auto r = client.value()->spawn(spawn);
    ASSERT_TRUE(r) << r.error().to_string();
  }
  ProcessRun r = run_animview({"--port", std::to_string(daemon.port()), "--headless", "--frames",
                               "3", "--region", "6", "--region-margin", "0", "--look-at", "3,1,0"},
                              tmp_.path(), "region");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("of 1 characters"), std::string::npos) << r.output;
  // Framed on the character at the origin: the region moved from x = 3 to about x = 0.
  const size_t at = r.output.find("region centre (");
  ASSERT_NE(at, std::string::npos) << r.output;
  const float x = std::strtof(r.output.c_str() + at + 15, nullptr);
  EXPECT_LT(std::abs(x), 0.6f) << r.output;
  // The orbit camera went with the subscription and its moves (accepted, not refused).
  EXPECT_NE(r.output.find("; camera eye ("), std::string::npos) << r.output;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// --connect twice: two daemons (shards of one world) drawn in one scene, each character of
// both where its daemon put it; both daemons give their character id 1.
TEST_F(AnimviewE2e, SeveralDaemonsAreDrawnInOneScene) {
  animtest::DaemonProcess a, b;
  ASSERT_TRUE(a.start()) << a.error();
  ASSERT_TRUE(b.start()) << b.error();
  uint32_t ids[2] = {0, 0};
  int n = 0;
  for (auto [daemon, x] : {std::pair{&a, -1.5f}, std::pair{&b, 1.5f}}) {
    animclient::ClientOptions co;
    co.port = daemon->port();
    auto client = animclient::Client::connect(co);
    ASSERT_TRUE(client) << client.error().to_string();
    anim::v1::SpawnRequest spawn;
    spawn.set_asset("builtin");
    spawn.set_clip("idle");
    *spawn.mutable_root() = placed(x, 1.0f, 0.0f);
    auto r = client.value()->spawn(spawn);
    ASSERT_TRUE(r) << r.error().to_string();
    ids[n++] = r->character_id();
  }
  EXPECT_EQ(ids[0], ids[1]);  // the same id on both: (daemon, id) tells them apart
  const fs::path png = tmp_.path() / "two.png";
  ProcessRun r = run_animview({"--connect", "127.0.0.1:" + std::to_string(a.port()), "--connect",
                               "127.0.0.1:" + std::to_string(b.port()), "--headless", "--frames",
                               "3", "--screenshot", png.string()},
                              tmp_.path(), "two-daemons");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("of 2 characters (0 skipped)"), std::string::npos) << r.output;
  Image img;
  ASSERT_TRUE(load_png(png, img));
  EXPECT_EQ(figures(img).size(), 2u);
  EXPECT_EQ(a.stop(), 0) << a.log_tail();
  EXPECT_EQ(b.stop(), 0) << b.log_tail();
}

// The interactive window keeps running while the server restarts and connects again.
TEST_F(AnimviewE2e, WindowReconnectsAfterTheServerRestarts) {
  auto daemon = std::make_unique<animtest::DaemonProcess>();
  ASSERT_TRUE(daemon->start()) << daemon->error();
  const uint16_t port = daemon->port();
  {
    animclient::ClientOptions co;
    co.port = port;
    auto client = animclient::Client::connect(co);
    ASSERT_TRUE(client) << client.error().to_string();
    ASSERT_TRUE(client.value()->spawn("builtin", "idle"));
  }
  ProcessRun window;
  std::jthread viewer([&] {  // joins on every way out of the test
    window = run_animview({"--port", std::to_string(port), "--run-seconds", "25", "--max-fps", "30",
                           "--width", "320", "--height", "240"},
                          tmp_.path(), "window");
  });
  const fs::path log = tmp_.path() / "window.log";
  auto count_receiving = [&] {
    std::string s = read_text(log);
    size_t n = 0;
    for (size_t p = s.find("connected to"); p != std::string::npos;
         p = s.find("connected to", p + 1))
      ++n;
    return n;
  };
  auto wait_for = [&](size_t n) {
    for (auto end = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(50ms))
      if (count_receiving() >= n) return true;
    return false;
  };
  EXPECT_TRUE(wait_for(1)) << read_text(log);
  EXPECT_EQ(daemon->stop(), 0);
  // The window says it lost the server before the server comes back.
  bool said_down = false;
  for (auto end = std::chrono::steady_clock::now() + 30s;
       !said_down && std::chrono::steady_clock::now() < end; std::this_thread::sleep_for(50ms))
    said_down = read_text(log).find("cannot connect to animd at 127.0.0.1:" +
                                    std::to_string(port)) != std::string::npos;
  EXPECT_TRUE(said_down) << read_text(log);
  FixedPortDaemon again(port, tmp_.path() / "animd-again.log");
  EXPECT_TRUE(again.wait_ready(port)) << read_text(tmp_.path() / "animd-again.log");
  EXPECT_TRUE(wait_for(2)) << read_text(log);
  viewer.join();
  EXPECT_EQ(window.exit_code, 0) << window.output;
  EXPECT_EQ(again.stop(), 0) << read_text(tmp_.path() / "animd-again.log");
}

}  // namespace animview_e2e_connection_test

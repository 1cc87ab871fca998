// SystemdNotifier: the datagrams systemd would receive, read from a real unix datagram
// socket given as NOTIFY_SOCKET.

#include "animops/systemd_notifier.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace systemd_notifier_test {

using animops::SystemdNotifier;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// Saves and restores the environment variables the notifier reads.
class EnvGuard {
 public:
  EnvGuard() {
    for (const char* name : kNames) {
      const char* v = std::getenv(name);
      saved_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
      unsetenv(name);
    }
  }
  ~EnvGuard() {
    for (auto& [name, value] : saved_) {
      if (value) {
        setenv(name, value->c_str(), 1);
      } else {
        unsetenv(name);
      }
    }
  }

 private:
  static constexpr const char* kNames[] = {"NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

// A bound AF_UNIX datagram socket playing systemd's part.
class FakeSystemd {
 public:
  FakeSystemd() {
    std::filesystem::create_directories(ANIMD_TEST_TMP_DIR);
    path_ = std::string(ANIMD_TEST_TMP_DIR) + "/notify-" + std::to_string(getpid()) + ".sock";
    std::filesystem::remove(path_);
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path_.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    bound_ = fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~FakeSystemd() {
    if (fd_ >= 0) close(fd_);
    std::filesystem::remove(path_);
  }
  bool ok() const { return bound_; }
  const std::string& path() const { return path_; }

  // The next datagram if one is queued (sd_notify has returned, so it already is), else
  // nullopt. Never waits.
  std::optional<std::string> take() {
    char buf[4096];
    const ssize_t n = recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0) return std::nullopt;
    return std::string(buf, static_cast<size_t>(n));
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
};

TEST(SystemdNotifier, NoOpWithoutNotifySocket) {
  EnvGuard env;
  SystemdNotifier n;
  EXPECT_FALSE(n.enabled());
  EXPECT_EQ(n.watchdog_timeout().count(), 0);
  n.ready("x");
  n.status("y");
  n.stopping();
  EXPECT_FALSE(n.watchdog());
}

TEST(SystemdNotifier, SendsReadyStatusAndStopping) {
  EnvGuard env;
  FakeSystemd systemd;
  ASSERT_TRUE(systemd.ok()) << systemd.path();
  setenv("NOTIFY_SOCKET", systemd.path().c_str(), 1);
  SystemdNotifier n;
  ASSERT_TRUE(n.enabled());

  n.ready();
  EXPECT_EQ(systemd.take(), "READY=1");
  n.ready("serving 1 asset on :7450");
  EXPECT_EQ(systemd.take(), "READY=1\nSTATUS=serving 1 asset on :7450");
  n.status("12 characters,\n3 sessions");  // a newline would start a bogus assignment
  EXPECT_EQ(systemd.take(), "STATUS=12 characters, 3 sessions");
  n.stopping("draining");
  EXPECT_EQ(systemd.take(), "STOPPING=1\nSTATUS=draining");
  n.stopping();
  EXPECT_EQ(systemd.take(), "STOPPING=1");
  EXPECT_EQ(systemd.take(), std::nullopt);
}

TEST(SystemdNotifier, WatchdogIsRateLimitedToHalfTheTimeout) {
  EnvGuard env;
  FakeSystemd systemd;
  ASSERT_TRUE(systemd.ok());
  setenv("NOTIFY_SOCKET", systemd.path().c_str(), 1);
  setenv("WATCHDOG_USEC", "2000000", 1);  // 2 s: pings at most every 1 s
  setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
  SystemdNotifier n;
  ASSERT_EQ(n.watchdog_timeout(), microseconds(2000000));

  const auto t0 = SystemdNotifier::Clock::now();
  EXPECT_TRUE(n.watchdog(t0));  // first call always sends
  EXPECT_EQ(systemd.take(), "WATCHDOG=1");
  // Ticks at 60 Hz for just under a second: nothing more is sent.
  for (int i = 1; i < 60; ++i) {
    EXPECT_FALSE(n.watchdog(t0 + microseconds(16666 * i)));
  }
  EXPECT_FALSE(n.watchdog(t0 + microseconds(999999)));
  EXPECT_EQ(systemd.take(), std::nullopt);
  EXPECT_TRUE(n.watchdog(t0 + milliseconds(1000)));  // half the timeout: ping
  EXPECT_EQ(systemd.take(), "WATCHDOG=1");
  EXPECT_FALSE(n.watchdog(t0 + milliseconds(1500)));
  EXPECT_TRUE(n.watchdog(t0 + milliseconds(2000)));
  EXPECT_EQ(systemd.take(), "WATCHDOG=1");
  EXPECT_EQ(systemd.take(), std::nullopt);
}

TEST(SystemdNotifier, WatchdogOffWhenUnsetOrMeantForAnotherProcess) {
  EnvGuard env;
  FakeSystemd systemd;
  ASSERT_TRUE(systemd.ok());
  setenv("NOTIFY_SOCKET", systemd.path().c_str(), 1);
  {
    SystemdNotifier n;  // no WATCHDOG_USEC
    EXPECT_EQ(n.watchdog_timeout().count(), 0);
    EXPECT_FALSE(n.watchdog());
  }
  setenv("WATCHDOG_USEC", "2000000", 1);
  setenv("WATCHDOG_PID", std::to_string(getpid() + 1).c_str(), 1);  // our parent's, say
  {
    SystemdNotifier n;
    EXPECT_EQ(n.watchdog_timeout().count(), 0);
    EXPECT_FALSE(n.watchdog());
  }
  EXPECT_EQ(systemd.take(), std::nullopt);
}

TEST(SystemdNotifier, MissingSocketIsNotFatal) {
  EnvGuard env;
  setenv("NOTIFY_SOCKET", "/nonexistent-dir/notify.sock", 1);
  SystemdNotifier n;
  EXPECT_TRUE(n.enabled());
  n.ready("x");  // logs once, returns
  n.status("y");
  n.stopping();
}

}  // namespace systemd_notifier_test

// The tests' DaemonProcess (tests/support/daemon_process.h) leaves no animd behind: a process
// that started one and ends without stopping it (a crash, a ctest timeout) takes it along.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "daemon_process.h"

namespace daemon_process_test {

// Whether `pid` is a live process (not gone, not a zombie).
bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

TEST(DaemonProcess, GoesWithTheProcessThatStartedIt) {
#if !defined(__linux__)
  GTEST_SKIP() << "skipped: the daemon's tie to its parent is Linux's PR_SET_PDEATHSIG";
#else
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A test process that starts a daemon and dies without stopping it.
    ::close(fds[0]);
    animtest::DaemonProcess daemon;
    pid_t started = daemon.start() ? daemon.pid() : -1;
    (void)!::write(fds[1], &started, sizeof started);
    ::_exit(0);  // no destructors: DaemonProcess never sends its SIGTERM
  }
  ::close(fds[1]);
  pid_t daemon = -1;
  ASSERT_EQ(::read(fds[0], &daemon, sizeof daemon), static_cast<ssize_t>(sizeof daemon));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_GT(daemon, 0) << "the child could not start animd";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (alive(daemon) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(alive(daemon)) << "animd " << daemon << " outlived the process that started it";
  if (alive(daemon)) ::kill(daemon, SIGKILL);
#endif
}

}  // namespace daemon_process_test

#pragma once
// DaemonProcess: starts a real animd on 127.0.0.1 with an ephemeral port (--port 0
// --port-file) for a test, and stops it with SIGTERM, reporting its exit status.
//
//   animtest::DaemonProcess daemon({"--assets", dir});
//   ASSERT_TRUE(daemon.start()) << daemon.error();
//   ... connect to 127.0.0.1:daemon.port() ...
//   EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
//
// The binary is $ANIMD_BIN if set, else the ANIMD_BIN compile definition (CMake:
// ANIMD_BIN="$<TARGET_FILE:animd>"). The daemon's stdout and stderr go to a log file in a
// private temporary folder (log_path(), log_tail()). POSIX only. Not thread-safe: one
// test thread drives a DaemonProcess. On Linux the daemon is killed when the process (the
// thread) that started it ends without stopping it.

#include <fcntl.h>
#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace animtest {

// A fresh, empty folder under $TMPDIR (or ANIMD_TEST_TMP_DIR when defined), removed by the
// destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "animd-test") {
    std::filesystem::path base;
#ifdef ANIMD_TEST_TMP_DIR
    base = ANIMD_TEST_TMP_DIR;
#else
    base = std::filesystem::temp_directory_path();
#endif
    std::filesystem::create_directories(base);
    std::string tmpl = (base / (prefix + "-XXXXXX")).string();
    if (char* made = ::mkdtemp(tmpl.data())) path_ = made;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const {
    return path_;
  }
  bool ok() const {
    return !path_.empty();
  }

 private:
  std::filesystem::path path_;
};

inline std::string animd_binary() {
  if (const char* env = std::getenv("ANIMD_BIN"); env && *env) return env;
#ifdef ANIMD_BIN
  return ANIMD_BIN;
#else
  return "animd";
#endif
}

class DaemonProcess {
 public:
  // `args` are passed to animd after the defaults (--address 127.0.0.1 --port 0
  // --port-file <tmp> --log-level info --http-port -1); a flag given again in `args` wins
  // (animd takes the last value), e.g. {"--http-port", "0", "--http-port-file", path}.
  explicit DaemonProcess(std::vector<std::string> args = {}) : args_(std::move(args)) {}
  ~DaemonProcess() {
    if (pid_ > 0) stop(std::chrono::seconds(20));
  }
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // Starts animd and waits (bounded) until it has written its port. False on failure;
  // error() says why and log_tail() shows what the daemon printed.
  bool start(std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    if (!dir_.ok()) return fail("cannot create a temporary folder");
    const std::string port_file = (dir_.path() / "port").string();
    log_path_ = (dir_.path() / "animd.log").string();
    // HTTP (server/ops) is off unless a test asks for it: no fixed port to collide on.
    std::vector<std::string> argv_s = {
        animd_binary(), "--address",   "127.0.0.1", "--port",      "0", "--port-file",
        port_file,      "--log-level", "info",      "--http-port", "-1"};
    argv_s.insert(argv_s.end(), args_.begin(), args_.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);

    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return fail("fork failed");
    if (pid == 0) {
#ifdef __linux__
      // The daemon goes with the test process: one a timeout or a crash ends leaves no animd
      // behind. (Tied to the thread that started it: the test thread, which outlives it.)
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
#endif
      const int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::close(fd);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    pid_ = pid;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        exit_status_ = decode(status);
        return fail("animd exited during start-up with status " + std::to_string(exit_status_) +
                    " (binary " + argv_s[0] + ")");
      }
      std::ifstream f(port_file);
      unsigned port = 0;
      if (f >> port && port > 0 && port < 65536) {
        port_ = static_cast<uint16_t>(port);
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop(std::chrono::seconds(5));
    return fail("animd did not write its port file within the start-up timeout");
  }

  // Sends SIGTERM and waits (bounded) for the exit. Returns the exit code (0 = clean), 128 +
  // signal number when killed by a signal, or -1 when it did not exit in time (it is then
  // killed with SIGKILL).
  int stop(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    if (pid_ <= 0) return exit_status_;
    ::kill(pid_, SIGTERM);
    return wait_exit(timeout);
  }

  // Waits for an exit that something else caused (bounded); same results as stop().
  int wait_exit(std::chrono::milliseconds timeout) {
    if (pid_ <= 0) return exit_status_;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return exit_status_ = decode(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return exit_status_ = -1;
  }

  bool running() const {
    return pid_ > 0;
  }
  pid_t pid() const {
    return pid_;
  }
  uint16_t port() const {
    return port_;
  }
  std::string host() const {
    return "127.0.0.1";
  }
  const std::string& error() const {
    return error_;
  }
  const std::string& log_path() const {
    return log_path_;
  }
  const std::filesystem::path& temp_dir() const {
    return dir_.path();
  }

  // The last `max_bytes` of the daemon's log, for failure messages.
  std::string log_tail(size_t max_bytes = 4000) const {
    std::ifstream f(log_path_, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string s = ss.str();
    if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
    return "--- animd log (" + log_path_ + ") ---\n" + s;
  }
  std::string log() const {
    std::ifstream f(log_path_, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }

 private:
  static int decode(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
  }
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  std::vector<std::string> args_;
  TempDir dir_{"animd-daemon"};
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  int exit_status_ = -1;
  std::string error_;
  std::string log_path_;
};

}  // namespace animtest

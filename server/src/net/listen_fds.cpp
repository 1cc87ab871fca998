#include "net/listen_fds.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace animd {

namespace {

constexpr int kFirstFd = 3;  // SD_LISTEN_FDS_START
constexpr int kMaxFds = 64;

bool parse(const char* text, long& out) {
  if (!text || !*text) return false;
  const char* end = text + std::strlen(text);
  auto r = std::from_chars(text, end, out);
  return r.ec == std::errc() && r.ptr == end;
}

}  // namespace

ListenFds take_listen_fds() {
  ListenFds out;
  const char* pid_text = std::getenv("LISTEN_PID");
  const char* fds_text = std::getenv("LISTEN_FDS");
  long pid = 0;
  long count = 0;
  const bool ours = parse(pid_text, pid) && pid == static_cast<long>(::getpid());
  const bool counted = parse(fds_text, count);
  ::unsetenv("LISTEN_PID");
  ::unsetenv("LISTEN_FDS");
  ::unsetenv("LISTEN_FDNAMES");
  if (!ours) return out;  // none, or meant for another process
  if (!counted || count < 1 || count > kMaxFds) {
    out.error = std::string("LISTEN_FDS '") + (fds_text ? fds_text : "") +
                "' is not a number of sockets from 1 to " + std::to_string(kMaxFds);
    return out;
  }
  for (int fd = kFirstFd; fd < kFirstFd + count; ++fd) {
    int type = 0;
    int listening = 0;
    socklen_t len = sizeof(type);
    if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0) {
      out.error = "LISTEN_FDS: fd " + std::to_string(fd) + " is not a socket (" +
                  std::strerror(errno) + ")";
      out.fds.clear();
      return out;
    }
    len = sizeof(listening);
    if (type != SOCK_STREAM || ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 ||
        !listening) {
      out.error = "LISTEN_FDS: fd " + std::to_string(fd) + " is not a listening TCP socket";
      out.fds.clear();
      return out;
    }
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    out.fds.push_back(fd);
  }
  return out;
}

}  // namespace animd

#pragma once
// Listening sockets handed over by systemd socket activation (sd_listen_fds(3)): when
// LISTEN_PID names this process, LISTEN_FDS sockets start at file descriptor 3. Connections
// made while no process accepts wait in the socket's backlog, which is what lets a new animd
// take over from an old one without refusing anyone (docs/operations.md, "Saved state").

#include <string>
#include <vector>

namespace animd {

struct ListenFds {
  std::vector<int> fds;  // the sockets passed, in order (empty: none)
  std::string error;     // set when the variables were present but unusable
};

// Reads LISTEN_PID / LISTEN_FDS and unsets them and LISTEN_FDNAMES (a child process must not
// take the sockets for its own). Each fd is checked to be a listening stream socket and made
// close-on-exec.
ListenFds take_listen_fds();

}  // namespace animd

// Sockets passed by systemd socket activation (net/listen_fds.h): only for the process
// LISTEN_PID names, the variables gone afterwards either way, and a count that is not one
// refused with a reason. (A socket really passed at fd 3: tests/integration/state_dir_test.cpp.)
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "net/listen_fds.h"

namespace animd {
namespace listen_fds_test {

TEST(ListenFds, NoneWithoutTheVariables) {
  ::unsetenv("LISTEN_PID");
  ::unsetenv("LISTEN_FDS");
  const ListenFds got = take_listen_fds();
  EXPECT_TRUE(got.fds.empty());
  EXPECT_TRUE(got.error.empty());
}

TEST(ListenFds, SocketsMeantForAnotherProcessAreNotTakenAndTheVariablesGo) {
  ::setenv("LISTEN_PID", std::to_string(::getpid() + 1).c_str(), 1);
  ::setenv("LISTEN_FDS", "1", 1);
  const ListenFds got = take_listen_fds();
  EXPECT_TRUE(got.fds.empty());
  EXPECT_TRUE(got.error.empty());
  EXPECT_EQ(std::getenv("LISTEN_PID"), nullptr);
  EXPECT_EQ(std::getenv("LISTEN_FDS"), nullptr);
}

TEST(ListenFds, ACountThatIsNotOneIsRefusedWithAReason) {
  for (const char* count : {"0", "-1", "x", "100000"}) {
    ::setenv("LISTEN_PID", std::to_string(::getpid()).c_str(), 1);
    ::setenv("LISTEN_FDS", count, 1);
    const ListenFds got = take_listen_fds();
    EXPECT_TRUE(got.fds.empty()) << count;
    EXPECT_NE(got.error.find("LISTEN_FDS"), std::string::npos) << count << ": " << got.error;
  }
}

}  // namespace listen_fds_test
}  // namespace animd

// The daemon names its threads (thread_name.h), so that an operator's `top -H` or `perf top`
// and /proc/PID/task/TID/comm say which is the tick, a worker, a network thread or the loader.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "daemon_process.h"

namespace {

std::multiset<std::string> thread_names(pid_t pid) {
  std::multiset<std::string> names;
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& t : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream comm(t.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) names.insert(name);
  }
  return names;
}

TEST(ThreadNames, EveryDaemonThreadSaysWhatItIs) {
#if !defined(__linux__)
  GTEST_SKIP() << "skipped: thread names are read from /proc (Linux)";
#endif
  animtest::DaemonProcess daemon({"--workers", "3", "--io-threads", "3"});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::set<std::string> expected = {"animd-net-1",  "animd-net-2",  "animd-tick",
                                          "animd-work-1", "animd-work-2", "animd-load"};
  // The network threads start after the port is written and the loader names itself from its
  // first task: wait until every name is there (bounded, not a timing check).
  std::multiset<std::string> names;
  auto all_named = [&] {
    for (const auto& name : expected)
      if (names.count(name) == 0) return false;
    return true;
  };
  for (int i = 0; i < 500; ++i) {
    names = thread_names(daemon.pid());
    if (all_named()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (const auto& name : expected)
    EXPECT_EQ(names.count(name), 1u) << name << " missing or repeated";
  // The main thread keeps the process's name (it is also the first network thread). A
  // sanitizer's own threads inherit it, so there may be more than one.
  EXPECT_GE(names.count("animd"), 1u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace

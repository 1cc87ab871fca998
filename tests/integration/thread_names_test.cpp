// The daemon names its threads (thread_name.h), so that an operator's `top -H` or `perf top`
// and /proc/PID/task/TID/comm say which is the tick, a worker, a network thread or the loader;
// and the tick thread and its workers ask for short scheduler slices (--tick-slice-us,
// thread_slice.h), so that a query is answered without waiting out a worker's slice; the
// encode stage's threads are as many as --encode-threads, in SCHED_IDLE only when asked.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>

#include <iostream>

#include "base/thread_slice.h"
#include "daemon_process.h"

namespace thread_names_test {

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

// Each thread's name and scheduler slice (nanoseconds).
std::multimap<std::string, uint64_t> thread_slices(pid_t pid) {
  std::multimap<std::string, uint64_t> out;
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& t : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream comm(t.path() / "comm");
    std::string name;
    if (!std::getline(comm, name)) continue;
    const auto tid = static_cast<pid_t>(std::stol(t.path().filename().string()));
    if (const auto slice = animd::thread_slice(tid))
      out.emplace(name, static_cast<uint64_t>(slice->count()));
  }
  return out;
}

TEST(ThreadNames, EveryDaemonThreadSaysWhatItIs) {
#if !defined(__linux__)
  GTEST_SKIP() << "skipped: thread names are read from /proc (Linux)";
#endif
  animtest::DaemonProcess daemon({"--workers", "3", "--io-threads", "3"});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::set<std::string> expected = {"animd-net-1",  "animd-net-2",  "animd-tick",
                                          "animd-work-1", "animd-work-2", "animd-load-1",
                                          "animd-load-2", "animd-enc-1",  "animd-enc-2"};
  // The network threads start after the port is written, and the loader threads name
  // themselves as they start: wait until every name is there (bounded, not a timing check).
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

// The encode stage's threads (encode_stage.h): --encode-threads of them, none at 0; in
// SCHED_IDLE with --encode-idle true, else at normal priority.
std::vector<int> encode_thread_policies(pid_t pid, size_t expected) {
  std::vector<int> policies;
  for (int i = 0; i < 500; ++i) {
    policies.clear();
    std::error_code ec;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    for (const auto& t : std::filesystem::directory_iterator(tasks, ec)) {
      std::ifstream comm(t.path() / "comm");
      std::string name;
      if (!std::getline(comm, name) || name.rfind("animd-enc-", 0) != 0) continue;
      const auto tid = static_cast<pid_t>(std::stol(t.path().filename().string()));
      policies.push_back(sched_getscheduler(tid));
    }
    if (policies.size() == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return policies;
}

// Whether this process may put a thread in SCHED_IDLE (some sandboxes refuse it).
bool idle_policy_allowed() {
  bool ok = false;
  std::thread t([&] {
    sched_param param{};
    ok = pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) == 0;
  });
  t.join();
  return ok;
}

TEST(EncodeThreads, AsManyAsAskedAtNormalPriorityOrIdle) {
#if !defined(__linux__)
  GTEST_SKIP() << "skipped: threads are read from /proc (Linux)";
#else
  // The threads inherit the test's own policy before they set theirs: only from the default.
  if (sched_getscheduler(0) != SCHED_OTHER)
    GTEST_SKIP() << "skipped: the test runs under another scheduling policy";
  for (const bool idle : {false, true}) {
    if (idle && !idle_policy_allowed()) {
      std::cout << "[  SKIPPED ] SCHED_IDLE is refused here (the daemon falls back to nice 19)\n";
      continue;
    }
    animtest::DaemonProcess daemon(
        {"--encode-threads", "3", "--encode-idle", idle ? "true" : "false"});
    ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
    // A thread lowers itself as it starts: wait for the policy too (bounded).
    std::vector<int> policies;
    for (int i = 0; i < 100; ++i) {
      policies = encode_thread_policies(daemon.pid(), 3);
      if (policies.size() == 3 &&
          std::count(policies.begin(), policies.end(), idle ? SCHED_IDLE : SCHED_OTHER) == 3)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(policies.size(), 3u);
    for (int p : policies) EXPECT_EQ(p, idle ? SCHED_IDLE : SCHED_OTHER) << "idle " << idle;
    EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
  }
  animtest::DaemonProcess none({"--encode-threads", "0"});
  ASSERT_TRUE(none.start()) << none.error() << none.log_tail();
  // Every other thread is named by the time the network threads run.
  for (int i = 0; i < 500 && thread_names(none.pid()).count("animd-net-1") == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (const auto& name : thread_names(none.pid())) EXPECT_NE(name.rfind("animd-enc-", 0), 0u);
  EXPECT_EQ(none.stop(), 0) << none.log_tail();
#endif
}

// The slices of the tick thread and workers, and of the network threads, once all started.
struct Slices {
  std::vector<uint64_t> tick_side;  // animd-tick and animd-work-*
  std::vector<uint64_t> network;    // animd-net-*
};

Slices slices_when_started(pid_t pid, size_t tick_side_threads, size_t net_threads) {
  Slices v;
  for (int i = 0; i < 500; ++i) {
    v = {};
    for (const auto& [name, slice] : thread_slices(pid)) {
      if (name == "animd-tick" || name.rfind("animd-work-", 0) == 0) v.tick_side.push_back(slice);
      if (name.rfind("animd-net-", 0) == 0) v.network.push_back(slice);
    }
    if (v.tick_side.size() == tick_side_threads && v.network.size() == net_threads) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return v;
}

class ThreadSlice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!animd::thread_slice())
      GTEST_SKIP() << "skipped: this kernel does not report thread slices (Linux 6.12+ does)";
  }
};

TEST_F(ThreadSlice, TheTickAndItsWorkersAskForTheConfiguredSlice) {
  animtest::DaemonProcess daemon({"--workers", "3", "--io-threads", "2", "--tick-slice-us", "250"});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const Slices v = slices_when_started(daemon.pid(), 3, 1);
  ASSERT_EQ(v.tick_side.size(), 3u) << "tick thread and 2 workers";
  for (uint64_t slice : v.tick_side) EXPECT_EQ(slice, 250000u);
  ASSERT_EQ(v.network.size(), 1u);
  EXPECT_NE(v.network[0], 250000u) << "network threads keep the kernel's default";
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(ThreadSlice, ZeroKeepsTheKernelsDefault) {
  animtest::DaemonProcess daemon({"--workers", "2", "--io-threads", "2", "--tick-slice-us", "0"});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const Slices v = slices_when_started(daemon.pid(), 2, 1);
  ASSERT_EQ(v.tick_side.size(), 2u);
  ASSERT_EQ(v.network.size(), 1u);
  for (uint64_t slice : v.tick_side) EXPECT_EQ(slice, v.network[0]);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace thread_names_test

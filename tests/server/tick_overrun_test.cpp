// The overrun log line: the tick's phases, and whether its thread computed or waited.
#include "tick_overrun.h"

#include <gtest/gtest.h>

namespace animd {
namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(TickOverrun, AComputingTickNamesItsPhasesAndSaysTheWorkIsTooMuch) {
  TickPhases p;
  p.apply_us = 310.0;
  p.update_us = 19'240.0;
  p.publish_us = 450.0;
  p.wall_us = 20'000.0;
  p.thread_cpu_us = 18'000.0;
  p.commands = 42;
  const std::string line = describe_overrun(1234, p, 16'666.7, 0);
  EXPECT_TRUE(has(line, "tick 1234 overran: 20.0 ms (period 16.7 ms)")) << line;
  EXPECT_TRUE(has(line, "apply 0.3 ms (42 commands), update 19.2 ms, publish 0.5 ms")) << line;
  EXPECT_TRUE(has(line, "on a core 18.0 ms of it")) << line;
  EXPECT_TRUE(has(line, "more work than the period holds")) << line;
  EXPECT_FALSE(has(line, "short of CPU")) << line;
  EXPECT_FALSE(has(line, "since the last line")) << line;
}

TEST(TickOverrun, AWaitingTickBlamesTheHostAndCountsTheUnloggedOnes) {
  TickPhases p;
  p.update_us = 24'000.0;
  p.wall_us = 25'000.0;
  p.thread_cpu_us = 4'000.0;
  const std::string three = describe_overrun(7, p, 16'666.7, 3);
  EXPECT_TRUE(has(three, "on a core 4.0 ms of it")) << three;
  EXPECT_TRUE(has(three, "the host is short of CPU")) << three;
  EXPECT_TRUE(has(three, "; 3 more overruns since the last line")) << three;
  EXPECT_TRUE(has(describe_overrun(7, p, 16'666.7, 1), "; 1 more overrun since the last line"));
}

TEST(TickOverrun, TheThreadsCpuClockAdvancesWithWork) {
  const double before = thread_cpu_us();
  volatile double x = 0.0;
  double after = before;
  // Work until the clock moves (bounded: a clock that never moves fails the test).
  for (int round = 0; round < 1000 && after <= before; ++round) {
    for (int i = 0; i < 100'000; ++i) x = x + 1.0;
    after = thread_cpu_us();
  }
  EXPECT_GT(before, 0.0);
  EXPECT_GT(after, before);
}

}  // namespace
}  // namespace animd

// The overrun log line: the tick's phases, and whether its threads computed or waited.
#include "tick/tick_overrun.h"

#include <gtest/gtest.h>

#include "base/worker_pool.h"

namespace animd {
namespace tick_overrun_test {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A two-thread tick, microseconds: phases, then the CPU the tick thread and the worker used
// and the time the pool ran (in which the worker could work).
TickPhases two_threads(double apply, double update, double wall, double tick_cpu, double worker_cpu,
                       double parallel) {
  TickPhases p;
  p.apply_us = apply;
  p.update_us = update;
  p.wall_us = wall;
  p.thread_cpu_us = tick_cpu;
  p.workers_cpu_us = worker_cpu;
  p.parallel_us = parallel;
  p.threads = 2;
  return p;
}

TEST(TickOverrun, AComputingTickNamesItsPhasesAndSaysTheWorkIsTooMuch) {
  TickPhases p = two_threads(310.0, 19'240.0, 20'000.0, 19'000.0, 18'000.0, 19'000.0);
  p.publish_us = 450.0;
  p.commands = 42;
  // Could use 20.0 + 19.0 ms, used 37.0 ms: 95 %.
  const std::string line = describe_overrun(1234, p, 16'666.7, 0);
  EXPECT_TRUE(has(line, "tick 1234 overran: 20.0 ms (period 16.7 ms)")) << line;
  EXPECT_TRUE(has(line, "apply 0.3 ms (42 commands), update 19.2 ms, publish 0.5 ms")) << line;
  EXPECT_TRUE(has(line, "on a core: the tick thread 19.0 ms, the workers 18.0 ms (95% of")) << line;
  EXPECT_TRUE(has(line, "more work than the period holds")) << line;
  EXPECT_FALSE(has(line, "short of CPU")) << line;
  EXPECT_FALSE(has(line, "since the last line")) << line;
  EXPECT_FALSE(has(line, "quantization")) << line;  // none left from the last tick
  EXPECT_FALSE(has(line, "compact stream")) << line;
}

TEST(TickOverrun, ATickThatQuantizedForTheStreamSaysSo) {
  TickPhases p = two_threads(310.0, 16'900.0, 17'400.0, 15'000.0, 14'000.0, 16'900.0);
  p.quantized_in_tick = true;
  const std::string line = describe_overrun(90, p, 16'666.7, 0);
  EXPECT_TRUE(has(line, "update 16.9 ms (quantized for the compact stream), publish 0.0 ms"))
      << line;
}

TEST(TickOverrun, TheLastTicksQuantizationIsAPhaseOfItsOwn) {
  TickPhases p = two_threads(310.0, 14'000.0, 19'000.0, 15'000.0, 14'000.0, 18'000.0);
  p.settle_us = 4'200.0;
  p.commands = 3;
  const std::string line = describe_overrun(77, p, 16'666.7, 0);
  EXPECT_TRUE(has(line,
                  "(period 16.7 ms): the last tick's quantization 4.2 ms, apply 0.3 ms (3 "
                  "commands), update 14.0 ms"))
      << line;
}

TEST(TickOverrun, ALongSerialApplyIsWorkNotWaiting) {
  // Spawning 640 characters: the apply runs on the tick thread alone, the workers idle.
  const TickPhases p = two_threads(22'400.0, 3'200.0, 25'600.0, 24'100.0, 1'600.0, 3'000.0);
  const std::string line = describe_overrun(86, p, 16'666.7, 0);
  EXPECT_TRUE(has(line, "more work than the period holds")) << line;
}

TEST(TickOverrun, AWorkerWithoutACoreBlamesTheHostAndCountsTheUnloggedOnes) {
  // The tick thread did most blocks itself while the worker waited for a core.
  TickPhases p = two_threads(800.0, 18'200.0, 19'000.0, 16'400.0, 4'000.0, 18'000.0);
  const std::string three = describe_overrun(974, p, 16'666.7, 3);
  EXPECT_TRUE(has(three,
                  "(55% of what they could use: they waited for cores, the host is short "
                  "of CPU)"))
      << three;
  EXPECT_TRUE(has(three, "; 3 more overruns since the last line")) << three;
  EXPECT_TRUE(has(describe_overrun(7, p, 16'666.7, 1), "; 1 more overrun since the last line"));
  // One thread: no workers named.
  p.threads = 1;
  p.workers_cpu_us = 0.0;
  const std::string alone = describe_overrun(7, p, 16'666.7, 0);
  EXPECT_FALSE(has(alone, "the workers")) << alone;
}

TEST(TickOverrun, TheThreadsCpuClocksAdvanceWithWork) {
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

  // The pool's workers: their clocks move when a job runs on them.
  WorkerPool pool(2);
  const double workers_before = pool.workers_cpu_us();
  struct Spin {
    static void run(void*, size_t begin, size_t end, int) {
      volatile double y = 0.0;
      for (size_t i = begin; i < end; ++i)
        for (int k = 0; k < 20'000; ++k) y = y + 1.0;
    }
  };
  double workers_after = workers_before;
  for (int round = 0; round < 200 && workers_after <= workers_before; ++round) {
    pool.run(4096, &Spin::run, nullptr);
    workers_after = pool.workers_cpu_us();
  }
  EXPECT_GT(workers_after, workers_before) << "the workers' CPU clocks did not move";
  EXPECT_GT(pool.parallel_us(), 0.0) << "runs that woke the workers are timed";
}

}  // namespace tick_overrun_test
}  // namespace animd

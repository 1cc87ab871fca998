#pragma once
// What an operator needs to read an overrun from the log: where the tick's time went (its
// phases) and whether the tick thread was working or waiting. The tick thread takes blocks
// of characters like the workers do, so when its time on a core is close to the tick's wall
// time the tick had more work than the period holds; when it is much less, the thread waited
// (for a worker that had no core, or for a core itself): the host is short of CPU.

#include <cstdint>
#include <string>

namespace animd {

// One tick's phases, microseconds of wall time (steady clock), and the tick thread's own CPU
// time over the whole tick (CLOCK_THREAD_CPUTIME_ID). wall_us >= the sum of the phases.
struct TickPhases {
  double apply_us = 0.0;    // World::apply of the tick's commands
  double update_us = 0.0;   // World::update: every character, snapshot, history
  double publish_us = 0.0;  // the snapshot offered to every session
  double wall_us = 0.0;     // the whole tick
  double thread_cpu_us = 0.0;
  uint64_t commands = 0;  // commands applied
};

// One log line for an overrun of tick `tick` against `period_us`; `unlogged`: overruns since
// the last line that had none of their own (the loop logs at most one a second).
std::string describe_overrun(uint64_t tick, const TickPhases& phases, double period_us,
                             uint64_t unlogged);

// The calling thread's CPU time in microseconds (0 where the clock is missing).
double thread_cpu_us();

}  // namespace animd

#pragma once
// What an operator needs to read an overrun from the log: where the tick's time went (its
// phases) and whether the tick's threads were computing or waiting. The tick thread works
// the whole tick; the workers only while the pool runs the characters' updates (the rest of
// World::update, and apply and publish, are the tick thread's alone), taking blocks from the
// same cursor as the tick thread. So the CPU the tick's threads could have used is the wall
// time plus (threads - 1) x the pool's run time; when they used most of it the tick had more
// work than the period holds, and when they used much less a thread waited for a core (one
// thread's blocks are then done by the others, late): the host is short of CPU. (Spinning at
// the pool's barriers counts as CPU: a wait can read as work, not work as a wait.)

#include <cstdint>
#include <string>

namespace animd {

// One tick's phases, microseconds of wall time (steady clock), and the CPU time of the tick's
// threads over the tick (their CPU clocks). wall_us >= the sum of the phases.
struct TickPhases {
  // World::settle: the last tick's quantization, what the encode stage had not taken of it
  // (quantize_work.h); 0 when nothing was left.
  double settle_us = 0.0;
  double apply_us = 0.0;        // World::apply of the tick's commands
  double update_us = 0.0;       // World::update: every character, snapshot, history
  double publish_us = 0.0;      // the snapshot offered to every session
  double wall_us = 0.0;         // the whole tick
  double thread_cpu_us = 0.0;   // the tick thread's CPU time over the tick
  double workers_cpu_us = 0.0;  // the other threads of the pool, summed
  double parallel_us = 0.0;     // wall time in which the workers ran (WorkerPool::parallel_us)
  int threads = 1;              // the pool's threads, the tick thread's included
  uint64_t commands = 0;        // commands applied
  // The update's workers also quantized the tick for the compact stream (the encode stage
  // could not take it between ticks: World::update), which about doubles its CPU.
  bool quantized_in_tick = false;
};

// One log line for an overrun of tick `tick` against `period_us`; `unlogged`: overruns since
// the last line that had none of their own (the loop logs at most one a second).
std::string describe_overrun(uint64_t tick, const TickPhases& phases, double period_us,
                             uint64_t unlogged);

// The calling thread's CPU time in microseconds (0 where the clock is missing).
double thread_cpu_us();

}  // namespace animd

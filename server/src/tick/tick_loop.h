#pragma once
// The fixed-tick loop, on its own thread. Each tick: take the queued commands, apply them
// to the World, update every character (in parallel) into an immutable Snapshot, hand it
// over (`publish`), record the tick time, then deliver it (`deliver`: to the sessions). Ticks are
// numbered from --tick-epoch on the wall clock and each starts at its tick's wall-clock instant,
// slept toward on the steady clock (tick_numbering.h has the rule, clock steps included). A
// tick that overruns its period is counted, the next tick starts at once with the number of
// that instant (the numbers between are skipped, never run in a burst; its dt covers the span,
// at most kMaxStepSeconds), and it runs degraded (World::update: without allocated update
// rates, unwatched characters update every other tick; with the automatic budget, the budget
// shrinks).

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "base/config.h"
#include "base/metrics.h"
#include "snapshot/snapshot.h"
#include "world/command.h"
#include "world/world.h"

namespace animd {

class TickLoop {
 public:
  using Publish = std::function<void(const SnapshotPtr&)>;
  // Called after every tick with its duration and the tick period (ops metrics, watchdog).
  using Observe = std::function<void(std::chrono::nanoseconds, std::chrono::nanoseconds)>;
  // `publish`: the last step of each tick (Metrics::tick_running still true). `deliver`
  // (may be empty): called once the tick's time is taken and tick_running is cleared; what
  // wakes other threads of the tick's priority goes here (a network thread woken onto this
  // thread's core preempts it, and the tick would wait for it: docs/benchmarks.md,
  // "Waiting for a worker to wake, and network threads during the tick").
  TickLoop(const Config& config, World& world, CommandQueue& commands, Metrics& metrics,
           Publish publish, Publish deliver = {}, Observe observe = {});
  ~TickLoop();

  void start();
  // Asks the loop to stop after the current tick and waits for it. Commands still queued
  // then are answered UNAVAILABLE.
  void stop();

 private:
  void run();

  const Config& config_;
  World& world_;
  CommandQueue& commands_;
  Metrics& metrics_;
  Publish publish_;
  Publish deliver_;
  Observe observe_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace animd

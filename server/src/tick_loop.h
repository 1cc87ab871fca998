#pragma once
// The fixed-tick loop, on its own thread. Each tick: take the queued commands, apply them
// to the World, update every character (in parallel) into an immutable Snapshot, hand the
// snapshot to the sessions, record the tick time. Ticks start on a steady-clock schedule;
// a tick that overruns its period is counted, the next tick starts at once and the
// schedule is re-based on it (no catch-up bursts), and the next tick runs degraded
// (unwatched characters update every other tick).

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "command.h"
#include "config.h"
#include "metrics.h"
#include "snapshot.h"
#include "world.h"

namespace animd {

class TickLoop {
 public:
  using Publish = std::function<void(const SnapshotPtr&)>;
  // Called after every tick with its duration and the tick period (ops metrics, watchdog).
  using Observe = std::function<void(std::chrono::nanoseconds, std::chrono::nanoseconds)>;
  TickLoop(const Config& config, World& world, CommandQueue& commands, Metrics& metrics,
           Publish publish, Observe observe = {});
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
  Observe observe_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace animd

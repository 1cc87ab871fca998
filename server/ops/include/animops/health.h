#pragma once
// Health: what /healthz and /readyz (and the Agones health ping) answer.
//
// Liveness is "the process answers"; readiness is "this instance can take work": assets are
// loaded, the tick loop ran within the staleness limit (1 s by default) and the daemon is
// not draining. Every input is an atomic written by the daemon (tick thread, start-up,
// shutdown) and read by the HTTP thread; no locks.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace animops {

class Health {
 public:
  using Clock = std::chrono::steady_clock;

  // A tick older than this makes the instance not ready (and not healthy for Agones).
  explicit Health(std::chrono::milliseconds max_tick_age = std::chrono::milliseconds{1000})
      : max_tick_age_(max_tick_age) {}

  // Start-up has loaded the assets (the built-in character counts as one).
  void set_assets_loaded(bool loaded) { assets_loaded_.store(loaded, std::memory_order_release); }
  // The tick loop finished a tick at `at`. Call once per tick; lock-free.
  void note_tick(Clock::time_point at = Clock::now());
  // SIGTERM received: stop taking new work (readyz turns 503 so load balancers move away).
  void set_draining() { draining_.store(true, std::memory_order_release); }
  bool draining() const { return draining_.load(std::memory_order_acquire); }

  struct Verdict {
    bool ready = false;
    std::string reason;  // "ready", or why not: "assets not loaded", "tick stalled: ..."
  };
  // Readiness at time `now` (passed in so tests need no sleeps).
  Verdict ready(Clock::time_point now = Clock::now()) const;
  // The tick ran within the staleness limit (draining or not). For the Agones health ping.
  bool ticking(Clock::time_point now = Clock::now()) const;

  std::chrono::milliseconds max_tick_age() const { return max_tick_age_; }

 private:
  std::chrono::milliseconds max_tick_age_;
  std::atomic<bool> assets_loaded_{false};
  std::atomic<bool> draining_{false};
  // Clock::time_point of the last tick as a count of Clock ticks; INT64_MIN = never ticked.
  std::atomic<int64_t> last_tick_{INT64_MIN};
};

}  // namespace animops

#pragma once
// Tick numbering from a fixed epoch (docs/operations.md, "Fleet clock"). Tick T is the
// instant `epoch + T / rate` on the wall clock (std::chrono::system_clock), so every daemon
// of a fleet with the same epoch and rate and synchronized clocks gives an instant the same
// tick number. Tick 0 never runs (replies of tick 0 mean "not tied to a tick").
//
// The rule, given the last tick run and the wall clock now (plan_tick):
// - the tick to run is the wall clock's tick, floor((now - epoch) * rate), when that is
//   later than the last tick run: one more is a consecutive tick, more skips the ticks in
//   between (an overrun, a paused process, the wall clock stepped forward); they never run
//   in a burst;
// - else (the wall clock is not past the last tick's number: woken early, or stepped back)
//   the last tick + 1: numbers never go backward or repeat;
// - the first tick is the wall clock's tick (at least 1).
// The update's dt covers the span since the last tick run, (T - T_prev) / rate, but at most
// kMaxStepSeconds (or one period, whichever is longer); beyond it time is dropped.
//
// When to wake for the next tick (wait_before_tick): at the wall-clock instant of the next
// tick number, measured now and slept on the steady clock. When that instant is further than
// one period away the wall clock stepped back: up to kMaxStepSeconds the loop holds (waits
// for the wall clock to reach the instant, as long as a pause); beyond that it slews, running
// consecutive ticks every kSlewFactor periods until the wall clock is within kMaxStepSeconds
// of the numbering again.
//
// Everything here is pure: no clock is read.

#include <chrono>
#include <cstdint>

#include "anim/tick_clock.h"

namespace animd {

using WallClock = std::chrono::system_clock;

// The largest span one update's dt covers, seconds (one tick period when that is longer).
inline constexpr double kMaxStepSeconds = 0.25;
// While slewing after a large backward step, ticks run every kSlewFactor periods (and their
// dt is one period): the wall clock gains (kSlewFactor - 1) periods on the numbering a tick.
inline constexpr double kSlewFactor = 1.125;

class TickSchedule {
 public:
  // `epoch_unix_seconds`: seconds since the Unix epoch, >= 0 (0: the Unix epoch).
  // `rate`: ticks per second, finite and > 0.
  TickSchedule(int64_t epoch_unix_seconds, double rate);

  int64_t epoch_unix_seconds() const { return epoch_s_; }
  double rate() const { return rate_; }
  // One tick period.
  std::chrono::nanoseconds period() const { return period_; }
  // The most tick periods one update's dt covers: max(1, floor(kMaxStepSeconds * rate)).
  uint64_t max_step_ticks() const { return max_step_ticks_; }

  // The tick number of wall instant `now`: floor((now - epoch) * rate); 0 before the epoch.
  uint64_t tick_at(WallClock::time_point now) const;
  // The wall instant of tick `tick` (the first nanosecond whose tick_at is `tick`).
  WallClock::time_point instant_of(uint64_t tick) const;
  // The same as seconds since the Unix epoch.
  double unix_seconds_of(uint64_t tick) const;

 private:
  int64_t epoch_s_;
  double rate_;
  int64_t rate_int_;  // rate_ when it is a whole number, else 0
  std::chrono::nanoseconds period_;
  uint64_t max_step_ticks_;
};

// What the tick loop runs next.
struct TickPlan {
  uint64_t tick = 0;   // the tick to run: >= 1, > the last tick run
  uint64_t span = 1;   // tick - the last tick run (1: consecutive; the first tick: 1)
  uint64_t steps = 1;  // tick periods the update's dt covers: min(span, max_step_ticks)
  // Ticks the wall clock's numbering is behind `tick` (0 when it runs the wall clock's tick):
  // > 0 after the wall clock stepped back, or when the loop woke before the instant.
  uint64_t ahead_of_wall = 0;
  uint64_t skipped() const { return span - 1; }      // tick numbers that never ran
  uint64_t dropped() const { return span - steps; }  // tick periods no dt covers
};

// The tick to run at wall instant `now`, after `last` (0: none has run yet).
TickPlan plan_tick(const TickSchedule& s, uint64_t last, WallClock::time_point now);

// The dt of each tick the loop runs, seconds: a TickClock advanced by each plan's steps, so
// consecutive ticks get exactly TickClock's sequence from the first tick run.
class TickDt {
 public:
  explicit TickDt(double rate) : clock_(rate) {}
  float next(const TickPlan& p) { return clock_.advance(p.steps); }

 private:
  anim::TickClock clock_;
};

// How the loop waits for the tick after `last`.
struct TickWait {
  enum class Kind {
    kOnTime,  // the next tick's instant is within one period: sleep until it
    kLate,    // the instant is past (an overrun, a pause, a forward step): run at once
    kHold,    // the wall clock is behind by more than a period, up to kMaxStepSeconds: sleep
    kSlew,    // behind by more than kMaxStepSeconds: sleep kSlewFactor periods
  };
  Kind kind = Kind::kOnTime;
  std::chrono::nanoseconds sleep{0};  // on the steady clock, >= 0
  // How far the wall clock is behind the next tick's instant (< 0: past it).
  std::chrono::nanoseconds behind{0};
};

// At wall instant `now`, after tick `last` (>= 1) ran.
TickWait wait_before_tick(const TickSchedule& s, uint64_t last, WallClock::time_point now);

}  // namespace animd

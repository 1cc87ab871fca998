#pragma once
// TickClock: the dt of each tick of a loop running at a fixed rate. Each dt is a float, so no
// single one is exactly 1 / rate; the clock picks each tick's float so that the exact sum of
// all dts so far is the one nearest to ticks / rate (within half a float step of a dt). A
// clock advanced by them (Animator::update, whose clip clocks keep their rounding in a carry:
// clip_time.h, advance_clip_time) keeps to the exact time however long the loop runs, where a
// constant float(1 / rate) would drift by its rounding every tick.
//
// The daemon's tick loop uses one from the first tick it runs: its n-th consecutive tick gets
// the n-th next(); when tick numbers were skipped (an overrun, a clock step), advance(n)
// covers the n tick periods at once, with the same exact-sum rule.

#include <cstdint>

namespace anim {

class TickClock {
 public:
  // `rate`: ticks per second, finite and > 0.
  explicit TickClock(double rate) : period_(1.0 / rate) {}

  // The dt of the next tick (the first call gives tick 1's), seconds.
  float next() { return advance(1); }
  // The dt covering the next `ticks` tick periods at once (>= 1), seconds: the float that
  // brings the exact sum of all dts nearest to ticks() / rate. advance(1) is next(); a
  // sequence of advance calls gives the same dts as next() wherever each covers one tick.
  float advance(uint64_t ticks) {
    ticks_ += ticks;
    const float dt = static_cast<float>(static_cast<double>(ticks_) * period_ - elapsed_);
    elapsed_ += dt;
    return dt;
  }
  // Tick periods covered so far, and the exact sum of their dts (seconds).
  uint64_t ticks() const { return ticks_; }
  double elapsed() const { return elapsed_; }

 private:
  double period_;
  double elapsed_ = 0.0;
  uint64_t ticks_ = 0;
};

// The dt a TickClock at `rate` gives tick `tick` (>= 1): the same float as its tick-th next().
inline float dt_of_tick(double rate, uint64_t tick) {
  TickClock clock(rate);
  float dt = 0.0f;
  for (uint64_t k = 0; k < tick; ++k) dt = clock.next();
  return dt;
}

}  // namespace anim

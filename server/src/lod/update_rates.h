#pragma once
// Update-rate allocation: which characters the tick evaluates every tick and which every 2nd,
// 3rd, ... tick, so that the tick's animation work fits a budget (--anim-budget-ms).
//
// The model. A character's update interval (ticks between two evaluations) follows its
// significance s in [0, 1] (significance.h) and one daemon-wide pressure p >= 0:
//     interval(s, p) = clamp(1 + floor(p * (1 - s)), 1, max_interval)
// Pressure 0 evaluates everyone every tick; raising it stretches the least significant
// characters' intervals first, up to the floor max_interval, and never a character of
// significance 1. Each tick the allocator picks the smallest pressure on a grid (steps of
// kPressureStep) whose predicted cost fits the capacity the cost model gives for the budget;
// it lowers the pressure only when the lower one fits with kRelief to spare, so the pressure
// does not flap at the edge of the budget.
//
// Hysteresis per character, on x = p * (1 - s), the interval's unrounded value: interval c
// stands for x in [c - 1, c); a character keeps its interval c while x stays within
// [c - 1 - hysteresis, c + hysteresis) (beyond c at the floor), otherwise it takes
// interval(s, p). A character whose significance rises out of its band gets its shorter
// interval at once (the World evaluates it at the next tick when the interval becomes 1).
//
// Everything here is a pure function of its arguments (deterministic, no clock), except
// TickCostModel, which the World feeds with the time its updates took.

#include <array>
#include <cstddef>
#include <cstdint>

namespace animd {

// The largest floor an operator may set (--max-update-interval).
inline constexpr int kMaxUpdateInterval = 64;

struct RatePolicy {
  int max_interval = 8;      // the floor: every character is evaluated at least every this many
                             // ticks; in [1, kMaxUpdateInterval] (1: allocation off)
  float hysteresis = 0.25f;  // the band's margin above, in intervals; in [0, 0.5)
  // A skipped tick's cost in evaluated-tick units (recording the history, placing the pose):
  // what the cost model and predicted_cost count a skipped character as.
  float skipped_cost = 0.1f;
};

inline constexpr float kPressureStep = 0.25f;
// The pressure's maximum: there every character of significance <= 3/4 is at the largest floor.
inline constexpr float kMaxPressure = 4.0f * kMaxUpdateInterval;
inline constexpr double kRelief = 0.85;

int interval_for(float significance, float pressure, const RatePolicy& policy);
int next_interval(float significance, int current, float pressure, const RatePolicy& policy);

// Characters counted by significance: bucket b holds s in [b, b + 1) / kBuckets, the last one
// s = 1 too.
inline constexpr int kSignificanceBuckets = 64;
using SignificanceHistogram = std::array<uint32_t, kSignificanceBuckets>;
int significance_bucket(float significance);

// A tick's cost in evaluated-character units at `pressure`: each bucket's characters counted
// at the interval of the bucket's highest significance (an upper bound of what they cost).
double predicted_cost(const SignificanceHistogram& histogram, float pressure,
                      const RatePolicy& policy);

// The pressure for the next tick (see above). `capacity`: evaluated-character units the
// budget affords per tick (+infinity: unlimited, pressure 0).
float choose_pressure(const SignificanceHistogram& histogram, double capacity, float current,
                      const RatePolicy& policy);

// The automatic budget (--anim-budget-ms auto) as a share of the tick period, from the share
// of the tick before and whether that tick overran its period: it keeps the whole tick under
// its period when other work (the encode stage, the network, other processes) takes the cores
// at times. After a tick that overran the share is multiplied by kAutoBudgetBackoff, not below
// kMinAutoBudgetShare; after each tick that did not, it climbs back by kAutoBudgetRecovery, up
// to `max_share` (Config::kAutoBudgetShare).
inline constexpr double kAutoBudgetBackoff = 0.8;
inline constexpr double kMinAutoBudgetShare = 0.25;
inline constexpr double kAutoBudgetRecovery = 0.0005;  // per tick
double next_auto_budget_share(double share, bool overran, double max_share);

// What an evaluated character costs, learnt from the ticks: an exponentially weighted mean of
// update time per unit (evaluated + skipped_cost x skipped); or a fixed cost (fix()), which
// makes the allocation a function of the characters' significances alone, with no clock in it.
class TickCostModel {
 public:
  // One tick's update: its wall time in milliseconds and what it did. Ignored once fixed.
  void observe(double update_ms, size_t evaluated, size_t skipped, float skipped_cost);
  // From now on a unit costs `ms_per_unit` whatever the ticks take; a value that is not > 0
  // and finite changes nothing.
  void fix(double ms_per_unit);
  // Units `budget_ms` affords per tick; +infinity until a tick with work was observed or fix()
  // was called.
  double capacity(double budget_ms) const;
  double ms_per_unit() const { return ms_per_unit_; }

 private:
  double ms_per_unit_ = 0.0;
  bool primed_ = false;
  bool fixed_ = false;
};

}  // namespace animd

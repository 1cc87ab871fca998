// The update-rate allocator's rules (lod/update_rates.h, lod/significance.h): hand-computed
// intervals, significance, hysteresis and pressure choices. Pure functions: no World, no
// clock.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "lod/significance.h"
#include "lod/update_rates.h"

namespace animd {
namespace update_rates_test {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

TEST(UpdateRates, IntervalFollowsSignificanceAndPressure) {
  RatePolicy p;
  p.max_interval = 8;
  // Pressure 0: everyone every tick.
  for (float s : {0.0f, 0.3f, 1.0f}) EXPECT_EQ(interval_for(s, 0.0f, p), 1) << s;
  // 1 + floor(p (1 - s)).
  EXPECT_EQ(interval_for(0.0f, 2.5f, p), 3);
  EXPECT_EQ(interval_for(0.5f, 2.5f, p), 2);   // 1 + floor(1.25)
  EXPECT_EQ(interval_for(0.75f, 4.0f, p), 2);  // 1 + floor(1.0)
  EXPECT_EQ(interval_for(0.8f, 4.0f, p), 1);   // 1 + floor(0.8)
  // Never a character of significance 1; never past the floor.
  EXPECT_EQ(interval_for(1.0f, kMaxPressure, p), 1);
  EXPECT_EQ(interval_for(0.0f, kMaxPressure, p), 8);
  p.max_interval = 1;
  EXPECT_EQ(interval_for(0.0f, kMaxPressure, p), 1);
}

TEST(UpdateRates, HysteresisKeepsAnIntervalNearItsThreshold) {
  RatePolicy p;
  p.max_interval = 8;
  p.hysteresis = 0.25f;
  const float pressure = 4.0f;
  // The threshold between intervals 2 and 1 is s = 0.75 (1 + floor(4 (1 - s)) = 2 below).
  ASSERT_EQ(interval_for(0.74f, pressure, p), 2);
  ASSERT_EQ(interval_for(0.76f, pressure, p), 1);
  // Oscillating within the band changes nothing, from either side.
  int at = 2;
  for (float s : {0.76f, 0.74f, 0.77f, 0.73f, 0.76f}) {
    at = next_interval(s, at, pressure, p);
    EXPECT_EQ(at, 2) << s;
  }
  at = 1;
  for (float s : {0.74f, 0.76f, 0.73f, 0.77f}) {
    at = next_interval(s, at, pressure, p);
    EXPECT_EQ(at, 1) << s;
  }
  // The band: interval 2 stays down to x = 4 (1 - s) = 0.75 (s = 0.8125), interval 1 up to
  // x = 1.25 (s = 0.6875). Leaving it changes the interval, at once.
  EXPECT_EQ(next_interval(0.81f, 2, pressure, p), 2);
  EXPECT_EQ(next_interval(0.82f, 2, pressure, p), 1);
  EXPECT_EQ(next_interval(0.69f, 1, pressure, p), 1);
  EXPECT_EQ(next_interval(0.68f, 1, pressure, p), 2);
  // At the floor it stays however low the significance.
  EXPECT_EQ(next_interval(0.0f, 8, kMaxPressure, p), 8);
  // A rise to significance 1 is every tick whatever the interval was.
  EXPECT_EQ(next_interval(1.0f, 8, kMaxPressure, p), 1);
}

TEST(UpdateRates, PredictedCostCountsEachBucketAtItsHighestSignificance) {
  RatePolicy p;
  p.max_interval = 4;
  p.skipped_cost = 0.1f;
  SignificanceHistogram h{};
  h[0] = 100;  // s in [0, 1/64): interval at s = 1/64
  h[63] = 10;  // s = 1: every tick
  EXPECT_DOUBLE_EQ(predicted_cost(h, 0.0f, p), 110.0);
  // Pressure 8: 1 + floor(8 * 63/64) = 8, clamped to 4: 100 * (1/4 + 0.1 * 3/4) + 10.
  EXPECT_NEAR(predicted_cost(h, 8.0f, p), 100 * (0.25 + 0.075) + 10, 1e-5);
}

TEST(UpdateRates, PressureIsTheSmallestThatFits) {
  RatePolicy p;
  p.max_interval = 4;
  p.skipped_cost = 0.0f;
  SignificanceHistogram h{};
  h[0] = 1000;
  EXPECT_EQ(choose_pressure(h, kUnlimited, 0.0f, p), 0.0f);
  EXPECT_EQ(choose_pressure(h, 1000.0, 0.0f, p), 0.0f);
  // 500 units: every character at interval 2 at least: 1 + floor(p * 63/64) >= 2 from p = 64/63
  // on, the grid's first such point is 1.25.
  EXPECT_EQ(choose_pressure(h, 500.0, 0.0f, p), 1.25f);
  // Nothing fits: the most the grid has.
  EXPECT_EQ(choose_pressure(h, 1.0, 0.0f, p), kMaxPressure);
  // Deterministic: the same inputs, the same answer.
  for (int k = 0; k < 3; ++k) EXPECT_EQ(choose_pressure(h, 500.0, 0.0f, p), 1.25f);
}

TEST(UpdateRates, PressureFallsOnlyWithRoomToSpare) {
  RatePolicy p;
  p.max_interval = 4;
  p.skipped_cost = 0.0f;
  SignificanceHistogram h{};
  h[0] = 1000;
  // At 1.25 (every 2nd tick: 500 units). With a capacity of 520 pressure 1.25 still fits and
  // 1.0 would not; with 1000 units pressure 0 fits, but only 850 (kRelief) count when lowering:
  // 0 does not fit 850 and 1.25 does.
  EXPECT_EQ(choose_pressure(h, 520.0, 1.25f, p), 1.25f);
  EXPECT_EQ(choose_pressure(h, 1000.0, 1.25f, p), 1.25f);
  EXPECT_EQ(choose_pressure(h, 1000.0 / kRelief + 1.0, 1.25f, p), 0.0f);
  // Rising is at once.
  EXPECT_EQ(choose_pressure(h, 300.0, 1.25f, p), choose_pressure(h, 300.0, 0.0f, p));
}

TEST(UpdateRates, CostModelTurnsTheBudgetIntoCharacters) {
  TickCostModel m;
  EXPECT_EQ(m.capacity(10.0), kUnlimited);
  // Capacity is proportional: twice the time holds twice the units.
  m.observe(5.0, 1000, 0, 0.1f);
  EXPECT_NEAR(m.capacity(10.0), 2000.0, 1e-3);
  m.observe(5.0, 0, 10000, 0.1f);  // 10,000 skipped at a tenth: the same 1,000 units
  EXPECT_NEAR(m.capacity(10.0), 2000.0, 1e-3);
  m.observe(0.0, 0, 0, 0.1f);  // no work: nothing learnt
  EXPECT_NEAR(m.capacity(10.0), 2000.0, 1e-3);
  EXPECT_EQ(m.capacity(kUnlimited), kUnlimited);
}

TEST(UpdateRates, AFixedCostIgnoresWhatTheTicksTook) {
  TickCostModel fresh;  // fixed before any tick, as the World does
  fresh.fix(0.02);
  EXPECT_NEAR(fresh.capacity(10.0), 500.0, 1e-9);
  TickCostModel m;
  m.fix(0.0);  // not a cost: nothing changes
  m.fix(-1.0);
  m.fix(std::numeric_limits<double>::infinity());
  EXPECT_EQ(m.capacity(10.0), kUnlimited);
  m.observe(5.0, 1000, 0, 0.1f);
  m.fix(0.02);
  EXPECT_NEAR(m.capacity(10.0), 500.0, 1e-9);
  m.observe(1.0, 1000, 0, 0.1f);  // far cheaper than the fixed cost
  m.observe(50.0, 10, 0, 0.1f);
  EXPECT_NEAR(m.capacity(10.0), 500.0, 1e-9);
  EXPECT_EQ(m.ms_per_unit(), 0.02);
}

TEST(UpdateRates, TheAutomaticBudgetBacksOffAfterAnOverrunAndClimbsBack) {
  constexpr double kMax = 0.75;
  // An overrun takes a fifth off, down to the floor.
  EXPECT_DOUBLE_EQ(next_auto_budget_share(kMax, true, kMax), 0.6);
  EXPECT_DOUBLE_EQ(next_auto_budget_share(0.3, true, kMax), 0.25);
  EXPECT_DOUBLE_EQ(next_auto_budget_share(0.25, true, kMax), 0.25);
  // A tick that kept its period gives back 0.0005, never beyond the most.
  EXPECT_DOUBLE_EQ(next_auto_budget_share(0.6, false, kMax), 0.6005);
  EXPECT_DOUBLE_EQ(next_auto_budget_share(0.7498, false, kMax), kMax);
  EXPECT_DOUBLE_EQ(next_auto_budget_share(kMax, false, kMax), kMax);
  // From the floor back to the most in 1,000 clean ticks (about 17 s at 60 Hz).
  double share = 0.25;
  int ticks = 0;
  while (share < kMax && ticks < 5000) share = next_auto_budget_share(share, false, kMax), ++ticks;
  EXPECT_NEAR(ticks, 1000, 1);
}

TEST(Significance, RulesInOrder) {
  StreamRegion sphere;
  sphere.center = {0, 0, 0};
  sphere.radius = 10.0f;
  sphere.outer_margin = 5.0f;
  sphere.outer_divisor = 2;
  StreamRegion box;
  box.shape = StreamRegion::Shape::kBox;
  box.min = {100, 0, 0};
  box.max = {110, 10, 10};
  const std::vector<StreamRegion> regions{sphere, box};
  EXPECT_EQ(watched_significance(true, {500, 0, 0}, regions), 1.0f);
  EXPECT_EQ(watched_significance(false, {3, 0, 0}, regions), 1.0f);         // inside the sphere
  EXPECT_EQ(watched_significance(false, {105, 5, 5}, regions), 1.0f);       // inside the box
  EXPECT_EQ(watched_significance(false, {12, 0, 0}, regions), kOuterZone);  // outer zone
  // 30 m from the sphere's shape (40 from its centre), 60 from the box: the nearer counts.
  EXPECT_FLOAT_EQ(watched_significance(false, {-40, 0, 0}, regions),
                  kNearRegion / (1.0f + 30.0f / kFalloffMetres));
  // Beyond the box's corner: the distance to its nearest point.
  EXPECT_FLOAT_EQ(distance_to_region(box, {113, 14, 5}), 5.0f);
  EXPECT_EQ(watched_significance(false, {1, 2, 3}, {}), 0.0f);
}

}  // namespace update_rates_test
}  // namespace animd

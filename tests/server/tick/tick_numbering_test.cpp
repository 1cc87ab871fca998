// Tick numbering from an epoch (tick/tick_numbering.h): which tick runs at an instant, the dt
// it gets, and how the loop waits after a tick, clock steps included.
#include "tick/tick_numbering.h"

#include <chrono>

#include <gtest/gtest.h>

#include "anim/tick_clock.h"

namespace animd {
namespace tick_numbering_test {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

constexpr int64_t kEpoch = 1'700'000'000;  // a recent epoch, seconds since the Unix epoch

WallClock::time_point unix_ns(int64_t ns) {
  return WallClock::time_point(std::chrono::duration_cast<WallClock::duration>(nanoseconds(ns)));
}

TEST(TickSchedule, TickTIsTheInstantEpochPlusTOverRate) {
  const TickSchedule s(kEpoch, 60.0);
  EXPECT_EQ(s.tick_at(unix_ns(kEpoch * 1'000'000'000)), 0u);
  EXPECT_EQ(s.tick_at(unix_ns((kEpoch + 1) * 1'000'000'000)), 60u);
  EXPECT_EQ(s.tick_at(unix_ns((kEpoch + 1) * 1'000'000'000 - 1)), 59u);
  EXPECT_EQ(s.tick_at(unix_ns(kEpoch * 1'000'000'000 - 1)), 0u) << "before the epoch: 0";
  // Tick 1 begins at 1/60 s, rounded up to the nanosecond.
  EXPECT_EQ(s.instant_of(1), unix_ns(kEpoch * 1'000'000'000 + 16'666'667));
  EXPECT_EQ(s.tick_at(s.instant_of(1)), 1u);
  EXPECT_EQ(s.tick_at(s.instant_of(1) - nanoseconds(1)), 0u);
  EXPECT_DOUBLE_EQ(s.unix_seconds_of(120), static_cast<double>(kEpoch) + 2.0);
}

TEST(TickSchedule, TheUnixEpochGivesTicksBeyond32Bits) {
  const TickSchedule s(0, 60.0);
  const auto now = unix_ns(1'750'000'000LL * 1'000'000'000);
  EXPECT_EQ(s.tick_at(now), 1'750'000'000ULL * 60);
  EXPECT_GT(s.tick_at(now), uint64_t{1} << 32);
  for (uint64_t t : {uint64_t{105'000'000'000}, uint64_t{105'000'000'001}}) {
    EXPECT_EQ(s.tick_at(s.instant_of(t)), t);
    EXPECT_EQ(s.tick_at(s.instant_of(t) - nanoseconds(1)), t - 1);
  }
}

TEST(TickSchedule, AFractionalRateKeepsTheFirstNanosecondRule) {
  const TickSchedule s(kEpoch, 29.97);
  for (uint64_t t : {uint64_t{1}, uint64_t{1000}, uint64_t{123'456'789}}) {
    EXPECT_EQ(s.tick_at(s.instant_of(t)), t);
    EXPECT_EQ(s.tick_at(s.instant_of(t) - nanoseconds(1)), t - 1);
  }
}

TEST(TickSchedule, TheMaxStepIsAQuarterSecondOrOnePeriod) {
  EXPECT_EQ(TickSchedule(0, 60.0).max_step_ticks(), 15u);
  EXPECT_EQ(TickSchedule(0, 1.0).max_step_ticks(), 1u);
  EXPECT_EQ(TickSchedule(0, 1000.0).max_step_ticks(), 250u);
}

TEST(PlanTick, TheFirstTickIsTheWallClocksTick) {
  const TickSchedule s(kEpoch, 60.0);
  const auto now = s.instant_of(5000) + milliseconds(3);
  const TickPlan p = plan_tick(s, 0, now);
  EXPECT_EQ(p.tick, 5000u);
  EXPECT_EQ(p.span, 1u);
  EXPECT_EQ(p.steps, 1u);
  EXPECT_EQ(p.ahead_of_wall, 0u);
}

TEST(PlanTick, TheFirstTickAtTheEpochIsTickOneNeverZero) {
  const TickSchedule s(kEpoch, 60.0);
  const TickPlan p = plan_tick(s, 0, unix_ns(kEpoch * 1'000'000'000));
  EXPECT_EQ(p.tick, 1u);
  EXPECT_EQ(p.ahead_of_wall, 1u);
}

TEST(PlanTick, ConsecutiveTicksGetTickClocksDtsBitForBit) {
  const TickSchedule s(kEpoch, 60.0);
  TickDt dts(60.0);
  anim::TickClock reference(60.0);
  uint64_t last = 0;
  for (uint64_t t = 777; t < 777 + 1000; ++t) {
    const TickPlan p = plan_tick(s, last, s.instant_of(t) + std::chrono::microseconds(40));
    ASSERT_EQ(p.tick, t);
    ASSERT_EQ(p.span, 1u);
    const float dt = dts.next(p);
    const float want = reference.next();
    ASSERT_EQ(dt, want) << "tick " << t;  // bit-identical, not near
    last = p.tick;
  }
}

TEST(PlanTick, AnOverrunSkipsTheMissedNumbersAndTheDtCoversTheSpan) {
  const TickSchedule s(kEpoch, 60.0);
  TickDt dts(60.0);
  const TickPlan first = plan_tick(s, 0, s.instant_of(100));
  EXPECT_EQ(dts.next(first), anim::TickClock(60.0).next());
  // Tick 100 overran past the instant of tick 101: the next plan is the wall clock's tick, 102.
  const TickPlan p = plan_tick(s, 100, s.instant_of(100) + milliseconds(40));
  EXPECT_EQ(p.tick, 102u);
  EXPECT_EQ(p.span, 2u);
  EXPECT_EQ(p.skipped(), 1u);
  EXPECT_EQ(p.steps, 2u);
  EXPECT_EQ(p.dropped(), 0u);
  EXPECT_NEAR(dts.next(p), 2.0 / 60.0, 1e-7);
  // Back to one tick at a time: the dts keep TickClock's exact sum (3 periods so far).
  const TickPlan q = plan_tick(s, 102, s.instant_of(103));
  EXPECT_EQ(q.span, 1u);
  const float dt = dts.next(q);
  anim::TickClock ref(60.0);
  ref.advance(3);
  EXPECT_NEAR(dt, 1.0 / 60.0, 1e-8);
  EXPECT_NEAR(ref.elapsed(), 3.0 / 60.0, 1e-9);
}

TEST(PlanTick, AForwardStepSkipsTicksAndBoundsTheDt) {
  const TickSchedule s(kEpoch, 60.0);
  TickDt dts(60.0);
  dts.next(plan_tick(s, 0, s.instant_of(1000)));
  // The wall clock jumped 10 s ahead: 600 numbers skipped, the dt is 0.25 s at most.
  const TickPlan p = plan_tick(s, 1000, s.instant_of(1601) + std::chrono::microseconds(5));
  EXPECT_EQ(p.tick, 1601u);
  EXPECT_EQ(p.skipped(), 600u);
  EXPECT_EQ(p.steps, 15u);
  EXPECT_EQ(p.dropped(), 586u);
  EXPECT_NEAR(dts.next(p), kMaxStepSeconds, 1e-7);
  EXPECT_EQ(wait_before_tick(s, 1601, s.instant_of(1601) + milliseconds(1)).kind,
            TickWait::Kind::kOnTime);
}

TEST(PlanTick, ABackwardStepNeverRepeatsOrLowersANumber) {
  const TickSchedule s(kEpoch, 60.0);
  // Tick 1000 ran, then the wall clock went 2 s back: the next number is still 1001, then
  // 1002, ... while the wall clock's own tick is behind.
  const auto stepped = s.instant_of(1000) - seconds(2);
  TickDt dts(60.0);
  dts.next(plan_tick(s, 0, s.instant_of(1000)));
  uint64_t last = 1000;
  for (int i = 0; i < 5; ++i) {
    const TickPlan p = plan_tick(s, last, stepped + milliseconds(17 * i));
    EXPECT_EQ(p.tick, last + 1);
    EXPECT_EQ(p.span, 1u);
    EXPECT_GT(p.ahead_of_wall, 100u);
    EXPECT_NEAR(dts.next(p), 1.0 / 60.0, 1e-8);
    last = p.tick;
  }
}

TEST(WaitBeforeTick, OnTimeSleepsToTheNextInstant) {
  const TickSchedule s(kEpoch, 60.0);
  const auto ran_at = s.instant_of(500) + milliseconds(2);
  const TickWait w = wait_before_tick(s, 500, ran_at);
  EXPECT_EQ(w.kind, TickWait::Kind::kOnTime);
  EXPECT_EQ(w.sleep, s.instant_of(501) - ran_at);
}

TEST(WaitBeforeTick, LateRunsAtOnce) {
  const TickSchedule s(kEpoch, 60.0);
  const TickWait w = wait_before_tick(s, 500, s.instant_of(501) + milliseconds(5));
  EXPECT_EQ(w.kind, TickWait::Kind::kLate);
  EXPECT_EQ(w.sleep, nanoseconds(0));
  EXPECT_LT(w.behind, nanoseconds(0));
}

TEST(WaitBeforeTick, ASmallBackwardStepHoldsUntilTheWallClockCatchesUp) {
  const TickSchedule s(kEpoch, 60.0);
  const auto now = s.instant_of(500) - milliseconds(100);
  const TickWait w = wait_before_tick(s, 500, now);
  EXPECT_EQ(w.kind, TickWait::Kind::kHold);
  EXPECT_EQ(w.sleep, s.instant_of(501) - now);
}

TEST(WaitBeforeTick, ALargeBackwardStepSlewsAtThePeriodTimesTheSlewFactor) {
  const TickSchedule s(kEpoch, 60.0);
  const TickWait w = wait_before_tick(s, 500, s.instant_of(500) - seconds(3));
  EXPECT_EQ(w.kind, TickWait::Kind::kSlew);
  EXPECT_EQ(w.sleep, std::chrono::duration_cast<nanoseconds>(s.period() * kSlewFactor));
  // Slewing, the wall clock gains on the numbering each tick until it holds, then rejoins.
  auto wall = s.instant_of(500) - seconds(3);
  uint64_t last = 500;
  int ticks = 0;
  for (; ticks < 100000; ++ticks) {
    const TickWait x = wait_before_tick(s, last, wall);
    if (x.kind != TickWait::Kind::kSlew) break;
    wall += x.sleep;
    const TickPlan p = plan_tick(s, last, wall);
    ASSERT_EQ(p.tick, last + 1);
    last = p.tick;
  }
  EXPECT_LT(ticks, 100000);
  EXPECT_EQ(wait_before_tick(s, last, wall).kind, TickWait::Kind::kHold);
}

}  // namespace tick_numbering_test
}  // namespace animd

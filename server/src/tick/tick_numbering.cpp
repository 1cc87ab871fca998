#include "tick/tick_numbering.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace animd {

namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

int64_t clamp_to_int64(__int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace

TickSchedule::TickSchedule(int64_t epoch_unix_seconds, double rate)
    : epoch_s_(epoch_unix_seconds),
      rate_(rate),
      rate_int_(rate == std::floor(rate) && rate <= 1e9 ? static_cast<int64_t>(rate) : 0),
      period_(std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(1.0 / rate))),
      max_step_ticks_(std::max<uint64_t>(1, static_cast<uint64_t>(kMaxStepSeconds * rate))) {}

uint64_t TickSchedule::tick_at(WallClock::time_point now) const {
  const __int128 ns =
      static_cast<__int128>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count()) -
      static_cast<__int128>(epoch_s_) * kNsPerSecond;
  if (ns <= 0) return 0;
  if (rate_int_ > 0) return static_cast<uint64_t>(ns * rate_int_ / kNsPerSecond);
  const long double t = std::floor(static_cast<long double>(ns) * static_cast<long double>(rate_) /
                                   static_cast<long double>(kNsPerSecond));
  return static_cast<uint64_t>(t);
}

WallClock::time_point TickSchedule::instant_of(uint64_t tick) const {
  const __int128 epoch_ns = static_cast<__int128>(epoch_s_) * kNsPerSecond;
  __int128 ns;
  if (rate_int_ > 0) {
    // ceil(tick * 1e9 / rate): the first nanosecond of the tick.
    ns = (static_cast<__int128>(tick) * kNsPerSecond + rate_int_ - 1) / rate_int_;
  } else {
    ns = static_cast<__int128>(
        std::ceil(static_cast<long double>(tick) * static_cast<long double>(kNsPerSecond) /
                  static_cast<long double>(rate_)));
  }
  auto at = [&](__int128 v) {
    return WallClock::time_point(std::chrono::duration_cast<WallClock::duration>(
        std::chrono::nanoseconds(clamp_to_int64(epoch_ns + v))));
  };
  // A fractional rate's rounding is corrected to the rule: the first nanosecond of the tick.
  if (rate_int_ == 0) {
    while (tick_at(at(ns)) < tick) ++ns;
    while (ns > 0 && tick_at(at(ns - 1)) >= tick) --ns;
  }
  return at(ns);
}

double TickSchedule::unix_seconds_of(uint64_t tick) const {
  return static_cast<double>(epoch_s_) + static_cast<double>(tick) / rate_;
}

TickPlan plan_tick(const TickSchedule& s, uint64_t last, WallClock::time_point now) {
  const uint64_t wall = s.tick_at(now);
  TickPlan p;
  if (last == 0) {
    p.tick = std::max<uint64_t>(wall, 1);
  } else if (wall > last) {
    p.tick = wall;
    p.span = wall - last;
    p.steps = std::min(p.span, s.max_step_ticks());
  } else {
    p.tick = last + 1;
  }
  p.ahead_of_wall = p.tick > wall ? p.tick - wall : 0;
  return p;
}

TickWait wait_before_tick(const TickSchedule& s, uint64_t last, WallClock::time_point now) {
  using std::chrono::nanoseconds;
  TickWait w;
  w.behind = std::chrono::duration_cast<nanoseconds>(s.instant_of(last + 1) - now);
  const nanoseconds hold_limit = s.period() + std::chrono::duration_cast<nanoseconds>(
                                                  std::chrono::duration<double>(kMaxStepSeconds));
  if (w.behind <= nanoseconds(0)) {
    w.kind = TickWait::Kind::kLate;
  } else if (w.behind <= s.period()) {
    w.kind = TickWait::Kind::kOnTime;
    w.sleep = w.behind;
  } else if (w.behind <= hold_limit) {
    w.kind = TickWait::Kind::kHold;
    w.sleep = w.behind;
  } else {
    w.kind = TickWait::Kind::kSlew;
    w.sleep = std::chrono::duration_cast<nanoseconds>(s.period() * kSlewFactor);
  }
  return w;
}

}  // namespace animd

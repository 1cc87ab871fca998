#include "animops/health.h"

namespace animops {

void Health::note_tick(Clock::time_point at) {
  last_tick_.store(at.time_since_epoch().count(), std::memory_order_release);
}

bool Health::ticking(Clock::time_point now) const {
  const int64_t last = last_tick_.load(std::memory_order_acquire);
  if (last == INT64_MIN) return false;
  const Clock::time_point at{Clock::duration{last}};
  return now - at <= max_tick_age_;
}

Health::Verdict Health::ready(Clock::time_point now) const {
  if (draining()) return {false, "draining: shutting down"};
  if (!assets_loaded_.load(std::memory_order_acquire)) return {false, "assets not loaded"};
  const int64_t last = last_tick_.load(std::memory_order_acquire);
  if (last == INT64_MIN) return {false, "tick loop has not run yet"};
  const Clock::time_point at{Clock::duration{last}};
  if (now - at > max_tick_age_) {
    const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(now - at).count();
    return {false, "tick stalled: last tick " + std::to_string(age) + " ms ago (limit " +
                       std::to_string(max_tick_age_.count()) + " ms)"};
  }
  return {true, "ready"};
}

}  // namespace animops

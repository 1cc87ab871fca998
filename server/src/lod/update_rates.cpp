#include "lod/update_rates.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace animd {

int interval_for(float s, float pressure, const RatePolicy& policy) {
  const float stretch = pressure * (1.0f - std::clamp(s, 0.0f, 1.0f));
  const int interval = 1 + static_cast<int>(std::floor(std::min(stretch, 1e6f)));
  return std::clamp(interval, 1, std::max(1, policy.max_interval));
}

int next_interval(float s, int current, float pressure, const RatePolicy& policy) {
  const int floor_interval = std::max(1, policy.max_interval);
  if (current < 1 || current > floor_interval) return interval_for(s, pressure, policy);
  const float x = pressure * (1.0f - std::clamp(s, 0.0f, 1.0f));
  const float low = static_cast<float>(current - 1) - policy.hysteresis;
  const float high = static_cast<float>(current) + policy.hysteresis;
  if (x >= low && (x < high || current == floor_interval)) return current;
  return interval_for(s, pressure, policy);
}

int significance_bucket(float s) {
  const int b = static_cast<int>(std::clamp(s, 0.0f, 1.0f) * kSignificanceBuckets);
  return std::min(b, kSignificanceBuckets - 1);
}

double predicted_cost(const SignificanceHistogram& h, float pressure, const RatePolicy& policy) {
  double cost = 0.0;
  for (int b = 0; b < kSignificanceBuckets; ++b) {
    if (h[static_cast<size_t>(b)] == 0) continue;
    const float highest = static_cast<float>(b + 1) / kSignificanceBuckets;
    const double share = 1.0 / interval_for(highest, pressure, policy);
    cost += h[static_cast<size_t>(b)] * (share + policy.skipped_cost * (1.0 - share));
  }
  return cost;
}

namespace {
constexpr int kGridPoints = static_cast<int>(kMaxPressure / kPressureStep);
float grid(int k) {
  return static_cast<float>(k) * kPressureStep;
}

// The smallest grid point whose cost fits `capacity` (the last one when none does).
int smallest_fitting(const SignificanceHistogram& h, double capacity, const RatePolicy& policy) {
  int lo = 0, hi = kGridPoints;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (predicted_cost(h, grid(mid), policy) <= capacity)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}
}  // namespace

float choose_pressure(const SignificanceHistogram& h, double capacity, float current,
                      const RatePolicy& policy) {
  if (policy.max_interval <= 1 || !(capacity < std::numeric_limits<double>::infinity()))
    return 0.0f;
  const int fits = smallest_fitting(h, capacity, policy);
  if (grid(fits) >= current) return grid(fits);
  // Lower: only as far as fits with room to spare.
  const int relieved = smallest_fitting(h, capacity * kRelief, policy);
  return std::min(current, grid(relieved));
}

double next_auto_budget_share(double share, bool overran, double max_share) {
  if (overran) return std::max(kMinAutoBudgetShare, share * kAutoBudgetBackoff);
  return std::min(max_share, share + kAutoBudgetRecovery);
}

void TickCostModel::observe(double update_ms, size_t evaluated, size_t skipped,
                            float skipped_cost) {
  if (fixed_) return;
  const double units = static_cast<double>(evaluated) + skipped_cost * static_cast<double>(skipped);
  if (units < 1.0 || !std::isfinite(update_ms) || update_ms < 0.0) return;
  const double sample = update_ms / units;
  constexpr double kWeight = 0.2;
  ms_per_unit_ = primed_ ? ms_per_unit_ + kWeight * (sample - ms_per_unit_) : sample;
  primed_ = true;
}

void TickCostModel::fix(double ms_per_unit) {
  if (!(ms_per_unit > 0.0) || !std::isfinite(ms_per_unit)) return;
  ms_per_unit_ = ms_per_unit;
  primed_ = true;
  fixed_ = true;
}

double TickCostModel::capacity(double budget_ms) const {
  if (!primed_ || ms_per_unit_ <= 0.0 || !std::isfinite(budget_ms))
    return std::numeric_limits<double>::infinity();
  return budget_ms / ms_per_unit_;
}

}  // namespace animd

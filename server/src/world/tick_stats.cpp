#include "world/tick_stats.h"

#include <algorithm>
#include <cmath>

namespace animd {

TickStats::TickStats(size_t window) : ring_(std::max<size_t>(window, 1)) {
  scratch_.reserve(ring_.size());
}

void TickStats::record(double us) {
  ring_[next_] = us;
  next_ = (next_ + 1) % ring_.size();
  count_ = std::min(count_ + 1, ring_.size());
}

TickTimes TickStats::compute() {
  TickTimes t;
  if (count_ == 0) return t;
  scratch_.assign(ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(count_));
  auto rank = [&](double q) {
    // Nearest-rank percentile: the smallest sample with at least q of the samples <= it.
    size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(count_)));
    k = std::clamp<size_t>(k, 1, count_) - 1;
    std::nth_element(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(k),
                     scratch_.end());
    return scratch_[k];
  };
  t.p50_us = rank(0.50);
  t.p99_us = rank(0.99);
  t.max_us = *std::max_element(scratch_.begin(), scratch_.end());
  return t;
}

}  // namespace animd

#pragma once
// Tick-time statistics over a window of recent ticks (default 1,000): p50, p99, max.
// Used by the tick thread only; record() never allocates.

#include <cstddef>
#include <vector>

namespace animd {

struct TickTimes {
  double p50_us = 0.0;
  double p99_us = 0.0;
  double max_us = 0.0;
};

class TickStats {
 public:
  explicit TickStats(size_t window = 1000);
  void record(double microseconds);
  // Percentiles over the samples in the window (nearest-rank). Allocates into a scratch
  // buffer kept between calls.
  TickTimes compute();
  size_t count() const { return count_; }

 private:
  std::vector<double> ring_;
  std::vector<double> scratch_;
  size_t next_ = 0;
  size_t count_ = 0;
};

}  // namespace animd

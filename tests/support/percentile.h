#pragma once
// The nearest-rank percentile of samples, for the benchmark programs' reports.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace animtest {

// The sample at rank floor(p x n) of the sorted samples (the largest for p = 1); 0 for none.
// `p` in [0, 1].
inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

}  // namespace animtest

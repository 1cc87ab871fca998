#pragma once
// The weights the compact_morphs fuzz target decodes deltas against (and its seed writer
// encodes with): byte 0 of an input picks none, 3 targets or 64.

#include <cstdint>
#include <vector>

namespace morphfuzz {

// held 0: none (a key frame); 1: 3 targets; 2: 64 targets.
inline std::vector<uint16_t> baseline(int held) {
  if (held == 1) return {0x123, 0xABC, 0x7FF};
  std::vector<uint16_t> q;
  if (held == 2)
    for (uint16_t i = 0; i < 64; ++i) q.push_back(static_cast<uint16_t>(1024 + 37 * i));
  return q;
}

// The weights the seeds encode: the baseline with a few targets moved (a key of them when
// nothing is held).
inline std::vector<uint16_t> next(int held) {
  std::vector<uint16_t> q = baseline(held);
  if (held == 0) return {0, 1024, 2048, 4095, 77};
  q[0] = 0;
  q[q.size() - 1] = static_cast<uint16_t>(q.back() + 300);
  if (q.size() > 8) q[8] -= 1;
  return q;
}

}  // namespace morphfuzz

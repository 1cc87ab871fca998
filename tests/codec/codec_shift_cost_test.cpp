// The delta encoder's shift pricing (shift_cost.h) against the cost model written out: for
// each shift, every code's a + |a - 1 - k| summed, the cheapest shift the smallest of equals.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "shift_cost.h"

namespace codec_shift_cost_test {

using namespace animcodec::frame_format;

struct Code {
  uint64_t u;
  int ctx;
  bool second_part;  // priced in the second ShiftCost, merged into the first
};

int64_t model_bits(const std::vector<Code>& codes, int shift) {
  int64_t sum = 0;
  for (const Code& c : codes) {
    const int a = static_cast<int>(std::bit_width(c.u));
    const int k = std::clamp(c.ctx + shift - kShiftBias, 0, kMaxK);
    sum += a + std::abs(a - 1 - k);
  }
  return sum;
}

TEST(CodecShiftCost, MatchesTheCostModelAtEveryShift) {
  std::mt19937_64 rng(7);
  // Sizes across the 16-bit lanes' moves into the totals (every 256 codes, in either part),
  // contexts past the clamp, values of every bit length, and sections priced in two parts.
  for (size_t n : {size_t{1}, size_t{3}, size_t{255}, size_t{256}, size_t{700}, size_t{3072}}) {
    for (int round = 0; round < 4; ++round) {
      std::vector<Code> codes(n);
      ShiftCost cost, part;
      for (Code& c : codes) {
        const int width = static_cast<int>(rng() % 64);
        c.u = width == 0 ? 0 : (rng() >> (64 - width)) | (uint64_t{1} << (width - 1));
        c.ctx = static_cast<int>(rng() % 50);
        c.second_part = round % 2 == 1 && rng() % 3 == 0;
        (c.second_part ? part : cost).add(c.u, c.ctx);
      }
      cost.merge(part);
      int best_shift = -1;
      int64_t best = INT64_MAX;
      for (int s = 0; s < kShifts; ++s) {
        const int64_t bits = model_bits(codes, s);
        if (bits < best) best = bits, best_shift = s;
      }
      int shift = -1;
      EXPECT_EQ(cost.best(shift), best) << n;
      EXPECT_EQ(shift, best_shift) << n;
    }
  }
}

TEST(CodecShiftCost, NoCodesCostNothingAtTheNeutralShift) {
  ShiftCost cost, empty;
  cost.merge(empty);
  int shift = -1;
  EXPECT_EQ(cost.best(shift), 0);
  EXPECT_EQ(shift, kShiftBias);
  cost.add(5, 3);
  EXPECT_GT(cost.best(shift), 0);
}

}  // namespace codec_shift_cost_test

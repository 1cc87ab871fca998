// The key frame's list order (key_order.h) against its definition written out: every k from 0
// to 31 tried on every value, the fewest bits, the smallest of equals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "animcodec/bit_stream.h"
#include "key_order.h"

namespace codec_key_order_test {

using animcodec::BitWriter;
using animcodec::frame_format::best_key_order;

int best_by_trying_every_order(const std::vector<uint64_t>& values) {
  int best = 0;
  int64_t best_cost = std::numeric_limits<int64_t>::max();
  for (int k = 0; k < 32; ++k) {
    int64_t cost = 0;
    for (uint64_t u : values) cost += BitWriter::ueg_bits(u, k);
    if (cost < best_cost) best_cost = cost, best = k;
  }
  return best;
}

TEST(CodecKeyOrder, EmptyAndZeroListsTakeOrderZero) {
  EXPECT_EQ(best_key_order(nullptr, 0), 0);
  const std::vector<uint64_t> zeros(5, 0);
  EXPECT_EQ(best_key_order(zeros.data(), zeros.size()), 0);
}

TEST(CodecKeyOrder, HandComputedLists) {
  // {7}: k = 0 costs 2 * 4 - 1 = 7 bits (8 carries into bit 3), k = 1: 2 * 4 - 2 = 6 (7 + 2 =
  // 9 carries too), k = 2: 2 * 4 - 3 = 5 (7 + 4 = 11), k = 3: 4 bits (k + 1): k = 3.
  const std::vector<uint64_t> seven{7};
  EXPECT_EQ(best_key_order(seven.data(), 1), 3);
  // {4}: k = 0: 2 * 3 - 1 = 5 bits, k = 1: 2 * 3 - 2 = 4, k = 2: 2 * 4 - 3 = 5 (4 + 4 = 8
  // carries), k = 3: 4 again: the smaller of the two, k = 1.
  const std::vector<uint64_t> four{4};
  EXPECT_EQ(best_key_order(four.data(), 1), 1);
  // Many zeros and one large value: k = 0 (1 bit per zero) wins over long codes for all.
  std::vector<uint64_t> mostly_zero(100, 0);
  mostly_zero.push_back(1000);
  EXPECT_EQ(best_key_order(mostly_zero.data(), mostly_zero.size()), 0);
}

TEST(CodecKeyOrder, MatchesTryingEveryOrder) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3000; ++round) {
    const size_t n = 1 + rng() % 200;
    // Values of a few bit lengths around a centre, with runs of ones at the top (the carries)
    // and now and then the extremes, below 2^62 (ueg_bits itself wraps within 2^k of 2^64;
    // the lists hold zigzagged 32-bit steps, below 2^33).
    const int centre = static_cast<int>(rng() % 64);
    std::vector<uint64_t> values(n);
    for (uint64_t& v : values) {
      const int width = std::max(0, std::min(62, centre + static_cast<int>(rng() % 9) - 4));
      v = width == 0 ? 0 : (rng() >> (64 - width)) | (uint64_t{1} << (width - 1));
      switch (rng() % 8) {
        case 0:
          v = width == 0 ? 0 : (uint64_t{1} << width) - 1;
          break;
        case 1:
          v = 0;
          break;
        case 2:
          v = ~uint64_t{0} >> (2 + rng() % 62);
          break;
        default:
          break;
      }
    }
    ASSERT_EQ(best_key_order(values.data(), n), best_by_trying_every_order(values))
        << "round " << round << ", " << n << " values around bit length " << centre;
  }
}

}  // namespace codec_key_order_test

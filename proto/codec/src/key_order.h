#pragma once
// The key frame's order for its translation and scale lists (frame_encoder.cpp): the k in
// [0, 31] with which the values' exp-Golomb codes take the fewest bits (the smallest of equals).
// Not part of the codec's interface.
//
// ueg(u, k) takes 2 * bit_width(u + 2^k) - k - 1 bits (BitWriter::ueg_bits). For a value of
// bit length b that is k + 1 bits while k >= b; below, 2b - k - 1 bits, and 2 more when adding
// 2^k carries into bit b, i.e. when bits k..b-1 of u are all ones (k >= b - r, r the length of
// u's run of ones from its top bit). So the totals at every k follow from the count of values
// at each bit length and, for the carries, one range of k per value: one pass over the
// values.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace animcodec::frame_format {

inline int best_key_order(const uint64_t* u, size_t n) {
  constexpr int kOrders = 32;            // k = 0..31 (kKeyKBits)
  std::array<int64_t, 65> at_length{};   // values by bit length
  std::array<int64_t, 66> carry_from{};  // difference array over k: values whose code carries
  uint64_t any = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = u[i];
    any |= v;
    const int b = std::bit_width(v);
    ++at_length[static_cast<size_t>(b)];
    if (b == 0) continue;
    const int r = std::countl_one(v << (64 - b));
    ++carry_from[static_cast<size_t>(b - r)];
    --carry_from[static_cast<size_t>(b)];
  }
  // From k = the longest value's bit length on, every value costs k + 1 bits: the total only
  // grows, so the search stops there (the same k as searching 0..31).
  const int last = std::min(kOrders - 1, static_cast<int>(std::bit_width(any)));
  // Values of bit length <= k (count) and the sum of 2b - 1 over those longer.
  int64_t short_count = 0, long_sum = 0, long_count = 0;
  for (int b = 1; b <= 64; ++b) {
    long_sum += at_length[static_cast<size_t>(b)] * (2 * b - 1);
    long_count += at_length[static_cast<size_t>(b)];
  }
  int64_t carries = 0;
  int best = 0;
  int64_t best_cost = std::numeric_limits<int64_t>::max();
  for (int k = 0; k <= last; ++k) {
    short_count += at_length[static_cast<size_t>(k)];
    if (k > 0) {
      long_sum -= at_length[static_cast<size_t>(k)] * (2 * k - 1);
      long_count -= at_length[static_cast<size_t>(k)];
    }
    carries += carry_from[static_cast<size_t>(k)];
    const int64_t cost = short_count * (k + 1) + long_sum - long_count * k + 2 * carries;
    if (cost < best_cost) best_cost = cost, best = k;
  }
  return best;
}

}  // namespace animcodec::frame_format

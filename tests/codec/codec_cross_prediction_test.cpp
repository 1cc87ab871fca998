// The inter-component prediction round(rm * vi / vm), halves away from zero (frame_format.h),
// which the encoder and the decoder must compute identically: by hand, and against exact
// integer arithmetic over the whole range the coder uses it in (|rm| < 2^20, |vi| <= |vm|,
// 3 <= |vm| < 2^20).
#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "frame_format.h"

using namespace animcodec::frame_format;

namespace codec_cross_prediction_test {

// The reference: exact integers, the rounding spelled out.
int64_t reference(int64_t rm, int64_t vi, int64_t vm) {
  if (rm <= -kCrossLimit || rm >= kCrossLimit) return 0;
  const int64_t num = rm * vi;
  const int64_t an = num < 0 ? -num : num, ad = vm < 0 ? -vm : vm;
  int64_t q = an / ad;
  if (2 * (an - q * ad) >= ad) ++q;  // the remainder is half the divisor or more: away from 0
  return (num < 0) != (vm < 0) ? -q : q;
}

TEST(CrossPrediction, ByHand) {
  EXPECT_EQ(cross_prediction(10, 1, 4), 3);    // 2.5 -> 3
  EXPECT_EQ(cross_prediction(-10, 1, 4), -3);  // -2.5 -> -3
  EXPECT_EQ(cross_prediction(10, -1, 4), -3);
  EXPECT_EQ(cross_prediction(10, 1, -4), -3);
  EXPECT_EQ(cross_prediction(7, 2, 3), 5);  // 4.67 -> 5
  EXPECT_EQ(cross_prediction(7, 1, 3), 2);  // 2.33 -> 2
  EXPECT_EQ(cross_prediction(0, 5, 7), 0);
  EXPECT_EQ(cross_prediction(kCrossLimit, 1, 3), 0);  // too large for exact products
}

TEST(CrossPrediction, ExactOverTheWholeRange) {
  std::mt19937_64 rng(7);
  const int64_t top = kCrossLimit - 1;
  auto draw = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int n = 0; n < 2'000'000; ++n) {
    // Magnitudes spread over every bit length, the extremes included.
    const int bits_m = static_cast<int>(draw(2, 20)), bits_r = static_cast<int>(draw(0, 20));
    int64_t vm = std::min(top, draw(3, (int64_t{1} << bits_m) - 1));
    int64_t vi = draw(0, vm);
    int64_t rm = std::min(top, draw(0, (int64_t{1} << bits_r) - 1));
    if (n % 1000 == 0) vm = top, vi = top - draw(0, 3), rm = top - draw(0, 3);
    if (draw(0, 1)) vm = -vm;
    if (draw(0, 1)) vi = -vi;
    if (draw(0, 1)) rm = -rm;
    ASSERT_EQ(cross_prediction(rm, vi, vm), reference(rm, vi, vm))
        << "rm " << rm << " vi " << vi << " vm " << vm;
  }
  // Exact halves at the largest magnitudes: (2k + 1) / 2 for odd numerators.
  for (int64_t vm : {int64_t{2}, top - 1}) {
    if (vm % 2) continue;
    EXPECT_EQ(cross_prediction(top, vm / 2, vm), reference(top, vm / 2, vm));
  }
}

}  // namespace codec_cross_prediction_test

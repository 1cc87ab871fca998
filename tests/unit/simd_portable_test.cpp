// simd4.h's portable fallback (used where SSE2 is missing) against the SSE2 build: every
// kernel the jobs use gives the same bits on random inputs, so a non-x86 build samples,
// blends and skins exactly like this one. (Both round every operation to float the same way:
// no fused multiply-add, correctly rounded sqrt and division.)
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "simd_kernels.h"

namespace simd_portable_test {

using simdtest::Kernels;

void random_unit_quats(std::mt19937& rng, float* q) {  // 4 quaternions, SoA
  std::normal_distribution<float> n;
  for (int l = 0; l < 4; ++l) {
    float v[4], len = 0.0f;
    for (float& c : v) {
      c = n(rng);
      len += c * c;
    }
    len = std::sqrt(len);
    for (int c = 0; c < 4; ++c) q[c * 4 + l] = v[c] / len;
  }
}

TEST(SimdPortable, SameBitsAsSse2ForEveryKernel) {
  const Kernels sse = simdtest::sse2_kernels(), portable = simdtest::portable_kernels();
  ASSERT_NE(sse.slerp, portable.slerp);  // two builds, not one function twice
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f), any(-3.0f, 3.0f);
  int close_pairs = 0;
  for (int round = 0; round < 20000; ++round) {
    float a[16], b[16], u[4], x[16];
    random_unit_quats(rng, a);
    random_unit_quats(rng, b);
    if (round % 3 == 0) {  // nearly equal pairs take the nlerp branch
      for (int i = 0; i < 16; ++i) b[i] = a[i] + 1e-3f * any(rng);
      ++close_pairs;
    }
    for (float& v : u) v = unit(rng);
    for (float& v : x) v = any(rng);
    float got_sse[24], got_portable[24];
    sse.slerp(a, b, u, got_sse);
    portable.slerp(a, b, u, got_portable);
    ASSERT_EQ(0, std::memcmp(got_sse, got_portable, 16 * sizeof(float)))
        << "slerp, round " << round;
    sse.nlerp(a, b, u, got_sse);
    portable.nlerp(a, b, u, got_portable);
    ASSERT_EQ(0, std::memcmp(got_sse, got_portable, 16 * sizeof(float)))
        << "nlerp, round " << round;
    sse.poly(u, got_sse);
    portable.poly(u, got_portable);
    ASSERT_EQ(0, std::memcmp(got_sse, got_portable, 8 * sizeof(float))) << "poly, round " << round;
    sse.shuffles(x, got_sse);
    portable.shuffles(x, got_portable);
    ASSERT_EQ(0, std::memcmp(got_sse, got_portable, 24 * sizeof(float)))
        << "shuffles, round " << round;
  }
  EXPECT_GT(close_pairs, 1000);
}

// The shuffles by hand, on the portable build (the SSE2 one must then agree, above).
TEST(SimdPortable, ShufflesByHand) {
  const Kernels k = simdtest::portable_kernels();
  float in[16], out[24];
  for (int i = 0; i < 16; ++i) in[i] = static_cast<float>(i);
  k.shuffles(in, out);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(out[r * 4 + c], in[c * 4 + r]);
  EXPECT_EQ(out[16], 1.0f);
  EXPECT_EQ(out[17], 2.0f);
  EXPECT_EQ(out[18], 3.0f);
  // in[0..3] < in[4..7] everywhere: select picks in[12..15].
  for (int l = 0; l < 4; ++l) EXPECT_EQ(out[20 + l], in[12 + l]);
}

}  // namespace simd_portable_test

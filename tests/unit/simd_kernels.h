#pragma once
// The same 4-wide kernels compiled twice, once per simd4.h implementation (SSE2 and the
// portable fallback), so that simd_portable_test.cpp can check they agree bit for bit. Every
// function takes and returns plain floats: 4 lanes per F4, quaternions as x[4] y[4] z[4] w[4].

namespace simdtest {

struct Kernels {
  // out[16] = slerp_shortest(a[16], b[16], u[4])
  void (*slerp)(const float* a, const float* b, const float* u, float* out);
  // out[16] = nlerp_shortest(a, b, u)
  void (*nlerp)(const float* a, const float* b, const float* u, float* out);
  // out[4] = sin_0_half_pi(x[4]); out[4..7] = atan_0_1(x[4])
  void (*poly)(const float* x, float* out);
  // out[16]: transpose of in[16] (4 rows of 4); out[16..19] = shift_down(in[0..3]);
  // out[20..23] = select(less(in[0..3], in[4..7]), in[8..11], in[12..15])
  void (*shuffles)(const float* in, float* out);
};

Kernels sse2_kernels();
Kernels portable_kernels();

}  // namespace simdtest

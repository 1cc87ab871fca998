#pragma once
// F8: eight floats processed together, for the few hot loops that have an AVX2 variant
// (core/runtime/src/*_avx2.cpp, compiled with -mavx2 and without FMA; see
// core/runtime/CMakeLists.txt). Each operation is the 8-lane form of F4's (simd4.h) and
// rounds exactly as it does, so a lane gives the same bits through either width: the AVX2
// variants change the speed, not the results. Those files run only where the CPU has AVX2
// (simd_dispatch.h).
//
// Include this header, not simd4.h, in those files: it defines ANIM_SIMD_AVX2 first, which
// puts F4's operations there in a namespace of their own (see simd4.h).

#if !defined(__AVX2__)
#error "simd8.h belongs in the files compiled for AVX2 (core/runtime/CMakeLists.txt)"
#endif

#if defined(ANIM_SIMD_IMPL) && !defined(ANIM_SIMD_AVX2)
#error "include simd8.h before simd4.h (and quat4.h) in the files compiled for AVX2"
#endif
#define ANIM_SIMD_AVX2 1
#include <immintrin.h>

#include "simd4.h"

namespace anim::simd {
inline namespace avx2 {

struct F8 {
  __m256 v;
};

template <>
inline F8 fill<F8>(float x) {
  return {_mm256_set1_ps(x)};
}
inline F8 load8(const float* p) {
  return {_mm256_loadu_ps(p)};
}
inline void store8(float* p, F8 a) {
  _mm256_storeu_ps(p, a.v);
}
// Zeroes the upper halves of the 256-bit registers. Every AVX2 entry point calls it before
// it returns: the baseline's SSE code that runs next pays for each instruction while they
// are dirty, and the compiler does not always insert it (e.g. after a call that takes F8
// arguments).
inline void end_wide() {
  _mm256_zeroupper();
}
// Lanes 0-3 from lo, 4-7 from hi.
inline F8 join(F4 lo, F4 hi) {
  return {_mm256_set_m128(hi.v, lo.v)};
}
inline F4 low_half(F8 a) {
  return {_mm256_castps256_ps128(a.v)};
}
inline F4 high_half(F8 a) {
  return {_mm256_extractf128_ps(a.v, 1)};
}

inline F8 operator+(F8 a, F8 b) {
  return {_mm256_add_ps(a.v, b.v)};
}
inline F8 operator-(F8 a, F8 b) {
  return {_mm256_sub_ps(a.v, b.v)};
}
inline F8 operator*(F8 a, F8 b) {
  return {_mm256_mul_ps(a.v, b.v)};
}
inline F8 operator/(F8 a, F8 b) {
  return {_mm256_div_ps(a.v, b.v)};
}
inline F8 sqrt(F8 a) {
  return {_mm256_sqrt_ps(a.v)};
}
// As minps: the second operand when either is NaN.
inline F8 min(F8 a, F8 b) {
  return {_mm256_min_ps(a.v, b.v)};
}
inline F8 less(F8 a, F8 b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OS)};
}
// The ordered, signalling-free comparison cmpps makes for _mm_cmpgt_ps.
inline F8 greater(F8 a, F8 b) {
  return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OS)};
}
inline F8 bit_xor(F8 a, F8 b) {
  return {_mm256_xor_ps(a.v, b.v)};
}
// mask ? b : a, lane by lane.
inline F8 select(F8 mask, F8 a, F8 b) {
  return {_mm256_or_ps(_mm256_and_ps(mask.v, b.v), _mm256_andnot_ps(mask.v, a.v))};
}
inline F8 sign_bits(F8 a) {
  return {_mm256_and_ps(a.v, _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN)))};
}
inline F8 abs(F8 a) {
  return {_mm256_andnot_ps(_mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN)), a.v)};
}
inline bool all(F8 mask) {
  return _mm256_movemask_ps(mask.v) == 0xff;
}

}  // namespace avx2
}  // namespace anim::simd

#pragma once
// F4: four floats processed together, the one SIMD type of the core's hot jobs.
//
// On x86-64 it is an SSE2 register (the baseline every x86-64 CPU has, so no runtime
// dispatch is needed and the comparison with ozz's default SSE2 build is fair); elsewhere it
// is a plain array with the same operations, so the jobs are written once. Every operation
// is lane by lane and rounds exactly like the scalar float operation (no fused multiply-add,
// no approximate reciprocal), which keeps results bit-identical between the two builds and
// from run to run.

#include <cmath>
#include <cstdint>
#include <cstring>

// ANIM_SIMD_FORCE_PORTABLE (defined before including) selects the fallback on x86-64 too, so
// that a test can compare the two builds. Each lives in its own inline namespace (sse2 or
// portable), so one program may hold both without clashing definitions.
//
// The files compiled for AVX2 (simd8.h) define ANIM_SIMD_AVX2: the same SSE2 operations then
// live in a namespace of their own (avx2), so that their copies, encoded for AVX, are never
// linked in place of the baseline ones.
#if defined(ANIM_SIMD_AVX2)
#include <emmintrin.h>
#define ANIM_SIMD_SSE2 1
#define ANIM_SIMD_IMPL avx2
#elif (defined(__SSE2__) || defined(_M_X64)) && !defined(ANIM_SIMD_FORCE_PORTABLE)
#include <emmintrin.h>
#define ANIM_SIMD_SSE2 1
#define ANIM_SIMD_IMPL sse2
#else
#define ANIM_SIMD_SSE2 0
#define ANIM_SIMD_IMPL portable
#endif

namespace anim::simd {
inline namespace ANIM_SIMD_IMPL {

#if ANIM_SIMD_SSE2

struct F4 {
  __m128 v;
};

inline F4 splat(float x) {
  return {_mm_set1_ps(x)};
}
inline F4 set(float a, float b, float c, float d) {
  return {_mm_setr_ps(a, b, c, d)};
}
inline F4 load(const float* p) {
  return {_mm_loadu_ps(p)};
}
inline void store(float* p, F4 a) {
  _mm_storeu_ps(p, a.v);
}
// Stores lanes 0..2 only (a vec3), leaving p[3] untouched.
inline void store3(float* p, F4 a) {
  _mm_storel_pi(reinterpret_cast<__m64*>(p), a.v);
  _mm_store_ss(p + 2, _mm_movehl_ps(a.v, a.v));
}
inline float lane0(F4 a) {
  return _mm_cvtss_f32(a.v);
}
// A store that bypasses the caches (p 16-byte aligned): for large write-once data that is
// rarely read back, so it neither reads the line first nor evicts hot data. Weakly ordered:
// call stream_fence() before another thread may read what was stored.
inline void store_stream(float* p, F4 a) {
  _mm_stream_ps(p, a.v);
}
inline void stream_fence() {
  _mm_sfence();
}

inline F4 operator+(F4 a, F4 b) {
  return {_mm_add_ps(a.v, b.v)};
}
inline F4 operator-(F4 a, F4 b) {
  return {_mm_sub_ps(a.v, b.v)};
}
inline F4 operator*(F4 a, F4 b) {
  return {_mm_mul_ps(a.v, b.v)};
}
inline F4 operator/(F4 a, F4 b) {
  return {_mm_div_ps(a.v, b.v)};
}
inline F4 sqrt(F4 a) {
  return {_mm_sqrt_ps(a.v)};
}
inline F4 min(F4 a, F4 b) {
  return {_mm_min_ps(a.v, b.v)};
}
inline F4 max(F4 a, F4 b) {
  return {_mm_max_ps(a.v, b.v)};
}

// Masks: all bits set in a lane where the comparison holds.
inline F4 less(F4 a, F4 b) {
  return {_mm_cmplt_ps(a.v, b.v)};
}
inline F4 greater(F4 a, F4 b) {
  return {_mm_cmpgt_ps(a.v, b.v)};
}
inline F4 bit_and(F4 a, F4 b) {
  return {_mm_and_ps(a.v, b.v)};
}
inline F4 bit_xor(F4 a, F4 b) {
  return {_mm_xor_ps(a.v, b.v)};
}
// mask ? b : a, lane by lane.
inline F4 select(F4 mask, F4 a, F4 b) {
  return {_mm_or_ps(_mm_and_ps(mask.v, b.v), _mm_andnot_ps(mask.v, a.v))};
}
// The sign bit of each lane (as a mask to xor with).
inline F4 sign_bits(F4 a) {
  return {_mm_and_ps(a.v, _mm_castsi128_ps(_mm_set1_epi32(INT32_MIN)))};
}
inline F4 abs(F4 a) {
  return {_mm_andnot_ps(_mm_castsi128_ps(_mm_set1_epi32(INT32_MIN)), a.v)};
}

// True when every lane of the mask is set.
inline bool all(F4 mask) {
  return _mm_movemask_ps(mask.v) == 0xf;
}

// Lanes 1, 2, 3 moved to 0, 1, 2 (lane 3 becomes lane 3).
inline F4 shift_down(F4 a) {
  return {_mm_shuffle_ps(a.v, a.v, _MM_SHUFFLE(3, 3, 2, 1))};
}

// Rows to columns: after the call a holds lane 0 of a, b, c, d, and so on.
inline void transpose(F4& a, F4& b, F4& c, F4& d) {
  _MM_TRANSPOSE4_PS(a.v, b.v, c.v, d.v);
}

// Broadcasts lane i.
template <int i>
inline F4 broadcast(F4 a) {
  return {_mm_shuffle_ps(a.v, a.v, _MM_SHUFFLE(i, i, i, i))};
}

#else  // portable fallback: the same operations on four floats

struct F4 {
  float v[4];
};

namespace detail {
template <class Op>
inline F4 map(F4 a, F4 b, Op op) {
  return {{op(a.v[0], b.v[0]), op(a.v[1], b.v[1]), op(a.v[2], b.v[2]), op(a.v[3], b.v[3])}};
}
inline float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float mask_of(bool b) {
  return from_bits(b ? 0xffffffffu : 0u);
}
}  // namespace detail

inline F4 splat(float x) {
  return {{x, x, x, x}};
}
inline F4 set(float a, float b, float c, float d) {
  return {{a, b, c, d}};
}
inline F4 load(const float* p) {
  return {{p[0], p[1], p[2], p[3]}};
}
inline void store(float* p, F4 a) {
  std::memcpy(p, a.v, 16);
}
inline void store3(float* p, F4 a) {
  std::memcpy(p, a.v, 12);
}
inline float lane0(F4 a) {
  return a.v[0];
}
inline void store_stream(float* p, F4 a) {
  std::memcpy(p, a.v, 16);
}
inline void stream_fence() {}

inline F4 operator+(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) { return x + y; });
}
inline F4 operator-(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) { return x - y; });
}
inline F4 operator*(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) { return x * y; });
}
inline F4 operator/(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) { return x / y; });
}
inline F4 sqrt(F4 a) {
  return {{std::sqrt(a.v[0]), std::sqrt(a.v[1]), std::sqrt(a.v[2]), std::sqrt(a.v[3])}};
}
// As minps/maxps: the second operand when either is NaN.
inline F4 min(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) { return x < y ? x : y; });
}
inline F4 max(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) { return x > y ? x : y; });
}
inline F4 less(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) { return detail::mask_of(x < y); });
}
inline F4 greater(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) { return detail::mask_of(x > y); });
}
inline F4 bit_and(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) {
    return detail::from_bits(detail::to_bits(x) & detail::to_bits(y));
  });
}
inline F4 bit_xor(F4 a, F4 b) {
  return detail::map(a, b, [](float x, float y) {
    return detail::from_bits(detail::to_bits(x) ^ detail::to_bits(y));
  });
}
inline F4 select(F4 mask, F4 a, F4 b) {
  F4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = detail::to_bits(mask.v[i]) ? b.v[i] : a.v[i];
  return r;
}
inline F4 sign_bits(F4 a) {
  return bit_and(a, splat(detail::from_bits(0x80000000u)));
}
inline F4 abs(F4 a) {
  return {{std::fabs(a.v[0]), std::fabs(a.v[1]), std::fabs(a.v[2]), std::fabs(a.v[3])}};
}
inline F4 shift_down(F4 a) {
  return {{a.v[1], a.v[2], a.v[3], a.v[3]}};
}
inline bool all(F4 mask) {
  for (float m : mask.v)
    if (!detail::to_bits(m)) return false;
  return true;
}
inline void transpose(F4& a, F4& b, F4& c, F4& d) {
  const F4 r[4] = {a, b, c, d};
  F4* out[4] = {&a, &b, &c, &d};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) out[i]->v[j] = r[j].v[i];
}
template <int i>
inline F4 broadcast(F4 a) {
  return splat(a.v[i]);
}

#endif

inline F4 zero() {
  return splat(0.0f);
}
inline F4 one() {
  return splat(1.0f);
}

// x in every lane of a V: the lane-generic code's splat (quat4.h).
template <class V>
V fill(float x);
template <>
inline F4 fill<F4>(float x) {
  return splat(x);
}

}  // namespace ANIM_SIMD_IMPL
}  // namespace anim::simd

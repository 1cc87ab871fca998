// PaletteJob's AVX2 variant: each product's columns two at a time, in the order of the
// baseline's sums (((m0 b0 + m1 b1) + m2 b2) + m3 b3, no FMA), then rows 0 and 1 stored from
// one register and row 2 from half of another. Compiled with -mavx2; includes nothing but the
// SIMD headers, for the reason blend_job_avx2.cpp gives.
#include "palette_avx2.h"

#include "simd8.h"

namespace anim::detail {

namespace {

// Columns c and c + 1 of m * b, from b's columns c and c + 1 (`b`: 8 floats) and m's columns
// each repeated in both halves.
__m256 two_columns(const __m256 m[4], __m256 b) {
  __m256 s = _mm256_mul_ps(m[0], _mm256_permute_ps(b, 0x00));
  s = _mm256_add_ps(s, _mm256_mul_ps(m[1], _mm256_permute_ps(b, 0x55)));
  s = _mm256_add_ps(s, _mm256_mul_ps(m[2], _mm256_permute_ps(b, 0xAA)));
  return _mm256_add_ps(s, _mm256_mul_ps(m[3], _mm256_permute_ps(b, 0xFF)));
}

}  // namespace

void palette_avx2(const float* model, const float* inverse_bind, float* out, size_t n) {
  // From the interleaved columns below: row r (c0[r], c1[r], c2[r], c3[r]) for r = 0, 1.
  const __m256i rows = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (size_t j = 0; j < n; ++j, model += 16, inverse_bind += 16, out += 12) {
    const __m256 m[4] = {_mm256_broadcast_ps(reinterpret_cast<const __m128*>(model)),
                         _mm256_broadcast_ps(reinterpret_cast<const __m128*>(model + 4)),
                         _mm256_broadcast_ps(reinterpret_cast<const __m128*>(model + 8)),
                         _mm256_broadcast_ps(reinterpret_cast<const __m128*>(model + 12))};
    const __m256 c01 = two_columns(m, _mm256_loadu_ps(inverse_bind));
    const __m256 c23 = two_columns(m, _mm256_loadu_ps(inverse_bind + 8));
    // [c0.0 c2.0 c0.1 c2.1 | c1.0 c3.0 c1.1 c3.1] and [c0.2 c2.2 c0.3 c2.3 | c1.2 c3.2 ...].
    const __m256 low = _mm256_unpacklo_ps(c01, c23), high = _mm256_unpackhi_ps(c01, c23);
    _mm256_storeu_ps(out, _mm256_permutevar8x32_ps(low, rows));
    _mm_storeu_ps(out + 8, _mm256_castps256_ps128(_mm256_permutevar8x32_ps(high, rows)));
  }
  simd::end_wide();
}

}  // namespace anim::detail

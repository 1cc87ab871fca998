#pragma once
// PaletteJob's AVX2 variant (palette_job_avx2.cpp): two columns of a product per 8-lane
// register, the same bits as the baseline (simd8.h). Only called when simd::wide_enabled().

#include <cstddef>

namespace anim::detail {

// out[j] = rows 0..2 of model[j] * inverse_bind[j] for j in [0, n), as PaletteJob::run: the
// matrices column-major, 16 floats each; out 12 floats a joint, row-major.
void palette_avx2(const float* model, const float* inverse_bind, float* out, size_t n);

}  // namespace anim::detail

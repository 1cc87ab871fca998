#pragma once
// BlendJob's AVX2 variant (blend_job_avx2.cpp): eight joints at a time, the same bits as the
// baseline's four (simd8.h). Only called when simd::wide_enabled().

#include <cstddef>

namespace anim::detail {

// Blends joints [0, 8 * floor(n / 8)) of the transforms at a and b (10 floats each:
// translation, rotation x y z w, scale) into out, as BlendJob::run does, with weight
// `weight * mask[j]` (`mask` may be null: every joint `weight`). out may alias a or b.
// Returns the number of joints blended.
size_t blend_avx2(const float* a, const float* b, float weight, const float* mask, float* out,
                  size_t n);

}  // namespace anim::detail

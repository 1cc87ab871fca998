#pragma once
// AdditiveJob's AVX2 variant (additive_job_avx2.cpp): eight joints at a time, the same bits as
// the baseline's four (simd8.h). Only called when simd::wide_enabled().

#include <cstddef>

namespace anim::detail {

// Adds joints [0, 8 * floor(n / 8)) of current's delta from reference onto base, into out, as
// AdditiveJob::run does, with weight `weight * mask[j]` (`mask` may be null: every joint
// `weight`). Transforms are 10 floats (translation, rotation x y z w, scale); out may alias
// base. Returns the number of joints done.
size_t add_avx2(const float* base, const float* current, const float* reference, float weight,
                const float* mask, float* out, size_t n);

}  // namespace anim::detail

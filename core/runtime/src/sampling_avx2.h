#pragma once
// SamplingJob's AVX2 variant (sampling_job_avx2.cpp): a timeline's rotation blocks two at a
// time, the same bits as the baseline's one (simd8.h). Only called when simd::wide_enabled().

#include <cstddef>
#include <cstdint>

namespace anim::detail {

// Interpolates the first 2 * floor(blocks / 2) rotation blocks of two keys (k0, k1: 16 floats
// a block, x y z w of 4 joints each) at fraction u, by nlerp when `close` (the timeline's
// rotations_close) and slerp otherwise, and writes each joint's quaternion to
// out + targets[joint] (4 floats) where targets[joint] >= 0. Returns the blocks done.
uint32_t sample_rotations_avx2(const float* k0, const float* k1, float u, bool close,
                               const int32_t* targets, uint32_t blocks, float* out);

}  // namespace anim::detail

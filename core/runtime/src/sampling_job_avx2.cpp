// SamplingJob's AVX2 variant: sampling_job.cpp's rotation loop over two blocks (eight joints)
// at a time, the interpolation in 8-lane registers. Compiled with -mavx2 (no FMA); includes
// nothing but the SIMD headers, for the reason blend_job_avx2.cpp gives.
#include "sampling_avx2.h"

// simd8.h first: it sets up simd4.h (which quat4.h includes) for this file.
#include "simd8.h"
// (then the quaternion functions, over F8 as over F4)
#include "quat4.h"

namespace anim::detail {

namespace {

using simd::F4;
using simd::F8;

// Lanes 0-3 from block p, 4-7 from block p + 1 (16 floats a block), component c.
F8 component(const float* p, int c) {
  return simd::join(simd::load(p + 4 * c), simd::load(p + 16 + 4 * c));
}

// The four quaternions of one half, transposed back to one a lane, to their targets.
void scatter(F4 x, F4 y, F4 z, F4 w, const int32_t* target, float* out) {
  simd::transpose(x, y, z, w);
  const F4 lanes[4] = {x, y, z, w};
  for (int l = 0; l < 4; ++l)
    if (target[l] >= 0) simd::store(out + target[l], lanes[l]);
}

}  // namespace

uint32_t sample_rotations_avx2(const float* k0, const float* k1, float u, bool close,
                               const int32_t* targets, uint32_t blocks, float* out) {
  const F8 uu = simd::fill<F8>(u);
  uint32_t b = 0;
  for (; b + 2 <= blocks; b += 2, k0 += 32, k1 += 32, targets += 8) {
    const simd::QuatLanes<F8> a{component(k0, 0), component(k0, 1), component(k0, 2),
                                component(k0, 3)};
    const simd::QuatLanes<F8> c{component(k1, 0), component(k1, 1), component(k1, 2),
                                component(k1, 3)};
    const simd::QuatLanes<F8> q =
        close ? simd::nlerp_shortest(a, c, uu) : simd::slerp_shortest(a, c, uu);
    scatter(simd::low_half(q.x), simd::low_half(q.y), simd::low_half(q.z), simd::low_half(q.w),
            targets, out);
    scatter(simd::high_half(q.x), simd::high_half(q.y), simd::high_half(q.z), simd::high_half(q.w),
            targets + 4, out);
  }
  simd::end_wide();
  return b;
}

}  // namespace anim::detail

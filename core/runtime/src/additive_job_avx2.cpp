// AdditiveJob's AVX2 variant: additive_job.cpp's add4 over eight joints, its quaternion work
// (two products, two normalizations and the partial slerp) in 8-lane registers. Compiled
// with -mavx2 (no FMA); includes nothing but the SIMD headers, for the reason
// blend_job_avx2.cpp gives.
#include "additive_avx2.h"

#include <cstring>

// simd8.h first: it sets up simd4.h (which quat4.h includes) for this file.
#include "simd8.h"
// (then the quaternion functions, over F8 as over F4)
#include "quat4.h"
#include "transforms8.h"

namespace anim::detail {

namespace {

using simd::F4;
using simd::F8;

constexpr size_t kFloats = simd::kTransformFloats;
constexpr size_t kScaleRead = simd::kScaleReadAt;

// Eight joints, as add4 does four (the same operations lane by lane).
void add8(const float* base, const float* cur, const float* ref, const float* w, float* out) {
  const simd::QuatLanes<F8> b = simd::load_rotations8(base), c = simd::load_rotations8(cur),
                            r = simd::load_rotations8(ref);
  const F8 zero = simd::fill<F8>(0.0f), one = simd::fill<F8>(1.0f);
  const simd::QuatLanes<F8> delta = simd::normalize(
      simd::multiply(simd::QuatLanes<F8>{zero - r.x, zero - r.y, zero - r.z, r.w}, c));
  const F8 wv = simd::load8(w);
  const simd::QuatLanes<F8> identity{zero, zero, zero, one};
  simd::QuatLanes<F8> partial = simd::slerp_shortest(identity, delta, wv);
  const F8 below_one = simd::less(wv, one);
  partial = {
      simd::select(below_one, delta.x, partial.x), simd::select(below_one, delta.y, partial.y),
      simd::select(below_one, delta.z, partial.z), simd::select(below_one, delta.w, partial.w)};
  F4 lanes[8];
  simd::unpack_rotations8(simd::normalize(simd::multiply(b, partial)), lanes);
  for (int l = 0; l < 8; ++l) {
    const float* bl = base + l * kFloats;
    const float* cl = cur + l * kFloats;
    const float* rl = ref + l * kFloats;
    float* ol = out + l * kFloats;
    if (w[l] <= 0.0f) {
      if (ol != bl) std::memcpy(ol, bl, kFloats * sizeof(float));
      continue;
    }
    const F4 wl = simd::splat(w[l]);
    const F4 t = simd::load(bl) + wl * (simd::load(cl) - simd::load(rl));
    const F4 s = simd::load(bl + kScaleRead) +
                 wl * (simd::load(cl + kScaleRead) - simd::load(rl + kScaleRead));
    simd::store3(ol, t);
    simd::store(ol + simd::kRotationAt, lanes[l]);
    simd::store3(ol + kScaleRead + 1, simd::shift_down(s));
  }
}

}  // namespace

size_t add_avx2(const float* base, const float* current, const float* reference, float weight,
                const float* mask, float* out, size_t n) {
  size_t j = 0;
  float w[8];
  for (; j + 8 <= n; j += 8) {
    for (int l = 0; l < 8; ++l) w[l] = mask ? weight * mask[j + l] : weight;
    add8(base + j * kFloats, current + j * kFloats, reference + j * kFloats, w, out + j * kFloats);
  }
  simd::end_wide();
  return j;
}

}  // namespace anim::detail

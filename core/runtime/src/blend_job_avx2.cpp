// BlendJob's AVX2 variant: blend_job.cpp's blend4 over eight joints, with the rotations'
// slerp (most of the blend's time) in 8-lane registers. Compiled with -mavx2 (no FMA), so it
// includes nothing but the SIMD headers: an inline function of another header compiled here
// could be linked in place of its baseline copy (simd4.h keeps its own apart by namespace).
// The transforms are read as 10 floats (blend_job.cpp checks the layout).
#include "blend_avx2.h"

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
constexpr size_t kRotation = simd::kRotationAt;
constexpr size_t kScaleRead = simd::kScaleReadAt;
constexpr size_t kBytes = kFloats * sizeof(float);

// Eight joints, as blend4 does four (the same operations lane by lane).
void blend8(const float* a, const float* b, const float* w, float* out) {
  const simd::QuatLanes<F8> q =
      simd::slerp_shortest(simd::load_rotations8(a), simd::load_rotations8(b), simd::load8(w));
  F4 lanes[8];
  simd::unpack_rotations8(q, lanes);
  for (int l = 0; l < 8; ++l) {
    const float* al = a + l * kFloats;
    const float* bl = b + l * kFloats;
    float* ol = out + l * kFloats;
    if (w[l] <= 0.0f) {
      if (ol != al) std::memcpy(ol, al, kBytes);
    } else if (w[l] >= 1.0f) {
      if (ol != bl) std::memcpy(ol, bl, kBytes);
    } else {
      const F4 wl = simd::splat(w[l]), vl = simd::splat(1.0f - w[l]);
      const F4 t = simd::load(al) * vl + simd::load(bl) * wl;
      const F4 s = simd::load(al + kScaleRead) * vl + simd::load(bl + kScaleRead) * wl;
      simd::store3(ol, t);
      simd::store(ol + kRotation, lanes[l]);
      simd::store3(ol + kScaleRead + 1, simd::shift_down(s));
    }
  }
}

// Eight joints at one weight in (0, 1), as blend8 with that weight in every lane: every float
// lerped eight at a time (the rotations' among them, then overwritten by their slerp).
void blend8_uniform(const float* a, const float* b, F8 w, F8 v, float* out) {
  const simd::QuatLanes<F8> q =
      simd::slerp_shortest(simd::load_rotations8(a), simd::load_rotations8(b), w);
  for (size_t k = 0; k < 8 * kFloats; k += 8)
    simd::store8(out + k, simd::load8(a + k) * v + simd::load8(b + k) * w);
  F4 lanes[8];
  simd::unpack_rotations8(q, lanes);
  for (int l = 0; l < 8; ++l) simd::store(out + l * kFloats + kRotation, lanes[l]);
}

}  // namespace

size_t blend_avx2(const float* a, const float* b, float weight, const float* mask, float* out,
                  size_t n) {
  size_t j = 0;
  if (mask == nullptr && weight > 0.0f && weight < 1.0f) {
    const F8 w = simd::fill<F8>(weight), v = simd::fill<F8>(1.0f - weight);
    for (; j + 8 <= n; j += 8)
      blend8_uniform(a + j * kFloats, b + j * kFloats, w, v, out + j * kFloats);
    simd::end_wide();
    return j;
  }
  float w[8];
  for (; j + 8 <= n; j += 8) {
    for (int l = 0; l < 8; ++l) w[l] = mask ? weight * mask[j + l] : weight;
    blend8(a + j * kFloats, b + j * kFloats, w, out + j * kFloats);
  }
  simd::end_wide();
  return j;
}

}  // namespace anim::detail

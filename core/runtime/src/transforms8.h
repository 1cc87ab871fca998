#pragma once
// Eight transforms' rotations in and out of 8-lane registers, for the jobs' AVX2 variants
// (core/runtime/src/*_avx2.cpp; include simd8.h first). Transforms are read as 10 floats:
// translation 0-2, rotation x y z w 3-6, scale 7-9 (the jobs check that layout).

#include <cstddef>

#include "quat4.h"

namespace anim::simd {
inline namespace avx2 {

inline constexpr size_t kTransformFloats = 10;
inline constexpr size_t kRotationAt = 3;
// The scale is read as floats 6-9 (a 4-float load that stays inside the transform) and
// shifted down a lane before its 3 floats are stored at 7.
inline constexpr size_t kScaleReadAt = 6;

// The rotations of the 8 transforms at t, one a lane (joints 0-3 in the low half).
inline QuatLanes<F8> load_rotations8(const float* t) {
  constexpr size_t k = kTransformFloats;
  const float* r = t + kRotationAt;
  F4 x = load(r), y = load(r + k), z = load(r + 2 * k), w = load(r + 3 * k);
  F4 hx = load(r + 4 * k), hy = load(r + 5 * k), hz = load(r + 6 * k), hw = load(r + 7 * k);
  transpose(x, y, z, w);
  transpose(hx, hy, hz, hw);
  return {join(x, hx), join(y, hy), join(z, hz), join(w, hw)};
}

// The 8 quaternions of q, one a register (x y z w), for the per-joint stores.
inline void unpack_rotations8(const QuatLanes<F8>& q, F4 out[8]) {
  F4 x = low_half(q.x), y = low_half(q.y), z = low_half(q.z), w = low_half(q.w);
  transpose(x, y, z, w);
  out[0] = x, out[1] = y, out[2] = z, out[3] = w;
  x = high_half(q.x), y = high_half(q.y), z = high_half(q.z), w = high_half(q.w);
  transpose(x, y, z, w);
  out[4] = x, out[5] = y, out[6] = z, out[7] = w;
}

}  // namespace avx2
}  // namespace anim::simd

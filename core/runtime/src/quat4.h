#pragma once
// Four quaternions at a time (structure of arrays), for the sampling and blending jobs; or
// eight, in the files compiled for AVX2 (simd8.h): every function is written once over the
// lane type V (F4, or F8 there), lane by lane, so a lane's result does not depend on the width.
//
// slerp_shortest is a spherical interpolation to float precision (nlerp alone drifts by
// about 0.016 * angle^3: 0.0035 rad between two poses 90 degrees apart, far outside the
// goldens' 1e-4). Its transcendental functions are polynomials evaluated on all four lanes
// at once, accurate to 1e-7 to 2e-7 on the ranges used, instead of four calls each to acosf
// and sinf.

#include "simd4.h"

namespace anim::simd {
inline namespace ANIM_SIMD_IMPL {

template <class V>
struct QuatLanes {
  V x, y, z, w;
};
using Quat4 = QuatLanes<F4>;

template <class V>
inline V dot(const QuatLanes<V>& a, const QuatLanes<V>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// a * b (the Hamilton product, as glm's quaternion operator*).
template <class V>
inline QuatLanes<V> multiply(const QuatLanes<V>& a, const QuatLanes<V>& b) {
  return {
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z,
      a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

// sin(x) for x in [0, pi/2]: Taylor series to x^11, whose remainder is below
// (pi/2)^13 / 13! = 5.7e-8 there and far below for small x (where sin(x) ~ x matters most);
// with float rounding the result is within 1e-7 of std::sin on [0, 1.25] and 2e-7 (1.5 ulp
// near 1) up to pi/2 (tests/unit/quat4_test.cpp).
template <class V>
inline V sin_0_half_pi(V x) {
  const V x2 = x * x;
  V p = fill<V>(-1.0f / 39916800.0f);
  p = p * x2 + fill<V>(1.0f / 362880.0f);
  p = p * x2 + fill<V>(-1.0f / 5040.0f);
  p = p * x2 + fill<V>(1.0f / 120.0f);
  p = p * x2 + fill<V>(-1.0f / 6.0f);
  return x + x * (p * x2);
}

// atan(y) for y in [0, 1]. Above tan(pi/8) it uses atan(y) = pi/4 + atan((y - 1) / (y + 1)),
// so the series only ever sees |z| <= tan(pi/8) = 0.4142, where its terms to z^17 leave a
// remainder below 0.4142^19 / 19 = 2.8e-9.
template <class V>
inline V atan_0_1(V y) {
  const V one = fill<V>(1.0f);
  const V reduce = greater(y, fill<V>(0.41421356f));
  const V z = select(reduce, y, (y - one) / (y + one));
  const V z2 = z * z;
  V p = fill<V>(1.0f / 17.0f);
  p = p * z2 - fill<V>(1.0f / 15.0f);
  p = p * z2 + fill<V>(1.0f / 13.0f);
  p = p * z2 - fill<V>(1.0f / 11.0f);
  p = p * z2 + fill<V>(1.0f / 9.0f);
  p = p * z2 - fill<V>(1.0f / 7.0f);
  p = p * z2 + fill<V>(1.0f / 5.0f);
  p = p * z2 - fill<V>(1.0f / 3.0f);
  const V atan_z = z + z * (p * z2);
  return select(reduce, atan_z, atan_z + fill<V>(0.78539816f));
}

// q / |q|, by one division and four products (as glm::normalize).
template <class V>
inline QuatLanes<V> normalize(const QuatLanes<V>& q) {
  const V inv = fill<V>(1.0f) / sqrt(dot(q, q));
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

// Quaternions whose dot product exceeds this (half the rotation between them under 1.8
// degrees) interpolate by nlerp instead of slerp. The two differ there by at most 5e-7 rad,
// below what float slerp resolves (sin(theta) loses its digits), and this is the rule of the
// golden files' reference implementation: RobotExpressive's palettes are 6.7e-5 from its
// goldens with it, 1.0e-4 with an exact slerp even in double precision.
inline constexpr float kNlerpMinDot = 0.9995f;

// Spherical interpolation from a (u = 0) to b (u = 1) along the shorter arc (b is negated
// where dot(a, b) < 0), normalized; nlerp where dot > kNlerpMinDot. a and b are unit
// quaternions; u in [0, 1] per lane.
//
// The angle comes from theta = 2 atan(|a - b| / |a + b|), accurate at every angle (acos(dot)
// loses half its digits near 0); with dot >= 0, |a + b| >= sqrt(2) and the ratio is in
// [0, 1]. When every lane is close, the transcendental part is skipped.
template <class V>
inline QuatLanes<V> slerp_shortest(const QuatLanes<V>& a, QuatLanes<V> b, V u) {
  const V d = dot(a, b);
  const V flip = sign_bits(d);
  b = {bit_xor(b.x, flip), bit_xor(b.y, flip), bit_xor(b.z, flip), bit_xor(b.w, flip)};
  const V close = greater(abs(d), fill<V>(kNlerpMinDot));
  V wa = fill<V>(1.0f) - u;
  V wb = u;
  if (!all(close)) {
    const QuatLanes<V> diff{a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w};
    const QuatLanes<V> sum{a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
    const V ratio = min(sqrt(dot(diff, diff) / dot(sum, sum)), fill<V>(1.0f));
    const V theta = fill<V>(2.0f) * atan_0_1(ratio);
    // The weights would be sin((1 - u) theta) / sin(theta) and sin(u theta) / sin(theta);
    // the common factor 1 / sin(theta) goes away in the normalization below.
    wa = select(close, sin_0_half_pi(wa * theta), wa);
    wb = select(close, sin_0_half_pi(u * theta), wb);
  }
  return normalize(QuatLanes<V>{a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb,
                                a.w * wa + b.w * wb});
}

// slerp_shortest for lanes known to be close (dot > kNlerpMinDot): the normalized lerp.
template <class V>
inline QuatLanes<V> nlerp_shortest(const QuatLanes<V>& a, QuatLanes<V> b, V u) {
  const V flip = sign_bits(dot(a, b));
  b = {bit_xor(b.x, flip), bit_xor(b.y, flip), bit_xor(b.z, flip), bit_xor(b.w, flip)};
  const V v = fill<V>(1.0f) - u;
  return normalize(
      QuatLanes<V>{a.x * v + b.x * u, a.y * v + b.y * u, a.z * v + b.z * u, a.w * v + b.w * u});
}

}  // namespace ANIM_SIMD_IMPL
}  // namespace anim::simd

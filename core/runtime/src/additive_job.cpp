#include "anim/additive_job.h"

#include <cmath>

#include "additive_avx2.h"
#include "job_checks.h"
#include "quat4.h"
#include "simd_dispatch.h"

namespace anim {

namespace {

using simd::F4;
using simd::Quat4;

Quat4 load_rotations(const Transform* t) {
  F4 x = simd::load(&t[0].rotation.x), y = simd::load(&t[1].rotation.x),
     z = simd::load(&t[2].rotation.x), w = simd::load(&t[3].rotation.x);
  simd::transpose(x, y, z, w);
  return {x, y, z, w};
}

// Four joints: each pointer at 4 transforms (out may alias base).
void add4(const Transform* base, const Transform* cur, const Transform* ref, const float* w,
          Transform* out) {
  const Quat4 b = load_rotations(base), c = load_rotations(cur), r = load_rotations(ref);
  // delta = inverse(ref) * cur, normalized; inverse of a unit quaternion = its conjugate.
  const F4 zero = simd::zero();
  const Quat4 delta = simd::normalize(simd::multiply({zero - r.x, zero - r.y, zero - r.z, r.w}, c));
  const F4 wv = simd::load(w);
  const Quat4 identity{zero, zero, zero, simd::one()};
  Quat4 partial = simd::slerp_shortest(identity, delta, wv);
  // Full weight adds the whole delta, exactly.
  const F4 below_one = simd::less(wv, simd::one());
  partial = {
      simd::select(below_one, delta.x, partial.x), simd::select(below_one, delta.y, partial.y),
      simd::select(below_one, delta.z, partial.z), simd::select(below_one, delta.w, partial.w)};
  Quat4 q = simd::normalize(simd::multiply(b, partial));
  simd::transpose(q.x, q.y, q.z, q.w);
  const F4 lanes[4] = {q.x, q.y, q.z, q.w};
  for (int l = 0; l < 4; ++l) {
    if (w[l] <= 0.0f) {
      out[l] = base[l];
      continue;
    }
    const F4 wl = simd::splat(w[l]);
    // Translation: floats 0..2; scale: floats 7..9 read as 6..9 to stay inside the transform.
    const F4 t = simd::load(&base[l].translation.x) +
                 wl * (simd::load(&cur[l].translation.x) - simd::load(&ref[l].translation.x));
    const F4 s = simd::load(&base[l].rotation.w) +
                 wl * (simd::load(&cur[l].rotation.w) - simd::load(&ref[l].rotation.w));
    simd::store3(&out[l].translation.x, t);
    simd::store(&out[l].rotation.x, lanes[l]);
    simd::store3(&out[l].scale.x, simd::shift_down(s));
  }
}

}  // namespace

bool AdditiveJob::validate() const {
  const size_t n = base.size();
  return current.size() == n && reference.size() == n && output.size() == n &&
         detail::valid_mask(mask, n) && std::isfinite(weight) &&
         detail::same_or_disjoint(base, output) && detail::same_or_disjoint(current, output) &&
         detail::same_or_disjoint(reference, output);
}

bool AdditiveJob::run() const {
  if (!validate()) return false;
  const size_t n = base.size();
  float w[4];
  size_t j = 0;
#if defined(ANIM_HAVE_AVX2_VARIANTS)
  // Transforms as 10 floats: blend_job.cpp checks the layout.
  // (The spans as floats without touching a member: an empty span's data() may be null.)
  if (n >= 8 && simd::wide_enabled())
    j = detail::add_avx2(
        reinterpret_cast<const float*>(base.data()), reinterpret_cast<const float*>(current.data()),
        reinterpret_cast<const float*>(reference.data()), weight,
        mask.empty() ? nullptr : mask.data(), reinterpret_cast<float*>(output.data()), n);
#endif
  for (; j + 4 <= n; j += 4) {
    for (int l = 0; l < 4; ++l) w[l] = mask.empty() ? weight : weight * mask[j + l];
    add4(base.data() + j, current.data() + j, reference.data() + j, w, output.data() + j);
  }
  if (j < n) {
    // The last 1..3 joints, through a padded block (identity lanes at weight 0).
    Transform tb[4], tc[4], tr[4], to[4];
    for (int l = 0; l < 4; ++l) {
      const bool used = j + l < n;
      if (used) {
        tb[l] = base[j + l];
        tc[l] = current[j + l];
        tr[l] = reference[j + l];
      }
      w[l] = !used ? 0.0f : mask.empty() ? weight : weight * mask[j + l];
    }
    add4(tb, tc, tr, w, to);
    for (size_t l = 0; j + l < n; ++l) output[j + l] = to[l];
  }
  return true;
}

}  // namespace anim

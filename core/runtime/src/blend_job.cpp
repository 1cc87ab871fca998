#include "anim/blend_job.h"

#include <cmath>
#include <cstddef>

#include "blend_avx2.h"
#include "job_checks.h"
#include "quat4.h"
#include "simd_dispatch.h"

namespace anim {

namespace {

using simd::F4;

// The AVX2 variant reads transforms as 10 floats.
static_assert(sizeof(Transform) == 10 * sizeof(float) && offsetof(Transform, translation) == 0 &&
                  offsetof(Transform, rotation) == 3 * sizeof(float) &&
                  offsetof(Transform, scale) == 7 * sizeof(float),
              "Transform: translation, rotation (x y z w), scale, no padding");

// a * (1 - w) + b * w for a vector stored at p in a and b (4 floats read, 3 written).
inline F4 lerp(const float* a, const float* b, F4 w, F4 v) {
  return simd::load(a) * v + simd::load(b) * w;
}

// Four joints: a, b and out point at 4 transforms each (out may alias a or b).
void blend4(const Transform* a, const Transform* b, const float* w, Transform* out) {
  F4 ax = simd::load(&a[0].rotation.x), ay = simd::load(&a[1].rotation.x),
     az = simd::load(&a[2].rotation.x), aw = simd::load(&a[3].rotation.x);
  F4 bx = simd::load(&b[0].rotation.x), by = simd::load(&b[1].rotation.x),
     bz = simd::load(&b[2].rotation.x), bw = simd::load(&b[3].rotation.x);
  simd::transpose(ax, ay, az, aw);
  simd::transpose(bx, by, bz, bw);
  simd::Quat4 q = simd::slerp_shortest({ax, ay, az, aw}, {bx, by, bz, bw}, simd::load(w));
  simd::transpose(q.x, q.y, q.z, q.w);
  const F4 lanes[4] = {q.x, q.y, q.z, q.w};
  for (int l = 0; l < 4; ++l) {
    if (w[l] <= 0.0f) {
      out[l] = a[l];
    } else if (w[l] >= 1.0f) {
      out[l] = b[l];
    } else {
      const F4 wl = simd::splat(w[l]), vl = simd::splat(1.0f - w[l]);
      // Translation: floats 0..2 (the 4th lane read is rotation.x). Scale: floats 7..9, read
      // as floats 6..9 so that the load stays inside the transform; shifted down after.
      const F4 t = lerp(&a[l].translation.x, &b[l].translation.x, wl, vl);
      const F4 s = lerp(&a[l].rotation.w, &b[l].rotation.w, wl, vl);
      simd::store3(&out[l].translation.x, t);
      simd::store(&out[l].rotation.x, lanes[l]);
      simd::store3(&out[l].scale.x, simd::shift_down(s));
    }
  }
}

}  // namespace

bool BlendJob::validate() const {
  return b.size() == a.size() && output.size() == a.size() && detail::valid_mask(mask, a.size()) &&
         std::isfinite(weight) && detail::same_or_disjoint(a, output) &&
         detail::same_or_disjoint(b, output);
}

bool BlendJob::run() const {
  if (!validate()) return false;
  const size_t n = a.size();
  size_t j = 0;
#if defined(ANIM_HAVE_AVX2_VARIANTS)
  // (The spans as floats without touching a member: an empty span's data() may be null.)
  if (n >= 8 && simd::wide_enabled())
    j = detail::blend_avx2(
        reinterpret_cast<const float*>(a.data()), reinterpret_cast<const float*>(b.data()), weight,
        mask.empty() ? nullptr : mask.data(), reinterpret_cast<float*>(output.data()), n);
#endif
  float w[4];
  for (; j + 4 <= n; j += 4) {
    for (int l = 0; l < 4; ++l) w[l] = mask.empty() ? weight : weight * mask[j + l];
    blend4(a.data() + j, b.data() + j, w, output.data() + j);
  }
  if (j < n) {
    // The last 1..3 joints, through a padded block of copies (identity lanes at weight 0).
    Transform ta[4], tb[4], to[4];
    for (int l = 0; l < 4; ++l) {
      const bool used = j + l < n;
      if (used) {
        ta[l] = a[j + l];
        tb[l] = b[j + l];
      }
      w[l] = !used ? 0.0f : mask.empty() ? weight : weight * mask[j + l];
    }
    blend4(ta, tb, w, to);
    for (size_t l = 0; j + l < n; ++l) output[j + l] = to[l];
  }
  return true;
}

}  // namespace anim

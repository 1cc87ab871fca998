#include "anim/palette_job.h"

#include "palette_avx2.h"
#include "simd4.h"
#include "simd_dispatch.h"

namespace anim {

using simd::F4;

bool PaletteJob::validate() const {
  return inverse_bind.size() == model.size() && output.size() == model.size();
}

bool PaletteJob::run() const {
  if (!validate()) return false;
  const size_t n = model.size();
#if defined(ANIM_HAVE_AVX2_VARIANTS)
  if (simd::wide_enabled()) {
    // (The spans as floats without touching a member: an empty span's data() may be null.)
    static_assert(sizeof(glm::mat4) == 16 * sizeof(float) &&
                  sizeof(PaletteMatrix) == 12 * sizeof(float));
    detail::palette_avx2(reinterpret_cast<const float*>(model.data()),
                         reinterpret_cast<const float*>(inverse_bind.data()),
                         reinterpret_cast<float*>(output.data()), n);
    return true;
  }
#endif
  for (size_t j = 0; j < n; ++j) {
    const glm::mat4& m = model[j];
    const glm::mat4& ib = inverse_bind[j];
    const F4 m0 = simd::load(&m[0][0]), m1 = simd::load(&m[1][0]), m2 = simd::load(&m[2][0]),
             m3 = simd::load(&m[3][0]);
    F4 c[4];
    for (int col = 0; col < 4; ++col) {
      const F4 b = simd::load(&ib[col][0]);
      c[col] = m0 * simd::broadcast<0>(b) + m1 * simd::broadcast<1>(b) +
               m2 * simd::broadcast<2>(b) + m3 * simd::broadcast<3>(b);
    }
    // Columns to rows: rows 0..2 are the palette's 12 floats.
    simd::transpose(c[0], c[1], c[2], c[3]);
    float* out = output[j].m;
    simd::store(out, c[0]);
    simd::store(out + 4, c[1]);
    simd::store(out + 8, c[2]);
  }
  return true;
}

}  // namespace anim

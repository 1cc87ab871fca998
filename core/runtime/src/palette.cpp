#include "anim/palette.h"

#include <algorithm>
#include <cstdint>

#include "anim/local_to_model_job.h"
#include "anim/palette_job.h"
#include "anim/skeleton.h"
#include "simd4.h"

namespace anim {

PaletteMatrix PaletteMatrix::from_mat4(const glm::mat4& a) {
  PaletteMatrix p;
  // glm is column-major: a[col][row]. Rows 0..2 of the affine matrix, row-major.
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) p.m[r * 4 + c] = a[c][r];
  return p;
}

glm::mat4 PaletteMatrix::to_mat4() const {
  glm::mat4 a(1.0f);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) a[c][r] = m[r * 4 + c];
  return a;
}

namespace {
// One matrix's top three rows: its four columns transposed, the fourth row dropped.
template <bool kStream>
inline void store_rows(const glm::mat4& a, float* out) {
  simd::F4 c0 = simd::load(&a[0][0]), c1 = simd::load(&a[1][0]), c2 = simd::load(&a[2][0]),
           c3 = simd::load(&a[3][0]);
  simd::transpose(c0, c1, c2, c3);
  if constexpr (kStream) {
    simd::store_stream(out, c0);
    simd::store_stream(out + 4, c1);
    simd::store_stream(out + 8, c2);
  } else {
    simd::store(out, c0);
    simd::store(out + 4, c1);
    simd::store(out + 8, c2);
  }
}
}  // namespace

void to_rows(std::span<const glm::mat4> m, std::span<PaletteMatrix> rows) {
  const size_t n = std::min(m.size(), rows.size());
  for (size_t i = 0; i < n; ++i) store_rows<false>(m[i], rows[i].m);
}

void to_rows_uncached(std::span<const glm::mat4> m, std::span<PaletteMatrix> rows) {
  const size_t n = std::min(m.size(), rows.size());
  // Streaming stores need 16-byte alignment; PaletteMatrix is 48 bytes, so the first row
  // decides for all.
  if (n == 0 || reinterpret_cast<uintptr_t>(rows.data()) % 16 != 0) return to_rows(m, rows);
  for (size_t i = 0; i < n; ++i) store_rows<true>(m[i], rows[i].m);
  simd::stream_fence();
}

void local_to_model(const Skeleton& skeleton, std::span<const Transform> locals,
                    std::span<glm::mat4> model) {
  LocalToModelJob job;
  job.skeleton = &skeleton;
  job.input = locals.first(skeleton.num_joints());
  job.output = model.first(skeleton.num_joints());
  job.run();
}

void build_palette(const Skeleton& skeleton, std::span<const glm::mat4> model,
                   std::span<PaletteMatrix> palette) {
  const size_t n = static_cast<size_t>(skeleton.num_joints());
  PaletteJob job;
  job.model = model.first(n);
  job.inverse_bind = skeleton.inverse_bind;
  job.output = palette.first(n);
  job.run();
}

}  // namespace anim

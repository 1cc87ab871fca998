#include "anim/palette.h"

#include "anim/local_to_model_job.h"
#include "anim/palette_job.h"
#include "anim/skeleton.h"

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

#include "anim/palette.h"

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
  const int n = skeleton.num_joints();
  const int16_t* parents = skeleton.parents.data();
  for (int i = 0; i < n; ++i) {
    const glm::mat4 local = to_matrix(locals[i]);
    const int p = parents[i];
    model[i] = (p < 0 ? skeleton.root_transform : model[p]) * local;
  }
}

void build_palette(const Skeleton& skeleton, std::span<const glm::mat4> model,
                   std::span<PaletteMatrix> palette) {
  const int n = skeleton.num_joints();
  for (int i = 0; i < n; ++i)
    palette[i] = PaletteMatrix::from_mat4(model[i] * skeleton.inverse_bind[i]);
}

}  // namespace anim

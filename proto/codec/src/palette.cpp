// The client's way from a decoded pose to the skin palette (core/runtime/include/anim/palette.h
// defines the same palette from float locals).
#include <glm/gtc/matrix_transform.hpp>

#include "animcodec/compact.h"

namespace animcodec {

namespace {
glm::mat4 trs_matrix(const Trs& t) {
  glm::mat4 m = glm::mat4_cast(t.r);
  m[0] *= t.s.x;
  m[1] *= t.s.y;
  m[2] *= t.s.z;
  m[3] = glm::vec4(t.t, 1.0f);
  return m;
}
}  // namespace

void build_palette(const Skeleton& skeleton, std::span<const QJoint> pose, std::span<Trs> locals,
                   std::span<glm::mat4> model, std::span<float> palette) {
  const size_t n = skeleton.layout.num_joints();
  for (size_t j = 0; j < n; ++j) {
    locals[j] = dequantize_joint(skeleton.layout, j, pose[j]);
    const int p = skeleton.parents[j];
    model[j] = (p < 0 ? skeleton.root_transform : model[p]) * trs_matrix(locals[j]);
    const glm::mat4 m = model[j] * skeleton.inverse_bind[j];
    float* out = palette.data() + 12 * j;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) out[4 * r + c] = m[c][r];
  }
}

}  // namespace animcodec

#include "bounds.h"

#include <algorithm>

namespace animview {

Aabb transformed(const Aabb& box, const glm::mat4& m) {
  Aabb out;
  if (box.empty()) return out;
  for (int i = 0; i < 8; ++i) {
    glm::vec3 corner{(i & 1) ? box.max.x : box.min.x, (i & 2) ? box.max.y : box.min.y,
                     (i & 4) ? box.max.z : box.min.z};
    out.add(glm::vec3(m * glm::vec4(corner, 1.0f)));
  }
  return out;
}

Aabb skinned_bounds(const std::vector<Aabb>& joint_boxes, const float* palette,
                    uint32_t palette_joints) {
  Aabb out;
  const size_t n = std::min<size_t>(joint_boxes.size(), palette_joints);
  for (size_t j = 0; j < n; ++j) {
    const float* p = palette + 12 * j;
    glm::mat4 m(1.0f);  // glm is column-major: m[col][row]
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) m[c][r] = p[r * 4 + c];
    out.add(transformed(joint_boxes[j], m));
  }
  return out;
}

}  // namespace animview

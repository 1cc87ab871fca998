#include "bounds.h"

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

}  // namespace animview

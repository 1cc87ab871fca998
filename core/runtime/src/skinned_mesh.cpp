#include "anim/skinned_mesh.h"

#include <algorithm>

namespace anim {

int MorphSet::find_target(std::string_view target_name) const {
  for (size_t k = 0; k < targets.size(); ++k)
    if (targets[k].name == target_name) return static_cast<int>(k);
  return -1;
}

int SkinnedMesh::find_morph_set(std::string_view set_name) const {
  for (size_t s = 0; s < morph_sets.size(); ++s)
    if (morph_sets[s].name == set_name) return static_cast<int>(s);
  return -1;
}

void apply_morph_positions(const MorphSet& set, std::span<const float> weights,
                           std::span<glm::vec3> positions) {
  const size_t n = std::min(weights.size(), set.targets.size());
  for (size_t k = 0; k < n; ++k) {
    const float w = weights[k];
    if (w == 0.0f) continue;
    const MorphTarget& t = set.targets[k];
    for (size_t e = 0; e < t.vertices.size(); ++e)
      if (t.vertices[e] < positions.size()) positions[t.vertices[e]] += w * t.position_deltas[e];
  }
}

}  // namespace anim

#include "morph_pack.h"

namespace animview {

PackedMorphs pack_morphs(const std::vector<CpuMorphSet>& sets, uint32_t num_vertices) {
  PackedMorphs out;
  out.runs.assign(2 * size_t{num_vertices}, 0);
  // Counts per vertex, then each vertex's first entry, then the entries in target order.
  for (const CpuMorphSet& set : sets)
    for (const CpuMorphTarget& t : set.targets)
      for (uint32_t v : t.vertices) ++out.runs[2 * size_t{v} + 1];
  uint32_t next = 0;
  for (uint32_t v = 0; v < num_vertices; ++v) {
    out.runs[2 * size_t{v}] = next;
    next += out.runs[2 * size_t{v} + 1];
  }
  out.entries = next;
  out.texels.assign(size_t{next} * kTexelsPerMorphEntry * 4, 0.0f);
  std::vector<uint32_t> filled(num_vertices, 0);
  uint32_t target = 0;
  for (const CpuMorphSet& set : sets) {
    for (const CpuMorphTarget& t : set.targets) {
      for (size_t i = 0; i < t.vertices.size(); ++i) {
        const uint32_t v = t.vertices[i];
        const size_t entry = out.runs[2 * size_t{v}] + filled[v]++;
        float* texel = &out.texels[entry * kTexelsPerMorphEntry * 4];
        for (int c = 0; c < 3; ++c) texel[c] = t.position_deltas[3 * i + c];
        texel[3] = static_cast<float>(target);
        if (!t.normal_deltas.empty())
          for (int c = 0; c < 3; ++c) texel[4 + c] = t.normal_deltas[3 * i + c];
      }
      ++target;
    }
  }
  return out;
}

}  // namespace animview

#pragma once
// Morph targets laid out for the vertex shader (shaders.cpp, the morph variant of the skin
// program). No GL.
//
// Each vertex that a target moves owns a run of entries, one per (target, vertex) pair, in
// flat target order; an entry is two RGBA32F texels: (position delta x, y, z, flat target
// index) and (normal delta x, y, z, 0). The target index is stored as a float, exact below
// 2^24. The shader walks the run of its vertex and adds weight[target] x delta.

#include <cstdint>
#include <vector>

#include "morph_decode.h"

namespace animview {

inline constexpr uint32_t kTexelsPerMorphEntry = 2;

struct PackedMorphs {
  std::vector<uint32_t> runs;  // 2 per vertex: first entry, entry count (0 for an unmoved one)
  std::vector<float> texels;   // 4 floats per texel, kTexelsPerMorphEntry texels per entry
  uint32_t entries = 0;
};

// Packs the decoded `sets` (morph_decode.h invariants hold) of a mesh of `num_vertices`.
PackedMorphs pack_morphs(const std::vector<CpuMorphSet>& sets, uint32_t num_vertices);

}  // namespace animview

#pragma once
// Decoding and checking MeshData.morph_sets (assets.proto): the morph targets of a mesh,
// sparse as the daemon sends them. No GL.
//
// A vertex v of a set is morphed, then skinned (docs/protocol.md, "get_asset_data: morph
// targets"):
//   position(v) = position[v] + sum over targets k of weight[k] x position delta of k at v
//   normal(v)   = normalize(normal[v] + sum over k of weight[k] x normal delta of k at v)
// The character's weights are one flat list: the sets in order, each set's targets in order.

#include <cstdint>
#include <string>
#include <vector>

#include "anim/v1/assets.pb.h"

namespace animview {

// One target, sparse: the vertices it moves and their deltas.
// Invariants after a successful decode: `vertices` is strictly increasing, each entry lies in
// one of its set's ranges; position_deltas has 3 finite floats per entry; normal_deltas is
// empty or has 3 finite floats per entry.
struct CpuMorphTarget {
  std::string name;
  std::vector<uint32_t> vertices;
  std::vector<float> position_deltas;
  std::vector<float> normal_deltas;
};

struct CpuVertexRange {
  uint32_t first = 0;
  uint32_t count = 0;
};

// Invariants after a successful decode: at least one target; one finite default weight per
// target; ranges non-empty, increasing, not overlapping and inside the mesh's vertices.
struct CpuMorphSet {
  std::string name;
  std::string node;
  std::vector<CpuVertexRange> ranges;
  std::vector<CpuMorphTarget> targets;
  std::vector<float> default_weights;
};

// Decodes every set of `mesh` for its num_vertices. On failure returns false, leaves `out`
// unspecified and sets `error` to what is wrong, naming the set and target ("morph set
// 'Head' target 'Sad': vertex 12 is 9000, but the mesh has 876 vertices").
bool decode_morph_sets(const anim::v1::MeshData& mesh, std::vector<CpuMorphSet>& out,
                       std::string& error);

// The number of weights a character of these sets has (every set's targets).
uint32_t morph_weight_count(const std::vector<CpuMorphSet>& sets);

// The sets' default weights, in the flat order.
std::vector<float> default_morph_weights(const std::vector<CpuMorphSet>& sets);

// Adds weights[k] x every position delta of flat target k to `positions` (3 floats per vertex
// of the mesh the sets were decoded for). `weights` has morph_weight_count(sets) entries.
void apply_morph_positions(const std::vector<CpuMorphSet>& sets, const float* weights,
                           std::vector<float>& positions);

}  // namespace animview

#pragma once
// Decoding anim.v1.MeshData (little-endian packed byte arrays, see assets.proto) into typed
// arrays ready for GPU upload, with every size and index checked. No GL.

#include <cstdint>
#include <string>
#include <vector>

#include "anim/v1/assets.pb.h"
#include "bounds.h"
#include "morph_decode.h"

namespace animview {

// A skinned mesh in bind pose, model space. Invariants after a successful decode: every
// per-vertex array has num_vertices entries (3, 3, 4, 4 components), each vertex's weights
// are >= 0 and sum to 1, joint indices < the skeleton's joint count, indices are a
// triangle list of values < num_vertices.
struct CpuMesh {
  uint32_t num_vertices = 0;
  std::vector<float> positions;   // x, y, z per vertex
  std::vector<float> normals;     // x, y, z per vertex, unit length
  std::vector<uint16_t> joints;   // 4 palette indices per vertex
  std::vector<float> weights;     // 4 per vertex, summing to 1
  std::vector<uint32_t> indices;  // triangle list
  // Morph targets (morph_decode.h), empty for a mesh without them.
  std::vector<CpuMorphSet> morph_sets;
  // Of the bind-pose positions, and of each one moved by each morph target at weight 1.
  Aabb bounds;
  // Per joint: the box of the positions above that it influences (weight > 0); empty for a
  // joint that moves no vertex. Skinned by a palette, they bound the posed mesh (framing).
  std::vector<Aabb> joint_bounds;
};

// Decodes `mesh` for a skeleton of `num_joints` joints. On failure returns false, leaves
// `out` unspecified and sets `error` to what is wrong (which array, which element).
// Normals may be absent (empty): they are then computed from the triangles (area-weighted).
// Weights that do not sum to 1 (but to > 0) are renormalized, as a GPU skinning shader
// assumes they do. Morph sets are decoded and checked with decode_morph_sets.
bool decode_mesh(const anim::v1::MeshData& mesh, uint32_t num_joints, CpuMesh& out,
                 std::string& error);

}  // namespace animview

#pragma once
// SkinnedMesh: the render data a client needs to draw a character with GPU skinning.
// Vertices are in bind space: the space the palette maps from (palette[j] x vertex = the
// vertex in the asset's scene space, see Skeleton). For glTF that is the skinned meshes'
// vertex data as stored; meshes rigidly attached to a joint are moved into it on load.
//
// Invariants: every per-vertex array has num_vertices() entries (uvs may be empty when the
// source has none); the 4 weights of a vertex are >= 0 and sum to 1 (within 1e-5); joint
// indices are skeleton indices (not source indices) and < the skeleton's joint count;
// indices form triangles and are < num_vertices(); submeshes cover the index array.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace anim {

struct Submesh {
  uint32_t first_index = 0;  // into SkinnedMesh::indices
  uint32_t index_count = 0;  // a multiple of 3
  std::string material;      // material name from the source, may be empty
};

struct SkinnedMesh {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;  // unit length
  // Texture coordinates in the glTF convention: (0, 0) is the image's top-left corner, u
  // grows to the right and v downward. glTF TEXCOORD_0 and MD5 `vert ( u v )` (Doom 3 uses
  // the same top-left origin) are stored unchanged; the builtin character has no texture and
  // uses u = angle around a part / 2pi (0..1, seam repeated), v = ring index / (rings - 1)
  // along the part. Empty when the source has no texture coordinates.
  std::vector<glm::vec2> uvs;
  std::vector<std::array<uint16_t, 4>> joints;  // 4 influences per vertex (skeleton order)
  std::vector<glm::vec4> weights;               // matching weights, normalized to sum 1
  std::vector<uint32_t> indices;                // triangle list
  std::vector<Submesh> submeshes;               // one per glTF primitive / MD5 mesh

  int num_vertices() const { return static_cast<int>(positions.size()); }
};

}  // namespace anim

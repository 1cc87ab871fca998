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
//
// Morph targets (blend shapes) come in morph sets, one per source mesh that has targets (a
// glTF mesh node; a mesh merged from several keeps one set per source mesh). A drawn vertex v
// of a set is first morphed, then skinned:
//   position(v) = positions[v] + sum over targets k of weight[k] x position delta of k at v
//   normal(v)   = normalize(normals[v] + sum over k of weight[k] x normal delta of k at v)
// with the set's weights (its defaults, a clip's weights channel: morph_weights.h, or the
// game's), and the result is skinned like any vertex. Deltas are in bind space, like the
// vertices they move.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

namespace anim {

struct Submesh {
  uint32_t first_index = 0;  // into SkinnedMesh::indices
  uint32_t index_count = 0;  // a multiple of 3
  std::string material;      // material name from the source, may be empty
};

// A run of the merged vertex arrays: the vertices of one source primitive.
struct VertexRange {
  uint32_t first_vertex = 0;  // into SkinnedMesh::positions
  uint32_t vertex_count = 0;
};

// One morph target of a set, stored sparse: only the vertices it moves. Faces, bulges and
// corrective shapes move a small part of a character's vertices, so a list of (vertex, delta)
// costs far less than a delta per vertex of the set per target, and applying a target costs
// its entries, not the mesh.
//
// Invariants: `vertices` is strictly increasing and each entry lies in one of the set's
// `ranges`; position_deltas has one entry per vertex; normal_deltas is empty (the source
// has no normal deltas for this target) or has one entry per vertex. A vertex is listed
// when its position or its normal delta is non-zero.
struct MorphTarget {
  std::string name;  // unique within the set (glTF: mesh.extras.targetNames, else "target<i>")
  std::vector<uint32_t> vertices;          // indices into SkinnedMesh::positions
  std::vector<glm::vec3> position_deltas;  // bind-space units (those of `positions`), finite
  // Bind-space normal change, to add before normalizing (see the top of this file). Scaled so
  // that the morphed normal has the direction the source's morphed normal has after the
  // move into bind space.
  std::vector<glm::vec3> normal_deltas;
};

// The morph targets of one source mesh.
//
// Invariants: every target and default weight has the same index (default_weights.size() ==
// targets.size() >= 1); ranges do not overlap and are in increasing order; default weights
// are finite.
struct MorphSet {
  std::string name;  // the source mesh's name (glTF: mesh.name, else "mesh_<index>")
  std::string node;  // the glTF node instancing the mesh (its name, else "node_<index>")
  std::vector<VertexRange> ranges;  // the set's vertices: one range per loaded primitive
  std::vector<MorphTarget> targets;
  // Weights when nothing animates or sets them (glTF: node.weights, else mesh.weights, else
  // 0); usually in [0, 1], though a file may go beyond.
  std::vector<float> default_weights;

  int num_targets() const { return static_cast<int>(targets.size()); }
  // Index of the target called `target_name`, or -1.
  int find_target(std::string_view target_name) const;
};

// Adds `weights[k]` x the position deltas of target k of `set` to `positions` (indexed like
// SkinnedMesh::positions), for every k. `weights` has set.num_targets() entries; zero weights
// cost nothing. Allocates nothing.
void apply_morph_positions(const MorphSet& set, std::span<const float> weights,
                           std::span<glm::vec3> positions);

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
  // Morph targets, one set per source mesh that has them (empty when none has). Clips refer
  // to a set by its index here.
  std::vector<MorphSet> morph_sets;

  int num_vertices() const { return static_cast<int>(positions.size()); }
  // Index of the morph set called `set_name`, or -1.
  int find_morph_set(std::string_view set_name) const;
};

}  // namespace anim

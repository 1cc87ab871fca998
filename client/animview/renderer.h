#pragma once
// Draws one view: every character skinned on the GPU (its asset's mesh, its palette in a
// texture buffer, its root transform as model matrix), then the ground grid. A mesh with
// morph targets is drawn with the morph program and the character's weights (its sample's
// when it has one per target, else the mesh's defaults) in a texture buffer of its own.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "camera.h"
#include "colors.h"
#include "grid.h"
#include "mesh_gpu.h"
#include "palette_buffer.h"
#include "shaders.h"
#include "stream_state.h"
#include "texel_buffer.h"

namespace animview {

// An asset's mesh on the GPU, fetched once with get_asset_data.
struct DrawableAsset {
  GpuMesh mesh;
  Aabb bounds;                     // bind-pose bounds of the mesh (bind space: not what is drawn)
  std::vector<Aabb> joint_bounds;  // CpuMesh::joint_bounds: skinned by a palette for framing
  uint32_t joints = 0;             // skeleton joint count: the palette must have at least this many
};

using AssetMap = std::map<std::string, std::unique_ptr<DrawableAsset>>;

// A drawn character's key: (daemon, id), ordered daemon first.
inline uint64_t draw_key(const CharacterSample& c) {
  return (uint64_t{c.daemon} << 32) | c.id;
}

class Renderer {
 public:
  // Compiles the programs. Needs a current GL 3.3 core context.
  bool init(std::string& error);
  void set_grid(const GridLayout& layout) { grid_.build(layout); }
  // Draws into the bound framebuffer (viewport width x height). Characters whose asset is
  // not loaded yet, or whose palette has fewer joints than the skeleton, are skipped.
  void draw(const OrbitCamera& camera, int width, int height,
            const std::vector<CharacterSample>& characters, const AssetMap& assets);
  // Frees the palette (and morph weight) buffers of characters no longer drawn. `characters` is
  // sorted by draw_key (StreamState::sample's output, daemon after daemon).
  void forget_characters_except(const std::vector<CharacterSample>& characters);
  // Characters skipped by the last draw() (asset missing or palette too short).
  size_t skipped() const { return skipped_; }

 private:
  // Binds `program` (when not bound) with the frame's camera and light.
  void use(const SkinProgram& program);

  SkinProgram skin_;
  SkinProgram skin_morph_;
  GridProgram grid_program_;
  Grid grid_;
  // By draw_key(): (daemon, id).
  std::map<uint64_t, PaletteBuffer> palettes_;
  std::map<uint64_t, TexelBuffer> morph_weights_;  // characters of meshes with morphs
  const SkinProgram* bound_ = nullptr;
  glm::mat4 view_proj_{1.0f};
  glm::vec3 light_{0.0f, 1.0f, 0.0f};
  size_t skipped_ = 0;
};

// The box around every character that can be drawn, as drawn: each asset's per-joint bind
// boxes skinned by the character's current palette (scene space), then placed by its root
// transform (the bind-pose box when there is no palette yet). Empty when none can.
Aabb scene_bounds(const std::vector<CharacterSample>& characters, const AssetMap& assets);

}  // namespace animview

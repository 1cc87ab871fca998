#include "renderer.h"

#include <glm/gtc/matrix_inverse.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace animview {

bool Renderer::init(std::string& error) {
  if (!skin_.build(false, error) || !skin_morph_.build(true, error) || !grid_program_.build(error))
    return false;
  grid_.build(layout_grid(Aabb{}));
  return true;
}

void Renderer::draw(const OrbitCamera& camera, int width, int height,
                    const std::vector<CharacterSample>& characters, const AssetMap& assets) {
  glViewport(0, 0, width, height);
  glClearColor(kBackground[0], kBackground[1], kBackground[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);  // assets do not promise consistent winding

  const float aspect = height > 0 ? static_cast<float>(width) / static_cast<float>(height) : 1.0f;
  const glm::mat4 view_proj = camera.projection(aspect) * camera.view();
  // The light follows the camera (above and to the left of it), so whatever side the user
  // orbits to is lit.
  const glm::vec3 eye = camera.eye();
  const glm::vec3 back = glm::normalize(eye - camera.target);
  const glm::vec3 right = glm::normalize(glm::cross(glm::vec3(0, 1, 0), back));
  light_ = glm::normalize(back * 0.6f + glm::vec3(0, 1, 0) * 0.8f - right * 0.4f);
  view_proj_ = view_proj;

  bound_ = nullptr;
  skipped_ = 0;
  for (const CharacterSample& c : characters) {
    auto it = c.asset ? assets.find(*c.asset) : assets.end();
    if (it == assets.end() || !it->second || c.joints < it->second->joints) {
      ++skipped_;
      continue;
    }
    const GpuMesh& mesh = it->second->mesh;
    const SkinProgram& program = mesh.has_morphs() ? skin_morph_ : skin_;
    use(program);
    // Uploads first, binds after: an upload binds its texture to the active unit.
    PaletteBuffer& palette = palettes_[draw_key(c)];
    palette.upload(c.palette, c.joints);
    TexelBuffer* weights = nullptr;
    if (mesh.has_morphs()) {
      const bool streamed = c.morph_weights && c.morph_weight_count == mesh.morph_weight_count();
      weights = &morph_weights_[draw_key(c)];
      weights->upload(streamed ? c.morph_weights : mesh.default_morph_weights().data(),
                      size_t{mesh.morph_weight_count()} * sizeof(float), GL_R32F, GL_STREAM_DRAW);
    }
    palette.bind(kPaletteUnit);
    if (weights) {
      weights->bind(kMorphWeightsUnit);
      mesh.bind_morph_deltas(kMorphDeltasUnit);
    }
    const glm::mat3 normal_matrix = glm::inverseTranspose(glm::mat3(c.model));
    glUniformMatrix4fv(program.model, 1, GL_FALSE, glm::value_ptr(c.model));
    glUniformMatrix3fv(program.normal_matrix, 1, GL_FALSE, glm::value_ptr(normal_matrix));
    const glm::vec3 color = character_color(c.id + 7 * c.daemon);
    glUniform3fv(program.color, 1, glm::value_ptr(color));
    mesh.draw();
  }
  grid_.draw(grid_program_, view_proj);
  bound_ = nullptr;  // the grid's program is bound now
}

void Renderer::use(const SkinProgram& program) {
  if (bound_ == &program) return;
  glUseProgram(program.id);
  glUniformMatrix4fv(program.view_proj, 1, GL_FALSE, glm::value_ptr(view_proj_));
  glUniform3fv(program.light_dir, 1, glm::value_ptr(light_));
  bound_ = &program;
}

void Renderer::forget_characters_except(const std::vector<CharacterSample>& characters) {
  // Both are sorted by draw_key (samples come from the streams' id-ordered maps, daemon after
  // daemon): one merge walk, linear in the character count even with thousands of characters.
  auto prune = [&characters](auto& buffers) {
    auto c = characters.begin();
    for (auto it = buffers.begin(); it != buffers.end();) {
      while (c != characters.end() && draw_key(*c) < it->first) ++c;
      const bool live = c != characters.end() && draw_key(*c) == it->first;
      it = live ? std::next(it) : buffers.erase(it);
    }
  };
  prune(palettes_);
  prune(morph_weights_);
}

Aabb scene_bounds(const std::vector<CharacterSample>& characters, const AssetMap& assets) {
  Aabb box;
  for (const CharacterSample& c : characters) {
    auto it = c.asset ? assets.find(*c.asset) : assets.end();
    if (it == assets.end() || !it->second) continue;
    // What is drawn is root x palette x bind vertex: bound that, never the bind pose.
    const DrawableAsset& a = *it->second;
    if (c.palette && !a.joint_bounds.empty())
      box.add(transformed(skinned_bounds(a.joint_bounds, c.palette, c.joints), c.model));
    else
      box.add(transformed(a.bounds, c.model));
  }
  return box;
}

}  // namespace animview

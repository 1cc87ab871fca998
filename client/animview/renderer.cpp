#include "renderer.h"

#include <glm/gtc/matrix_inverse.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace animview {

bool Renderer::init(std::string& error) {
  if (!skin_.build(error) || !grid_program_.build(error)) return false;
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
  const glm::vec3 light = glm::normalize(back * 0.6f + glm::vec3(0, 1, 0) * 0.8f - right * 0.4f);

  glUseProgram(skin_.id);
  glUniformMatrix4fv(skin_.view_proj, 1, GL_FALSE, glm::value_ptr(view_proj));
  glUniform3fv(skin_.light_dir, 1, glm::value_ptr(light));
  skipped_ = 0;
  for (const CharacterSample& c : characters) {
    auto it = c.asset ? assets.find(*c.asset) : assets.end();
    if (it == assets.end() || !it->second || c.joints < it->second->joints) {
      ++skipped_;
      continue;
    }
    PaletteBuffer& palette = palettes_[c.id];
    palette.upload(c.palette, c.joints);
    palette.bind(kPaletteUnit);
    const glm::mat3 normal_matrix = glm::inverseTranspose(glm::mat3(c.model));
    glUniformMatrix4fv(skin_.model, 1, GL_FALSE, glm::value_ptr(c.model));
    glUniformMatrix3fv(skin_.normal_matrix, 1, GL_FALSE, glm::value_ptr(normal_matrix));
    const glm::vec3 color = character_color(c.id);
    glUniform3fv(skin_.color, 1, glm::value_ptr(color));
    it->second->mesh.draw();
  }
  grid_.draw(grid_program_, view_proj);
}

void Renderer::forget_characters_except(const std::vector<CharacterSample>& characters) {
  // Both are sorted by id (samples come from the stream's id-ordered map): one merge walk,
  // linear in the character count even with thousands of characters.
  auto c = characters.begin();
  for (auto it = palettes_.begin(); it != palettes_.end();) {
    while (c != characters.end() && c->id < it->first) ++c;
    const bool live = c != characters.end() && c->id == it->first;
    it = live ? std::next(it) : palettes_.erase(it);
  }
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

#include "grid_layout.h"

#include <algorithm>
#include <cmath>

namespace animview {

GridLayout layout_grid(const Aabb& box) {
  GridLayout g;
  float extent = 1.0f;
  if (!box.empty()) {
    glm::vec3 s = box.size();
    extent = std::max({s.x, s.z, s.y, 1e-3f});
  }
  // Aim for one line per ~1/6 of the extent, rounded to 1, 2 or 5 x 10^k.
  float raw = extent / 6.0f;
  float p = std::pow(10.0f, std::floor(std::log10(raw)));
  float m = raw / p;
  g.spacing = (m < 1.5f ? 1.0f : m < 3.5f ? 2.0f : m < 7.5f ? 5.0f : 10.0f) * p;
  glm::vec3 c = box.empty() ? glm::vec3(0.0f) : box.center();
  g.center = {std::round(c.x / g.spacing) * g.spacing, 0.0f,
              std::round(c.z / g.spacing) * g.spacing};
  // Reach 1.5 extents out: the ground fills the view behind the characters.
  g.half_lines = std::clamp(static_cast<int>(std::ceil(1.5f * extent / g.spacing)), 5, 200);
  g.fade_radius = g.half_lines * g.spacing;
  return g;
}

std::vector<float> grid_vertices(const GridLayout& g) {
  std::vector<float> v;
  const glm::vec3 line_color{0.32f, 0.34f, 0.37f};
  // The lines through the origin are brighter, still grey: no warm colour on the ground, so
  // warm pixels are characters (colors.h).
  const glm::vec3 axis_color{0.50f, 0.52f, 0.56f};
  const float half = g.half_lines * g.spacing;
  auto push = [&](glm::vec3 a, glm::vec3 b, glm::vec3 color) {
    for (const glm::vec3& p : {a, b}) v.insert(v.end(), {p.x, p.y, p.z, color.r, color.g, color.b});
  };
  for (int i = -g.half_lines; i <= g.half_lines; ++i) {
    float x = g.center.x + i * g.spacing;
    float z = g.center.z + i * g.spacing;
    bool x_is_origin = std::abs(x) < g.spacing * 1e-3f;
    bool z_is_origin = std::abs(z) < g.spacing * 1e-3f;
    push({x, 0, g.center.z - half}, {x, 0, g.center.z + half},
         x_is_origin ? axis_color : line_color);
    push({g.center.x - half, 0, z}, {g.center.x + half, 0, z},
         z_is_origin ? axis_color : line_color);
  }
  return v;
}

}  // namespace animview

#pragma once
// The ground grid's geometry (pure, no GL): lines on the plane y = 0 around the characters,
// spaced at a round number (1, 2 or 5 times a power of ten) so that about 6-15 lines cross
// the characters' extent, whatever their units (metres, centimetres).

#include <vector>

#include "bounds.h"

namespace animview {

struct GridLayout {
  float spacing = 1.0f;       // world units between lines, > 0
  int half_lines = 10;        // lines on each side of the centre line, per axis
  glm::vec3 center{0.0f};     // on y = 0, snapped to a multiple of spacing
  float fade_radius = 10.0f;  // lines fade out towards this distance from the centre
};

// A round spacing for a scene whose bounds are `box` (empty box: 1 unit).
GridLayout layout_grid(const Aabb& box);

// Line vertices (pairs): x, y, z, r, g, b per vertex. The two centre lines through the world
// origin, when inside the grid, are drawn brighter (still grey) so the origin is visible.
std::vector<float> grid_vertices(const GridLayout& layout);

}  // namespace animview

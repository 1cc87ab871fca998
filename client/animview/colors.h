#pragma once
// The viewer's colours (linear 0..1), shared with the render tests that look for them.

#include <cstdint>

#include <glm/glm.hpp>

namespace animview {

// Background (clear) colour: a dark bluish grey.
inline constexpr float kBackground[3] = {0.16f, 0.17f, 0.20f};

// A character's albedo, by id: warm tints whose red exceeds blue by at least 0.4, so that a
// character's pixels (lit at >= 30% ambient) stand out from the bluish background and the
// grey grid: red - blue >= 0.3 * 0.4 * 255 > 30 levels.
glm::vec3 character_color(uint32_t id);

}  // namespace animview

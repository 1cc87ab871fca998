#include "colors.h"

namespace animview {

glm::vec3 character_color(uint32_t id) {
  static const glm::vec3 kColors[] = {
      {0.93f, 0.55f, 0.25f},  // orange
      {0.88f, 0.72f, 0.42f},  // sand
      {0.90f, 0.42f, 0.36f},  // coral
      {0.95f, 0.80f, 0.30f},  // gold
      {0.80f, 0.45f, 0.33f},  // terracotta
      {0.92f, 0.62f, 0.45f},  // tan
  };
  return kColors[id % (sizeof(kColors) / sizeof(kColors[0]))];
}

}  // namespace animview

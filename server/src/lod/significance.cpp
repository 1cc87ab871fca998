#include "lod/significance.h"

#include <algorithm>
#include <cmath>

namespace animd {

float distance_to_region(const StreamRegion& r, const glm::vec3& p) {
  if (r.shape == StreamRegion::Shape::kSphere)
    return std::max(0.0f, glm::length(p - r.center) - r.radius);
  const glm::vec3 outside = glm::max(glm::max(r.min - p, p - r.max), glm::vec3(0.0f));
  return glm::length(outside);
}

float watched_significance(bool watched, const glm::vec3& root,
                           std::span<const StreamRegion> regions) {
  if (watched) return 1.0f;
  float best = 0.0f;
  for (const StreamRegion& r : regions) {
    switch (r.zone(root)) {
      case StreamRegion::Zone::kInner:
        return 1.0f;
      case StreamRegion::Zone::kOuter:
        best = std::max(best, kOuterZone);
        break;
      case StreamRegion::Zone::kOutside:
        best = std::max(best, kNearRegion / (1.0f + distance_to_region(r, root) / kFalloffMetres));
        break;
    }
  }
  return best;
}

}  // namespace animd

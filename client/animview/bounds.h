#pragma once
// Axis-aligned bounding boxes, used to frame the camera on every character at start.

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace animview {

struct Aabb {
  // Empty box: min > max. Invariant for a non-empty box: min <= max on every axis.
  glm::vec3 min{1e30f};
  glm::vec3 max{-1e30f};

  bool empty() const { return min.x > max.x || min.y > max.y || min.z > max.z; }
  glm::vec3 center() const { return (min + max) * 0.5f; }
  glm::vec3 size() const { return max - min; }

  void add(const glm::vec3& p) {
    min = glm::min(min, p);
    max = glm::max(max, p);
  }
  void add(const Aabb& b) {
    if (b.empty()) return;
    add(b.min);
    add(b.max);
  }
};

// The box around the 8 corners of `box` after the affine `m` (empty stays empty).
Aabb transformed(const Aabb& box, const glm::mat4& m);

// Bounds of a mesh skinned by `palette` (12 floats per joint: rows 0..2 of the 3x4 skin
// matrix, as streamed), in the palette's space (the asset's scene space) before the root.
// `joint_boxes[j]` is the bind-space box of the vertices joint j influences. Conservative: a
// blended vertex lies in the convex hull of its joints' transformed boxes. Joints beyond
// `palette_joints` are ignored.
Aabb skinned_bounds(const std::vector<Aabb>& joint_boxes, const float* palette,
                    uint32_t palette_joints);

}  // namespace animview

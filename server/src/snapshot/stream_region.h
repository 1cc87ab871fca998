#pragma once
// The part of the world a region subscription follows (SubscribeRequest.region): a sphere or
// an axis-aligned box in world space, with an optional outer zone streamed at a lower rate.
// Checked when made (request_convert.h: region_from_proto); the stream encoder asks it, per
// character and frame, which zone the character's root position is in.

#include <cstdint>

#include <glm/glm.hpp>

namespace animd {

struct StreamRegion {
  enum class Shape : uint8_t { kSphere, kBox };
  enum class Zone : uint8_t { kOutside, kInner, kOuter };

  Shape shape = Shape::kSphere;
  glm::vec3 center{0.0f};  // kSphere: centre, metres, finite
  float radius = 0.0f;     // kSphere: metres, > 0 and finite
  glm::vec3 min{0.0f};     // kBox: corners, metres, finite, min <= max on every axis
  glm::vec3 max{0.0f};
  float outer_margin = 0.0f;   // metres, >= 0 and finite; 0 = no outer zone
  uint32_t outer_divisor = 1;  // outer-zone characters go out every Nth frame; >= 2 if margin > 0

  bool operator==(const StreamRegion&) const = default;

  // Where a point (a character's root translation, world space) is: inside the shape, in
  // the outer zone (beyond the shape, within outer_margin of it), or outside both.
  Zone zone(const glm::vec3& p) const {
    if (shape == Shape::kSphere) {
      const glm::vec3 d = p - center;
      const float d2 = glm::dot(d, d);
      if (d2 <= radius * radius) return Zone::kInner;
      const float outer = radius + outer_margin;
      return outer_margin > 0.0f && d2 <= outer * outer ? Zone::kOuter : Zone::kOutside;
    }
    if (glm::all(glm::lessThanEqual(min, p)) && glm::all(glm::lessThanEqual(p, max)))
      return Zone::kInner;
    const glm::vec3 m(outer_margin);
    return outer_margin > 0.0f && glm::all(glm::lessThanEqual(min - m, p)) &&
                   glm::all(glm::lessThanEqual(p, max + m))
               ? Zone::kOuter
               : Zone::kOutside;
  }
};

}  // namespace animd

// Ray, sphere and capsule tests (hit_geometry.h).
//
// Quadratics are solved for their smaller root as c / (-b + sqrt(b^2 - a c)) rather than
// (-b - sqrt(...)) / a: with the origin outside (c > 0) and approaching (b < 0) both terms of
// the denominator are positive, so a ray grazing a far volume loses no digits to cancellation.
#include "anim/hit_geometry.h"

#include <algorithm>
#include <cmath>

namespace anim {

std::optional<float> ray_sphere(const Ray& ray, const glm::vec3& center, float radius) {
  const glm::vec3 oc = ray.origin - center;
  const float c = glm::dot(oc, oc) - radius * radius;
  if (c <= 0.0f) return 0.0f;  // the origin is inside
  const float b = glm::dot(oc, ray.direction);
  if (!(b < 0.0f)) return std::nullopt;  // outside and moving away (or NaN)
  const float h = b * b - c;
  if (!(h >= 0.0f)) return std::nullopt;
  const float t = c / (-b + std::sqrt(h));
  if (!(t <= ray.max_distance)) return std::nullopt;
  return t;
}

glm::vec3 closest_on_segment(const glm::vec3& p, const glm::vec3& a, const glm::vec3& b) {
  const glm::vec3 ab = b - a;
  const float len2 = glm::dot(ab, ab);
  if (!(len2 > 0.0f)) return a;
  const float s = std::clamp(glm::dot(p - a, ab) / len2, 0.0f, 1.0f);
  return a + s * ab;
}

std::optional<float> ray_capsule(const Ray& ray, const glm::vec3& a, const glm::vec3& b,
                                 float radius) {
  const float r2 = radius * radius;
  const glm::vec3 from_a = ray.origin - a;
  {
    const glm::vec3 off = ray.origin - closest_on_segment(ray.origin, a, b);
    if (glm::dot(off, off) <= r2) return 0.0f;  // the origin is inside
  }
  const glm::vec3 ab = b - a;
  const float len2 = glm::dot(ab, ab);
  if (!(len2 > 0.0f)) return ray_sphere(ray, a, radius);
  // Most joints are far from the ray: one sphere around the whole capsule rejects them.
  const float len = std::sqrt(len2);
  if (!ray_sphere(ray, a + 0.5f * ab, 0.5f * len + radius)) return std::nullopt;

  // The capsule is the union of two end spheres and the cylinder between them; the first
  // point of the ray in the union is the earliest of the first points in each (an entry
  // through a flat end of the cylinder lies inside an end sphere, entered no later).
  std::optional<float> best = ray_sphere(ray, a, radius);
  if (auto t = ray_sphere(ray, b, radius); t && (!best || *t < *best)) best = t;

  // The lateral surface: |perpendicular part of (origin + t d - a)| = radius, with the point's
  // axial coordinate within the segment.
  const glm::vec3 u = ab / len;
  const float du = glm::dot(ray.direction, u);
  const float ou = glm::dot(from_a, u);
  const glm::vec3 d_perp = ray.direction - du * u;
  const glm::vec3 o_perp = from_a - ou * u;
  const float qa = glm::dot(d_perp, d_perp);
  const float qb = glm::dot(o_perp, d_perp);
  const float qc = glm::dot(o_perp, o_perp) - r2;
  // qc <= 0: the origin is within the infinite cylinder (beyond an end): it can only enter
  // through an end sphere. qb >= 0: moving away from the axis. qa == 0: parallel to it.
  if (qa > 0.0f && qb < 0.0f && qc > 0.0f) {
    const float h = qb * qb - qa * qc;
    if (h >= 0.0f) {
      const float t = qc / (-qb + std::sqrt(h));
      const float s = ou + t * du;
      if (s >= 0.0f && s <= len && t <= ray.max_distance && (!best || t < *best)) best = t;
    }
  }
  return best;
}

bool sphere_capsule(const glm::vec3& center, float sphere_radius, const glm::vec3& a,
                    const glm::vec3& b, float capsule_radius) {
  const glm::vec3 off = center - closest_on_segment(center, a, b);
  const float reach = sphere_radius + capsule_radius;
  return glm::dot(off, off) <= reach * reach;
}

glm::vec3 capsule_normal(const glm::vec3& p, const glm::vec3& a, const glm::vec3& b,
                         const glm::vec3& fallback) {
  const glm::vec3 n = p - closest_on_segment(p, a, b);
  const float len = glm::length(n);
  return len > 0.0f && std::isfinite(len) ? n / len : fallback;
}

}  // namespace anim

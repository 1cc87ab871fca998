#pragma once
// Ray, sphere and capsule tests for hit queries (hit_volumes.h). Pure functions of their
// arguments, in whatever space the caller gives (the daemon: world space, metres for most
// assets). A capsule is the set of points within `radius` of the segment a-b (a sphere when
// a == b). A ray is origin + t * direction for t in [0, max_distance], with a unit direction:
// t is then a distance.
//
// Solid volumes: a ray whose origin lies inside a volume hits it at t = 0; a sphere touching
// a capsule (distance between them exactly 0) overlaps it. Non-finite inputs never report a
// hit (every test compares, and a comparison with NaN is false).

#include <optional>

#include <glm/glm.hpp>

namespace anim {

struct Ray {
  glm::vec3 origin{0.0f};
  glm::vec3 direction{0.0f, 0.0f, 1.0f};  // unit length
  float max_distance = 0.0f;              // >= 0
};

// The first t in [0, ray.max_distance] at which the ray is inside the sphere, or nullopt.
std::optional<float> ray_sphere(const Ray& ray, const glm::vec3& center, float radius);

// The first t in [0, ray.max_distance] at which the ray is inside the capsule, or nullopt.
std::optional<float> ray_capsule(const Ray& ray, const glm::vec3& a, const glm::vec3& b,
                                 float radius);

// The point of segment a-b closest to p (a when a == b).
glm::vec3 closest_on_segment(const glm::vec3& p, const glm::vec3& a, const glm::vec3& b);

// True when the sphere and the capsule share a point.
bool sphere_capsule(const glm::vec3& center, float sphere_radius, const glm::vec3& a,
                    const glm::vec3& b, float capsule_radius);

// The outward unit normal of the capsule's surface nearest to `p` (a point on or near it):
// from the closest point of the segment to p. When p lies on the segment itself, `fallback`.
glm::vec3 capsule_normal(const glm::vec3& p, const glm::vec3& a, const glm::vec3& b,
                         const glm::vec3& fallback);

}  // namespace anim

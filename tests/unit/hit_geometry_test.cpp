// Ray / sphere / capsule tests against hand-computed distances (hit_geometry.h).
//
// The capsule used throughout: segment (0,0,0)-(0,2,0), radius 0.5 (a vertical pill from
// y = -0.5 to y = 2.5).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "anim/hit_geometry.h"

namespace anim {
namespace hit_geometry_test {

constexpr float kEps = 1e-5f;
const glm::vec3 kA{0.0f, 0.0f, 0.0f};
const glm::vec3 kB{0.0f, 2.0f, 0.0f};
constexpr float kR = 0.5f;

Ray ray(glm::vec3 origin, glm::vec3 direction, float max_distance = 100.0f) {
  return Ray{origin, glm::normalize(direction), max_distance};
}

TEST(RaySphere, EntersAtCenterDistanceMinusRadius) {
  const auto t = ray_sphere(ray({0, 0, -5}, {0, 0, 1}), {0, 0, 0}, 1.0f);
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 4.0f, kEps);
}

TEST(RaySphere, OffsetRayEntersWhereThePythagoreanChordSays) {
  // Offset 0.6 from the centre line: the surface is sqrt(1 - 0.36) = 0.8 before the centre.
  const auto t = ray_sphere(ray({0.6f, 0, -5}, {0, 0, 1}), {0, 0, 0}, 1.0f);
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 5.0f - 0.8f, kEps);
}

TEST(RaySphere, MissesBeyondMaxDistanceBehindAndBeside) {
  EXPECT_FALSE(ray_sphere(ray({0, 0, -5}, {0, 0, 1}, 3.9f), {0, 0, 0}, 1.0f));
  EXPECT_TRUE(ray_sphere(ray({0, 0, -5}, {0, 0, 1}, 4.0f), {0, 0, 0}, 1.0f));
  EXPECT_FALSE(ray_sphere(ray({0, 0, -5}, {0, 0, -1}), {0, 0, 0}, 1.0f));  // pointing away
  EXPECT_FALSE(ray_sphere(ray({1.01f, 0, -5}, {0, 0, 1}), {0, 0, 0}, 1.0f));
}

TEST(RaySphere, OriginInsideHitsAtZero) {
  const auto t = ray_sphere(ray({0.2f, 0.1f, 0}, {1, 0, 0}), {0, 0, 0}, 1.0f);
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, 0.0f);
}

TEST(RaySphere, NaNNeverHits) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(ray_sphere(Ray{{nan, 0, -5}, {0, 0, 1}, 10}, {0, 0, 0}, 1.0f));
  EXPECT_FALSE(ray_sphere(ray({0, 0, -5}, {0, 0, 1}), {0, 0, 0}, nan));
}

TEST(RayCapsule, SideHitOnTheCylinder) {
  // From x = -3 at mid height: the surface is at x = -0.5.
  const auto t = ray_capsule(ray({-3, 1, 0}, {1, 0, 0}), kA, kB, kR);
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 2.5f, kEps);
}

TEST(RayCapsule, EndCapsAlongTheAxis) {
  const auto top = ray_capsule(ray({0, 5, 0}, {0, -1, 0}), kA, kB, kR);
  ASSERT_TRUE(top);
  EXPECT_NEAR(*top, 2.5f, kEps);  // y = 2.5
  const auto bottom = ray_capsule(ray({0, -3, 0}, {0, 1, 0}), kA, kB, kR);
  ASSERT_TRUE(bottom);
  EXPECT_NEAR(*bottom, 2.5f, kEps);  // y = -0.5
}

TEST(RayCapsule, PassingOverTheEndHitsTheCapSphere) {
  // 0.3 above b: the cap is at x = -sqrt(0.25 - 0.09) = -0.4.
  const auto t = ray_capsule(ray({-3, 2.3f, 0}, {1, 0, 0}), kA, kB, kR);
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 2.6f, kEps);
  EXPECT_FALSE(ray_capsule(ray({-3, 2.6f, 0}, {1, 0, 0}), kA, kB, kR));  // 0.6 above: clear
}

TEST(RayCapsule, DiagonalRayThroughTheAxisEntersHalfARadiusEarly) {
  // In the plane y = 1, aimed at the axis from (-3, 1, -3): the axis is 3 sqrt(2) away.
  const auto t = ray_capsule(ray({-3, 1, -3}, {1, 0, 1}), kA, kB, kR);
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 3.0f * std::sqrt(2.0f) - 0.5f, kEps);
}

TEST(RayCapsule, SlantedRayMeetsTheCylinderWhereTheQuadraticSays) {
  // Direction (1, 1, 0)/sqrt2 from (-2, -1, 0): points (-2 + s, -1 + s); the body surface
  // x = -0.5 is reached at s = 1.5 (y = 0.5, inside the segment's span), t = 1.5 sqrt(2).
  const auto t = ray_capsule(ray({-2, -1, 0}, {1, 1, 0}), kA, kB, kR);
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 1.5f * std::sqrt(2.0f), kEps);
}

TEST(RayCapsule, ParallelToTheAxis) {
  // Inside the radius: through the bottom cap at y = -sqrt(0.25 - 0.09) = -0.4.
  const auto t = ray_capsule(ray({0.3f, -3, 0}, {0, 1, 0}), kA, kB, kR);
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 2.6f, kEps);
  EXPECT_FALSE(ray_capsule(ray({0.6f, -3, 0}, {0, 1, 0}), kA, kB, kR));
  // Starting beyond the top end inside the infinite cylinder: through the top cap, y = 2.4.
  const auto down = ray_capsule(ray({0.3f, 5, 0}, {0, -1, 0}), kA, kB, kR);
  ASSERT_TRUE(down);
  EXPECT_NEAR(*down, 2.6f, kEps);
}

TEST(RayCapsule, OriginInsideHitsAtZero) {
  const auto t = ray_capsule(ray({0.1f, 1, 0}, {1, 0, 0}), kA, kB, kR);
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, 0.0f);
  const auto cap = ray_capsule(ray({0, 2.4f, 0}, {0, 1, 0}), kA, kB, kR);
  ASSERT_TRUE(cap);
  EXPECT_EQ(*cap, 0.0f);
}

TEST(RayCapsule, MaxDistanceAndDirection) {
  EXPECT_FALSE(ray_capsule(ray({-3, 1, 0}, {1, 0, 0}, 2.49f), kA, kB, kR));
  EXPECT_TRUE(ray_capsule(ray({-3, 1, 0}, {1, 0, 0}, 2.5f), kA, kB, kR));
  EXPECT_FALSE(ray_capsule(ray({-3, 1, 0}, {-1, 0, 0}), kA, kB, kR));
  EXPECT_FALSE(ray_capsule(ray({-3, 1, 0}, {0, 0, 1}), kA, kB, kR));
}

TEST(RayCapsule, DegenerateSegmentIsASphere) {
  const auto t = ray_capsule(ray({0, 0, -5}, {0, 0, 1}), {0, 0, 0}, {0, 0, 0}, 1.0f);
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 4.0f, kEps);
}

TEST(RayCapsule, NaNNeverHits) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(ray_capsule(Ray{{nan, 1, -3}, {0, 0, 1}, 10}, kA, kB, kR));
  EXPECT_FALSE(ray_capsule(ray({0, 1, -3}, {0, 0, 1}), kA, {0, nan, 0}, kR));
}

TEST(SphereCapsule, TouchingCountsAndAHairApartDoesNot) {
  // Side: the sphere at x = 1 with radius 0.5 touches the body surface at x = 0.5.
  EXPECT_TRUE(sphere_capsule({1, 1, 0}, 0.5f, kA, kB, kR));
  EXPECT_FALSE(sphere_capsule({1.01f, 1, 0}, 0.5f, kA, kB, kR));
  // Above the top: distance 1.2 from b = 0.5 + 0.7.
  EXPECT_TRUE(sphere_capsule({0, 3.2f, 0}, 0.7f, kA, kB, kR));
  EXPECT_FALSE(sphere_capsule({0, 3.2f, 0}, 0.69f, kA, kB, kR));
  // Diagonal below a: distance sqrt(0.36 + 0.64) = 1 from a.
  EXPECT_TRUE(sphere_capsule({0.6f, -0.8f, 0}, 0.5f, kA, kB, kR));
  EXPECT_FALSE(sphere_capsule({0.6f, -0.8f, 0}, 0.49f, kA, kB, kR));
  // A point (radius 0) inside.
  EXPECT_TRUE(sphere_capsule({0.2f, 1.5f, 0.2f}, 0.0f, kA, kB, kR));
}

TEST(ClosestOnSegment, ClampsToTheEnds) {
  EXPECT_EQ(closest_on_segment({5, 1, 0}, kA, kB), glm::vec3(0, 1, 0));
  EXPECT_EQ(closest_on_segment({5, -4, 0}, kA, kB), kA);
  EXPECT_EQ(closest_on_segment({5, 9, 0}, kA, kB), kB);
  EXPECT_EQ(closest_on_segment({5, 9, 0}, kA, kA), kA);
}

TEST(CapsuleNormal, PointsAwayFromTheSegment) {
  const glm::vec3 side = capsule_normal({-0.5f, 1, 0}, kA, kB, {9, 9, 9});
  EXPECT_NEAR(side.x, -1.0f, kEps);
  EXPECT_NEAR(side.y, 0.0f, kEps);
  const glm::vec3 top = capsule_normal({0, 2.5f, 0}, kA, kB, {9, 9, 9});
  EXPECT_NEAR(top.y, 1.0f, kEps);
  EXPECT_EQ(capsule_normal({0, 1, 0}, kA, kB, {9, 9, 9}), glm::vec3(9, 9, 9));  // on the axis
}

}  // namespace hit_geometry_test
}  // namespace anim

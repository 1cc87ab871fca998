// The camera rules of significance (lod/significance.h), hand-computed: on screen near the eye
// 1, farther kCameraNearMetres / d; off screen kOffScreen / (1 + d / kOffScreenFalloffMetres);
// the screen is the cone holding the frustum, widened by kOnScreenMarginMetres around the root;
// the largest over every camera and region. Pure functions: no World.
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

#include "lod/significance.h"

namespace animd {
namespace camera_significance_test {

constexpr float kPi = std::numbers::pi_v<float>;

// At the origin looking down -Z; 90 degrees vertically, square: the cone's half-angle has
// tangent tan(45 degrees) * sqrt(1 + 1) = sqrt(2) (54.7 degrees).
ViewCamera looking_down_minus_z() {
  ViewCamera c;
  c.eye = {0, 0, 0};
  c.forward = {0, 0, -1};
  c.vertical_fov = kPi / 2;
  c.aspect = 1.0f;
  return c;
}

// What one camera gives, through the function the World calls.
float through(const ViewCamera& camera, glm::vec3 root) {
  const std::vector<CameraCone> cones{camera_cone(camera)};
  return watched_significance(false, root, {}, cones);
}

float off_screen(float d) {
  return kOffScreen / (1.0f + d / kOffScreenFalloffMetres);
}

TEST(CameraSignificance, TheConstantsAreTheDocumentedOnes) {
  // docs/animation.md, "Update rates", quotes them.
  EXPECT_EQ(kOnScreenMarginMetres, 2.0f);
  EXPECT_EQ(kCameraNearMetres, 20.0f);
  EXPECT_EQ(kOffScreen, 0.5f);
  EXPECT_EQ(kOffScreenFalloffMetres, 10.0f);
}

TEST(CameraSignificance, OnScreenIsOneNearTheEyeThenFallsWithDistance) {
  const ViewCamera c = looking_down_minus_z();
  EXPECT_EQ(through(c, {0, 0, -10}), 1.0f);
  EXPECT_EQ(through(c, {0, 0, -20}), 1.0f);
  EXPECT_FLOAT_EQ(through(c, {0, 0, -40}), 0.5f);   // 20 / 40
  EXPECT_FLOAT_EQ(through(c, {0, 0, -100}), 0.2f);  // 20 / 100
  // Off the axis but inside the cone (45 degrees < 54.7): 20 / (30 * sqrt 2).
  EXPECT_FLOAT_EQ(through(c, {30, 0, -30}), 20.0f / (30.0f * std::sqrt(2.0f)));
  EXPECT_FLOAT_EQ(through(c, {0, -30, -30}), 20.0f / (30.0f * std::sqrt(2.0f)));
}

TEST(CameraSignificance, OffScreenIsLowerAndFallsWithDistance) {
  const ViewCamera c = looking_down_minus_z();
  EXPECT_FLOAT_EQ(through(c, {0, 0, 30}), 0.125f);             // behind: 0.5 / (1 + 30 / 10)
  EXPECT_FLOAT_EQ(through(c, {0, 0, 10}), 0.25f);              // 0.5 / (1 + 10 / 10)
  EXPECT_FLOAT_EQ(through(c, {50, 0, 0}), off_screen(50.0f));  // beside: 90 degrees off
  // Lower than on screen at the same distance.
  EXPECT_LT(through(c, {0, 0, 40}), through(c, {0, 0, -40}));
  // Within the margin of the eye counts as on screen, whichever way.
  EXPECT_EQ(through(c, {0, 0, 1.5f}), 1.0f);
  EXPECT_FALSE(on_screen(camera_cone(c), {0, 0, 2.5f}));
}

TEST(CameraSignificance, TheMarginWidensTheScreenByTwoMetres) {
  // A cone of half-angle 45 degrees: tan(fov / 2) * sqrt(1 + 1) = 1. In the XZ plane its edge
  // is the line x = z, and a root at (x, 0, -z) lies (x - z) / sqrt(2) metres beyond it.
  ViewCamera c = looking_down_minus_z();
  c.vertical_fov = 2.0f * std::atan(1.0f / std::sqrt(2.0f));
  const CameraCone cone = camera_cone(c);
  EXPECT_NEAR(cone.cos_half, std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(cone.sin_half, std::sqrt(0.5f), 1e-6f);
  // 2 / sqrt(2) = 1.41 m beyond the edge: on screen, 20 / |(42, 0, -40)|.
  EXPECT_TRUE(on_screen(cone, {42, 0, -40}));
  EXPECT_FLOAT_EQ(through(c, {42, 0, -40}), 20.0f / std::sqrt(42.0f * 42 + 40 * 40));
  // 3 / sqrt(2) = 2.12 m beyond: off screen.
  EXPECT_FALSE(on_screen(cone, {43, 0, -40}));
  EXPECT_FLOAT_EQ(through(c, {43, 0, -40}), off_screen(std::sqrt(43.0f * 43 + 40 * 40)));
  // The cone is round: the same above the frame as beside it.
  EXPECT_TRUE(on_screen(cone, {0, 42, -40}));
  EXPECT_FALSE(on_screen(cone, {0, -43, -40}));
}

TEST(CameraSignificance, AWiderScreenSeesFartherToTheSide) {
  // 60 degrees vertically: square, the cone's half-angle is atan(tan 30 * sqrt 2) = 39.2
  // degrees; at 2:1 it is atan(tan 30 * sqrt 5) = 52.2 degrees. A root 100 m away, 47 degrees
  // off the axis (the margin adds 1.1 degrees at that distance).
  ViewCamera c = looking_down_minus_z();
  c.vertical_fov = kPi / 3;
  const float a = 47.0f * kPi / 180.0f;
  const glm::vec3 root{100.0f * std::sin(a), 0.0f, -100.0f * std::cos(a)};
  EXPECT_FALSE(on_screen(camera_cone(c), root));
  EXPECT_NEAR(through(c, root), off_screen(100.0f), 1e-6f);
  c.aspect = 2.0f;
  EXPECT_TRUE(on_screen(camera_cone(c), root));
  EXPECT_NEAR(through(c, root), 0.2f, 1e-6f);
}

TEST(CameraSignificance, TheLargestOverEveryCameraAndRegionCounts) {
  const ViewCamera a = looking_down_minus_z();
  ViewCamera b = a;  // at (100, 0, 0) looking down +X
  b.eye = {100, 0, 0};
  b.forward = {1, 0, 0};
  const std::vector<CameraCone> cameras{camera_cone(a), camera_cone(b)};
  // Behind a (0.125) and behind b, 104.4 m away: a's.
  EXPECT_FLOAT_EQ(watched_significance(false, {0, 0, 30}, {}, cameras), 0.125f);
  // Beside a (0.5 / 16) and 50 m in front of b (20 / 50): b's.
  EXPECT_FLOAT_EQ(watched_significance(false, {150, 0, 0}, {}, cameras), 0.4f);

  StreamRegion region;  // a sphere behind a
  region.center = {0, 0, 100};
  region.radius = 10.0f;
  const std::vector<StreamRegion> regions{region};
  // 40 m in front of a (0.5) and 130 m from the region (0.6 / 7.5): the camera's.
  EXPECT_FLOAT_EQ(watched_significance(false, {0, 0, -40}, regions, cameras), 0.5f);
  // 40 m behind a (0.1) and 50 m from the region (0.6 / 3.5): the region's.
  EXPECT_FLOAT_EQ(watched_significance(false, {0, 0, 40}, regions, cameras),
                  kNearRegion / (1.0f + 50.0f / kFalloffMetres));
  // In the region, behind both cameras: 1. Watched: 1 wherever it is.
  EXPECT_EQ(watched_significance(false, {0, 0, 105}, regions, cameras), 1.0f);
  EXPECT_EQ(watched_significance(true, {0, 0, 5000}, regions, cameras), 1.0f);
  // No camera, no region, no watcher: 0.
  EXPECT_EQ(watched_significance(false, {0, 0, -10}, {}, {}), 0.0f);
}

TEST(CameraSignificance, ExtremeCamerasAndRootsStayInRange) {
  // The widest accepted field of view and aspect: the cone stays a cone (half-angle < 90).
  ViewCamera wide = looking_down_minus_z();
  wide.vertical_fov = std::nextafter(kPi, 0.0f);
  wide.aspect = 1e18f;
  const CameraCone cone = camera_cone(wide);
  EXPECT_GT(cone.cos_half, 0.0f);
  EXPECT_LE(cone.sin_half, 1.0f);
  EXPECT_TRUE(on_screen(cone, {1000, 0, -1}));
  EXPECT_FALSE(on_screen(cone, {1000, 0, 10}));
  // The narrowest: only the axis (and the margin around it).
  ViewCamera narrow = looking_down_minus_z();
  narrow.vertical_fov = std::numeric_limits<float>::denorm_min();
  narrow.aspect = std::numeric_limits<float>::denorm_min();
  EXPECT_TRUE(on_screen(camera_cone(narrow), {1.5f, 0, -100}));
  EXPECT_FALSE(on_screen(camera_cone(narrow), {2.5f, 0, -100}));
  // Roots and eyes far apart: squares overflow, the value is 0, never NaN.
  ViewCamera far = looking_down_minus_z();
  far.eye = {-1e18f, -1e18f, 1e18f};
  for (const glm::vec3& root :
       {glm::vec3(3e38f, 3e38f, -3e38f), glm::vec3(3e38f, 0, 3e38f), glm::vec3(0, 0, -3e38f)}) {
    for (const ViewCamera& c : {far, wide, looking_down_minus_z()}) {
      const float s = through(c, root);
      EXPECT_GE(s, 0.0f);
      EXPECT_LE(s, 1.0f);
      EXPECT_EQ(s, 0.0f) << root.x << " " << root.z;
    }
  }
}

}  // namespace camera_significance_test
}  // namespace animd

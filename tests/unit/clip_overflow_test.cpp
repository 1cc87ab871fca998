// Channels whose values are legal floats but huge never sample to NaN, infinity or a zero
// rotation. Regression for the glTF fuzz finding
// fuzz/regressions/gltf/cubic-tangent-overflows-rotation.glb: a CUBICSPLINE rotation with
// tangents of 1e37 over a 1e36 s segment sampled to NaN.
#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include "anim/clip.h"

namespace anim {
namespace clip_overflow_test {

TEST(ClipOverflow, CubicTangentsTooLargeForTheSegmentAreRefused) {
  Vec3Channel ch;
  ch.interpolation = Interpolation::kCubicSpline;
  ch.times = {0.0f, 1e5f};
  // (in, value, out) per key; out-tangent 1e37 per second over 1e5 s would reach 1e42.
  ch.values = {glm::vec3(0), glm::vec3(0), glm::vec3(1e37f, 0, 0),
               glm::vec3(0), glm::vec3(1), glm::vec3(0)};
  const Status st = ch.finalize("joint 0 translation");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("joint 0 translation"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("between keys 0 and 1 are too large"), std::string::npos)
      << st.message();

  QuatChannel rot;
  rot.interpolation = Interpolation::kCubicSpline;
  rot.times = {1.8e31f, 1.1e36f};  // the fuzz reproducer's first segment, in essence
  const glm::quat zero(0, 0, 0, 0), huge_tangent(0, 0, 1.3e37f, 0);
  rot.values = {zero, glm::quat(1, 0, 0, 0), huge_tangent, zero, glm::quat(1, 0, 0, 0), zero};
  EXPECT_FALSE(rot.finalize("rotation").is_ok());
}

TEST(ClipOverflow, CubicRotationThroughZeroKeepsTheFirstKey) {
  // Keys q and -q with zero tangents: halfway, 0.5 q + 0.5 (-q) = 0, which has no direction.
  // The segment's first key is returned instead of NaN.
  QuatChannel ch;
  ch.interpolation = Interpolation::kCubicSpline;
  ch.times = {0.0f, 1.0f};
  const glm::quat zero(0, 0, 0, 0);
  ch.values = {zero, glm::quat(1, 0, 0, 0), zero, zero, glm::quat(-1, 0, 0, 0), zero};
  ASSERT_TRUE(ch.finalize("rotation").is_ok());
  const glm::quat q = ch.sample(0.5f);
  EXPECT_EQ(q.w, 1.0f);
  EXPECT_EQ(q.x, 0.0f);
  EXPECT_EQ(q.y, 0.0f);
  EXPECT_EQ(q.z, 0.0f);
}

TEST(ClipOverflow, HugeCubicRotationNormalizesWithoutOverflow) {
  // Identity keys, out-tangent 1e30 about z over 1 s: halfway the Hermite sum is
  // (w 1, z 1e30 * (1/8 - 2/4 + 1/2) = 1.25e29), whose squared length overflows a float.
  // Normalized, that is (0 0 1) to within 1e-29 in w.
  QuatChannel ch;
  ch.interpolation = Interpolation::kCubicSpline;
  ch.times = {0.0f, 1.0f};
  const glm::quat zero(0, 0, 0, 0), id(1, 0, 0, 0);
  ch.values = {zero, id, glm::quat(0, 0, 0, 1e30f), zero, id, zero};
  ASSERT_TRUE(ch.finalize("rotation").is_ok());
  const glm::quat q = ch.sample(0.5f);
  EXPECT_NEAR(q.z, 1.0f, 1e-6f);
  EXPECT_NEAR(q.w, 0.0f, 1e-6f);
  EXPECT_NEAR(glm::length(q), 1.0f, 1e-6f);
}

TEST(ClipOverflow, HugeRotationKeysNormalizeToUnit) {
  // (w 1e20, x 1e20) squared overflows; normalized it is 90 degrees about x.
  QuatChannel ch;
  ch.interpolation = Interpolation::kLinear;
  ch.times = {0.0f};
  ch.values = {glm::quat(1e20f, 1e20f, 0, 0)};
  ASSERT_TRUE(ch.finalize("rotation").is_ok());
  const glm::quat q = ch.sample(0.0f);
  EXPECT_NEAR(q.w, std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(q.x, std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(glm::length(q), 1.0f, 1e-6f);
}

}  // namespace clip_overflow_test
}  // namespace anim

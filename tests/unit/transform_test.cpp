// Transform math: TRS <-> matrix, combine/inverse, shortest-arc quaternion interpolation.
#include "anim/transform.h"

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

namespace anim {
namespace transform_test {

constexpr float kPi = std::numbers::pi_v<float>;

glm::quat axis_angle(float angle, glm::vec3 axis) {
  return glm::angleAxis(angle, glm::normalize(axis));
}

void expect_vec3_near(const glm::vec3& a, const glm::vec3& b, float eps = 1e-5f) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
}

// Same rotation (q and -q are the same rotation).
void expect_same_rotation(const glm::quat& a, const glm::quat& b, float eps = 1e-5f) {
  EXPECT_NEAR(std::abs(glm::dot(a, b)), 1.0f, eps);
}

TEST(Transform, MatrixIsTranslateRotateScale) {
  // Scale x by 2, rotate 90 degrees about z, translate by (1, 2, 3):
  // the point (1, 0, 0) -> (2, 0, 0) -> (0, 2, 0) -> (1, 4, 3).
  Transform t{{1, 2, 3}, axis_angle(kPi / 2, {0, 0, 1}), {2, 1, 1}};
  glm::vec4 p = to_matrix(t) * glm::vec4(1, 0, 0, 1);
  expect_vec3_near(glm::vec3(p), {1, 4, 3});
  expect_vec3_near(transform_point(t, {1, 0, 0}), {1, 4, 3});
}

TEST(Transform, FromMatrixRoundTrips) {
  Transform t{{0.5f, -2, 7}, axis_angle(0.7f, {1, 2, 3}), {1.5f, 0.5f, 2}};
  Transform back = from_matrix(to_matrix(t));
  expect_vec3_near(back.translation, t.translation);
  expect_vec3_near(back.scale, t.scale);
  expect_same_rotation(back.rotation, t.rotation);
}

TEST(Transform, CombineMatchesMatrixProductAndInverseUndoes) {
  Transform a{{1, 0, 0}, axis_angle(0.3f, {0, 1, 0}), {2, 2, 2}};
  Transform b{{0, 1, 2}, axis_angle(-1.1f, {1, 0, 1}), {1, 1, 1}};
  glm::mat4 expected = to_matrix(a) * to_matrix(b);
  glm::mat4 got = to_matrix(combine(a, b));
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(got[c][r], expected[c][r], 1e-5f);
  Transform id = combine(a, inverse(a));
  expect_vec3_near(id.translation, {0, 0, 0});
  expect_vec3_near(id.scale, {1, 1, 1});
  expect_same_rotation(id.rotation, glm::quat(1, 0, 0, 0));
}

TEST(Transform, SlerpHalfwayIsHalfTheAngle) {
  glm::quat a(1, 0, 0, 0);
  glm::quat b = axis_angle(kPi / 2, {0, 0, 1});
  expect_same_rotation(slerp_shortest(a, b, 0.5f), axis_angle(kPi / 4, {0, 0, 1}));
  expect_same_rotation(slerp_shortest(a, b, 0.0f), a);
  expect_same_rotation(slerp_shortest(a, b, 1.0f), b);
}

TEST(Transform, InterpolationTakesTheShortestArcWhenSignsDiffer) {
  // b is the 90-degree rotation written with a negative w: the same rotation as +b.
  glm::quat a(1, 0, 0, 0);
  glm::quat b = -axis_angle(kPi / 2, {0, 0, 1});
  // The long way round would give a 135-degree rotation at t = 0.5; the short way 45.
  expect_same_rotation(slerp_shortest(a, b, 0.5f), axis_angle(kPi / 4, {0, 0, 1}));
  expect_same_rotation(nlerp_shortest(a, b, 0.5f), axis_angle(kPi / 4, {0, 0, 1}));
}

TEST(Transform, MixLerpsTranslationAndScale) {
  Transform a{{0, 0, 0}, glm::quat(1, 0, 0, 0), {1, 1, 1}};
  Transform b{{2, 4, -6}, glm::quat(1, 0, 0, 0), {3, 1, 1}};
  Transform m = mix(a, b, 0.25f);
  expect_vec3_near(m.translation, {0.5f, 1.0f, -1.5f});
  expect_vec3_near(m.scale, {1.5f, 1.0f, 1.0f});
}

TEST(Transform, IsFiniteRejectsNaN) {
  Transform t;
  EXPECT_TRUE(is_finite(t));
  t.translation.y = std::nanf("");
  EXPECT_FALSE(is_finite(t));
}

}  // namespace transform_test
}  // namespace anim

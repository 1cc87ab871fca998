// The model-space pass and the skin palette, against hand-computed matrices.
#include "anim/palette.h"

#include <cstring>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include "anim/skeleton.h"

namespace anim {
namespace palette_test {

constexpr float kPi = std::numbers::pi_v<float>;

void expect_mat4_eq(const glm::mat4& got, const glm::mat4& want, float eps = 1e-5f) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      EXPECT_NEAR(got[c][r], want[c][r], eps) << "column " << c << " row " << r;
}

// A 3-joint chain:
//   j0: translate (1, 0, 0), rotate 90 degrees about Z, scale 2
//   j1: translate (0, 1, 0)
//   j2: translate (1, 0, 0), rotate 90 degrees about X
Skeleton chain(const glm::mat4& root_transform, std::vector<glm::mat4> inverse_bind) {
  std::vector<Transform> rest(3);
  rest[0] = {{1, 0, 0}, glm::angleAxis(kPi / 2, glm::vec3(0, 0, 1)), {2, 2, 2}};
  rest[1] = {{0, 1, 0}, glm::quat(1, 0, 0, 0), {1, 1, 1}};
  rest[2] = {{1, 0, 0}, glm::angleAxis(kPi / 2, glm::vec3(1, 0, 0)), {1, 1, 1}};
  std::vector<int> parents = {-1, 0, 1};
  auto s = Skeleton::from_unordered({"j0", "j1", "j2"}, parents, rest, std::move(inverse_bind),
                                    root_transform);
  EXPECT_TRUE(s.has_value());
  return *s;
}

// Columns of a 4x4 affine matrix.
glm::mat4 columns(glm::vec3 c0, glm::vec3 c1, glm::vec3 c2, glm::vec3 c3) {
  return glm::mat4(glm::vec4(c0, 0), glm::vec4(c1, 0), glm::vec4(c2, 0), glm::vec4(c3, 1));
}

TEST(Palette, LocalToModelChain) {
  const Skeleton s = chain(glm::mat4(1.0f), std::vector<glm::mat4>(3, glm::mat4(1.0f)));
  std::vector<glm::mat4> model(3);
  local_to_model(s, s.rest_pose, model);
  // j0: Rz90 maps x -> y, y -> -x; times 2; origin at (1, 0, 0).
  expect_mat4_eq(model[0], columns({0, 2, 0}, {-2, 0, 0}, {0, 0, 2}, {1, 0, 0}));
  // j1: origin = j0 applied to (0, 1, 0) = (1, 0, 0) + (-2, 0, 0).
  expect_mat4_eq(model[1], columns({0, 2, 0}, {-2, 0, 0}, {0, 0, 2}, {-1, 0, 0}));
  // j2: linear part Rz90 * 2 * Rx90: x -> x -> y, y -> z -> z, z -> -y -> x (times 2);
  // origin = j0 applied to (1, 1, 0) = (1, 0, 0) + 2 * (-1, 1, 0).
  expect_mat4_eq(model[2], columns({0, 2, 0}, {0, 0, 2}, {2, 0, 0}, {-1, 2, 0}));
  // The point (0, 1, 0) in j2's space: (1, 0, 1) in j1, (1, 1, 1) in j0, (-1, 2, 2) in model.
  const glm::vec4 p = model[2] * glm::vec4(0, 1, 0, 1);
  EXPECT_NEAR(p.x, -1.0f, 1e-5f);
  EXPECT_NEAR(p.y, 2.0f, 1e-5f);
  EXPECT_NEAR(p.z, 2.0f, 1e-5f);
}

TEST(Palette, RootTransformAppliesToRoots) {
  const glm::mat4 root = glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, 5)) *
                         glm::rotate(glm::mat4(1.0f), kPi, glm::vec3(0, 1, 0));
  const Skeleton s = chain(root, std::vector<glm::mat4>(3, glm::mat4(1.0f)));
  std::vector<glm::mat4> model(3);
  local_to_model(s, s.rest_pose, model);
  // Ry180 negates x and z, then z moves by 5.
  expect_mat4_eq(model[2], columns({0, 2, 0}, {0, 0, -2}, {-2, 0, 0}, {1, 2, 5}));
}

TEST(Palette, BuildPaletteIsModelTimesInverseBind) {
  std::vector<glm::mat4> inverse_bind(3, glm::mat4(1.0f));
  inverse_bind[2] = glm::translate(glm::mat4(1.0f), glm::vec3(0, -1, 0));
  const Skeleton s = chain(glm::mat4(1.0f), inverse_bind);
  std::vector<glm::mat4> model(3);
  local_to_model(s, s.rest_pose, model);
  std::vector<PaletteMatrix> palette(3);
  build_palette(s, model, palette);
  // model[2] * T(0, -1, 0): translation column = (-1, 2, 0) - column 1 (0, 0, 2).
  // Rows of the 3x4: (c0.x c1.x c2.x c3.x), (c0.y ...), (c0.z ...).
  const float want[12] = {0, 0, 2, -1,  //
                          2, 0, 0, 2,   //
                          0, 2, 0, -2};
  for (int k = 0; k < 12; ++k) EXPECT_NEAR(palette[2].m[k], want[k], 1e-5f) << "element " << k;
  // With the inverse binds of the rest pose, the rest palette is the identity.
  std::vector<glm::mat4> rest_inverse(3);
  for (int i = 0; i < 3; ++i) rest_inverse[i] = glm::inverse(model[i]);
  const Skeleton bound = chain(glm::mat4(1.0f), rest_inverse);
  build_palette(bound, model, palette);
  for (const PaletteMatrix& p : palette)
    for (int k = 0; k < 12; ++k)
      EXPECT_NEAR(p.m[k], (k == 0 || k == 5 || k == 10) ? 1.0f : 0.0f, 1e-5f);
}

TEST(Palette, MatrixLayoutIsRowMajorThreeByFour) {
  // Element (row r, column c) of the affine matrix holds 10 * r + c + 1.
  glm::mat4 a(1.0f);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) a[c][r] = static_cast<float>(10 * r + c + 1);
  const PaletteMatrix p = PaletteMatrix::from_mat4(a);
  const float want[12] = {1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24};
  for (int k = 0; k < 12; ++k) EXPECT_EQ(p.m[k], want[k]) << "element " << k;
  // Translation sits in the last column: elements 3, 7, 11.
  const PaletteMatrix t =
      PaletteMatrix::from_mat4(glm::translate(glm::mat4(1.0f), glm::vec3(5, 6, 7)));
  EXPECT_EQ(t.m[3], 5.0f);
  EXPECT_EQ(t.m[7], 6.0f);
  EXPECT_EQ(t.m[11], 7.0f);
  // Round trip, with the implied last row 0 0 0 1.
  const glm::mat4 back = p.to_mat4();
  expect_mat4_eq(back, a, 0.0f);
  EXPECT_EQ(back[0][3], 0.0f);
  EXPECT_EQ(back[3][3], 1.0f);
}

TEST(Palette, ShaderFormulaMatchesMatrixProduct) {
  // p' = (dot(row0, p), dot(row1, p), dot(row2, p)) with p = (x, y, z, 1).
  const glm::mat4 a = glm::translate(glm::mat4(1.0f), glm::vec3(1, -2, 3)) *
                      glm::rotate(glm::mat4(1.0f), 0.7f, glm::normalize(glm::vec3(1, 2, 3))) *
                      glm::scale(glm::mat4(1.0f), glm::vec3(2, 0.5f, 1.5f));
  const PaletteMatrix p = PaletteMatrix::from_mat4(a);
  const glm::vec4 v(0.3f, -1.2f, 2.5f, 1.0f);
  const glm::vec4 want = a * v;
  for (int r = 0; r < 3; ++r) {
    const float got =
        p.m[4 * r] * v.x + p.m[4 * r + 1] * v.y + p.m[4 * r + 2] * v.z + p.m[4 * r + 3];
    EXPECT_NEAR(got, want[r], 1e-5f);
  }
}

TEST(Palette, ToRowsIsFromMat4OfEveryMatrix) {
  // Seven matrices with distinct elements (one a negative zero): both variants only move
  // bits, so every element must match exactly; the entry after the last is left alone.
  std::vector<glm::mat4> m(7);
  for (size_t i = 0; i < m.size(); ++i)
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) m[i][c][r] = static_cast<float>(100 * i + 10 * r + c) / 7.0f;
  m[3][1][2] = -0.0f;
  for (auto convert : {&to_rows, &to_rows_uncached}) {
    std::vector<PaletteMatrix> rows(m.size() + 1);
    PaletteMatrix untouched;
    for (float& v : untouched.m) v = -1.0f;
    rows.back() = untouched;
    convert(m, rows);
    for (size_t i = 0; i < m.size(); ++i) {
      const PaletteMatrix want = PaletteMatrix::from_mat4(m[i]);
      EXPECT_EQ(std::memcmp(rows[i].m, want.m, sizeof want.m), 0) << "matrix " << i;
    }
    EXPECT_EQ(std::memcmp(rows.back().m, untouched.m, sizeof untouched.m), 0)
        << "wrote past the matrices given";
  }
}

}  // namespace palette_test
}  // namespace anim

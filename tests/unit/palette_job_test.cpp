// PaletteJob: what validate() refuses (run() then writes nothing), the 3x4 row-major layout
// on hand-written matrices, and model * inverse_bind against glm for random matrices,
// including inverse binds that are not affine.
#include "anim/palette_job.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "job_test_helpers.h"

namespace anim {
namespace palette_job_test {

std::vector<PaletteMatrix> run_job(const std::vector<glm::mat4>& model,
                                   const std::vector<glm::mat4>& inverse_bind) {
  std::vector<PaletteMatrix> out(model.size());
  animtest::fill_sentinel(std::span<PaletteMatrix>(out));
  PaletteJob job;
  job.model = model;
  job.inverse_bind = inverse_bind;
  job.output = out;
  EXPECT_TRUE(job.validate());
  EXPECT_TRUE(job.run());
  return out;
}

void expect_rows(const PaletteMatrix& got, const std::vector<float>& want) {
  for (int i = 0; i < 12; ++i) EXPECT_EQ(got.m[i], want[i]) << "row " << i / 4 << " col " << i % 4;
}

TEST(PaletteJob, RowsOfTheAffineMatrixRowMajor) {
  // Columns (1 2 3), (4 5 6), (7 8 9), origin (10 11 12): rows are read across the columns.
  const glm::mat4 m(glm::vec4(1, 2, 3, 0), glm::vec4(4, 5, 6, 0), glm::vec4(7, 8, 9, 0),
                    glm::vec4(10, 11, 12, 1));
  const std::vector<float> rows = {1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12};
  const glm::mat4 id(1.0f);
  const std::vector<PaletteMatrix> out = run_job({m, id, m}, {id, m, id});
  expect_rows(out[0], rows);  // model alone
  expect_rows(out[1], rows);  // inverse bind alone
  expect_rows(out[2], rows);
}

TEST(PaletteJob, NonAffineInverseBindUsesItsLastRow) {
  // model = translation by (1, 2, 3); inverse bind = identity but with 0.5 in row 3 of column
  // 0 (not affine). Column 0 of the product is model * (1, 0, 0, 0.5) = (1, 0, 0) + 0.5 *
  // (1, 2, 3) = (1.5, 1, 1.5); the other columns are model's.
  glm::mat4 model(1.0f);
  model[3] = glm::vec4(1, 2, 3, 1);
  glm::mat4 inverse_bind(1.0f);
  inverse_bind[0][3] = 0.5f;
  const std::vector<PaletteMatrix> out = run_job({model}, {inverse_bind});
  expect_rows(out[0], {1.5f, 0, 0, 1, 1, 1, 0, 2, 1.5f, 0, 1, 3});
}

// Affine model matrices: random linear part and origin.
glm::mat4 random_affine(std::mt19937& rng) {
  std::uniform_real_distribution<float> v(-3.0f, 3.0f);
  glm::mat4 m(1.0f);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) m[c][r] = v(rng);
  return m;
}

// Any 4x4 matrix, the last row included.
glm::mat4 random_full(std::mt19937& rng) {
  std::uniform_real_distribution<float> v(-3.0f, 3.0f);
  glm::mat4 m;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) m[c][r] = v(rng);
  return m;
}

TEST(PaletteJob, MatchesGlmProductForRandomMatrices) {
  std::mt19937 rng(48);
  for (int n : {1, 3, 5, 7, 37}) {
    std::vector<glm::mat4> model(n), inverse_bind(n);
    for (int j = 0; j < n; ++j) {
      model[j] = random_affine(rng);
      inverse_bind[j] = j % 2 == 0 ? random_full(rng) : glm::inverse(random_affine(rng));
    }
    const std::vector<PaletteMatrix> out = run_job(model, inverse_bind);
    for (int j = 0; j < n; ++j) {
      SCOPED_TRACE(testing::Message() << n << " joints, joint " << j);
      const glm::mat4 want = model[j] * inverse_bind[j];
      float size = 1.0f;
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r) size = std::max(size, std::abs(want[c][r]));
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
          EXPECT_NEAR(out[j].m[r * 4 + c], want[c][r], 1e-6f * size) << "row " << r << " col " << c;
    }
  }
}

TEST(PaletteJob, ValidateRefusesAndRunWritesNothing) {
  constexpr int n = 5;
  const std::vector<glm::mat4> model(n, glm::mat4(2.0f)), inverse_bind(n, glm::mat4(1.0f));
  const std::vector<glm::mat4> short_bind(n - 1, glm::mat4(1.0f));
  std::vector<PaletteMatrix> out(n + 1);
  const std::span<PaletteMatrix> o(out);
  struct Case {
    const char* what;
    std::span<const glm::mat4> model, inverse_bind;
    std::span<PaletteMatrix> output;
  };
  const Case cases[] = {
      {"inverse binds one short", model, short_bind, o.first(n)},
      {"model one short", std::span(model).first(n - 1), inverse_bind, o.first(n)},
      {"output one short", model, inverse_bind, o.first(n - 1)},
      {"output one long", model, inverse_bind, o.first(n + 1)},
      {"no output", model, inverse_bind, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    animtest::fill_sentinel(o);
    PaletteJob job;
    job.model = c.model;
    job.inverse_bind = c.inverse_bind;
    job.output = c.output;
    EXPECT_FALSE(job.validate());
    EXPECT_FALSE(job.run());
    EXPECT_TRUE(animtest::all_sentinel(std::span<const PaletteMatrix>(out)));
  }
  PaletteJob empty;
  EXPECT_TRUE(empty.run());  // no joints
}

}  // namespace palette_job_test
}  // namespace anim

// LocalToModelJob: what validate() refuses (run() then writes nothing), model matrices of a
// hand-built skeleton worked out by hand (parents inside and outside a joint's block of 4, a
// second root, a partly filled last block), the root override, and agreement with the chain
// of anim::to_matrix products on a random 37-joint skeleton.
#include "anim/local_to_model_job.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include "anim/skeleton.h"
#include "job_test_helpers.h"

namespace anim {
namespace local_to_model_job_test {

using animtest::about;

Skeleton make_skeleton(const std::vector<int>& parents, std::vector<Transform> rest,
                       const glm::mat4& root_transform = glm::mat4(1.0f)) {
  std::vector<std::string> names;
  for (size_t j = 0; j < parents.size(); ++j) names.push_back("j" + std::to_string(j));
  auto s = Skeleton::from_unordered(names, parents, std::move(rest),
                                    std::vector<glm::mat4>(parents.size(), glm::mat4(1.0f)),
                                    root_transform);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message());
  return std::move(*s);
}

// An affine matrix from its columns: the images of x, y, z and the origin.
glm::mat4 columns(glm::vec3 x, glm::vec3 y, glm::vec3 z, glm::vec3 origin) {
  return glm::mat4(glm::vec4(x, 0), glm::vec4(y, 0), glm::vec4(z, 0), glm::vec4(origin, 1));
}

void expect_mat4_near(const glm::mat4& got, const glm::mat4& want, float eps) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      EXPECT_NEAR(got[c][r], want[c][r], eps) << "column " << c << " row " << r;
}

std::vector<glm::mat4> run_job(const Skeleton& s, std::span<const Transform> locals,
                               const glm::mat4* root = nullptr) {
  std::vector<glm::mat4> out(s.num_joints());
  animtest::fill_sentinel(std::span<glm::mat4>(out));
  LocalToModelJob job;
  job.skeleton = &s;
  job.input = locals;
  job.output = out;
  job.root = root;
  EXPECT_TRUE(job.validate());
  EXPECT_TRUE(job.run());
  return out;
}

// Seven joints, two blocks of 4 (the second with 3 used):
//   j0 root         T(1, 0, 0)  Rz(90)   S 2        (x -> y, y -> -x)
//   j1 parent j0    T(0, 1, 0)  Rx(90)   S 1        (y -> z, z -> -y)
//   j2 parent j1    T(0, 0, 3)  -        S (1, 2, 0.5)
//   j3 parent j0    T(0, 0, 1)  Ry(-90)  S 1        (x -> z, z -> -x)
//   j4 parent j3    T(1, 0, 0)  Rz(180)  S 1        (x -> -x, y -> -y)
//   j5 root         T(0, -1, 0) -        S 3
//   j6 parent j4    T(0, 1, 0)  -        S 1
// j1, j2, j3 have their parent in their own block; j4's is in the block before; j6's in its
// own (second) block.
Skeleton hand_skeleton(const glm::mat4& root_transform = glm::mat4(1.0f)) {
  const glm::quat id(1, 0, 0, 0);
  std::vector<Transform> rest = {{{1, 0, 0}, about({0, 0, 1}, 90), {2, 2, 2}},
                                 {{0, 1, 0}, about({1, 0, 0}, 90), {1, 1, 1}},
                                 {{0, 0, 3}, id, {1, 2, 0.5f}},
                                 {{0, 0, 1}, about({0, 1, 0}, -90), {1, 1, 1}},
                                 {{1, 0, 0}, about({0, 0, 1}, 180), {1, 1, 1}},
                                 {{0, -1, 0}, id, {3, 3, 3}},
                                 {{0, 1, 0}, id, {1, 1, 1}}};
  return make_skeleton({-1, 0, 1, 0, 3, -1, 4}, std::move(rest), root_transform);
}

// The model matrices of hand_skeleton, worked out column by column: a child's column is its
// parent's linear part applied to the child's local column (plus the parent's origin for the
// origin column).
std::vector<glm::mat4> hand_model() {
  return {
      // j0: Rz90 * 2.
      columns({0, 2, 0}, {-2, 0, 0}, {0, 0, 2}, {1, 0, 0}),
      // j1: j0 applied to x, z, -y; origin j0 * (0, 1, 0) = (1, 0, 0) + (-2, 0, 0).
      columns({0, 2, 0}, {0, 0, 2}, {2, 0, 0}, {-1, 0, 0}),
      // j2: j1's columns scaled by 1, 2, 0.5; origin (-1, 0, 0) + 3 * (2, 0, 0).
      columns({0, 2, 0}, {0, 0, 4}, {1, 0, 0}, {5, 0, 0}),
      // j3: j0 applied to z, y, -x; origin (1, 0, 0) + (0, 0, 2).
      columns({0, 0, 2}, {-2, 0, 0}, {0, -2, 0}, {1, 0, 2}),
      // j4: j3 applied to -x, -y, z; origin (1, 0, 2) + (0, 0, 2).
      columns({0, 0, -2}, {2, 0, 0}, {0, -2, 0}, {1, 0, 4}),
      // j5: the root's own local matrix.
      columns({3, 0, 0}, {0, 3, 0}, {0, 0, 3}, {0, -1, 0}),
      // j6: j4's linear part; origin (1, 0, 4) + (2, 0, 0).
      columns({0, 0, -2}, {2, 0, 0}, {0, -2, 0}, {3, 0, 4}),
  };
}

TEST(LocalToModelJob, HandBuiltSkeletonGivesHandComputedMatrices) {
  const Skeleton s = hand_skeleton();
  const std::vector<glm::mat4> got = run_job(s, s.rest_pose);
  const std::vector<glm::mat4> want = hand_model();
  for (int j = 0; j < s.num_joints(); ++j) {
    SCOPED_TRACE(testing::Message() << "joint " << j);
    expect_mat4_near(got[j], want[j], 1e-6f);
  }
  // A point in j6's space: (1, 0, 0) is j4's (1, 1, 0), j3's (0, -1, 0), model (3, 0, 2).
  const glm::vec4 p = got[6] * glm::vec4(1, 0, 0, 1);
  EXPECT_NEAR(p.x, 3.0f, 1e-6f);
  EXPECT_NEAR(p.y, 0.0f, 1e-6f);
  EXPECT_NEAR(p.z, 2.0f, 1e-6f);
}

TEST(LocalToModelJob, RootOverrideAndSkeletonRootTransform) {
  // Ry(180) (x -> -x, z -> -z), then up 5 in z.
  const glm::mat4 root = glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, 5)) *
                         glm::rotate(glm::mat4(1.0f), 3.14159265f, glm::vec3(0, 1, 0));
  const Skeleton plain = hand_skeleton();
  const std::vector<glm::mat4> want = hand_model();
  const std::vector<glm::mat4> overridden = run_job(plain, plain.rest_pose, &root);
  for (int j = 0; j < plain.num_joints(); ++j) {
    SCOPED_TRACE(testing::Message() << "joint " << j);
    expect_mat4_near(overridden[j], root * want[j], 1e-6f);
  }
  // By hand for j0 and j2: negate x and z of every column, then move the origin by 5 in z.
  expect_mat4_near(overridden[0], columns({0, 2, 0}, {2, 0, 0}, {0, 0, -2}, {-1, 0, 5}), 1e-6f);
  expect_mat4_near(overridden[2], columns({0, 2, 0}, {0, 0, -4}, {-1, 0, 0}, {-5, 0, 5}), 1e-6f);
  // Without an override the skeleton's root_transform applies; with one it is replaced.
  const Skeleton moved = hand_skeleton(root);
  const std::vector<glm::mat4> by_skeleton = run_job(moved, moved.rest_pose);
  const glm::mat4 identity(1.0f);
  const std::vector<glm::mat4> replaced = run_job(moved, moved.rest_pose, &identity);
  for (int j = 0; j < moved.num_joints(); ++j) {
    SCOPED_TRACE(testing::Message() << "joint " << j);
    expect_mat4_near(by_skeleton[j], root * want[j], 1e-6f);
    expect_mat4_near(replaced[j], want[j], 1e-6f);
  }
}

TEST(LocalToModelJob, ValidateRefusesAndRunWritesNothing) {
  const Skeleton s = hand_skeleton();
  const int n = s.num_joints();
  std::vector<Transform> long_input(n + 1);
  std::vector<glm::mat4> out(n + 1);
  const std::span<glm::mat4> o(out);
  struct Case {
    const char* what;
    const Skeleton* skeleton;
    std::span<const Transform> input;
    std::span<glm::mat4> output;
  };
  const std::span<const Transform> rest(s.rest_pose);
  const Case cases[] = {
      {"no skeleton", nullptr, rest, o.first(n)},
      {"input one short", &s, rest.first(n - 1), o.first(n)},
      {"input one long", &s, long_input, o.first(n)},
      {"output one short", &s, rest, o.first(n - 1)},
      {"output one long", &s, rest, o.first(n + 1)},
      {"no output", &s, rest, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    animtest::fill_sentinel(o);
    LocalToModelJob job;
    job.skeleton = c.skeleton;
    job.input = c.input;
    job.output = c.output;
    EXPECT_FALSE(job.validate());
    EXPECT_FALSE(job.run());
    EXPECT_TRUE(animtest::all_sentinel(std::span<const glm::mat4>(out)));
  }
}

// The formula the job replaces: model[j] = model[parent] * to_matrix(local[j]).
std::vector<glm::mat4> reference(const Skeleton& s, const std::vector<Transform>& locals,
                                 const glm::mat4& root) {
  std::vector<glm::mat4> m(s.num_joints());
  for (int j = 0; j < s.num_joints(); ++j)
    m[j] = (s.parents[j] < 0 ? root : m[s.parents[j]]) * to_matrix(locals[j]);
  return m;
}

TEST(LocalToModelJob, MatchesTheMatrixChainOnARandomSkeleton) {
  // 37 joints (9 full blocks and one joint alone in the last); parents mostly one to three
  // joints back (often in the same block), sometimes further, sometimes new roots.
  constexpr int n = 37;
  std::mt19937 rng(37);
  std::uniform_int_distribution<int> pick(0, 9);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> coord(-1.0f, 1.0f), scale(0.7f, 1.3f),
      drift(0.999f, 1.001f);
  std::vector<int> parents(n);
  std::vector<Transform> locals(n);
  for (int j = 0; j < n; ++j) {
    const int r = pick(rng);
    parents[j] = j == 0 || r == 0 ? -1 : r <= 6 ? std::max(0, j - 1 - r % 3) : pick(rng) % j;
    locals[j].translation = {coord(rng), coord(rng), coord(rng)};
    // Not quite unit length, as after sampling or blending: to_matrix and the job both
    // divide by |q|^2.
    locals[j].rotation =
        glm::normalize(glm::quat(normal(rng), normal(rng), normal(rng), normal(rng))) * drift(rng);
    locals[j].scale = {scale(rng), scale(rng), scale(rng)};
  }
  locals[5].rotation = glm::quat(0, 0, 0, 0);  // degenerate: both treat it as no rotation
  const glm::mat4 root = glm::translate(glm::mat4(1.0f), glm::vec3(0.5f, -2, 1)) *
                         glm::rotate(glm::mat4(1.0f), 0.7f, glm::vec3(1, 2, 3));
  const Skeleton s = make_skeleton(parents, std::vector<Transform>(n), root);
  ASSERT_EQ(s.parents, std::vector<int16_t>(parents.begin(), parents.end()));  // order kept
  const std::vector<glm::mat4> want = reference(s, locals, root);
  const std::vector<glm::mat4> got = run_job(s, locals);
  int same_block_parents = 0;
  for (int j = 0; j < n; ++j) {
    SCOPED_TRACE(testing::Message() << "joint " << j << " parent " << parents[j]);
    if (parents[j] >= 0 && parents[j] / 4 == j / 4) ++same_block_parents;
    float size = 1.0f;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) size = std::max(size, std::abs(want[j][c][r]));
    expect_mat4_near(got[j], want[j], 1e-6f * size);
    EXPECT_EQ(got[j][0][3], 0.0f);  // affine: the last row is exactly 0 0 0 1
    EXPECT_EQ(got[j][1][3], 0.0f);
    EXPECT_EQ(got[j][2][3], 0.0f);
    EXPECT_EQ(got[j][3][3], 1.0f);
  }
  EXPECT_GT(same_block_parents, 10);

  // `from`: change the locals of joints 13.. only, recompute from 13 over the old output
  // (joints before it stay as they are, bit for bit), and get what a full pass gives.
  std::vector<Transform> changed = locals;
  for (int j = 13; j < n; ++j) changed[j].translation += glm::vec3(0.25f, -0.5f, 1.0f);
  std::vector<glm::mat4> partial = got;
  LocalToModelJob job;
  job.skeleton = &s;
  job.input = changed;
  job.output = partial;
  job.from = 13;
  ASSERT_TRUE(job.run());
  const std::vector<glm::mat4> full = run_job(s, changed);
  for (int j = 0; j < n; ++j) {
    SCOPED_TRACE(testing::Message() << "from 13, joint " << j);
    EXPECT_EQ(0, std::memcmp(&partial[j], &full[j], sizeof(glm::mat4)));
    if (j < 13) {
      EXPECT_EQ(0, std::memcmp(&partial[j], &got[j], sizeof(glm::mat4)));
    }
  }
  job.from = n + 1;
  EXPECT_FALSE(job.validate());
  job.from = -1;
  EXPECT_FALSE(job.validate());
}

}  // namespace local_to_model_job_test
}  // namespace anim

// BlendJob: what validate() refuses (run() then writes nothing), the exact endpoints (weight 0
// is a, weight 1 is b, bit for bit), per-joint mask weights, in-place blending, joint counts
// that leave a partly filled block of 4, and mid-blend values computed by hand.
#include "anim/blend_job.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "job_test_helpers.h"

namespace anim {
namespace blend_job_test {

using animtest::about;
using animtest::expect_same_rotation;
using animtest::expect_vec3_near;

// Joint j of the hand-computed poses: a rotates by 10 j degrees about axis j, b by 90 more
// about the same axis, so that at weight w the blend is 10 j + 90 w degrees about it.
// Translations and scales move by dyadic amounts, so their lerps are exact in float.
const glm::vec3 kAxes[8] = {{1, 0, 0},  {0, 1, 0}, {0, 0, 1},  {1, 1, 0},
                            {0, 1, -1}, {1, 1, 1}, {-1, 0, 1}, {2, -1, 0}};

Transform hand_a(int j) {
  const float f = static_cast<float>(j);
  return {{f, 2, -f}, about(kAxes[j % 8], 10.0 * j), {1, 1, 1}};
}
Transform hand_b(int j) {
  const float f = static_cast<float>(j);
  Transform b{{f + 4, -6, f}, about(kAxes[j % 8], 10.0 * j + 90), {1 + f, 3, 0.5f}};
  if (j % 4 == 3) b.rotation = -b.rotation;  // stored negated: the short way is unchanged
  return b;
}
// The blend of hand_a(j) and hand_b(j) at weight w.
Transform hand_mix(int j, double w) {
  const Transform a = hand_a(j), b = hand_b(j);
  const auto lerp = [w](glm::vec3 x, glm::vec3 y) {
    return glm::vec3(glm::dvec3(x) + (glm::dvec3(y) - glm::dvec3(x)) * w);
  };
  return {lerp(a.translation, b.translation), about(kAxes[j % 8], 10.0 * j + 90 * w),
          lerp(a.scale, b.scale)};
}

std::vector<Transform> hand_poses(int n, Transform (*make)(int)) {
  std::vector<Transform> poses(n);
  for (int j = 0; j < n; ++j) poses[j] = make(j);
  return poses;
}

// Unrelated random poses: rotations anywhere (either hemisphere), non-uniform scales.
std::vector<Transform> random_poses(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> coord(-5.0f, 5.0f), scale(0.5f, 2.0f);
  std::vector<Transform> poses(n);
  for (Transform& t : poses) {
    t.translation = {coord(rng), coord(rng), coord(rng)};
    t.rotation = glm::normalize(glm::quat(normal(rng), normal(rng), normal(rng), normal(rng)));
    t.scale = {scale(rng), scale(rng), scale(rng)};
  }
  return poses;
}

std::vector<Transform> run_blend(const std::vector<Transform>& a, const std::vector<Transform>& b,
                                 float weight, std::span<const float> mask = {}) {
  std::vector<Transform> out(a.size());
  animtest::fill_sentinel(std::span<Transform>(out));
  BlendJob job;
  job.a = a;
  job.b = b;
  job.weight = weight;
  job.mask = mask;
  job.output = out;
  EXPECT_TRUE(job.validate());
  EXPECT_TRUE(job.run());
  return out;
}

TEST(BlendJob, ValidateRefusesAndRunWritesNothing) {
  constexpr int n = 5;
  const std::vector<Transform> a = random_poses(n, 1), b = random_poses(n, 2);
  const std::vector<Transform> b_short(b.begin(), b.end() - 1);
  const std::vector<float> mask(n, 0.5f), mask_short(n - 1, 0.5f), mask_long(n + 1, 0.5f);
  std::vector<Transform> out(n + 1);
  const std::span<Transform> o(out);
  struct Case {
    const char* what;
    BlendJob job;
  };
  auto job = [&](std::span<const Transform> ja, std::span<const Transform> jb, float w,
                 std::span<const float> m, std::span<Transform> jo) {
    BlendJob j;
    j.a = ja;
    j.b = jb;
    j.weight = w;
    j.mask = m;
    j.output = jo;
    return j;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Case cases[] = {
      {"b one short", job(a, b_short, 0.5f, {}, o.first(n))},
      {"output one short", job(a, b, 0.5f, {}, o.first(n - 1))},
      {"output one long", job(a, b, 0.5f, {}, o.first(n + 1))},
      {"mask one short", job(a, b, 0.5f, mask_short, o.first(n))},
      {"mask one long", job(a, b, 0.5f, mask_long, o.first(n))},
      {"weight NaN", job(a, b, nan, mask, o.first(n))},
      {"weight +inf", job(a, b, inf, {}, o.first(n))},
      {"weight -inf", job(a, b, -inf, {}, o.first(n))},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    animtest::fill_sentinel(o);
    EXPECT_FALSE(c.job.validate());
    EXPECT_FALSE(c.job.run());
    EXPECT_TRUE(animtest::all_sentinel(std::span<const Transform>(out)));
  }
  // No joints at all is a valid (empty) blend.
  EXPECT_TRUE(job({}, {}, 0.5f, {}, {}).run());
}

TEST(BlendJob, OutputOverlappingAnInputPartlyIsRefused) {
  // Aliasing a or b exactly is allowed (in-place blending), but an output shifted by some
  // joints against an input would overwrite joints of it before they are read.
  constexpr int n = 8;
  std::vector<Transform> buffer = random_poses(n + 2, 3);
  const std::vector<Transform> before = buffer;
  const std::vector<Transform> other = random_poses(n, 4);
  const std::span<Transform> all(buffer);
  for (int shift : {1, 2}) {
    for (bool in_a : {true, false}) {
      SCOPED_TRACE(testing::Message() << "shift " << shift << (in_a ? " against a" : " against b"));
      BlendJob job;
      const std::span<const Transform> input = all.first(n);
      job.a = in_a ? input : std::span<const Transform>(other);
      job.b = in_a ? std::span<const Transform>(other) : input;
      job.weight = 0.5f;
      job.output = all.subspan(shift, n);
      EXPECT_FALSE(job.validate());
      EXPECT_FALSE(job.run());
      EXPECT_EQ(std::memcmp(buffer.data(), before.data(), buffer.size() * sizeof(Transform)), 0);
      // The output before the input is refused as well.
      job.a = in_a ? all.subspan(shift, n) : std::span<const Transform>(other);
      job.b = in_a ? std::span<const Transform>(other) : all.subspan(shift, n);
      job.output = all.first(n);
      EXPECT_FALSE(job.run());
      EXPECT_EQ(std::memcmp(buffer.data(), before.data(), buffer.size() * sizeof(Transform)), 0);
    }
  }
}

TEST(BlendJob, WeightZeroIsABitForBitAndWeightOneIsB) {
  for (int n : {1, 3, 4, 5, 7, 8, 9}) {
    SCOPED_TRACE(testing::Message() << n << " joints");
    const std::vector<Transform> a = random_poses(n, 10 + n), b = random_poses(n, 20 + n);
    const std::vector<float> ones(n, 1.0f), zeros(n, 0.0f);
    for (float w : {0.0f, -0.5f}) {
      const std::vector<Transform> out = run_blend(a, b, w);
      for (int j = 0; j < n; ++j) EXPECT_TRUE(animtest::same_bits(out[j], a[j])) << j;
    }
    for (float w : {1.0f, 1.5f}) {
      const std::vector<Transform> out = run_blend(a, b, w);
      for (int j = 0; j < n; ++j) EXPECT_TRUE(animtest::same_bits(out[j], b[j])) << j;
      const std::vector<Transform> masked_in = run_blend(a, b, w, ones);
      for (int j = 0; j < n; ++j) EXPECT_TRUE(animtest::same_bits(masked_in[j], b[j])) << j;
      const std::vector<Transform> masked_out = run_blend(a, b, w, zeros);
      for (int j = 0; j < n; ++j) EXPECT_TRUE(animtest::same_bits(masked_out[j], a[j])) << j;
    }
  }
}

TEST(BlendJob, HandComputedMidBlend) {
  // 1, 3, 5 and 7 joints: a lone partial block, and a full block followed by a partial one.
  for (int n : {1, 3, 5, 7, 8}) {
    const std::vector<Transform> a = hand_poses(n, hand_a), b = hand_poses(n, hand_b);
    for (float w : {0.25f, 0.5f, 0.75f}) {
      const std::vector<Transform> out = run_blend(a, b, w);
      for (int j = 0; j < n; ++j) {
        SCOPED_TRACE(testing::Message() << n << " joints, w " << w << ", joint " << j);
        const Transform want = hand_mix(j, w);
        EXPECT_EQ(out[j].translation, want.translation);  // dyadic: exact
        EXPECT_EQ(out[j].scale, want.scale);
        expect_same_rotation(out[j].rotation, want.rotation, 1e-6f);
      }
    }
  }
  // Concretely, joint 0 at w = 0.25: (0, 2, 0) -> (4, -6, 0) a quarter of the way is (1, 0, 0);
  // scale 1 -> 1, 3, 0.5 is 1, 1.5, 0.875; rotation 22.5 degrees about x.
  const std::vector<Transform> out = run_blend({hand_a(0)}, {hand_b(0)}, 0.25f);
  EXPECT_EQ(out[0].translation, glm::vec3(1, 0, 0));
  EXPECT_EQ(out[0].scale, glm::vec3(1, 1.5f, 0.875f));
  expect_same_rotation(out[0].rotation,
                       glm::quat(std::cos(3.14159265f / 16), std::sin(3.14159265f / 16), 0, 0),
                       1e-7f);
}

TEST(BlendJob, MaskWeightsApplyPerJoint) {
  constexpr int n = 7;
  const std::vector<Transform> a = hand_poses(n, hand_a), b = hand_poses(n, hand_b);
  const std::vector<float> mask = {0.0f, 1.0f, 0.5f, 0.25f, 1.0f, 0.0f, 0.75f};
  const std::vector<Transform> out = run_blend(a, b, 0.5f, mask);
  for (int j = 0; j < n; ++j) {
    SCOPED_TRACE(testing::Message() << "joint " << j);
    const float w = 0.5f * mask[j];
    if (w == 0.0f) {
      EXPECT_TRUE(animtest::same_bits(out[j], a[j]));
      continue;
    }
    const Transform want = hand_mix(j, w);
    EXPECT_EQ(out[j].translation, want.translation);
    EXPECT_EQ(out[j].scale, want.scale);
    expect_same_rotation(out[j].rotation, want.rotation, 1e-6f);
  }
  // Weight 1 under a mask of 1 is b bit for bit (a finished fade), 0 is a.
  const std::vector<float> on_off = {1, 0, 1, 0, 1, 0, 1};
  const std::vector<Transform> ends = run_blend(a, b, 1.0f, on_off);
  for (int j = 0; j < n; ++j)
    EXPECT_TRUE(animtest::same_bits(ends[j], j % 2 == 0 ? b[j] : a[j])) << j;
}

TEST(BlendJob, BlendingInPlaceGivesTheSameBits) {
  for (int n : {3, 8, 11}) {
    SCOPED_TRACE(testing::Message() << n << " joints");
    const std::vector<Transform> a = random_poses(n, 30 + n), b = random_poses(n, 40 + n);
    std::vector<float> mask(n);
    for (int j = 0; j < n; ++j) mask[j] = static_cast<float>(j % 5) / 4.0f;  // 0 .. 1
    const std::vector<Transform> want = run_blend(a, b, 0.6f, mask);
    std::vector<Transform> in_a = a;
    BlendJob job;
    job.a = in_a;
    job.b = b;
    job.weight = 0.6f;
    job.mask = mask;
    job.output = in_a;
    ASSERT_TRUE(job.run());
    EXPECT_EQ(std::memcmp(in_a.data(), want.data(), n * sizeof(Transform)), 0);
    std::vector<Transform> in_b = b;
    job.a = a;
    job.b = in_b;
    job.output = in_b;
    ASSERT_TRUE(job.run());
    EXPECT_EQ(std::memcmp(in_b.data(), want.data(), n * sizeof(Transform)), 0);
  }
}

TEST(BlendJob, OppositeSignsOfOneRotationBlendToIt) {
  // b = -a: the same rotation, so every blend of the two is that rotation.
  const std::vector<Transform> a = random_poses(5, 50);
  std::vector<Transform> b = a;
  for (Transform& t : b) t.rotation = -t.rotation;
  const std::vector<Transform> out = run_blend(a, b, 0.5f);
  for (int j = 0; j < 5; ++j) expect_same_rotation(out[j].rotation, a[j].rotation, 2e-7f);
}

}  // namespace blend_job_test
}  // namespace anim

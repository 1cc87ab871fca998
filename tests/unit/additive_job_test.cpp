// AdditiveJob: what validate() refuses (run() then writes nothing), weight 0 (the base bit for
// bit), full weight, per-joint mask weights, in-place use, joint counts that leave a partly
// filled block of 4, and agreement with the scalar reference (blend.h's additive_delta +
// apply_additive) on random poses. Hand-computed: a delta of 90 degrees about one axis added
// at weight 0.5 turns the base by 45 degrees about that axis.
#include "anim/additive_job.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "anim/blend.h"
#include "job_test_helpers.h"

namespace anim {
namespace additive_job_test {

using animtest::about;
using animtest::expect_same_rotation;
using animtest::expect_vec3_near;

struct Poses {
  std::vector<Transform> base, current, reference, out;
  explicit Poses(size_t n) : base(n), current(n), reference(n), out(n) {}
};

AdditiveJob job_for(Poses& p, float weight, std::span<const float> mask = {}) {
  AdditiveJob job;
  job.base = p.base;
  job.current = p.current;
  job.reference = p.reference;
  job.weight = weight;
  job.mask = mask;
  job.output = p.out;
  return job;
}

Transform random_transform(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Transform t;
  t.translation = {u(rng), u(rng), u(rng)};
  t.rotation = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
  t.scale = {1.0f + 0.5f * u(rng), 1.0f + 0.5f * u(rng), 1.0f + 0.5f * u(rng)};
  return t;
}

TEST(AdditiveJob, RefusesBadInputsAndWritesNothing) {
  Poses p(6);
  animtest::fill_sentinel(std::span<Transform>(p.out));
  const float bad_mask[6] = {1, 1, std::numeric_limits<float>::quiet_NaN(), 1, 1, 1};
  const float big_mask[6] = {1, 1, 1.5f, 1, 1, 1};
  const float short_mask[5] = {1, 1, 1, 1, 1};
  EXPECT_FALSE(job_for(p, std::numeric_limits<float>::quiet_NaN()).run());
  EXPECT_FALSE(job_for(p, 0.5f, bad_mask).run());
  EXPECT_FALSE(job_for(p, 0.5f, big_mask).run());
  EXPECT_FALSE(job_for(p, 0.5f, short_mask).run());
  AdditiveJob shorter = job_for(p, 0.5f);
  shorter.current = std::span<const Transform>(p.current).first(5);
  EXPECT_FALSE(shorter.run());
  EXPECT_TRUE(animtest::all_sentinel(std::span<const Transform>(p.out)));
  // An output shifted one joint against the base would overwrite joints before they are read.
  std::vector<Transform> both(7);
  AdditiveJob shifted = job_for(p, 0.5f);
  shifted.base = std::span<const Transform>(both).first(6);
  shifted.output = std::span<Transform>(both).subspan(1, 6);
  EXPECT_FALSE(shifted.validate());
}

TEST(AdditiveJob, HalfOfANinetyDegreeDeltaTurnsTheBaseByFortyFive) {
  for (size_t n : {1u, 3u, 4u, 5u, 7u, 9u}) {
    SCOPED_TRACE(n);
    Poses p(n);
    for (size_t j = 0; j < n; ++j) {
      const glm::vec3 axis = j % 2 ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 1);
      p.base[j] = {{1.0f * j, 0, 0}, about(axis, 20.0 * j), {1, 2, 1}};
      p.reference[j] = {{0, 1, 0}, about(axis, 30.0), {1, 1, 1}};
      p.current[j] = {{2, 1, 4}, about(axis, 120.0), {1.5f, 1, 0.5f}};  // 90 past the reference
    }
    ASSERT_TRUE(job_for(p, 0.5f).run());
    for (size_t j = 0; j < n; ++j) {
      const glm::vec3 axis = j % 2 ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 1);
      expect_same_rotation(p.out[j].rotation, about(axis, 20.0 * j + 45.0), 2e-7f);
      expect_vec3_near(p.out[j].translation, {1.0f * j + 1.0f, 0, 2}, 0.0f);
      expect_vec3_near(p.out[j].scale, {1.25f, 2, 0.75f}, 0.0f);
    }
  }
}

TEST(AdditiveJob, WeightZeroIsTheBaseBitForBitAndMaskWeightsScaleEachJoint) {
  std::mt19937 rng(7);
  Poses p(7);
  for (size_t j = 0; j < 7; ++j) {
    p.base[j] = random_transform(rng);
    p.current[j] = random_transform(rng);
    p.reference[j] = random_transform(rng);
  }
  ASSERT_TRUE(job_for(p, 0.0f).run());
  for (size_t j = 0; j < 7; ++j) EXPECT_TRUE(animtest::same_bits(p.out[j], p.base[j])) << j;

  const float mask[7] = {0, 1, 0.5f, 0, 0.25f, 1, 0};
  ASSERT_TRUE(job_for(p, 0.8f, mask).run());
  for (size_t j = 0; j < 7; ++j) {
    SCOPED_TRACE(j);
    if (mask[j] == 0.0f) {
      EXPECT_TRUE(animtest::same_bits(p.out[j], p.base[j]));
      continue;
    }
    const Transform want =
        apply_additive(p.base[j], additive_delta(p.current[j], p.reference[j]), 0.8f * mask[j]);
    expect_same_rotation(p.out[j].rotation, want.rotation, 3e-7f);
    expect_vec3_near(p.out[j].translation, want.translation, 1e-6f);
    expect_vec3_near(p.out[j].scale, want.scale, 1e-6f);
  }
}

TEST(AdditiveJob, AgreesWithTheScalarReferenceAndWorksInPlace) {
  std::mt19937 rng(11);
  for (float w : {0.1f, 0.5f, 0.93f, 1.0f}) {
    SCOPED_TRACE(w);
    Poses p(37);
    for (size_t j = 0; j < 37; ++j) {
      p.base[j] = random_transform(rng);
      p.current[j] = random_transform(rng);
      p.reference[j] = random_transform(rng);
    }
    std::vector<Transform> in_place = p.base;
    ASSERT_TRUE(job_for(p, w).run());
    AdditiveJob self = job_for(p, w);
    self.base = in_place;
    self.output = in_place;
    ASSERT_TRUE(self.run());
    for (size_t j = 0; j < 37; ++j) {
      SCOPED_TRACE(j);
      const Transform want =
          apply_additive(p.base[j], additive_delta(p.current[j], p.reference[j]), w);
      expect_same_rotation(p.out[j].rotation, want.rotation, 3e-7f);
      expect_vec3_near(p.out[j].translation, want.translation, 1e-6f);
      expect_vec3_near(p.out[j].scale, want.scale, 1e-6f);
      EXPECT_TRUE(animtest::same_bits(in_place[j], p.out[j]));
    }
  }
}

}  // namespace additive_job_test
}  // namespace anim

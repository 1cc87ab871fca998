// quantize_pose gives quantize_joint's integers, joint for joint, through each of its paths
// (quantize_paths.h: scalar, SSE2 four joints at a time, AVX2 eight at a time; a path this CPU
// lacks is skipped): on the built-in character and every shared asset's clips as the daemon
// runs them (each frame pulled toward the two before), on random and extreme values (zero, NaN
// and infinite quaternions, ties between components, translations around and far past the
// vector range, held frames of every kind), and on groups of eight with one lane out of range
// (the group falls back) at joint counts around multiples of eight.
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/loaders/md5_loader.h"
#include "animcodec/compact.h"
#include "animcodec/quantize_paths.h"
#include "codec_harness.h"
#include "shared_assets.h"

using namespace animcodec;

namespace codec_quantize_pose_test {

const char* path_name(QuantizePath path) {
  switch (path) {
    case QuantizePath::kScalar:
      return "Scalar";
    case QuantizePath::kSse2:
      return "Sse2";
    case QuantizePath::kAvx2:
      return "Avx2";
  }
  return "?";
}

// Both ways (quantize_pose through `path`, quantize_joint), against the same held frames;
// returns the number of joints compared.
size_t expect_same(QuantizePath path, const Layout& layout, const PoseView& view,
                   const std::vector<QJoint>* prev1, const std::vector<QJoint>* prev2,
                   std::vector<QJoint>& batch, const std::string& where) {
  const size_t n = view.count;
  batch.assign(n, QJoint{});
  EXPECT_TRUE(quantize_pose_with(path, layout, view, prev1 ? prev1->data() : nullptr,
                                 prev2 ? prev2->data() : nullptr, batch))
      << path_name(path);
  for (size_t j = 0; j < n; ++j) {
    const float* t = view.translation + j * view.stride;
    const float* r = view.rotation + j * view.stride;
    const float* s = view.scale + j * view.stride;
    const QJoint one = quantize_joint(
        layout, j, {t[0], t[1], t[2]}, glm::quat(r[3], r[0], r[1], r[2]), {s[0], s[1], s[2]},
        prev1 ? &(*prev1)[j] : nullptr, prev2 ? &(*prev2)[j] : nullptr);
    EXPECT_EQ(batch[j], one) << path_name(path) << ", " << where << " joint " << j << ": batch r "
                             << batch[j].r[0] << "," << batch[j].r[1] << "," << batch[j].r[2]
                             << " l " << int{batch[j].largest} << " t " << batch[j].t[0]
                             << " against r " << one.r[0] << "," << one.r[1] << "," << one.r[2]
                             << " l " << int{one.largest} << " t " << one.t[0];
    if (!(batch[j] == one)) return j;  // one message per pose is enough
  }
  return n;
}

// Plays every clip of `asset` for 90 ticks, crossfading into the next clip halfway, with the
// frames held as the daemon holds them; every frame compared.
void expect_same_on_clips(QuantizePath path, const anim::Asset& asset) {
  const Skeleton s = codectest::codec_skeleton(asset);
  size_t compared = 0;
  for (size_t clip = 0; clip < asset.clips.size(); ++clip) {
    anim::Animator animator(asset.skeleton, asset.clips);
    ASSERT_TRUE(animator.play(static_cast<int>(clip)).is_ok());
    std::vector<QJoint> held[2], pose;
    int count = 0;
    for (int f = 0; f < 90; ++f) {
      if (f == 45 && asset.clips.size() > 1) {
        ASSERT_TRUE(
            animator.crossfade(static_cast<int>((clip + 1) % asset.clips.size()), 0.3f).is_ok());
      }
      ASSERT_TRUE(animator.update(1.0f / 60.0f).is_ok());
      const auto& locals = animator.local_pose().locals;
      compared +=
          expect_same(path, s.layout, transform_view<anim::Transform>(locals),
                      count >= 1 ? &held[0] : nullptr, count >= 2 ? &held[1] : nullptr, pose,
                      asset.name + " clip " + std::to_string(clip) + " tick " + std::to_string(f));
      if (::testing::Test::HasFailure()) return;
      held[1] = std::move(held[0]);
      held[0] = pose;
      count = std::min(count + 1, 2);
    }
  }
  EXPECT_GT(compared, 0u);
}

// A layout with `n` joints of mixed precisions (rotation 6..15 bits, translation and scale
// steps from 2^-3 to 2^-14).
Layout mixed_layout(size_t n) {
  std::vector<JointPrecision> p(n);
  std::vector<Trs> rest(n);
  for (size_t j = 0; j < n; ++j) {
    p[j] = {static_cast<uint8_t>(kMinRotationBits + j % 10), static_cast<int8_t>(3 + j % 12),
            static_cast<int8_t>(4 + j % 9)};
    rest[j].t = {0.1f * j, 0.5f, -0.25f};
    rest[j].s = {1.0f, 1.0f + 0.01f * j, 1.0f};
  }
  return layout_from_precision(p, rest, 77);
}

}  // namespace codec_quantize_pose_test

namespace animcodec {
// gtest shows a test's parameter through this (ctest's test names include it).
void PrintTo(QuantizePath path, std::ostream* os) {
  *os << codec_quantize_pose_test::path_name(path);
}
}  // namespace animcodec

namespace codec_quantize_pose_test {

// Every test runs once per path; a path this build or CPU lacks is skipped, saying so (the
// SSE2 and AVX2 paths are x86-64 only, AVX2 where the CPU has it).
class QuantizePose : public ::testing::TestWithParam<QuantizePath> {
 protected:
  void SetUp() override {
    if (!quantize_path_available(GetParam()))
      GTEST_SKIP() << "quantize path " << path_name(GetParam()) << " not available here";
  }
};

INSTANTIATE_TEST_SUITE_P(Paths, QuantizePose,
                         ::testing::Values(QuantizePath::kScalar, QuantizePath::kSse2,
                                           QuantizePath::kAvx2),
                         [](const ::testing::TestParamInfo<QuantizePath>& info) {
                           return std::string(path_name(info.param));
                         });

TEST_P(QuantizePose, SameIntegersAsQuantizeJointOnTheBuiltinCharacter) {
  anim::Asset asset = anim::make_builtin_character();
  asset.name = "builtin";
  expect_same_on_clips(GetParam(), asset);
}

TEST_P(QuantizePose, SameIntegersAsQuantizeJointOnEverySharedAssetAndClip) {
  ANIMD_REQUIRE_SHARED();
  EXPECT_GE(
      codectest::for_each_shared_asset([](anim::Asset& a) { expect_same_on_clips(GetParam(), a); }),
      6);
}

TEST_P(QuantizePose, SameIntegersAsQuantizeJointOnRandomAndExtremeValues) {
  // 23 joints: two groups of eight, then one of four and three left over for the scalar tail
  // (SSE2: five groups of four and the three).
  constexpr size_t kJoints = 23;
  const Layout layout = mixed_layout(kJoints);
  std::mt19937 rng(20261127);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();

  auto value = [&](float range) {
    const int k = pick(rng);
    if (k < 2) return nan;
    if (k < 4) return k == 2 ? inf : -inf;
    if (k < 8) return unit(rng) * 1e12f;  // far past the vector range
    if (k < 16) return std::ldexp(unit(rng) > 0 ? 1.0f : -1.0f, 20) * (1.0f + 1e-3f * unit(rng));
    return unit(rng) * range;
  };
  auto rotation = [&]() -> glm::quat {
    const int k = pick(rng);
    if (k < 3) return glm::quat(0, 0, 0, 0);
    if (k < 5) return glm::quat(nan, 0, 0, 1);
    if (k < 7) return glm::quat(1e30f, 1e30f, 0, 0);         // the norm overflows
    if (k < 9) return glm::quat(1e-21f, 0, -1e-21f, 0);      // tiny but not zero
    if (k < 14) return glm::quat(-0.5f, 0.5f, -0.5f, 0.5f);  // four equal magnitudes
    if (k < 18) return glm::quat(0.70710677f, 0, -0.70710677f, 0);
    return glm::quat(unit(rng), unit(rng), unit(rng), unit(rng)) * (k < 30 ? 3.0f : 1.0f);
  };
  auto held = [&](const std::vector<QJoint>& near) {
    std::vector<QJoint> out(kJoints);
    for (size_t j = 0; j < kJoints; ++j) {
      QJoint& q = out[j];
      const int k = pick(rng);
      q = near[j];
      q.largest = static_cast<uint8_t>(k < 70 ? near[j].largest : pick(rng) % 4);
      for (int i = 0; i < 3; ++i) {
        const int d = pick(rng) % 9 - 4;  // small steps: pulls and extrapolations happen
        q.r[i] = static_cast<int16_t>(std::clamp(q.r[i] + d, -23000, 23000));
        const int64_t big = k > 95 ? int64_t{1} << 30 : (k > 90 ? int64_t{1} << 20 : 0);
        q.t[i] = static_cast<int32_t>(
            std::clamp<int64_t>(int64_t{q.t[i]} + d + big, INT32_MIN, INT32_MAX));
        q.s[i] =
            static_cast<int32_t>(std::clamp<int64_t>(int64_t{q.s[i]} - d, INT32_MIN, INT32_MAX));
      }
    }
    return out;
  };

  size_t compared = 0;
  std::vector<QJoint> batch;
  for (int round = 0; round < 400; ++round) {
    std::vector<anim::Transform> locals(kJoints);
    for (size_t j = 0; j < kJoints; ++j) {
      const bool wild = pick(rng) < 15;
      locals[j].translation = wild ? glm::vec3(value(50), value(50), value(50))
                                   : layout.rest[j].t + glm::vec3(unit(rng), unit(rng), unit(rng));
      locals[j].rotation = rotation();
      locals[j].scale = wild ? glm::vec3(value(4), value(4), value(4))
                             : layout.rest[j].s + 0.1f * glm::vec3(unit(rng), unit(rng), unit(rng));
    }
    const PoseView view = transform_view<anim::Transform>(locals);
    // The pose alone, then held frames near it (pulls and extrapolations), then far ones.
    std::vector<QJoint> plain;
    compared += expect_same(GetParam(), layout, view, nullptr, nullptr, plain,
                            "round " + std::to_string(round));
    const std::vector<QJoint> p1 = held(plain), p2 = held(p1);
    compared += expect_same(GetParam(), layout, view, &p1, nullptr, batch,
                            "prev1, round " + std::to_string(round));
    compared += expect_same(GetParam(), layout, view, &p1, &p2, batch,
                            "prev1+2, round " + std::to_string(round));
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(compared, 400u * 3 * kJoints);
}

TEST_P(QuantizePose, AViewOfTrsReadsEveryMember) {
  const Layout layout = mixed_layout(5);
  std::vector<Trs> locals(5);
  for (size_t j = 0; j < locals.size(); ++j) {
    locals[j].t = layout.rest[j].t + glm::vec3(0.5f, -0.25f, 0.125f * j);
    locals[j].r = glm::angleAxis(0.3f * j, glm::normalize(glm::vec3(1, 2, 3)));
    locals[j].s = layout.rest[j].s * 1.5f;
  }
  std::vector<QJoint> out(locals.size());
  ASSERT_TRUE(quantize_pose_with(GetParam(), layout, pose_view(locals), nullptr, nullptr, out));
  for (size_t j = 0; j < locals.size(); ++j)
    EXPECT_EQ(out[j], quantize_joint(layout, j, locals[j].t, locals[j].r, locals[j].s)) << j;
  // quantize_pose (the best path here) gives the same.
  std::vector<QJoint> best(locals.size());
  quantize_pose(layout, pose_view(locals), nullptr, nullptr, best);
  EXPECT_EQ(best, out);
  // A translation by hand: 0.5 at step 2^-exp.
  EXPECT_EQ(out[0].t[0],
            static_cast<int32_t>(std::ldexp(0.5, layout.precision[0].translation_exp)));
}

TEST_P(QuantizePose, AViewOfAnotherLayoutGivesTheSameIntegers) {
  // Views laid out like Trs are read with two 4-float loads a joint, which reach one float past
  // the translation and one before the scale (the joint's own there); any other layout is read
  // component by component. Here scale first, translation last, 11 floats a joint: the same
  // integers, and no read outside the array (the fast loads would read before the first joint
  // and past the last one: the ASan build says so).
  struct Odd {
    float s[3];
    float pad;
    float r[4];  // x y z w
    float t[3];
  };
  // Three groups of four, or one of eight and one of four: the last joint is in a group.
  constexpr size_t kJoints = 12;
  const Layout layout = mixed_layout(kJoints);
  std::vector<Odd> odd(kJoints);
  std::vector<Trs> trs(kJoints);
  for (size_t j = 0; j < kJoints; ++j) {
    const float f = static_cast<float>(j);
    trs[j].t = layout.rest[j].t + glm::vec3(0.3f - 0.05f * f, 0.01f * f, -0.2f);
    trs[j].r = glm::angleAxis(0.2f * f - 1.0f, glm::normalize(glm::vec3(1, -2, 0.5f)));
    trs[j].s = layout.rest[j].s * (1.0f + 0.02f * f);
    for (int i = 0; i < 3; ++i) odd[j].t[i] = trs[j].t[i], odd[j].s[i] = trs[j].s[i];
    odd[j].pad = std::numeric_limits<float>::quiet_NaN();  // never read
    odd[j].r[0] = trs[j].r.x, odd[j].r[1] = trs[j].r.y, odd[j].r[2] = trs[j].r.z;
    odd[j].r[3] = trs[j].r.w;
  }
  const PoseView view{odd[0].t, odd[0].r, odd[0].s, sizeof(Odd) / sizeof(float), kJoints};
  std::vector<QJoint> from_odd, from_trs, p1;
  EXPECT_EQ(expect_same(GetParam(), layout, view, nullptr, nullptr, from_odd, "odd"), kJoints);
  EXPECT_EQ(expect_same(GetParam(), layout, pose_view(trs), nullptr, nullptr, from_trs, "trs"),
            kJoints);
  EXPECT_EQ(from_odd, from_trs);
  p1 = from_trs;
  for (QJoint& q : p1) q.t[0] += 1;  // held one step away: pulled back to it
  EXPECT_EQ(expect_same(GetParam(), layout, view, &p1, nullptr, from_odd, "odd, held"), kJoints);
  EXPECT_EQ(expect_same(GetParam(), layout, pose_view(trs), &p1, nullptr, from_trs, "trs, held"),
            kJoints);
  EXPECT_EQ(from_odd, from_trs);
}

TEST_P(QuantizePose, GroupsWithOneLaneOutOfRangeAtJointCountsAroundMultiplesOfEight) {
  // In most groups of eight one lane (a different one each group) is beyond what the float
  // comparisons decide exactly: a translation far past 2^20 steps, a NaN scale, or a
  // translation 2^22 + 1 steps from rest held at 2^22, which the float comparison would pull
  // (2^22 + 0.75 rounds to 2^22 + 1) and quantize_joint does not (1 > 0.75). The AVX2 path does
  // such a group as two groups of four, the one holding the lane by quantize_joint; the rest of
  // the pose, and every group left whole, must not change. 61 joints end in a group of four and
  // one joint, 67 in three joints.
  for (const size_t n : {size_t{61}, size_t{64}, size_t{67}}) {
    const Layout layout = mixed_layout(n);
    std::vector<Trs> locals(n);
    for (size_t j = 0; j < n; ++j) {
      const float f = static_cast<float>(j);
      locals[j].t = layout.rest[j].t + glm::vec3(0.01f * f, -0.3f, 0.2f - 0.005f * f);
      locals[j].r = glm::angleAxis(0.1f * f - 2.0f, glm::normalize(glm::vec3(0.3f, 1, -0.6f)));
      locals[j].s = layout.rest[j].s * (1.0f + 0.003f * f);
    }
    constexpr int32_t kFar = 1 << 22;
    std::vector<size_t> far_held;  // joints at kFar + 1 steps held at kFar (group kind 2)
    for (size_t g = 0; g * 8 < n; ++g) {
      const size_t bad = g * 8 + g % 8;
      if (g % 4 == 3 || bad >= n) continue;    // every fourth group stays whole
      if (g % 4 == 0) locals[bad].t.y = 1e6f;  // at least 8e6 steps
      if (g % 4 == 1) locals[bad].s.z = std::numeric_limits<float>::quiet_NaN();
      if (g % 4 == 2) {
        locals[bad].t.y = static_cast<float>(
            layout.rest[bad].t.y + std::ldexp(kFar + 1.0, -layout.precision[bad].translation_exp));
        ASSERT_EQ(quantize_joint(layout, bad, locals[bad].t, locals[bad].r, locals[bad].s).t[1],
                  kFar + 1);
        far_held.push_back(bad);
      }
    }
    const std::string where = std::to_string(n) + " joints";
    std::vector<QJoint> plain, batch;
    EXPECT_EQ(expect_same(GetParam(), layout, pose_view(locals), nullptr, nullptr, plain, where),
              n);
    // Held frames a step or two away (pulled and extrapolated), some far.
    std::vector<QJoint> p1 = plain, p2 = plain;
    for (size_t j = 0; j < n; ++j) {
      p1[j].t[0] += 1, p1[j].s[2] -= 1, p1[j].r[1] = static_cast<int16_t>(p1[j].r[1] + 1);
      p2[j].t[0] += 4, p2[j].s[2] -= 2, p2[j].r[1] = static_cast<int16_t>(p2[j].r[1] + 5);
    }
    for (const size_t j : far_held) p1[j].t[1] = p2[j].t[1] = kFar;  // predicted: kFar
    EXPECT_EQ(
        expect_same(GetParam(), layout, pose_view(locals), &p1, nullptr, batch, where + ", prev1"),
        n);
    EXPECT_EQ(
        expect_same(GetParam(), layout, pose_view(locals), &p1, &p2, batch, where + ", prev1+2"),
        n);
  }
}

}  // namespace codec_quantize_pose_test

// encode_frame writes the same bytes through each of its paths (encode_paths.h: the build's
// baseline, and the same code compiled for x86-64-v3; a path this CPU lacks is skipped): on the
// built-in character's clips quantized as the daemon does (each frame pulled toward the two
// before), and on random walks of quantized joints chosen to reach every branch of the coder
// (escapes, channels turning on and off, unchanged joints under the mask, residuals too wide
// for one put, speeds too large for cross prediction), frames of every kind.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "animcodec/compact.h"
#include "animcodec/encode_paths.h"
#include "codec_harness.h"

using namespace animcodec;

namespace codec_encode_paths_test {

const char* path_name(EncodePath path) {
  return path == EncodePath::kBaseline ? "Baseline" : "X86V3";
}

// The frames of every kind `pose` can be sent as, given the two before, through both paths
// (the caller skips on a CPU without the x86-64-v3 one); returns how many were compared.
size_t expect_same_bytes(const Layout& l, const std::vector<QJoint>& pose, const QRoot& root,
                         const std::vector<QJoint>& prev1, const QRoot& root1,
                         const std::vector<QJoint>& prev2, const QRoot& root2,
                         const std::string& where) {
  std::vector<uint8_t> a(max_frame_bytes(l.num_joints())), b(a.size());
  size_t compared = 0;
  for (FrameKind kind : {FrameKind::kKey, FrameKind::kDelta1, FrameKind::kDelta2}) {
    Baseline base;
    if (kind != FrameKind::kKey) base.prev1 = prev1, base.root1 = &root1;
    if (kind == FrameKind::kDelta2) base.prev2 = prev2, base.root2 = &root2;
    const size_t na = encode_frame_with(EncodePath::kBaseline, l, kind, pose, root, base, a);
    const size_t nb = encode_frame_with(EncodePath::kX86V3, l, kind, pose, root, base, b);
    EXPECT_GT(na, 0u) << where;
    EXPECT_EQ(na, nb) << where << ", kind " << int(kind);
    EXPECT_TRUE(std::equal(a.begin(), a.begin() + std::min(na, nb), b.begin()))
        << where << ", kind " << int(kind) << ": the paths wrote different bytes";
    ++compared;
  }
  return compared;
}

TEST(EncodePaths, TheBaselineIsAlwaysThereAndEncodeFrameTakesTheBest) {
  EXPECT_TRUE(encode_path_available(EncodePath::kBaseline));
  std::printf("x86-64-v3 encode path on this CPU: %s\n",
              encode_path_available(EncodePath::kX86V3) ? "yes" : "no (its tests skip)");
  // encode_frame and the path it takes agree, whichever that is.
  const anim::Asset asset = anim::make_builtin_character();
  const Skeleton s = codectest::codec_skeleton(asset);
  std::vector<QJoint> pose;
  codectest::quantize_pose(s.layout, asset.skeleton.rest_pose, pose);
  ASSERT_EQ(pose.size(), s.layout.num_joints());
  std::vector<uint8_t> a(max_frame_bytes(s.layout.num_joints())), b(a.size());
  const size_t na = encode_frame(s.layout, FrameKind::kKey, pose, QRoot{}, {}, a);
  const EncodePath best =
      encode_path_available(EncodePath::kX86V3) ? EncodePath::kX86V3 : EncodePath::kBaseline;
  const size_t nb = encode_frame_with(best, s.layout, FrameKind::kKey, pose, QRoot{}, {}, b);
  ASSERT_GT(na, 0u);
  ASSERT_EQ(na, nb);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + na, b.begin()));
}

TEST(EncodePaths, AnUnavailablePathOrBadArgumentsWriteNothing) {
  const anim::Asset asset = anim::make_builtin_character();
  const Skeleton s = codectest::codec_skeleton(asset);
  std::vector<QJoint> pose(s.layout.num_joints());
  std::vector<uint8_t> out(max_frame_bytes(pose.size()));
  for (EncodePath path : {EncodePath::kBaseline, EncodePath::kX86V3}) {
    if (!encode_path_available(path)) {
      EXPECT_EQ(encode_frame_with(path, s.layout, FrameKind::kKey, pose, QRoot{}, {}, out), 0u);
      continue;
    }
    // A delta without its baseline, a pose of the wrong length.
    EXPECT_EQ(encode_frame_with(path, s.layout, FrameKind::kDelta1, pose, QRoot{}, {}, out), 0u)
        << path_name(path);
    std::vector<QJoint> short_pose(pose.size() - 1);
    EXPECT_EQ(encode_frame_with(path, s.layout, FrameKind::kKey, short_pose, QRoot{}, {}, out), 0u)
        << path_name(path);
  }
}

TEST(EncodePaths, BuiltinClipsGiveTheSameBytesOnEveryPath) {
  if (!encode_path_available(EncodePath::kX86V3))
    GTEST_SKIP() << "this CPU has no x86-64-v3 (AVX2, BMI2): only the baseline path runs";
  const anim::Asset asset = anim::make_builtin_character();
  const Skeleton s = codectest::codec_skeleton(asset);
  size_t compared = 0;
  for (size_t c = 0; c < asset.clips.size(); ++c) {
    anim::Animator animator(asset.skeleton, asset.clips);
    ASSERT_TRUE(animator.play(static_cast<int>(c)).is_ok());
    std::vector<QJoint> frames[3];  // [0] newest
    QRoot roots[3];
    for (int f = 0; f < 90; ++f) {
      ASSERT_TRUE(animator.update(1.0f / 60.0f).is_ok());
      std::vector<QJoint> pose;
      codectest::quantize_pose(s.layout, animator.local_pose().locals, pose, frames[0], frames[1]);
      const QRoot root = quantize_root({0.01f * f, 0.0f, 0.002f * f},
                                       glm::angleAxis(0.01f * f, glm::vec3(0, 1, 0)), {1, 1, 1},
                                       f > 0 ? &roots[0] : nullptr, f > 1 ? &roots[1] : nullptr);
      if (f >= 2)
        compared +=
            expect_same_bytes(s.layout, pose, root, frames[0], roots[0], frames[1], roots[1],
                              asset.clips[c].name + " frame " + std::to_string(f));
      frames[2] = std::move(frames[1]);
      frames[1] = std::move(frames[0]);
      frames[0] = std::move(pose);
      roots[1] = roots[0];
      roots[0] = root;
    }
  }
  EXPECT_GE(compared, 3u * 88u * asset.clips.size());
}

TEST(EncodePaths, RandomWalksReachingEveryBranchGiveTheSameBytes) {
  if (!encode_path_available(EncodePath::kX86V3))
    GTEST_SKIP() << "this CPU has no x86-64-v3 (AVX2, BMI2): only the baseline path runs";
  std::mt19937 rng(20261128);
  const anim::Asset asset = anim::make_builtin_character();
  const Skeleton s = codectest::codec_skeleton(asset);
  const Layout& l = s.layout;
  const size_t n = l.num_joints();
  // Step sizes from still to far past what cross prediction multiplies exactly (2^20).
  const int64_t steps[] = {0, 1, 3, 40, 1000, 30000, int64_t{1} << 22, int64_t{1} << 30};
  auto pick = [&](int64_t limit) {
    std::uniform_int_distribution<int64_t> d(-limit, limit);
    return d(rng);
  };
  std::vector<QJoint> frames[3];
  for (auto& f : frames) f = l.rest_q;
  QRoot roots[3];
  size_t compared = 0;
  for (int f = 0; f < 400; ++f) {
    std::vector<QJoint> pose = frames[0];
    const int64_t step = steps[f % std::size(steps)];
    for (size_t j = 0; j < n; ++j) {
      QJoint& q = pose[j];
      const int mode = static_cast<int>(rng() % 8);
      if (mode == 0) continue;  // unchanged: the mask's case
      // Moving smoothly (a velocity for the second-order prediction), or jumping.
      for (int i = 0; i < 3; ++i) {
        const int64_t v = mode <= 4 ? int64_t{frames[0][j].r[i]} - frames[1][j].r[i] : 0;
        q.r[i] = static_cast<int16_t>(std::clamp<int64_t>(
            frames[0][j].r[i] + v + pick(std::min<int64_t>(step, 2000)), -16000, 16000));
        const int64_t tv = mode <= 4 ? int64_t{frames[0][j].t[i]} - frames[1][j].t[i] : 0;
        q.t[i] = static_cast<int32_t>(std::clamp<int64_t>(frames[0][j].t[i] + tv + pick(step),
                                                          -(int64_t{1} << 30), int64_t{1} << 30));
        // The scale channel turns on and off (zero means at rest: not listed).
        q.s[i] = mode == 5
                     ? 0
                     : static_cast<int32_t>(std::clamp<int64_t>(pick(step), -(1 << 20), 1 << 20));
      }
      if (mode == 6) q.largest = static_cast<uint8_t>(rng() % 4);  // an escape
      if (mode == 7) q.t = {0, 0, 0};                              // translation off
    }
    QRoot root = roots[0];
    for (int i = 0; i < 3; ++i) root.t[i] += pick(step);
    if (f % 7 == 0) root.s = {1.0f, 2.0f, 1.0f};
    if (f % 5 == 0) root.largest = static_cast<uint8_t>(rng() % 4);
    compared += expect_same_bytes(l, pose, root, frames[0], roots[0], frames[1], roots[1],
                                  "random frame " + std::to_string(f));
    frames[2] = std::move(frames[1]);
    frames[1] = std::move(frames[0]);
    frames[0] = std::move(pose);
    roots[1] = roots[0];
    roots[0] = root;
  }
  EXPECT_EQ(compared, 3u * 400u);
}

}  // namespace codec_encode_paths_test

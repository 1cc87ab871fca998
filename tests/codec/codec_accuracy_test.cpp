// The compact encoding on real assets (../shared/assets, skipped when absent) and the built-in
// character: skinned-vertex error of the decoded palettes against the float palettes on each
// asset's own mesh, scaled to a 1.8 m character, for every clip; and the frame sizes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/loaders/md5_loader.h"
#include "codec_harness.h"
#include "shared_assets.h"

using namespace animcodec;

namespace codec_accuracy_test {

struct ErrorStats {
  std::vector<double> errors;  // mm at 1.8 m
  double p99() {
    if (errors.empty()) return 0.0;
    std::sort(errors.begin(), errors.end());
    return errors[static_cast<size_t>(0.99 * (errors.size() - 1))];
  }
  double max() const {
    return errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end());
  }
};

glm::vec3 skin(const float* palettes, const anim::SkinnedMesh& m, size_t v) {
  glm::vec3 out(0.0f);
  const glm::vec3 p = m.positions[v];
  for (int i = 0; i < 4; ++i) {
    const float w = m.weights[v][i];
    if (w == 0.0f) continue;
    const float* r = palettes + 12 * m.joints[v][i];
    out += w * glm::vec3(r[0] * p.x + r[1] * p.y + r[2] * p.z + r[3],
                         r[4] * p.x + r[5] * p.y + r[6] * p.z + r[7],
                         r[8] * p.x + r[9] * p.y + r[10] * p.z + r[11]);
  }
  return out;
}

// The character's size: the largest extent of its mesh skinned at rest, in model space (the
// mesh's own bind space may be scaled: RobotExpressive's is 100x smaller).
double skinned_size(const anim::Asset& asset) {
  anim::Animator rest(asset.skeleton, asset.clips);
  const float* palettes = reinterpret_cast<const float*>(rest.palette().data());
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (size_t v = 0; v < asset.mesh.positions.size(); ++v) {
    const glm::vec3 p = skin(palettes, asset.mesh, v);
    lo = glm::min(lo, p), hi = glm::max(hi, p);
  }
  const glm::vec3 d = hi - lo;
  return std::max({d.x, d.y, d.z});
}

struct AssetResult {
  double p99 = 0, max = 0;
  double bytes_per_frame = 0, bits_per_joint = 0;
};

// Plays every clip of `asset` from its start for its duration (at least 1 s, at most 10 s) at
// 60 Hz as one delta chain per clip, and measures the decoded palettes against the float ones.
AssetResult measure(const anim::Asset& asset) {
  const Skeleton s = codectest::codec_skeleton(asset);
  const size_t n = s.layout.num_joints();
  const double scale_mm = 1800.0 / skinned_size(asset);
  const size_t stride = std::max<size_t>(1, asset.mesh.positions.size() / 1500);
  ErrorStats stats;
  size_t bytes = 0, frames = 0;
  std::vector<QJoint> pose;
  std::vector<Trs> locals(n);
  std::vector<glm::mat4> model(n);
  std::vector<float> decoded(12 * n);
  for (size_t c = 0; c < asset.clips.size(); ++c) {
    anim::Animator animator(asset.skeleton, asset.clips);
    EXPECT_TRUE(animator.play(static_cast<int>(c)).is_ok());
    codectest::Stream stream(s);
    const int count = static_cast<int>(std::clamp(asset.clips[c].duration, 1.0f, 10.0f) * 60.0f);
    for (int f = 0; f < count; ++f) {
      EXPECT_TRUE(animator.update(f == 0 ? 0.0f : 1.0f / 60.0f).is_ok());
      codectest::quantize_pose(s.layout, animator.local_pose().locals, pose, stream.sent[0],
                               stream.sent[1]);
      stream.push(pose, QRoot{});
      build_palette(s, stream.recv[0], locals, model, decoded);
      const float* reference = reinterpret_cast<const float*>(animator.palette().data());
      for (size_t v = 0; v < asset.mesh.positions.size(); v += stride)
        stats.errors.push_back(
            glm::length(skin(reference, asset.mesh, v) - skin(decoded.data(), asset.mesh, v)) *
            scale_mm);
    }
    bytes += stream.bytes;
    frames += stream.frames;
  }
  AssetResult r;
  r.p99 = stats.p99();
  r.max = stats.max();
  r.bytes_per_frame = frames ? static_cast<double>(bytes) / frames : 0.0;
  r.bits_per_joint = r.bytes_per_frame * 8.0 / n;
  std::printf(
      "[accuracy] %-16s joints %3zu clips %2zu: vertex error p99 %.3f mm, max %.3f mm; "
      "%.1f B/frame (%.2f bits/joint, key frames included)\n",
      asset.name.c_str(), n, asset.clips.size(), r.p99, r.max, r.bytes_per_frame, r.bits_per_joint);
  return r;
}

void expect_within_budget(const anim::Asset& asset) {
  const AssetResult r = measure(asset);
  EXPECT_LE(r.p99, 0.5) << asset.name;
  EXPECT_LE(r.max, 2.0) << asset.name;
}

TEST(CodecAccuracy, BuiltinCharacterEveryClip) {
  expect_within_budget(anim::make_builtin_character());
}

TEST(CodecAccuracy, EverySharedAssetAndClip) {
  ANIMD_REQUIRE_SHARED();
  EXPECT_GE(codectest::for_each_shared_asset([](anim::Asset& a) { expect_within_budget(a); }), 6);
}

// Mean bytes of a compact frame (codec payload only, no protobuf framing) over `seconds` at
// 60 Hz for `asset`, crossfading between clips a and b every `period` seconds (b < 0: a only).
double mean_frame_bytes(const anim::Asset& asset, int a, int b, float seconds, float period) {
  const Skeleton s = codectest::codec_skeleton(asset);
  anim::Animator animator(asset.skeleton, asset.clips);
  EXPECT_TRUE(animator.play(a).is_ok());
  codectest::Stream stream(s);
  std::vector<QJoint> pose;
  const int count = static_cast<int>(seconds * 60.0f);
  const int every = static_cast<int>(period * 60.0f);
  for (int f = 0; f < count; ++f) {
    if (b >= 0 && f > 0 && f % every == 0) {
      EXPECT_TRUE(animator.crossfade((f / every) % 2 ? b : a, 0.5f).is_ok());
    }
    EXPECT_TRUE(animator.update(1.0f / 60.0f).is_ok());
    codectest::quantize_pose(s.layout, animator.local_pose().locals, pose, stream.sent[0],
                             stream.sent[1]);
    const QRoot* r1 = stream.held >= 1 ? &stream.sent_root[0] : nullptr;
    const QRoot* r2 = stream.held >= 2 ? &stream.sent_root[1] : nullptr;
    stream.push(pose, quantize_root({0.0f, 0.0f, 1.2f * f / 60.0f}, glm::quat(1, 0, 0, 0),
                                    {1, 1, 1}, r1, r2));
  }
  return static_cast<double>(stream.bytes) / stream.frames;
}

TEST(CodecSize, BuiltinWalking) {
  const anim::Asset asset = anim::make_builtin_character();
  const double bytes = mean_frame_bytes(asset, asset.find_clip("walk"), -1, 10.0f, 2.0f);
  std::printf("[size] builtin walking: %.1f B per frame (%d joints)\n", bytes,
              asset.skeleton.num_joints());
  EXPECT_LE(bytes, 28.0);
}

TEST(CodecSize, Bench64Crossfading) {
  ANIMD_REQUIRE_SHARED();
  auto asset = anim::load_gltf(animtest::shared_path("assets/Bench64/bench64.glb"));
  ASSERT_TRUE(asset) << asset.error().message();
  ASSERT_GE(asset->clips.size(), 2u);
  const double bytes = mean_frame_bytes(*asset, 0, 1, 10.0f, 2.0f);
  std::printf("[size] bench64 crossfading %s <-> %s every 2 s: %.1f B per frame (%d joints)\n",
              asset->clips[0].name.c_str(), asset->clips[1].name.c_str(), bytes,
              asset->skeleton.num_joints());
  EXPECT_LE(bytes, 120.0);
}

}  // namespace codec_accuracy_test

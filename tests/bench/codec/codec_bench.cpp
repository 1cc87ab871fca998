// The compact encoding's per-character costs on bench64 (64 joints) crossfading between its
// two clips, as the daemon runs them: quantize (a worker, every tick while a compact
// subscription exists), encode a DELTA2 (a network thread, once per character and tick, the
// bytes shared by every subscriber in that state), decode + rebuild the palette (a client).
// Frames are prepared beforehand (a 2 s sequence, 120 ticks), so each benchmark times only
// its own step. Figures: docs/benchmarks.md, "Compact stream".
#include <cstdio>
#include <optional>
#include <span>
#include <vector>

#include <benchmark/benchmark.h>

#include "anim/animator.h"
#include "anim/loaders/gltf_loader.h"
#include "animcodec/compact.h"
#include "animcodec/encode_paths.h"
#include "animcodec/quantize_paths.h"
#include "shared_assets.h"

namespace {

using animcodec::QJoint;
using animcodec::QRoot;

constexpr int kTicks = 120;

struct Sequence {
  bool ok = false;
  std::optional<anim::Asset> asset;  // bench64, as loaded
  animcodec::Skeleton skeleton;
  std::vector<std::vector<anim::Transform>> locals;  // per tick
  std::vector<std::vector<QJoint>> quant;            // per tick, quantized as the daemon does
  std::vector<QRoot> roots;
  std::vector<std::vector<uint8_t>> frames;  // DELTA2 of tick t (t >= 2), key frame at 0
};

const Sequence& sequence() {
  static const Sequence seq = [] {
    Sequence s;
    auto asset = anim::load_gltf(animtest::shared_path("assets/Bench64/bench64.glb"));
    if (!asset || asset->clips.size() < 2) return s;
    s.asset = std::move(*asset);
    const anim::Skeleton& sk = s.asset->skeleton;
    const int n = sk.num_joints();
    std::vector<int> parents(sk.parents.begin(), sk.parents.end());
    std::vector<animcodec::Trs> rest(n);
    for (int j = 0; j < n; ++j)
      rest[j] = {sk.rest_pose[j].translation, sk.rest_pose[j].rotation, sk.rest_pose[j].scale};
    const anim::Asset& a = *s.asset;
    const animcodec::SkinView skin{a.mesh.positions, a.mesh.joints, a.mesh.weights,
                                   sk.inverse_bind};
    s.skeleton.layout = animcodec::make_layout(parents, rest, sk.root_transform, &skin);
    s.skeleton.parents = parents;
    s.skeleton.inverse_bind = sk.inverse_bind;
    s.skeleton.root_transform = sk.root_transform;

    anim::Animator animator(a.skeleton, a.clips);
    if (!animator.play(0).is_ok()) return s;
    for (int t = 0; t < kTicks; ++t) {
      if (t == 30 && !animator.crossfade(1, 0.5f).is_ok()) return s;
      if (!animator.update(1.0f / 60.0f).is_ok()) return s;
      const auto& l = animator.local_pose().locals;
      s.locals.emplace_back(l.begin(), l.end());
      std::vector<QJoint> q(n);
      for (int j = 0; j < n; ++j)
        q[j] = animcodec::quantize_joint(s.skeleton.layout, j, l[j].translation, l[j].rotation,
                                         l[j].scale, t >= 1 ? &s.quant[t - 1][j] : nullptr,
                                         t >= 2 ? &s.quant[t - 2][j] : nullptr);
      s.quant.push_back(std::move(q));
      s.roots.push_back(
          animcodec::quantize_root({0.02f * t, 0, 0}, glm::quat(1, 0, 0, 0), {1, 1, 1}));
    }
    std::vector<uint8_t> buffer(animcodec::max_frame_bytes(n));
    for (int t = 0; t < kTicks; ++t) {
      animcodec::Baseline b;
      auto kind = animcodec::FrameKind::kKey;
      if (t >= 2) {
        kind = animcodec::FrameKind::kDelta2;
        b = {s.quant[t - 1], &s.roots[t - 1], s.quant[t - 2], &s.roots[t - 2]};
      }
      const size_t size =
          animcodec::encode_frame(s.skeleton.layout, kind, s.quant[t], s.roots[t], b, buffer);
      if (size == 0) return s;
      s.frames.emplace_back(buffer.begin(), buffer.begin() + static_cast<long>(size));
    }
    s.ok = true;
    return s;
  }();
  return seq;
}

bool ready(benchmark::State& state) {
  if (sequence().ok) return true;
  state.SkipWithError("bench64 not found under ../shared (set ANIMD_SHARED_DIR)");
  return false;
}

void BM_QuantizeCharacter(benchmark::State& state) {
  if (!ready(state)) return;
  const Sequence& s = sequence();
  const size_t n = s.skeleton.layout.num_joints();
  std::vector<QJoint> out(n);
  int t = 2;
  for (auto _ : state) {
    const auto& l = s.locals[t];
    for (size_t j = 0; j < n; ++j)
      out[j] = animcodec::quantize_joint(s.skeleton.layout, j, l[j].translation, l[j].rotation,
                                         l[j].scale, &s.quant[t - 1][j], &s.quant[t - 2][j]);
    benchmark::DoNotOptimize(out.data());
    t = t + 1 < kTicks ? t + 1 : 2;
  }
}
BENCHMARK(BM_QuantizeCharacter);

// The same pose through quantize_pose, as the daemon's workers run it: the best path the CPU
// has (AVX2, eight joints at a time, where it has it), or the path named (quantize_paths.h) so
// that the paths are compared in one run. A path the CPU lacks is skipped.
void quantize_pose_bench(benchmark::State& state, const animcodec::QuantizePath* path) {
  if (!ready(state)) return;
  if (path && !animcodec::quantize_path_available(*path)) {
    state.SkipWithError("this quantize path is not available on this CPU");
    return;
  }
  const Sequence& s = sequence();
  const size_t n = s.skeleton.layout.num_joints();
  std::vector<QJoint> out(n);
  auto quantize = [&](int t) {
    const auto& l = s.locals[t];
    const auto view = animcodec::transform_view<anim::Transform>(l);
    if (path)
      animcodec::quantize_pose_with(*path, s.skeleton.layout, view, s.quant[t - 1].data(),
                                    s.quant[t - 2].data(), out);
    else
      animcodec::quantize_pose(s.skeleton.layout, view, s.quant[t - 1].data(),
                               s.quant[t - 2].data(), out);
  };
  int t = 2;
  for (auto _ : state) {
    quantize(t);
    benchmark::DoNotOptimize(out.data());
    t = t + 1 < kTicks ? t + 1 : 2;
  }
  // Poses that differ from quantize_joint's (always 0; the unit test says which joint).
  size_t mismatches = 0;
  for (t = 2; t < kTicks; ++t) {
    quantize(t);
    mismatches += out != s.quant[t];
  }
  state.counters["mismatched_poses"] = static_cast<double>(mismatches);
}

void BM_QuantizePose(benchmark::State& state) {
  quantize_pose_bench(state, nullptr);
}
BENCHMARK(BM_QuantizePose);

void BM_QuantizePoseSse2(benchmark::State& state) {
  const auto path = animcodec::QuantizePath::kSse2;
  quantize_pose_bench(state, &path);
}
BENCHMARK(BM_QuantizePoseSse2);

void BM_QuantizePoseAvx2(benchmark::State& state) {
  const auto path = animcodec::QuantizePath::kAvx2;
  quantize_pose_bench(state, &path);
}
BENCHMARK(BM_QuantizePoseAvx2);

// The sequence's DELTA2 frames, one an iteration, through `encode` (encode_frame's
// arguments); the counter bytes_per_frame is their mean size.
template <class Encode>
void encode_delta2_frames(benchmark::State& state, Encode encode) {
  const Sequence& s = sequence();
  std::vector<uint8_t> buffer(animcodec::max_frame_bytes(s.skeleton.layout.num_joints()));
  int t = 2;
  size_t bytes = 0, frames = 0;
  for (auto _ : state) {
    const animcodec::Baseline b{s.quant[t - 1], &s.roots[t - 1], s.quant[t - 2], &s.roots[t - 2]};
    bytes += encode(s.skeleton.layout, animcodec::FrameKind::kDelta2, s.quant[t], s.roots[t], b,
                    std::span<uint8_t>(buffer));
    ++frames;
    t = t + 1 < kTicks ? t + 1 : 2;
  }
  state.counters["bytes_per_frame"] = static_cast<double>(bytes) / static_cast<double>(frames);
}

void BM_EncodeDelta2(benchmark::State& state) {
  if (!ready(state)) return;
  encode_delta2_frames(state, [](const auto&... args) { return animcodec::encode_frame(args...); });
  // A digest of the sequence's 120 frames (key + DELTA2s): an encoder optimization that means
  // to keep the bytes must keep this number.
  uint32_t digest = 2166136261u;  // FNV-1a
  for (const auto& f : sequence().frames)
    for (uint8_t b : f) digest = (digest ^ b) * 16777619u;
  state.counters["bytes_digest"] = static_cast<double>(digest);
}
BENCHMARK(BM_EncodeDelta2);

void BM_EncodeKey(benchmark::State& state) {
  if (!ready(state)) return;
  const Sequence& s = sequence();
  std::vector<uint8_t> buffer(animcodec::max_frame_bytes(s.skeleton.layout.num_joints()));
  int t = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(animcodec::encode_frame(s.skeleton.layout, animcodec::FrameKind::kKey,
                                                     s.quant[t], s.roots[t], {}, buffer));
    t = (t + 1) % kTicks;
  }
}
BENCHMARK(BM_EncodeKey);

// BM_EncodeDelta2's frames through one path of encode_frame (encode_paths.h): path 0 the
// build's baseline, 1 x86-64-v3 (skipped on a CPU without it). encode_frame takes the best.
void BM_EncodeDelta2Path(benchmark::State& state) {
  if (!ready(state)) return;
  const auto path = static_cast<animcodec::EncodePath>(state.range(0));
  if (!animcodec::encode_path_available(path)) {
    state.SkipWithError("this CPU does not run this path");
    return;
  }
  encode_delta2_frames(
      state, [path](const auto&... args) { return animcodec::encode_frame_with(path, args...); });
}
BENCHMARK(BM_EncodeDelta2Path)->ArgName("path")->Arg(0)->Arg(1);

// DELTA2 frames of ticks `gap` apart (a stream whose encode stage takes every gap-th tick),
// each quantized with the pull toward the last two frames (pull 1, as the daemon does within
// World::kMaxPullGap) or without it (pull 0): 40 s of bench64 crossfading A <-> B every 2 s.
// The time is the encoding's; the counter bytes_per_frame says what the pull is worth at
// each gap.
void BM_EncodeDelta2AtGap(benchmark::State& state) {
  if (!ready(state)) return;
  const int gap = static_cast<int>(state.range(0));
  const bool pull = state.range(1) != 0;
  const Sequence& s = sequence();
  const animcodec::Layout& layout = s.skeleton.layout;
  const size_t n = layout.num_joints();
  anim::Animator animator(s.asset->skeleton, s.asset->clips);
  if (!animator.play(0).is_ok()) return;
  std::vector<std::vector<QJoint>> quant;
  std::vector<QRoot> roots;
  constexpr int kSeconds = 40;
  for (int t = 0; t < kSeconds * 60; ++t) {
    if (t % 120 == 30 && !animator.crossfade((t / 120) % 2 == 0 ? 1 : 0, 0.3f).is_ok()) return;
    if (!animator.update(1.0f / 60.0f).is_ok()) return;
    if (t % gap != 0) continue;
    const auto& locals = animator.local_pose().locals;
    const size_t m = quant.size();
    std::vector<QJoint> q(n);
    animcodec::quantize_pose(layout, animcodec::transform_view<anim::Transform>(std::span(locals)),
                             pull && m >= 1 ? quant[m - 1].data() : nullptr,
                             pull && m >= 2 ? quant[m - 2].data() : nullptr, q);
    quant.push_back(std::move(q));
    roots.push_back(animcodec::quantize_root({0.02f * t, 0, 0}, glm::quat(1, 0, 0, 0), {1, 1, 1}));
  }
  std::vector<uint8_t> buffer(animcodec::max_frame_bytes(n));
  size_t t = 2, bytes = 0, frames = 0;
  for (auto _ : state) {
    const animcodec::Baseline b{quant[t - 1], &roots[t - 1], quant[t - 2], &roots[t - 2]};
    bytes += animcodec::encode_frame(layout, animcodec::FrameKind::kDelta2, quant[t], roots[t], b,
                                     buffer);
    ++frames;
    t = t + 1 < quant.size() ? t + 1 : 2;
  }
  state.counters["bytes_per_frame"] = static_cast<double>(bytes) / static_cast<double>(frames);
}
BENCHMARK(BM_EncodeDelta2AtGap)->ArgsProduct({{1, 2, 3, 4}, {1, 0}})->ArgNames({"gap", "pull"});

void BM_DecodeDelta2AndPalette(benchmark::State& state) {
  if (!ready(state)) return;
  const Sequence& s = sequence();
  const size_t n = s.skeleton.layout.num_joints();
  std::vector<QJoint> pose(n);
  std::vector<animcodec::Trs> locals(n);
  std::vector<glm::mat4> model(n);
  std::vector<float> palette(12 * n);
  QRoot root;
  int t = 2;
  for (auto _ : state) {
    const animcodec::Baseline b{s.quant[t - 1], &s.roots[t - 1], s.quant[t - 2], &s.roots[t - 2]};
    const std::string error =
        animcodec::decode_frame(s.skeleton.layout, s.frames[t], b, pose, root);
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    animcodec::build_palette(s.skeleton, pose, locals, model, palette);
    benchmark::DoNotOptimize(palette.data());
    t = t + 1 < kTicks ? t + 1 : 2;
  }
}
BENCHMARK(BM_DecodeDelta2AndPalette);

}  // namespace

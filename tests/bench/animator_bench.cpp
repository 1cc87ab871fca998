// Per-character Animator::update() cost on bench64 (64 joints, clips A and B):
//  - BM_AnimatorFull: a crossfade A -> B in progress (a long fade, so it stays in progress),
//    one additive layer (B against its first frame, weight 0.5), a two-bone IK goal on the
//    left leg (thigh_l..foot_l, with a pole) and the palette;
//  - BM_AnimatorPlay: clip A only (the Animator's overhead over bare sampling, compare with
//    bench_sampling_bench);
//  - BM_AnimatorFullMotionEvents, BM_AnimatorPlayMotionEvents: the same with root motion from
//    the root joint and four events on each clip (what root motion and events add);
//  - BM_AnimatorBlendSpace1D / 2D: a blend space instead of clip A alone: 1D A at 0, B at 1
//    with the parameter at 0.5 (two samples every update); 2D A, B, A at the corners of a
//    triangle with the parameter inside (three samples, and the triangle search);
//  - BM_AnimatorCrossfade / BM_AnimatorCrossfadeSkipDetail: a crossfade A -> B in progress
//    and nothing else (ozz's blend2 in an Animator), with every joint and with the asset's
//    derived detail joints at rest (joint LOD, anim/joint_detail.h).
// Many characters at distinct clip times, so the caches see what a server sees.
// Reports "time_per_char" (seconds per character-update, e.g. "2.1u") and items/s.
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "anim/animator.h"
#include "anim/joint_detail.h"
#include "anim/loaders/gltf_loader.h"
#include "shared_assets.h"

namespace {

const anim::Asset* bench64() {
  static const anim::Expected<anim::Asset> asset =
      anim::load_gltf(animtest::shared_path("assets/Bench64/bench64.glb"));
  return asset ? &*asset : nullptr;
}

// bench64 with its derived detail joints (the daemon's choice when the asset is added).
const anim::Asset* bench64_with_detail() {
  static const anim::Asset* asset = []() -> const anim::Asset* {
    const anim::Asset* plain = bench64();
    if (!plain) return nullptr;
    static anim::Asset copy = *plain;
    if (!anim::set_detail_joints(copy, anim::derive_detail_joints(copy.skeleton, copy.mesh)))
      return nullptr;
    return &copy;
  }();
  return asset;
}

struct Extra {
  bool crossfade_only = false;  // play A, crossfade to B, nothing else
  bool skip_detail = false;     // the Animators skip the detail joints
};

void run(benchmark::State& state, bool full, bool extras = false, int blend_dims = 0,
         Extra extra = {}) {
  const anim::Asset* asset = extra.skip_detail ? bench64_with_detail() : bench64();
  if (!asset) {
    state.SkipWithError("bench64.glb not found under ../shared/assets (set ANIMD_SHARED_DIR)");
    return;
  }
  const int a = asset->find_clip("A"), b = asset->find_clip("B");
  if (a < 0 || b < 0) {
    state.SkipWithError("bench64.glb lacks clips A and B");
    return;
  }
  const anim::Skeleton& s = asset->skeleton;
  const int count = static_cast<int>(state.range(0));
  // Four events a clip, shared by every character (as the daemon shares an asset's table).
  auto table = std::make_shared<anim::ClipEventTable>();
  for (const anim::Clip& clip : asset->clips) {
    auto& list = table->clips.emplace_back();
    for (int k = 0; k < 4; ++k)
      list.push_back({"e" + std::to_string(k), clip.duration * (0.125f + 0.25f * float(k)), ""});
  }
  // The blend spaces (shared, as the daemon shares an asset's table).
  auto spaces = std::make_shared<anim::BlendSpaceTable>();
  for (const anim::BlendSpaceDesc& d :
       {anim::BlendSpaceDesc{"line", {"p"}, {{a, {0, 0}}, {b, {1, 0}}}},
        anim::BlendSpaceDesc{"tri", {"p", "q"}, {{a, {0, 0}}, {b, {1, 0}}, {a, {0, 1}}}}}) {
    auto space = anim::make_blend_space(d, asset->clips, s.num_joints());
    if (!space) {
      state.SkipWithError(space.error().message().c_str());
      return;
    }
    spaces->spaces.push_back(std::make_shared<const anim::BlendSpace>(std::move(*space)));
  }
  std::vector<std::unique_ptr<anim::Animator>> characters;
  characters.reserve(count);
  const float duration = asset->clips[a].duration;
  for (int i = 0; i < count; ++i) {
    auto c = std::make_unique<anim::Animator>(s, asset->clips);
    // Spread start times over the clip with a stride co-prime to the key count.
    const float start = duration * static_cast<float>((i * 37) % 1000) / 1000.0f;
    if (blend_dims == 0) {
      if (!c->play(a, {.start_time = start})) state.SkipWithError("play failed");
    } else if (!c->set_blend_spaces(spaces) || !c->set_parameter("p", 0.5f, 0.0f) ||
               !c->set_parameter("q", 0.25f, 0.0f) ||
               !c->play_blend_space(blend_dims - 1, {.start_time = start / duration})) {
      state.SkipWithError("blend space failed");
    }
    if (extra.crossfade_only && !c->crossfade(b, 1000.0f)) state.SkipWithError("crossfade failed");
    c->set_skip_detail(extra.skip_detail);
    if (extras) {
      if (!c->set_root_motion({anim::RootMotionMode::kExtract, -1, false}))
        state.SkipWithError("set_root_motion failed");
      if (!c->set_event_table(table)) state.SkipWithError("set_event_table failed");
    }
    if (full) {
      if (!c->crossfade(b, 1000.0f)) state.SkipWithError("crossfade failed");
      anim::AdditiveLayerDesc layer;
      layer.clip = b;
      layer.weight = 0.5f;
      if (!c->add_layer(layer).has_value()) state.SkipWithError("add_layer failed");
      anim::IkGoalDesc goal;
      goal.root_joint = "thigh_l";
      goal.effector_joint = "foot_l";
      goal.solver = anim::IkSolver::kTwoBone;
      goal.target = {0.15f, 0.25f, 0.2f};
      goal.has_pole = true;
      goal.pole = {0.1f, 0.6f, 1.0f};
      goal.soften = 0.97f;
      auto id = c->set_ik_goal(goal);
      if (!id.has_value()) {
        state.SkipWithError(id.error().message().c_str());
        return;
      }
    }
    characters.push_back(std::move(c));
  }
  constexpr float kDt = 1.0f / 60.0f;
  for (auto _ : state) {
    for (auto& c : characters) (void)c->update(kDt);
    benchmark::DoNotOptimize(characters.back()->palette().data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * count);
  state.counters["time_per_char"] =
      benchmark::Counter(static_cast<double>(state.iterations() * count),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["joints"] = s.num_joints();
}

void BM_AnimatorFull(benchmark::State& state) {
  run(state, true);
}
void BM_AnimatorPlay(benchmark::State& state) {
  run(state, false);
}

void BM_AnimatorFullMotionEvents(benchmark::State& state) {
  run(state, true, true);
}
void BM_AnimatorPlayMotionEvents(benchmark::State& state) {
  run(state, false, true);
}

void BM_AnimatorBlendSpace1D(benchmark::State& state) {
  run(state, false, false, 1);
}
void BM_AnimatorBlendSpace2D(benchmark::State& state) {
  run(state, false, false, 2);
}

void BM_AnimatorCrossfade(benchmark::State& state) {
  run(state, false, false, 0, {.crossfade_only = true});
}
void BM_AnimatorCrossfadeSkipDetail(benchmark::State& state) {
  run(state, false, false, 0, {.crossfade_only = true, .skip_detail = true});
}

BENCHMARK(BM_AnimatorCrossfade)->Arg(1)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorCrossfadeSkipDetail)
    ->Arg(1)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorBlendSpace1D)->Arg(1)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorBlendSpace2D)->Arg(1)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorFull)->Arg(1)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorPlay)->Arg(1)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorFullMotionEvents)
    ->Arg(1)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnimatorPlayMotionEvents)
    ->Arg(1)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

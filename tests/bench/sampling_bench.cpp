// Per-character update cost of the core pipeline on bench64 (64 joints, 30 keys/s):
// sample clip A + local-to-model + palette, for many characters at distinct clip times so
// the caches see what a server sees (every character at a different key).
//
// Reports seconds per character-update (the "time_per_char" counter, e.g. "950n" = 950 ns) and
// characters per second.
#include <cstdio>
#include <vector>

#include <benchmark/benchmark.h>

#include "anim/clip_time.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/palette.h"
#include "shared_assets.h"

namespace {

struct Character {
  float time = 0.0f;
  std::vector<anim::Transform> locals;
  std::vector<glm::mat4> model;
  std::vector<anim::PaletteMatrix> palette;
};

const anim::Asset* bench64() {
  static const anim::Expected<anim::Asset> asset =
      anim::load_gltf(animtest::shared_path("assets/Bench64/bench64.glb"));
  return asset ? &*asset : nullptr;
}

void BM_SampleModelPalette(benchmark::State& state) {
  const anim::Asset* asset = bench64();
  if (!asset) {
    state.SkipWithError("bench64.glb not found under ../shared/assets (set ANIMD_SHARED_DIR)");
    return;
  }
  const anim::Skeleton& skeleton = asset->skeleton;
  const anim::Clip& clip = asset->clips[asset->find_clip("A")];
  const int joints = skeleton.num_joints();
  const int count = static_cast<int>(state.range(0));
  std::vector<Character> characters(count);
  for (int i = 0; i < count; ++i) {
    // Spread start times over the clip with a stride co-prime to the key count.
    characters[i].time = clip.duration * static_cast<float>((i * 37) % 1000) / 1000.0f;
    characters[i].locals.resize(joints);
    characters[i].model.resize(joints);
    characters[i].palette.resize(joints);
  }
  constexpr float kDt = 1.0f / 60.0f;
  for (auto _ : state) {
    for (Character& c : characters) {
      c.time = anim::wrap_clip_time(c.time + kDt, clip.duration, anim::WrapMode::kLoop);
      clip.sample(c.time, skeleton.rest_pose, c.locals);
      anim::local_to_model(skeleton, c.locals, c.model);
      anim::build_palette(skeleton, c.model, c.palette);
    }
    benchmark::DoNotOptimize(characters.back().palette.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * count);
  state.counters["time_per_char"] =
      benchmark::Counter(static_cast<double>(state.iterations() * count),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["joints"] = joints;
}
BENCHMARK(BM_SampleModelPalette)
    ->Arg(1)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

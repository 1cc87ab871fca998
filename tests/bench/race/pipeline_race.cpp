// The same per-character pipelines as ../shared/peers/ozz-bench64 (bench_pipeline.cc), run
// the same way, so that the two programs' figures can be compared in one run
// (scripts/bench-vs-ozz.sh alternates them):
//
//   blend2: sample clip A at t and clip B at t + 0.37 i, blend 0.5 / 0.5, local-to-model,
//           palette = model x inverse bind;
//   play:   sample clip A at t + 0.37 i, local-to-model, palette.
//
// Times wrap modulo each clip's duration; t advances 1/60 s per pass; one untimed warm-up
// pass; the figure is the median over passes of (pass time / N). Every character owns its
// buffers and sampling cursors. Prints one line:
//
//   animd blend2 N=10000 joints=64 passes=20 median_us=... min_us=... max_us=... checksum=...
//
// Usage: bench_pipeline_race <bench64.glb> [N=10000] [blend2|play] [passes=20]
//
// The jobs' AVX2 variants run where the CPU has them (simd_dispatch.h); ANIMD_BASELINE_SIMD=1
// in the environment keeps to the SSE2 baseline, to measure what they gain. The line says
// which ran (simd=avx2 or simd=sse2).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "anim/blend_job.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/local_to_model_job.h"
#include "anim/palette_job.h"
#include "anim/sampling_job.h"
#include "simd_dispatch.h"

namespace {

float wrap_time(float t, float duration) {
  float r = std::fmod(t, duration);
  if (r < 0.0f) r += duration;
  return r;
}

// One character: its buffers and sampling cursors, and the pipeline as the daemon's core
// runs it (the jobs of sampling_job.h, blend_job.h, local_to_model_job.h, palette_job.h).
struct Character {
  const anim::Skeleton* skeleton;
  const anim::Clip* a;
  const anim::Clip* b;
  anim::SamplingCursor cursor_a, cursor_b;
  std::vector<anim::Transform> local_a, local_b, blended;
  std::vector<glm::mat4> model;
  std::vector<anim::PaletteMatrix> palette;

  Character(const anim::Skeleton& s, const anim::Clip& ca, const anim::Clip& cb)
      : skeleton(&s), a(&ca), b(&cb) {
    const size_t n = s.num_joints();
    local_a.resize(n);
    local_b.resize(n);
    blended.resize(n);
    model.resize(n);
    palette.resize(n);
  }
  void sample(const anim::Clip& clip, float t, anim::SamplingCursor& cursor,
              std::vector<anim::Transform>& out) {
    anim::SamplingJob job;
    job.clip = &clip;
    job.time = t;
    job.cursor = &cursor;
    job.rest = skeleton->rest_pose;
    job.output = out;
    job.run();
  }
  void finish(std::span<const anim::Transform> locals) {
    anim::LocalToModelJob ltm;
    ltm.skeleton = skeleton;
    ltm.input = locals;
    ltm.output = model;
    ltm.run();
    anim::PaletteJob pal;
    pal.model = model;
    pal.inverse_bind = skeleton->inverse_bind;
    pal.output = palette;
    pal.run();
  }
  void play(float ta) {
    sample(*a, ta, cursor_a, local_a);
    finish(local_a);
  }
  void blend2(float ta, float tb, float w) {
    sample(*a, ta, cursor_a, local_a);
    sample(*b, tb, cursor_b, local_b);
    anim::BlendJob job;
    job.a = local_a;
    job.b = local_b;
    job.weight = w;
    job.output = blended;
    job.run();
    finish(blended);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <bench64.glb> [N=10000] [blend2|play] [passes=20]\n", argv[0]);
    return 1;
  }
  if (!std::filesystem::exists(argv[1])) {
    // ctest treats 77 as "skipped" (../shared is not beside the repo).
    std::printf("skipped: %s not found (../shared absent)\n", argv[1]);
    return 77;
  }
  const anim::Expected<anim::Asset> asset = anim::load_gltf(argv[1]);
  if (!asset) {
    std::fprintf(stderr, "%s\n", asset.error().message().c_str());
    return 1;
  }
  const int n = argc >= 3 ? std::atoi(argv[2]) : 10000;
  const std::string mode = argc >= 4 ? argv[3] : "blend2";
  const int passes = argc >= 5 ? std::atoi(argv[4]) : 20;
  const bool blend = mode != "play";
  if (const char* e = std::getenv("ANIMD_BASELINE_SIMD"); e && std::string(e) == "1")
    anim::simd::set_wide_enabled(false);
  const char* simd = anim::simd::wide_enabled() ? "avx2" : "sse2";
  const int clip_a = asset->find_clip("A"), clip_b = asset->find_clip("B");
  if (n <= 0 || passes <= 0 || (mode != "play" && mode != "blend2") || clip_a < 0 || clip_b < 0) {
    std::fprintf(stderr, "bad arguments (or the asset has no clips A and B)\n");
    return 1;
  }
  const anim::Skeleton& skeleton = asset->skeleton;
  const anim::Clip& a = asset->clips[clip_a];
  const anim::Clip& b = asset->clips[clip_b];
  const int joints = skeleton.num_joints();

  std::vector<Character> characters;
  characters.reserve(n);
  for (int i = 0; i < n; ++i) characters.emplace_back(skeleton, a, b);

  constexpr float kDt = 1.0f / 60.0f;
  std::vector<double> per_char_us;
  double checksum = 0.0;
  for (int pass = -1; pass < passes; ++pass) {
    const float t = static_cast<float>(pass + 1) * kDt;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      Character& c = characters[i];
      if (blend)
        c.blend2(wrap_time(t, a.duration), wrap_time(t + 0.37f * i, b.duration), 0.5f);
      else
        c.play(wrap_time(t + 0.37f * i, a.duration));
    }
    const auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i += 97) {
      const anim::PaletteMatrix& p = characters[i].palette[joints - 1];
      checksum += p.m[3] + p.m[7] + p.m[11];
    }
    if (pass >= 0)
      per_char_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
  }
  std::vector<double> s = per_char_us;
  std::sort(s.begin(), s.end());
  const size_t m = s.size();
  const double median = m % 2 ? s[m / 2] : 0.5 * (s[m / 2 - 1] + s[m / 2]);
  std::printf(
      "animd %s N=%d joints=%d passes=%d simd=%s median_us=%.3f min_us=%.3f max_us=%.3f "
      "checksum=%.4f\n",
      blend ? "blend2" : "play", n, joints, passes, simd, median, s.front(), s.back(), checksum);
  return 0;
}

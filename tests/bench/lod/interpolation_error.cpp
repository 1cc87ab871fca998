// The vertex error of the poses a reduced update rate shows (docs/animation.md, "Update
// rates"), for bench64 on the crowd benchmark's mix: each character crossfades A <-> B every
// 2 s over 0.5 s (animload --cycle-every 2), N characters at different start times of clip A,
// run at 60 Hz. For each interval k, every character runs twice side by side
// (tests/support/reduced_rate_run.h): updated every tick (the reference) and evaluated every
// k ticks with the daemon's interpolation between evaluations; both are skinned (linear blend
// skinning of the whole mesh) at every tick, and per vertex and tick it takes
//
//   (a) |shown(t) - reference(t)|: what a viewer sees against the full rate, lag included;
//   (b) |shown(t) - reference(t - (k - 1))|: against the full rate k - 1 ticks earlier, the
//       scheme's lag (tick N - 1 shows the pose evaluated at B = N - k), which leaves the
//       error of interpolating between the two evaluations;
//   eval: (b) at the ticks that show an evaluated pose itself (alpha 1): how far the
//       evaluations are from the reference at their own ticks.
//
// and prints p50 / p99 / max over every vertex of every measured tick of every character, in
// metres and as a fraction of the bind pose's bounding-box height, as a table and one line a
// k:
//
//   interp_error commands=crowd k=4 lag_ticks=3 samples=... a_p50_m=... a_p99_m=...
//     a_max_m=... b_p50_m=... b_p99_m=... b_max_m=... eval_max_m=... ref_step_p99_m=...
//     height_m=...
//
// (ref_step_p99_m: the p99 of the distance a vertex moves in one tick at the full rate.)
//
// Commands: `crowd` sends each crossfade at its tick, whatever a character's phase (as the
// daemon, whose next evaluation then advances the new fade and clip by every tick since the
// previous evaluation: they run ahead of the reference's by up to k - 1 ticks, which (a) and
// (b) include and `eval` shows); `aligned` holds each crossfade back to the first tick after
// a reduced-rate evaluation and sends it to both characters there, so every evaluation is the
// reference's pose and (b) is the interpolation alone; `both` runs the two. A measurement,
// not a test: the rules are checked by tests/server/lod/interpolation_error_test.cpp.
//
//   bench_interpolation_error [--characters N] [--seconds S] [--intervals 2,3,4,...]
//                             [--commands crowd|aligned|both] [--glb PATH]
//                             [--cycle-seconds C] [--fade-seconds F]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "anim/loaders/gltf_loader.h"
#include "reduced_rate_run.h"
#include "shared_assets.h"

namespace {

// Percentiles of a sample set (the sample at rank floor(p * n), as the other benches).
struct Distribution {
  std::vector<float> samples;

  float percentile(double p) {
    if (samples.empty()) return 0.0f;
    const size_t i =
        std::min(samples.size() - 1, static_cast<size_t>(p * static_cast<double>(samples.size())));
    std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(i),
                     samples.end());
    return samples[i];
  }
  float max() const { return samples.empty() ? 0.0f : *std::ranges::max_element(samples); }
};

struct Summary {
  size_t samples = 0;
  float a[3] = {}, b[3] = {};  // p50, p99, max
  float eval_max = 0.0f, step_p99 = 0.0f;
};

struct Options {
  int characters = 16;
  double seconds = 20.0;
  std::vector<int> intervals = {2, 3, 4, 6, 8, 12, 16};
  std::string commands = "both";
  std::string glb = animtest::shared_path("assets/Bench64/bench64.glb");
  double cycle_seconds = 2.0;
  float fade_seconds = 0.5f;
};

// Runs every character at interval k and summarizes the errors of the ticks after the
// warm-up (twice the largest interval: by then every character interpolates on its phase).
Summary measure(const anim::Asset& asset, const animtest::RateScenario& scenario, const Options& o,
                int k) {
  constexpr uint64_t kWarmup = 2 * animtest::ReducedRateRun::kMaxInterval;
  const float clip_a = asset.clips[static_cast<size_t>(scenario.clip_a)].duration;
  Distribution a, b, eval, step;
  for (int c = 0; c < o.characters; ++c) {
    const float start = clip_a * static_cast<float>(c) / static_cast<float>(o.characters);
    animtest::ReducedRateRun run(asset, scenario, static_cast<uint32_t>(c + 1), start, k);
    while (run.step()) {
      const uint64_t t = run.tick();
      if (t <= kWarmup) continue;
      const auto shown = run.shown_vertices();
      const auto now = run.reference_vertices(t);
      const auto lagged = run.reference_vertices(t - static_cast<uint64_t>(run.lag()));
      const auto before = run.reference_vertices(t - 1);
      const bool shows_evaluated = run.alpha() == 1.0f;
      for (size_t v = 0; v < shown.size(); ++v) {
        a.samples.push_back(glm::distance(shown[v], now[v]));
        const float e = glm::distance(shown[v], lagged[v]);
        b.samples.push_back(e);
        if (shows_evaluated) eval.samples.push_back(e);
        step.samples.push_back(glm::distance(now[v], before[v]));
      }
    }
  }
  Summary s;
  s.samples = a.samples.size();
  s.a[0] = a.percentile(0.5), s.a[1] = a.percentile(0.99), s.a[2] = a.max();
  s.b[0] = b.percentile(0.5), s.b[1] = b.percentile(0.99), s.b[2] = b.max();
  s.eval_max = eval.max();
  s.step_p99 = step.percentile(0.99);
  return s;
}

std::vector<int> parse_intervals(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--characters")
      o.characters = std::atoi(argv[i + 1]);
    else if (a == "--seconds")
      o.seconds = std::atof(argv[i + 1]);
    else if (a == "--intervals")
      o.intervals = parse_intervals(argv[i + 1]);
    else if (a == "--commands")
      o.commands = argv[i + 1];
    else if (a == "--glb")
      o.glb = argv[i + 1];
    else if (a == "--cycle-seconds")
      o.cycle_seconds = std::atof(argv[i + 1]);
    else if (a == "--fade-seconds")
      o.fade_seconds = static_cast<float>(std::atof(argv[i + 1]));
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (o.characters < 1 || o.seconds <= 0.0 ||
      std::ranges::any_of(
          o.intervals, [](int k) { return k < 1 || k > animtest::ReducedRateRun::kMaxInterval; }) ||
      (o.commands != "crowd" && o.commands != "aligned" && o.commands != "both")) {
    std::fprintf(stderr,
                 "bad options: characters >= 1, seconds > 0, intervals in [1, %d], "
                 "commands crowd | aligned | both\n",
                 animtest::ReducedRateRun::kMaxInterval);
    return 2;
  }
  auto loaded = anim::load_gltf(o.glb);
  if (!loaded) {
    std::fprintf(stderr, "%s: %s (skipped)\n", o.glb.c_str(), loaded.error().message().c_str());
    return 77;
  }
  const anim::Asset& asset = *loaded;
  animtest::RateScenario scenario;
  scenario.clip_a = asset.find_clip("A");
  scenario.clip_b = asset.find_clip("B");
  if (scenario.clip_a < 0 || scenario.clip_b < 0 || asset.mesh.positions.empty()) {
    std::fprintf(stderr, "%s: needs clips A and B and a skinned mesh\n", o.glb.c_str());
    return 1;
  }
  scenario.ticks = static_cast<int>(o.seconds * scenario.tick_rate + 0.5);
  scenario.cycle_ticks = static_cast<int>(o.cycle_seconds * scenario.tick_rate + 0.5);
  scenario.fade_seconds = o.fade_seconds;

  float low = asset.mesh.positions[0].y, high = low;
  for (const glm::vec3& p : asset.mesh.positions)
    low = std::min(low, p.y), high = std::max(high, p.y);
  const float height = high - low;
  std::printf(
      "%s: %d joints, %zu vertices, bind-pose bounding box height %.3f m; clip A %.3f s, "
      "B %.3f s\n",
      o.glb.c_str(), asset.skeleton.num_joints(), asset.mesh.positions.size(), height,
      asset.clips[static_cast<size_t>(scenario.clip_a)].duration,
      asset.clips[static_cast<size_t>(scenario.clip_b)].duration);
  std::printf(
      "%d characters x %d ticks at %.0f Hz (start times spread over clip A), crossfade "
      "A <-> B every %d ticks over %.2f s; measured after tick %d\n",
      o.characters, scenario.ticks, scenario.tick_rate, scenario.cycle_ticks, scenario.fade_seconds,
      2 * animtest::ReducedRateRun::kMaxInterval);

  std::vector<std::string> modes;
  if (o.commands != "aligned") modes.push_back("crowd");
  if (o.commands != "crowd") modes.push_back("aligned");
  std::vector<std::string> lines;
  // "0.0123 m  0.65 %": metres, and percent of the height.
  const auto cell = [&](float v) {
    char out[32];
    std::snprintf(out, sizeof out, "%.4f %6.2f%%", v, 100.0f * v / height);
    return std::string(out);
  };
  for (const std::string& mode : modes) {
    scenario.commands_after_evaluation = mode == "aligned";
    std::printf("\ncommands %s: vertex error in metres and %% of the height\n", mode.c_str());
    std::printf("%2s %3s | %-44s | %-44s | %s\n", "k", "lag",
                "(a) shown vs full rate at the same tick",
                "(b) shown vs full rate lag ticks earlier", "eval max");
    std::printf("%2s %3s | %-14s %-14s %-14s | %-14s %-14s %-14s |\n", "", "", "p50", "p99", "max",
                "p50", "p99", "max");
    float step_p99 = 0.0f;
    for (int k : o.intervals) {
      const Summary s = measure(asset, scenario, o, k);
      step_p99 = s.step_p99;
      std::printf("%2d %3d | %s %s %s | %s %s %s | %.2g\n", k, k - 1, cell(s.a[0]).c_str(),
                  cell(s.a[1]).c_str(), cell(s.a[2]).c_str(), cell(s.b[0]).c_str(),
                  cell(s.b[1]).c_str(), cell(s.b[2]).c_str(), s.eval_max);
      std::fflush(stdout);
      char line[512];
      std::snprintf(line, sizeof line,
                    "interp_error commands=%s k=%d lag_ticks=%d samples=%zu a_p50_m=%.6g "
                    "a_p99_m=%.6g a_max_m=%.6g b_p50_m=%.6g b_p99_m=%.6g b_max_m=%.6g "
                    "eval_max_m=%.6g ref_step_p99_m=%.6g height_m=%.6g",
                    mode.c_str(), k, k - 1, s.samples, s.a[0], s.a[1], s.a[2], s.b[0], s.b[1],
                    s.b[2], s.eval_max, s.step_p99, height);
      lines.push_back(line);
    }
    std::printf("(p99 of the distance a full-rate vertex moves in a tick: %.4f m)\n", step_p99);
  }
  std::printf("\n");
  for (const std::string& l : lines) std::printf("%s\n", l.c_str());
  return 0;
}

// The World's tick on a crowd, without the network (docs/benchmarks.md, "Crowds"): N bench64
// characters on animload's spawn grid (1.5 m apart), each crossfading A <-> B every 2 s at
// its own phase, R compact region subscriptions of about 500 characters each (spread over
// the grid as animload --regions places them), update rates allocated under a budget
// (--budget-ms: 0 the smallest, every unwatched character at the floor interval; < 0 auto;
// "unlimited" every character every tick). Ticks back to back on one thread with the
// daemon's 2 update workers, and prints the CPU time of the process per character-tick,
// the tick's wall time (p50, p99), the characters by interval and the peak RSS. The figure the
// crowd script measures through the whole daemon, without the encode stage, the sessions and
// the load generator sharing the cores: a benchmark, not a test (figures from the release
// preset; docs/benchmarks.md).
//
//   bench_crowd_tick [--characters N] [--regions R] [--ticks T] [--budget-ms B]
//                    [--max-interval K] [--compact 0|1] [--after-tick 0|1]
//                    [--stage-busy 0|1] [--glb PATH]
//
// --compact 0: the regions are float subscriptions' (they give significance; nothing is
// quantized, no palettes built): the update alone. With 1 (default) every tick is quantized for
// them, as while the encode stage keeps up: inside the update, or with --after-tick 1 after it
// (World::set_quantize_after_tick), by the next tick, as the daemon's when its encode stage
// had no CPU to take the work. --stage-busy 1: the encode stage never takes a tick
// (Metrics::stage_busy), so the World defers World::kMaxDeferredTicks ticks in a row and
// quantizes the next inside the update, with nothing to pull toward, as the daemon's under
// load.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "anim/loaders/gltf_loader.h"
#include "percentile.h"
#include "shared_assets.h"
#include "world/world.h"

namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds of the whole process (every thread) so far.
double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  int characters = 40000, regions = 10, ticks = 600, max_interval = 8;
  bool compact = true, after_tick = false, stage_busy = false;
  std::string budget = "0";
  std::string glb = animtest::shared_path("assets/Bench64/bench64.glb");
  CLI::App app("The World's tick on a crowd of bench64 characters");
  app.add_option("--characters", characters)->check(CLI::PositiveNumber);
  app.add_option("--regions", regions)->check(CLI::NonNegativeNumber);
  app.add_option("--ticks", ticks)->check(CLI::PositiveNumber);
  app.add_option("--max-interval", max_interval)->check(CLI::Range(1, 16));
  app.add_option("--budget-ms", budget, "ms, 0 the smallest, < 0 auto, or unlimited")
      ->check(CLI::IsMember({"unlimited"}) | CLI::Number);
  app.add_option("--compact", compact);
  app.add_option("--after-tick", after_tick);
  app.add_option("--stage-busy", stage_busy);
  app.add_option("--glb", glb);
  CLI11_PARSE(app, argc, argv);
  const double budget_ms =
      budget == "unlimited" ? std::numeric_limits<double>::infinity() : std::atof(budget.c_str());
  auto loaded = anim::load_gltf(glb);
  if (!loaded) {
    std::fprintf(stderr, "%s: %s (skipped)\n", glb.c_str(), loaded.error().message().c_str());
    return 77;
  }
  loaded->name = "bench64";

  animd::Config config;  // 60 Hz, 1 s of history
  config.anim_budget_ms = budget_ms > 0.0 || budget_ms < 0.0 ? budget_ms : 1e-9;
  config.max_update_interval = max_interval;
  config.max_characters = static_cast<uint32_t>(characters);
  animd::Metrics metrics;
  metrics.compact_subscriptions = compact ? regions : 0;
  metrics.stage_busy = stage_busy;
  animd::AssetCatalog catalog;
  animd::WorkerPool pool{2};
  animd::World world(config, metrics, catalog, pool);
  world.set_quantize_after_tick(after_tick);
  auto fail = [](const char* what, const anim::Status& s) {
    std::fprintf(stderr, "%s: %s\n", what, s.message().c_str());
    return 1;
  };
  if (auto s = world.add_asset(std::make_shared<anim::Asset>(std::move(*loaded))); !s)
    return fail("add_asset", s);

  // animload's grid: side x side positions 1.5 m apart, centred on 0; region c a sphere of
  // about 500 cells' area in cell c of a k x k split of the grid.
  constexpr float kSpacing = 1.5f;
  const int side = std::max(1, static_cast<int>(std::ceil(std::sqrt(double(characters)))));
  const float low = -static_cast<float>(side / 2) * kSpacing;
  const double dt = 1.0 / config.tick_rate;
  for (int i = 0; i < characters; ++i) {
    auto id = world.spawn_unowned("bench64", "A");
    if (!id) return fail("spawn", id.error());
    animd::SetRootTransform move;
    move.character = *id;
    move.root.translation = {low + static_cast<float>(i % side) * kSpacing, 0.0f,
                             low + static_cast<float>(i / side) * kSpacing};
    if (auto s = world.execute(move, animd::Caller{}, 0, 0.0); !s)
      return fail("set_root_transform", s.error());
  }
  const int k = std::max(1, static_cast<int>(std::ceil(std::sqrt(double(regions)))));
  const float cell = static_cast<float>(side) * kSpacing / static_cast<float>(k);
  for (int c = 0; c < regions; ++c) {
    animd::StreamRegion r;
    r.center = {low + (static_cast<float>(c % k) + 0.5f) * cell, 0.0f,
                low + (static_cast<float>(c / k) + 0.5f) * cell};
    r.radius = std::sqrt(500.0f * kSpacing * kSpacing / 3.14159265f);
    animd::Subscribe sub{{}, false, static_cast<uint32_t>(c + 1), r, compact};
    if (auto s = world.execute(sub, animd::Caller{1, 0}, 0, 0.0); !s)
      return fail("subscribe", s.error());
  }

  std::vector<bool> on_b(static_cast<size_t>(characters), false);
  const uint64_t cycle = static_cast<uint64_t>(2.0 * config.tick_rate);  // 2 s
  // As the tick loop: a tick whose predecessor overran its period runs degraded (with the
  // automatic budget, a smaller budget).
  const auto period = std::chrono::duration<double>(dt);
  bool overran = false;
  auto run_tick = [&](uint64_t tick) {
    const auto started = Clock::now();
    for (int id = 1; id <= characters; ++id) {
      if ((static_cast<uint64_t>(id) + tick) % cycle != 0) continue;
      const bool b = on_b[static_cast<size_t>(id - 1)] = !on_b[static_cast<size_t>(id - 1)];
      (void)world.execute(
          animd::CrossfadeClip{static_cast<uint32_t>(id), b ? "B" : "A", 0.3f, true, 1.0f, false},
          animd::Caller{}, tick, double(tick) * dt);
    }
    const bool quantized =
        world.update(static_cast<float>(dt), tick, double(tick) * dt, overran)->quantized_in_tick;
    overran = Clock::now() - started > period;
    return quantized;
  };
  // Warm-up: the history window fills and the allocator settles.
  uint64_t tick = 0;
  for (int i = 0; i < 3 * static_cast<int>(config.tick_rate); ++i) run_tick(++tick);

  std::vector<double> tick_us, quantizing_us, other_us;
  const double cpu0 = process_cpu_s();
  const auto t0 = Clock::now();
  for (int i = 0; i < ticks; ++i) {
    const auto a = Clock::now();
    const bool quantized = run_tick(++tick);
    tick_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - a).count());
    (quantized ? quantizing_us : other_us).push_back(tick_us.back());
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu_s = process_cpu_s() - cpu0;

  auto list = world.execute(animd::ListCharacters{}, animd::Caller{}, tick, 0.0);
  std::vector<int> by_interval(17, 0);
  if (list)
    for (const auto& c : std::get<animd::CharacterList>(*list).characters)
      ++by_interval[std::min<size_t>(16, c.update_interval)];
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("characters %d, %d %s regions of ~500, budget %s ms, floor %d, %d ticks\n",
              characters, regions, compact ? "compact" : "float",
              std::to_string(world.anim_budget_ms()).c_str(), max_interval, ticks);
  std::printf("cpu per character-tick %.3f us (process CPU %.2f s over %.2f s of wall time)\n",
              cpu_s * 1e6 / (double(ticks) * characters), cpu_s, wall_s);
  std::printf("tick (commands + update): p50 %.2f ms p99 %.2f ms max %.2f ms\n",
              animtest::percentile(tick_us, 0.5) / 1000.0,
              animtest::percentile(tick_us, 0.99) / 1000.0,
              animtest::percentile(tick_us, 1.0) / 1000.0);
  // Ticks that quantized inside the update against the others (deferred, or quantizing nothing).
  if (!quantizing_us.empty() && !other_us.empty())
    std::printf("p50 of the %zu ticks quantized in the update %.2f ms, of the other %zu %.2f ms\n",
                quantizing_us.size(), animtest::percentile(quantizing_us, 0.5) / 1000.0,
                other_us.size(), animtest::percentile(other_us, 0.5) / 1000.0);
  std::printf("characters by interval:");
  for (size_t i = 1; i < by_interval.size(); ++i)
    if (by_interval[i]) std::printf(" %zu:%d", i, by_interval[i]);
  std::printf("\npeak RSS %.0f MB\n", static_cast<double>(u.ru_maxrss) / 1024.0);
  return 0;
}

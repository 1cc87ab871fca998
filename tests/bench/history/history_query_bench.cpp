// The server side of query_pose answered from the pose history, while the tick runs: a World
// of N bench64 characters (each crossfading A <-> B every 2 s) ticks at 60 Hz on one thread
// (2 update workers, as the daemon on this VM), and Q threads ask query_pose of the present or
// of a tick up to 29 back, as the daemon's network threads do: query_history, the wire reply
// (to_reply) and its serialization. Prints the query time distribution, the tick's update
// time and the history's bytes per character (read after the ticker stopped). A benchmark, not a
// test: figures come from the release preset (docs/benchmarks.md).
//
//   bench_history_query [--characters N] [--seconds S] [--query-threads Q] [--query-rate R]
//                       [--glb PATH] [--fade-seconds F] [--compact 0|1]
//
// --fade-seconds: each crossfade's duration (0.3 s; 2 keeps every character crossfading, the
// peak of a load whose characters all crossfade at once). --compact 1: every tick is also
// quantized for the compact stream, as while a compact subscription exists and the encode
// stage keeps up.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "anim/loaders/gltf_loader.h"
#include "history/pose_query.h"
#include "percentile.h"
#include "protocol/request_convert.h"
#include "shared_assets.h"
#include "world/world.h"

namespace {

using animtest::percentile;
using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int characters = 5000, query_threads = 2;
  double seconds = 10.0, query_rate = 500.0;  // queries per second per thread
  float fade_seconds = 0.3f;
  bool compact = false;
  std::string glb = animtest::shared_path("assets/Bench64/bench64.glb");
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--characters")
      characters = std::atoi(argv[i + 1]);
    else if (a == "--seconds")
      seconds = std::atof(argv[i + 1]);
    else if (a == "--query-threads")
      query_threads = std::atoi(argv[i + 1]);
    else if (a == "--query-rate")
      query_rate = std::atof(argv[i + 1]);
    else if (a == "--glb")
      glb = argv[i + 1];
    else if (a == "--fade-seconds")
      fade_seconds = static_cast<float>(std::atof(argv[i + 1]));
    else if (a == "--compact")
      compact = std::atoi(argv[i + 1]) != 0;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  auto loaded = anim::load_gltf(glb);
  if (!loaded) {
    std::fprintf(stderr, "%s: %s (skipped)\n", glb.c_str(), loaded.error().message().c_str());
    return 77;
  }
  loaded->name = "bench64";
  const int clip_a = loaded->find_clip("A"), clip_b = loaded->find_clip("B");
  if (clip_a < 0 || clip_b < 0) {
    std::fprintf(stderr, "bench64 needs clips A and B\n");
    return 1;
  }

  animd::Config config;  // 60 Hz, 1 s of history
  animd::Metrics metrics;
  if (compact) metrics.compact_subscriptions = 1;
  animd::AssetCatalog catalog;
  animd::WorkerPool pool{2};
  animd::World world(config, metrics, catalog, pool);
  if (!world.add_asset(std::make_shared<anim::Asset>(std::move(*loaded)))) return 1;
  // Compact: every character quantized, as for an all-characters compact subscriber.
  if (compact && !world.execute(animd::Subscribe{{}, true, 1, std::nullopt, true},
                                animd::Caller{1, 0}, 0, 0.0))
    return 1;
  for (int i = 0; i < characters; ++i)
    if (!world.spawn_unowned("bench64", "A")) return 1;

  const double dt = 1.0 / config.tick_rate;
  std::atomic<bool> stop{false};
  std::vector<double> tick_us;
  std::thread ticker([&] {
    uint64_t tick = 0;
    auto next = Clock::now();
    std::vector<bool> on_b(static_cast<size_t>(characters), false);
    const uint64_t period = static_cast<uint64_t>(2.0 * config.tick_rate);  // 2 s
    while (!stop.load()) {
      ++tick;
      const auto t0 = Clock::now();
      // Each character crossfades every 2 s, spread evenly over the ticks.
      for (int id = 1; id <= characters; ++id) {
        if ((static_cast<uint64_t>(id) + tick) % period != 0) continue;
        const bool b = on_b[static_cast<size_t>(id - 1)] = !on_b[static_cast<size_t>(id - 1)];
        (void)world.execute(animd::CrossfadeClip{static_cast<uint32_t>(id), b ? "B" : "A",
                                                 fade_seconds, true, 1.0f, false},
                            animd::Caller{}, tick, double(tick) * dt);
      }
      world.update(static_cast<float>(dt), tick, double(tick) * dt, false);
      tick_us.push_back(us_since(t0));
      next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(dt));
      std::this_thread::sleep_until(next);
    }
  });

  std::mutex samples_mutex;
  std::vector<double> query_us;
  std::atomic<uint64_t> refused{0};
  std::vector<std::thread> readers;
  const auto history = world.history();
  for (int t = 0; t < query_threads; ++t)
    readers.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t + 1));
      std::vector<double> mine;
      auto next = Clock::now();
      const auto gap = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / query_rate));
      while (!stop.load()) {
        animd::QueryPose q;
        q.character = 1 + static_cast<uint32_t>(rng() % static_cast<unsigned>(characters));
        const auto [oldest, newest] = history->window();
        if (newest == 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        if (rng() % 2) q.tick = newest - std::min<uint64_t>(newest - oldest, rng() % 30);
        const auto t0 = Clock::now();
        auto answer = animd::query_history(*history, q);
        if (!answer || !*answer) {
          ++refused;
        } else {
          anim::v1::Reply reply = animd::to_reply(animd::WorldResult(std::move(**answer)));
          std::string bytes;
          reply.SerializeToString(&bytes);
          mine.push_back(us_since(t0));
        }
        next += gap;
        std::this_thread::sleep_until(next);
      }
      std::lock_guard lock(samples_mutex);
      query_us.insert(query_us.end(), mine.begin(), mine.end());
    });

  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  ticker.join();
  for (auto& r : readers) r.join();
  // The first second fills the window: leave it out of the tick figures.
  const size_t warm = std::min(tick_us.size(), static_cast<size_t>(config.tick_rate));
  std::vector<double> steady(tick_us.begin() + static_cast<std::ptrdiff_t>(warm), tick_us.end());

  std::printf("characters %d, %.0f s, fades of %.2f s, %s, %d query threads at %.0f/s each\n",
              characters, seconds, fade_seconds, compact ? "quantized" : "not quantized",
              query_threads, query_rate);
  std::printf(
      "query_pose server time (query_history + to_reply + serialize): n=%zu p50 %.1f us "
      "p99 %.1f us max %.1f us (refused %llu)\n",
      query_us.size(), percentile(query_us, 0.5), percentile(query_us, 0.99),
      percentile(query_us, 1.0), static_cast<unsigned long long>(refused.load()));
  std::printf("tick (commands + update): n=%zu p50 %.2f ms p99 %.2f ms max %.2f ms\n",
              steady.size(), percentile(steady, 0.5) / 1000.0, percentile(steady, 0.99) / 1000.0,
              percentile(steady, 1.0) / 1000.0);
  // The ticker has stopped: this thread may read the frames' sizes.
  std::printf("pose history: %zu bytes, %.0f bytes per character (%d ticks)\n", history->bytes(),
              static_cast<double>(history->bytes()) / characters, config.history_ticks());
  return 0;
}

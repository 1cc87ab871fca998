// Hit queries answered from the pose history (hit_query.h), server side: a World of N bench64
// characters on a grid 3 m apart (random headings), each playing A or B from its own start
// time and every tenth crossfading, ticked for one second (60 ticks: the default history);
// then queries at random ticks of that window, each timed on its own as a network thread
// answers it: raycast_history / overlap_history + to_reply + serialization. The tick is not
// running meanwhile: these are the query's own costs.
//
//   BM_RaycastAimed/N   from 10 m away toward the centre of a random capsule of a random
//                       character at that tick (a shot: it hits that character or one in front)
//   BM_RaycastRandom/N  from a random point of the crowd at 0.3 .. 2 m height, horizontal, random
//                       heading, 50 m long (most cross several characters' bounds)
//   BM_OverlapSphere/N  a 0.5 m sphere around a random capsule's centre at that tick
//   BM_PlacementPerCharacter  what the tick pays per character for the broad phase
//
// Counters: p50_us / p99_us per query (microseconds), candidates (characters whose bound the
// query met) and posed (whose pose was evaluated) per query. Figures: docs/benchmarks.md.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "anim/animator.h"
#include "anim/loaders/gltf_loader.h"
#include "history/hit_query.h"
#include "history/pose_query.h"
#include "percentile.h"
#include "protocol/request_convert.h"
#include "shared_assets.h"
#include "world/world.h"

namespace {

using animtest::percentile;

using Clock = std::chrono::steady_clock;
constexpr float kSpacing = 3.0f;  // metres between neighbours on the grid
constexpr int kQueries = 512;     // distinct queries per kind, cycled through

struct Crowd {
  animd::Config config;  // 60 Hz, 1 s of history
  animd::Metrics metrics;
  animd::AssetCatalog catalog;
  animd::WorkerPool pool{2};
  std::unique_ptr<animd::World> world;
  std::shared_ptr<const anim::Asset> asset;
  uint32_t characters = 0;
  uint64_t newest = 0;
  float side = 0.0f;  // the grid's extent in x and z
};

// The crowd of `n` characters, made once per size.
Crowd* crowd(int n) {
  static std::map<int, std::unique_ptr<Crowd>> made;
  if (auto it = made.find(n); it != made.end()) return it->second.get();
  auto loaded = anim::load_gltf(animtest::shared_path("assets/Bench64/bench64.glb"));
  if (!loaded) return nullptr;
  loaded->name = "bench64";
  auto c = std::make_unique<Crowd>();
  c->world = std::make_unique<animd::World>(c->config, c->metrics, c->catalog, c->pool);
  auto asset = std::make_shared<anim::Asset>(std::move(*loaded));
  c->asset = asset;
  if (!c->world->add_asset(asset)) return nullptr;
  const int columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
  c->side = static_cast<float>(columns) * kSpacing;
  std::mt19937 rng(64);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float duration_a = asset->clips[static_cast<size_t>(asset->find_clip("A"))].duration;
  for (int i = 0; i < n; ++i) {
    auto id = c->world->spawn_unowned("bench64", "A");
    if (!id) return nullptr;
    anim::Transform root;
    root.translation = {static_cast<float>(i % columns) * kSpacing, 0.0f,
                        static_cast<float>(i / columns) * kSpacing};
    root.rotation = glm::angleAxis(unit(rng) * 6.2831853f, glm::vec3(0, 1, 0));
    (void)c->world->execute(animd::SetRootTransform{*id, root}, animd::Caller{}, 0, 0.0);
    (void)c->world->execute(
        animd::PlayClip{*id, i % 2 ? "B" : "A", true, 1.0f, unit(rng) * duration_a * 0.9f},
        animd::Caller{}, 0, 0.0);
  }
  c->characters = static_cast<uint32_t>(n);
  const float dt = 1.0f / 60.0f;
  for (uint64_t tick = 1; tick <= 60; ++tick) {
    if (tick == 30)  // every tenth character crossfades during the window
      for (uint32_t id = 1; id <= c->characters; id += 10)
        (void)c->world->execute(animd::CrossfadeClip{id, "B", 0.5f, true, 1.0f, false},
                                animd::Caller{}, tick, tick * dt);
    c->world->update(dt, tick, static_cast<double>(tick) * dt, false);
  }
  c->newest = 60;
  Crowd* out = c.get();
  made[n] = std::move(c);
  return out;
}

// A random character's random capsule, its centre in world space at a random tick.
struct Target {
  uint64_t tick = 0;
  glm::vec3 centre{0.0f};
};
Target random_target(Crowd& c, std::mt19937& rng) {
  const auto& caps = c.asset->hit_volumes.capsules;
  Target t;
  t.tick = c.newest - rng() % 60;
  animd::QueryPose q;
  q.character = 1 + static_cast<uint32_t>(rng() % c.characters);
  q.tick = t.tick;
  q.space = animd::PoseSpace::kWorld;
  uint32_t joint = 0;
  do joint = static_cast<uint32_t>(rng() % caps.size());
  while (!caps[joint].present());
  q.joint_indices = {joint};
  auto pose = animd::query_history(*c.world->history(), q);
  const glm::mat4 m = (**pose).joints[0].matrix.to_mat4();
  t.centre = glm::vec3(m * glm::vec4(0.5f * (caps[joint].a + caps[joint].b), 1.0f));
  return t;
}

glm::vec3 heading(std::mt19937& rng) {
  const float a = std::uniform_real_distribution<float>(0.0f, 6.2831853f)(rng);
  return {std::cos(a), 0.0f, std::sin(a)};
}

// Times `answer(i)` (query i of kQueries, cycled) per iteration and reports the counters.
template <class Answer>
void run(benchmark::State& state, Answer answer) {
  std::vector<double> us;
  double candidates = 0.0, posed = 0.0;
  size_t i = 0;
  for (auto _ : state) {
    animd::HitQueryCost cost;
    const auto t0 = Clock::now();
    answer(i++ % kQueries, cost);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    candidates += cost.candidates;
    posed += cost.posed;
  }
  const double n = static_cast<double>(us.size());
  state.counters["p50_us"] = percentile(us, 0.50);
  state.counters["p99_us"] = percentile(us, 0.99);
  state.counters["candidates"] = candidates / n;
  state.counters["posed"] = posed / n;
}

template <class Result>
void reply_bytes(const anim::Expected<Result>& result, std::string& bytes) {
  anim::v1::Reply reply =
      animd::to_reply(result ? anim::Expected<animd::WorldResult>(animd::WorldResult(*result))
                             : anim::Expected<animd::WorldResult>(result.error()));
  bytes.clear();
  reply.SerializeToString(&bytes);
  benchmark::DoNotOptimize(bytes.data());
}

// Casts `rays` against the crowd's history, one per iteration; counts the hit rate.
void cast_rays(benchmark::State& state, Crowd& c, const std::vector<animd::Raycast>& rays) {
  std::string bytes;
  size_t hits = 0;
  run(state, [&](size_t i, animd::HitQueryCost& cost) {
    auto hit = animd::raycast_history(*c.world->history(), *c.world->hit_volumes(), rays[i],
                                      c.config.max_hit_query_poses, nullptr, &cost);
    hits += hit && hit->hit;
    reply_bytes(hit, bytes);
  });
  state.counters["hit_rate"] = static_cast<double>(hits) / static_cast<double>(state.iterations());
}

void BM_RaycastAimed(benchmark::State& state) {
  Crowd* c = crowd(static_cast<int>(state.range(0)));
  if (!c) return state.SkipWithError("bench64.glb not found under ../shared/assets");
  std::mt19937 rng(1);
  std::vector<animd::Raycast> rays(kQueries);
  for (auto& r : rays) {
    const Target t = random_target(*c, rng);
    const glm::vec3 from = t.centre + 10.0f * heading(rng);
    r = {from, glm::normalize(t.centre - from), 100.0f, t.tick, {}};
  }
  cast_rays(state, *c, rays);
}

void BM_RaycastRandom(benchmark::State& state) {
  Crowd* c = crowd(static_cast<int>(state.range(0)));
  if (!c) return state.SkipWithError("bench64.glb not found under ../shared/assets");
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> across(0.0f, c->side), height(0.3f, 2.0f);
  std::vector<animd::Raycast> rays(kQueries);
  for (auto& r : rays)
    r = {{across(rng), height(rng), across(rng)}, heading(rng), 50.0f, c->newest - rng() % 60, {}};
  cast_rays(state, *c, rays);
}

void BM_OverlapSphere(benchmark::State& state) {
  Crowd* c = crowd(static_cast<int>(state.range(0)));
  if (!c) return state.SkipWithError("bench64.glb not found under ../shared/assets");
  std::mt19937 rng(3);
  std::vector<animd::OverlapSphere> spheres(kQueries);
  for (auto& s : spheres) {
    const Target t = random_target(*c, rng);
    s = {t.centre, 0.5f, t.tick, {}};
  }
  std::string bytes;
  run(state, [&](size_t i, animd::HitQueryCost& cost) {
    auto overlap =
        animd::overlap_history(*c->world->history(), *c->world->hit_volumes(), spheres[i],
                               c->config.max_hit_query_poses, nullptr, &cost);
    reply_bytes(overlap, bytes);
  });
}

// What the tick pays per character for the broad phase: the pose's bound (64 joint origins)
// placed by the root, as record_entry computes it after each update.
void BM_PlacementPerCharacter(benchmark::State& state) {
  Crowd* c = crowd(static_cast<int>(state.range(0)));
  if (!c) return state.SkipWithError("bench64.glb not found under ../shared/assets");
  anim::Animator a(c->asset->skeleton, c->asset->clips);
  (void)a.play(c->asset->find_clip("A"));
  (void)a.update(0.3f);
  anim::Transform root;
  root.translation = {1, 0, 2};
  for (auto _ : state) {
    const anim::PoseBound b = anim::pose_bound(a.model_matrices());
    const glm::vec3 center = anim::transform_point(root, b.center);
    benchmark::DoNotOptimize(center);
    benchmark::DoNotOptimize(b.radius);
  }
}

BENCHMARK(BM_PlacementPerCharacter)->Arg(1)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_RaycastAimed)->Arg(1)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RaycastRandom)->Arg(1)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OverlapSphere)->Arg(1)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);

}  // namespace

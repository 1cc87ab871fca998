// The rules of the poses shown between reduced-rate evaluations (docs/animation.md, "Update
// rates"), on bench64 crossfading A <-> B as in the crowd benchmark: a character evaluated
// every k ticks as the World does, showing the daemon's interpolate_shown in between, next to
// the same character updated every tick, both skinned (tests/support/reduced_rate_run.h).
// Rules, not figures: bench_interpolation_error measures the errors (docs/benchmarks.md).
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/gltf_loader.h"
#include "history/shown_pose.h"
#include "reduced_rate_run.h"
#include "shared_assets.h"

namespace animd {
namespace interpolation_error_test {

constexpr int kCharacters = 4;  // ids 1..4: several phases of the evaluations
constexpr int kTicks = 600;     // 10 s: four crossfades

std::shared_ptr<const anim::Asset> bench64() {
  static const std::shared_ptr<const anim::Asset> asset = [] {
    auto loaded = anim::load_gltf(animtest::shared_path("assets/Bench64/bench64.glb"));
    return loaded ? std::make_shared<const anim::Asset>(std::move(*loaded)) : nullptr;
  }();
  return asset;
}

animtest::RateScenario crowd_mix(const anim::Asset& a) {
  animtest::RateScenario s;
  s.ticks = kTicks;
  s.clip_a = a.find_clip("A");
  s.clip_b = a.find_clip("B");
  return s;
}

// Character c's clip A starts at its own fraction of the clip.
float start_time(const anim::Asset& a, int c) {
  return a.clips[static_cast<size_t>(a.find_clip("A"))].duration * static_cast<float>(c) /
         static_cast<float>(kCharacters);
}

bool same_bits(std::span<const anim::Transform> a, std::span<const anim::Transform> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// bench64 with clips A and B and its mesh; skipped without ../shared.
class InterpolationError : public ::testing::Test {
 protected:
  void SetUp() override {
    ANIMD_REQUIRE_SHARED();
    asset_ = bench64();
    ASSERT_TRUE(asset_) << "assets/Bench64/bench64.glb did not load";
    ASSERT_GE(asset_->find_clip("A"), 0);
    ASSERT_GE(asset_->find_clip("B"), 0);
    ASSERT_GT(asset_->mesh.num_vertices(), 0);
  }
  std::shared_ptr<const anim::Asset> asset_;
};

TEST_F(InterpolationError, AtIntervalOneEveryTickShowsTheFullRatePoseExactly) {
  const anim::Asset* asset = asset_.get();
  for (int c = 0; c < kCharacters; ++c) {
    animtest::ReducedRateRun run(*asset, crowd_mix(*asset), static_cast<uint32_t>(c + 1),
                                 start_time(*asset, c), 1);
    ASSERT_EQ(run.lag(), 0);
    while (run.step()) {
      ASSERT_TRUE(run.evaluated()) << run.tick();
      ASSERT_TRUE(same_bits(run.shown_locals(), run.reference_locals()))
          << "character " << c + 1 << " tick " << run.tick();
      const auto shown = run.shown_vertices();
      const auto reference = run.reference_vertices(run.tick());
      for (size_t v = 0; v < shown.size(); ++v)
        ASSERT_EQ(glm::distance(shown[v], reference[v]), 0.0f)
            << "character " << c + 1 << " tick " << run.tick() << " vertex " << v;
    }
  }
}

TEST_F(InterpolationError, TheLastTickBeforeAnEvaluationShowsTheEvaluatedPoseBitForBit) {
  const anim::Asset* asset = asset_.get();
  for (int k : {2, 3, 4, 5, 6, 7, 8, 12, 16}) {
    int checked = 0;
    std::vector<anim::Transform> blended;
    for (int c = 0; c < kCharacters; ++c) {
      animtest::ReducedRateRun run(*asset, crowd_mix(*asset), static_cast<uint32_t>(c + 1),
                                   start_time(*asset, c), k);
      while (run.step()) {
        if (run.interpolated_from() == 0 || run.tick() + 1 != run.next_evaluation()) continue;
        ++checked;
        // Tick N - 1: alpha = (N - 1 - B + 1) / (N - B) is exactly 1, and the tick shows B.
        ASSERT_EQ(run.alpha(), 1.0f) << "k " << k << " tick " << run.tick();
        ASSERT_TRUE(same_bits(run.shown_locals(), run.evaluated_locals()))
            << "k " << k << " character " << c + 1 << " tick " << run.tick();
        // And interpolate_shown itself, at alpha 1, gives B bit for bit: a tick that blended
        // there would show the same pose.
        blended.assign(run.from_locals().begin(), run.from_locals().end());
        interpolate_shown(blended, run.evaluated_locals(), 1.0f);
        ASSERT_TRUE(same_bits(blended, run.evaluated_locals()))
            << "k " << k << " character " << c + 1 << " tick " << run.tick();
      }
    }
    // Every interval after the first evaluation ends with such a tick.
    EXPECT_GE(checked, kCharacters * (kTicks / k - 2)) << "k " << k;
  }
}

// Rule: with the commands aligned on the evaluations (each crossfade sent on the tick after an
// evaluation, so every evaluation is the full-rate pose at its tick), the pose shown at tick t
// in [B, N) against the full-rate pose lag = k - 1 ticks earlier is the error of interpolating
// between the evaluations A (tick B - k) and B alone. Take one vertex, and P the length of
// its full-rate path over the ticks A..B. The full-rate vertex at t - lag lies on that path,
// at some distance s1 along it from A; the shown vertex lies on the interpolation's path from
// the same vertex at A to the same vertex at B, at some distance s2 along it, and that path is
// no longer than P (each joint turns along the shortest arc between its two local rotations,
// translations and scales move along the chord, so the blend of locals does not travel further
// than the motion it stands for). Going back to A or on to B, the two points are at most
// min(s1 + s2, (P - s1) + (P - s2)) <= P apart. So the error is at most P, plus a float
// floor: A and B differ from the full-rate poses by the rounding of a clip time summed over k
// ticks in one step instead of k (a few ulps of a time of seconds, micrometres of a vertex
// moving metres a second), and the floor is ten micrometres. For the same reason a tick that
// shows an evaluated pose itself (alpha 1) is within the floor of the full-rate pose.
TEST_F(InterpolationError, LagAlignedErrorStaysWithinTheVertexPathBetweenEvaluations) {
  const anim::Asset* asset = asset_.get();
  constexpr float kFloor = 1e-5f;  // metres
  animtest::RateScenario scenario = crowd_mix(*asset);
  scenario.commands_after_evaluation = true;
  for (int k = 2; k <= 8; ++k) {
    std::vector<float> path;
    int checked = 0;
    for (int c = 0; c < kCharacters; ++c) {
      animtest::ReducedRateRun run(*asset, scenario, static_cast<uint32_t>(c + 1),
                                   start_time(*asset, c), k);
      while (run.step()) {
        const uint64_t a = run.interpolated_from(), b = run.evaluated_tick(), t = run.tick();
        // Before the second evaluation nothing is interpolated; the first evaluation (at the
        // first tick, off phase) is less than k ticks before the second.
        if (a == 0 || b - a != static_cast<uint64_t>(k)) continue;
        ASSERT_EQ(run.next_evaluation() - b, static_cast<uint64_t>(k)) << "tick " << t;
        const auto shown = run.shown_vertices();
        const auto lagged = run.reference_vertices(t - static_cast<uint64_t>(run.lag()));
        path.assign(shown.size(), 0.0f);
        for (uint64_t q = a; q < b; ++q) {
          const auto from = run.reference_vertices(q), to = run.reference_vertices(q + 1);
          ASSERT_FALSE(from.empty()) << "tick " << q << " no longer kept at tick " << t;
          for (size_t v = 0; v < shown.size(); ++v) path[v] += glm::distance(from[v], to[v]);
        }
        const bool shows_evaluated = run.alpha() == 1.0f;
        for (size_t v = 0; v < shown.size(); ++v) {
          const float error = glm::distance(shown[v], lagged[v]);
          const float bound = shows_evaluated ? kFloor : path[v] + kFloor;
          ASSERT_LE(error, bound) << "k " << k << " character " << c + 1 << " tick " << t << " (B "
                                  << b << ", alpha " << run.alpha() << ") vertex " << v
                                  << ": path between the evaluations " << path[v];
        }
        ++checked;
      }
    }
    EXPECT_GE(checked, kCharacters * (kTicks - 3 * k)) << "k " << k;
  }
}

}  // namespace interpolation_error_test
}  // namespace animd

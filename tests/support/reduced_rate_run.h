#pragma once
// One character shown at a reduced update rate, next to the same character updated every
// tick, both skinned: what bench_interpolation_error measures and its rules' test checks
// (docs/animation.md, "Update rates").
//
// The reduced-rate character follows the World's update_at_rate (server/src/world/
// world_update.cpp) with a fixed interval k: evaluated at its first tick, then at the ticks t
// with (t + id) % k == 0, each time with the dt of every tick since its last evaluation;
// between two evaluations B and N (A the one before B), tick t in [B, N) shows
// interpolate_shown(A, B, alpha), alpha = (t - B + 1) / (N - B), the daemon's own function,
// and the evaluated pose B itself where alpha is 1. So tick N - 1 shows the pose evaluated at
// B: the shown motion lags the evaluations by k - 1 ticks (ReducedRateRun::lag).
//
// The reference is the same character (same asset, clip, start time, commands) updated every
// tick with that tick's dt. Both receive the scenario's crossfades before the update of the
// tick they are sent at, as the World executes commands between ticks; the reduced-rate
// character receives them as it stands, without the World's catch-up of its clocks (see
// RateScenario::commands_after_evaluation).
//
// Skinning is linear blend skinning of the asset's whole mesh in model space:
// v' = sum over the 4 influences i of w_i * palette[j_i] * v, palette = anim::build_palette of
// anim::local_to_model of the local pose.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "anim/animator.h"
#include "anim/asset.h"
#include "anim/palette.h"

namespace animtest {

// Linear blend skinning of an asset's mesh (SkinnedMesh: bind-space vertices, 4 influences
// summing to 1). Allocates only in its constructor.
class Skinner {
 public:
  explicit Skinner(const anim::Asset& asset);
  size_t num_vertices() const { return asset_->mesh.positions.size(); }
  // The mesh's vertices posed by `locals` (one per joint), in model space; `out` has
  // num_vertices() entries.
  void skin(std::span<const anim::Transform> locals, std::span<glm::vec3> out);

 private:
  const anim::Asset* asset_;
  std::vector<glm::mat4> model_;
  std::vector<anim::PaletteMatrix> palette_;
};

// What the two characters do. Ticks are numbered from 1, as the daemon's.
struct RateScenario {
  float tick_rate = 60.0f;  // Hz; every update's dt is 1 / tick_rate
  int ticks = 1200;         // ticks run
  // Every cycle_ticks ticks (tick % cycle_ticks == 0) both characters crossfade to the other
  // clip over fade_seconds (loop, speed 1, no time sync, linear: a CrossfadeRequest with only
  // the clip and duration set, as animload --cycle-every sends). 0: never.
  int cycle_ticks = 120;
  float fade_seconds = 0.5f;
  int clip_a = 0;  // played from the start (at the character's start time)
  int clip_b = 1;  // the first crossfade's target; then A, B, ...
  // False (the crowd): a crossfade is sent at its tick, whatever the reduced-rate character's
  // phase, and applied to it as it stands. Its next evaluation advances the new fade and clip
  // by the dt of every tick since the previous evaluation, so from then on they run ahead of
  // the reference's by the ticks between the previous evaluation and the command (0 to
  // k - 1): the schedule of a World that does not catch a character's clocks up before a
  // command. The daemon does (World::catch_up_clocks, Animator::catch_up), which gives
  // what `true` gives without holding the command back. True: each crossfade is held back to
  // the first tick after a reduced-rate evaluation and sent to both characters there; the
  // next evaluation's dt then covers exactly the ticks the reference ran it, and every
  // evaluation is the reference's pose at its tick (up to the rounding of the summed dt).
  bool commands_after_evaluation = false;
};

class ReducedRateRun {
 public:
  // The ticks of reference vertices kept (reference_vertices): enough for the lag and the
  // two evaluations' interval of any k <= kMaxInterval.
  static constexpr int kMaxInterval = 16;
  static constexpr int kKeptTicks = 2 * kMaxInterval + 2;

  // `id` places the evaluations (the daemon's character id); `start_time` is clip A's time
  // at spawn (seconds, within its duration); `interval` in [1, kMaxInterval].
  ReducedRateRun(const anim::Asset& asset, const RateScenario& scenario, uint32_t id,
                 float start_time, int interval);

  // The shown pose lags the evaluations by this many ticks (tick N - 1 shows pose B).
  int lag() const { return interval_ - 1; }
  int interval() const { return interval_; }

  // Runs the next tick (commands, both updates, the shown pose, skinning). False once the
  // scenario's ticks have all run (nothing changes then).
  bool step();

  // The last tick run (0 before the first step).
  uint64_t tick() const { return tick_; }
  // Whether the reduced-rate character was evaluated at tick().
  bool evaluated() const { return evaluated_tick_ == tick_; }
  // Its last evaluation B, the one before it A (0: none, or B does not interpolate from it)
  // and the next planned N.
  uint64_t evaluated_tick() const { return evaluated_tick_; }
  uint64_t interpolated_from() const { return interpolated_from_; }
  uint64_t next_evaluation() const { return next_evaluation_; }
  // The blend weight tick() shows pose B with (1: pose B itself, not blended).
  float alpha() const { return alpha_; }

  // Local poses: shown at tick(), evaluated at B, evaluated at A (the last valid while
  // interpolated_from() != 0), and the reference's at tick().
  std::span<const anim::Transform> shown_locals() const { return shown_; }
  std::span<const anim::Transform> evaluated_locals() const { return reduced_.local_pose().locals; }
  std::span<const anim::Transform> from_locals() const { return from_; }
  std::span<const anim::Transform> reference_locals() const {
    return reference_.local_pose().locals;
  }

  // Skinned vertices: the pose shown at tick(), and the reference's at `tick` (one of the
  // last kKeptTicks ticks run; empty otherwise).
  std::span<const glm::vec3> shown_vertices() const { return shown_vertices_; }
  std::span<const glm::vec3> reference_vertices(uint64_t tick) const;

 private:
  RateScenario scenario_;
  uint32_t id_;
  int interval_;
  float dt_;
  Skinner skinner_;
  anim::Animator reference_, reduced_;
  anim::UpdateBuffers buffers_;
  uint64_t tick_ = 0;
  // As the World's Character: pending_dt, evaluated_tick, next_evaluation, interpolated_from,
  // interpolation_from.
  float pending_dt_ = 0.0f;
  uint64_t evaluated_tick_ = 0, next_evaluation_ = 0, interpolated_from_ = 0;
  float alpha_ = 1.0f;
  std::vector<anim::Transform> from_, shown_;
  int crossfades_sent_ = 0;
  bool crossfade_due_ = false;
  std::vector<glm::vec3> shown_vertices_;
  std::vector<std::vector<glm::vec3>> reference_ring_;  // tick t at t % kKeptTicks
};

}  // namespace animtest

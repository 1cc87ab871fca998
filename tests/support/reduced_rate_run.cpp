#include "reduced_rate_run.h"

#include <algorithm>

#include "history/shown_pose.h"

namespace animtest {

Skinner::Skinner(const anim::Asset& asset)
    : asset_(&asset),
      model_(static_cast<size_t>(asset.skeleton.num_joints())),
      palette_(static_cast<size_t>(asset.skeleton.num_joints())) {}

void Skinner::skin(std::span<const anim::Transform> locals, std::span<glm::vec3> out) {
  anim::local_to_model(asset_->skeleton, locals, model_);
  anim::build_palette(asset_->skeleton, model_, palette_);
  const anim::SkinnedMesh& mesh = asset_->mesh;
  for (size_t v = 0; v < mesh.positions.size(); ++v) {
    const glm::vec4 p(mesh.positions[v], 1.0f);
    glm::vec3 sum(0.0f);
    for (int i = 0; i < 4; ++i) {
      const float w = mesh.weights[v][i];
      if (w == 0.0f) continue;
      const float* m = palette_[mesh.joints[v][static_cast<size_t>(i)]].m;
      sum += w * glm::vec3(glm::dot(glm::vec4(m[0], m[1], m[2], m[3]), p),
                           glm::dot(glm::vec4(m[4], m[5], m[6], m[7]), p),
                           glm::dot(glm::vec4(m[8], m[9], m[10], m[11]), p));
    }
    out[v] = sum;
  }
}

ReducedRateRun::ReducedRateRun(const anim::Asset& asset, const RateScenario& scenario, uint32_t id,
                               float start_time, int interval)
    : scenario_(scenario),
      id_(id),
      interval_(std::clamp(interval, 1, kMaxInterval)),
      dt_(1.0f / scenario.tick_rate),
      skinner_(asset),
      reference_(asset.skeleton, asset.clips, anim::AnimatorBuffers::kLentOnly),
      reduced_(asset.skeleton, asset.clips, anim::AnimatorBuffers::kLentOnly) {
  anim::PlayOptions play;
  play.start_time = start_time;
  (void)reference_.play(scenario.clip_a, play);
  (void)reduced_.play(scenario.clip_a, play);
  const size_t joints = static_cast<size_t>(asset.skeleton.num_joints());
  buffers_.reserve(asset.skeleton.num_joints());
  buffers_.want_model = false;  // the locals are skinned here, from both characters alike
  from_.resize(joints);
  shown_.resize(joints);
  shown_vertices_.resize(skinner_.num_vertices());
  reference_ring_.assign(kKeptTicks, std::vector<glm::vec3>(skinner_.num_vertices()));
}

std::span<const glm::vec3> ReducedRateRun::reference_vertices(uint64_t tick) const {
  if (tick == 0 || tick > tick_ || tick_ - tick >= static_cast<uint64_t>(kKeptTicks)) return {};
  return reference_ring_[tick % kKeptTicks];
}

bool ReducedRateRun::step() {
  if (tick_ >= static_cast<uint64_t>(scenario_.ticks)) return false;
  const uint64_t t = ++tick_;
  const uint64_t k = static_cast<uint64_t>(interval_);
  const bool evaluate = evaluated_tick_ == 0 || t >= next_evaluation_;

  // The commands sent before this tick's update (the World runs them between ticks).
  if (scenario_.cycle_ticks > 0 && t % static_cast<uint64_t>(scenario_.cycle_ticks) == 0)
    crossfade_due_ = true;
  const bool after_evaluation = evaluated_tick_ == 0 || evaluated_tick_ + 1 == t;
  if (crossfade_due_ && (after_evaluation || !scenario_.commands_after_evaluation)) {
    const int clip = ++crossfades_sent_ % 2 == 1 ? scenario_.clip_b : scenario_.clip_a;
    (void)reference_.crossfade(clip, scenario_.fade_seconds);
    (void)reduced_.crossfade(clip, scenario_.fade_seconds);
    crossfade_due_ = false;
  }

  // The reference: every tick, this tick's dt.
  (void)reference_.update(dt_, buffers_);

  // The reduced-rate character, as World's update_at_rate.
  if (evaluate) {
    const uint64_t next = t + k - (t + id_) % k;
    const bool interpolates = next - t > 1 && evaluated_tick_ != 0;
    if (interpolates)
      (void)reduced_.update(pending_dt_ + dt_, buffers_, from_);
    else
      (void)reduced_.update(pending_dt_ + dt_, buffers_);
    pending_dt_ = 0.0f;
    interpolated_from_ = interpolates ? evaluated_tick_ : 0;
    evaluated_tick_ = t;
    next_evaluation_ = next;
  } else {
    pending_dt_ += dt_;
  }
  alpha_ = 1.0f;
  if (interpolated_from_ != 0) {
    const double span = static_cast<double>(next_evaluation_ - evaluated_tick_);
    alpha_ = static_cast<float>(
        std::min(1.0, static_cast<double>(t - evaluated_tick_ + 1) / std::max(1.0, span)));
  }
  const auto& evaluated = reduced_.local_pose().locals;
  if (alpha_ < 1.0f) {
    std::copy(from_.begin(), from_.end(), shown_.begin());
    animd::interpolate_shown(shown_, evaluated, alpha_);
  } else {
    std::copy(evaluated.begin(), evaluated.end(), shown_.begin());
  }

  skinner_.skin(shown_, shown_vertices_);
  skinner_.skin(reference_.local_pose().locals, reference_ring_[t % kKeptTicks]);
  return true;
}

}  // namespace animtest

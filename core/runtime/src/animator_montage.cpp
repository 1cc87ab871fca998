// Animator: montages, clips played once in a slot (commands, clock and weight envelope).
#include <algorithm>
#include <cmath>
#include <string>

#include "anim/animator.h"
#include "anim/clip_time.h"

namespace anim {

namespace {

std::string num(float v) {
  return std::to_string(v);
}

bool finite_non_negative(float v) {
  return std::isfinite(v) && v >= 0.0f;
}

// The weight of a playing montage: the smaller of its blend-in ramp (from `start_weight` to 1
// over blend_in seconds) and its blend-out ramp (1 to 0 over blend_out seconds ending at the
// clip's end, `remaining` character seconds away).
float playing_envelope(const float start_weight, const float blend_in, const float blend_out,
                       const float elapsed, const float remaining) {
  const float in = blend_in > 0.0f
                       ? std::min(1.0f, start_weight + (1.0f - start_weight) * elapsed / blend_in)
                       : 1.0f;
  const float out = blend_out > 0.0f   ? std::min(1.0f, std::max(0.0f, remaining) / blend_out)
                    : remaining > 0.0f ? 1.0f
                                       : 0.0f;
  return std::min(in, out);
}

}  // namespace

std::vector<Animator::Layer>::const_iterator Animator::find_layer(int layer_id) const {
  return std::find_if(layers_.begin(), layers_.end(),
                      [&](const Layer& l) { return l.id == layer_id; });
}

float Animator::layer_weight(const Layer& layer) {
  if (!layer.slot) return layer.weight;
  const bool sounding = layer.montage.phase == MontagePhase::kPlaying ||
                        layer.montage.phase == MontagePhase::kStopping;
  return sounding ? layer.weight * layer.montage.envelope : 0.0f;
}

Status Animator::play_montage(int slot, const MontageDesc& desc) {
  const std::string who = "play_montage (slot " + std::to_string(slot) + ")";
  auto it = find_layer(slot);
  if (it == layers_.end()) return not_found(who + ": no layer with id " + std::to_string(slot));
  if (!it->slot)
    return failed_precondition(who + ": layer " + std::to_string(slot) +
                               " plays its own clip; a montage plays in a slot (add_layer "
                               "with override blend and no clip)");
  if (Status s = check_clip(desc.clip, "play_montage:"); !s) return s;
  const Clip& clip = clips_[desc.clip];
  if (!std::isfinite(desc.rate) || desc.rate <= 0.0f)
    return invalid_argument(who + ": rate " + num(desc.rate) + " is not a finite number > 0");
  if (!finite_non_negative(desc.blend_in))
    return invalid_argument(who + ": blend_in " + num(desc.blend_in) +
                            " is not a finite number >= 0");
  if (!finite_non_negative(desc.blend_out))
    return invalid_argument(who + ": blend_out " + num(desc.blend_out) +
                            " is not a finite number >= 0");
  if (!std::isfinite(desc.start_time) || desc.start_time < 0.0f ||
      (desc.start_time >= clip.duration && clip.duration > 0.0f))
    return invalid_argument(who + ": start_time " + num(desc.start_time) + " is outside [0, " +
                            num(clip.duration) + ") of clip '" + clip.name + "'");
  const size_t index = static_cast<size_t>(it - layers_.begin());
  if (setup_->layers[index]->clip != desc.clip) {
    PoseSetup next = copy_setup();
    auto made = std::make_shared<LayerSetup>(*next.layers[index]);
    made->clip = desc.clip;
    next.layers[index] = std::move(made);
    replace_setup(std::move(next));
  }
  Layer& layer = layers_[index];
  const float replaced = layer_weight(layer) > 0.0f ? layer.montage.envelope : 0.0f;
  layer.clip = desc.clip;
  layer.time = desc.start_time;
  layer.carry = 0.0f;
  layer.from = desc.start_time;
  layer.advance = 0.0f;
  layer.wraps = 0;
  layer.fresh = true;
  layer.cursor = SamplingCursor{};
  Layer::Montage& m = layer.montage;
  m = Layer::Montage{};
  m.phase = MontagePhase::kPlaying;
  m.rate = desc.rate;
  m.blend_in = desc.blend_in;
  m.blend_out = desc.blend_out;
  m.start_weight = replaced;
  m.envelope = playing_envelope(replaced, desc.blend_in, desc.blend_out, 0.0f,
                                (clip.duration - desc.start_time) / desc.rate);
  return Status::ok();
}

Status Animator::stop_montage(int slot, float blend_out) {
  const std::string who = "stop_montage (slot " + std::to_string(slot) + ")";
  auto it = find_layer(slot);
  if (it == layers_.end()) return not_found(who + ": no layer with id " + std::to_string(slot));
  if (!it->slot)
    return failed_precondition(who + ": layer " + std::to_string(slot) + " is not a slot");
  if (!finite_non_negative(blend_out))
    return invalid_argument(who + ": blend_out " + num(blend_out) + " is not a finite number >= 0");
  Layer::Montage& m = it->montage;
  if (m.phase != MontagePhase::kPlaying && m.phase != MontagePhase::kStopping)
    return failed_precondition(who + ": no montage is playing in it");
  m.phase = MontagePhase::kStopping;
  m.stop_from = m.envelope;
  m.stop_duration = blend_out;
  m.stop_elapsed = 0.0f;
  return Status::ok();
}

Expected<MontageState> Animator::montage(int slot) const {
  auto it = find_layer(slot);
  if (it == layers_.end()) return not_found("montage: no layer with id " + std::to_string(slot));
  if (!it->slot)
    return failed_precondition("montage: layer " + std::to_string(slot) + " is not a slot");
  const Layer::Montage& m = it->montage;
  return MontageState{it->clip, it->time, m.envelope, m.phase};
}

void Animator::advance_montage(Layer& layer, float dt) {
  Layer::Montage& m = layer.montage;
  const float t0 = layer.time;
  layer.from = t0;
  layer.wraps = 0;
  if (m.phase != MontagePhase::kPlaying && m.phase != MontagePhase::kStopping) {
    layer.advance = 0.0f;
    return;
  }
  const float duration = clips_[layer.clip].duration;
  const float elapsed = dt * std::fabs(speed_);
  layer.time = advance_clip_time(t0, layer.carry, elapsed * m.rate, duration, WrapMode::kClamp);
  layer.advance = layer.time - t0;
  m.elapsed += elapsed;
  if (m.phase == MontagePhase::kStopping) {
    m.stop_elapsed += elapsed;
    m.envelope = m.stop_duration > 0.0f
                     ? m.stop_from * std::max(0.0f, 1.0f - m.stop_elapsed / m.stop_duration)
                     : 0.0f;
  } else {
    m.envelope = playing_envelope(m.start_weight, m.blend_in, m.blend_out, m.elapsed,
                                  (duration - layer.time) / m.rate);
  }
  if (m.envelope <= 0.0f && (m.phase == MontagePhase::kStopping || layer.time >= duration)) {
    m.envelope = 0.0f;
    m.phase = MontagePhase::kEnded;
  }
}

}  // namespace anim

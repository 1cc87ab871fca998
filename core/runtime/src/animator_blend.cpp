// Animator: blend spaces (playing them, their samples and phase) and named parameters.
// The clocks, root motion and events of a blend space's player are in animator.cpp with the
// clips'; docs/animation.md, "Blend spaces", has the rules.
#include <algorithm>
#include <cmath>
#include <string>

#include "anim/animator.h"
#include "anim/clip_time.h"
#include "animator_checks.h"

namespace anim {

using animator_checks::num;

Status Animator::set_blend_spaces(std::shared_ptr<const BlendSpaceTable> table) {
  const size_t have = spaces_ ? spaces_->spaces.size() : 0;
  const size_t next = table ? table->spaces.size() : 0;
  if (next < have)
    return failed_precondition("set_blend_spaces: the new table has " + std::to_string(next) +
                               " blend spaces, fewer than the " + std::to_string(have) +
                               " defined");
  for (size_t i = 0; i < have; ++i)
    if (table->spaces[i] != spaces_->spaces[i])
      return failed_precondition("set_blend_spaces: blend space " + std::to_string(i) + " ('" +
                                 spaces_->spaces[i]->name + "') is not the same definition");
  for (size_t i = have; i < next; ++i) {
    const BlendSpace* s = table->spaces[i].get();
    if (!s)
      return invalid_argument("set_blend_spaces: blend space " + std::to_string(i) + " is null");
    for (const BlendSample& b : s->samples)
      if (Status st = check_clip(b.clip, "set_blend_spaces:"); !st) return st;
  }
  spaces_ = std::move(table);
  return Status::ok();
}

Expected<Animator::Player> Animator::space_player(int space, bool loop, float speed,
                                                  const char* what) {
  const int n = spaces_ ? static_cast<int>(spaces_->spaces.size()) : 0;
  if (space < 0 || space >= n)
    return not_found(std::string(what) + " blend space index " + std::to_string(space) +
                     " does not exist (the character has " + std::to_string(n) + " blend spaces)");
  const BlendSpace& bs = *spaces_->spaces[static_cast<size_t>(space)];
  if (!std::isfinite(speed))
    return invalid_argument(std::string(what) + " blend space '" + bs.name + "': speed " +
                            num(speed) + " is not finite");
  // The axes' parameters: the existing ones, and how many must be made.
  std::array<int8_t, 2> slots{-1, -1};
  int missing = 0;
  for (int a = 0; a < bs.dimensions; ++a) {
    for (int i = 0; i < num_params_; ++i)
      if (controls_->params[static_cast<size_t>(i)].name == bs.axes[static_cast<size_t>(a)])
        slots[static_cast<size_t>(a)] = static_cast<int8_t>(i);
    if (slots[static_cast<size_t>(a)] < 0) ++missing;
  }
  if (num_params_ + missing > kMaxParameters)
    return Status(StatusCode::kResourceExhausted, std::string(what) + " blend space '" + bs.name +
                                                      "' needs " + std::to_string(missing) +
                                                      " more parameters; the character has " +
                                                      std::to_string(num_params_) + " of at most " +
                                                      std::to_string(kMaxParameters));
  if (missing > 0) controls_.make();
  for (int a = 0; a < bs.dimensions; ++a)
    if (slots[static_cast<size_t>(a)] < 0) {
      controls_->params[static_cast<size_t>(num_params_)] =
          Parameter{bs.axes[static_cast<size_t>(a)]};
      slots[static_cast<size_t>(a)] = static_cast<int8_t>(num_params_++);
    }
  Player p;
  p.clip = -1;
  p.speed = speed;
  p.loop = loop;
  p.space = space;
  p.params = slots;
  refresh_weights(p);
  return p;
}

Status Animator::play_blend_space(int space, const PlayOptions& options) {
  if (Status s = check_no_machine("play"); !s) return s;
  const int n = spaces_ ? static_cast<int>(spaces_->spaces.size()) : 0;
  if (space >= 0 && space < n &&
      (!std::isfinite(options.start_time) || options.start_time < 0.0f ||
       options.start_time > 1.0f))
    return invalid_argument("play blend space '" +
                            spaces_->spaces[static_cast<size_t>(space)]->name + "': start_time " +
                            num(options.start_time) + " (a normalized phase) is outside [0, 1]");
  auto p = space_player(space, options.loop, options.speed, "play:");
  if (!p) return p.error();
  main_.base = *p;
  main_.base.time = wrap(main_.base, options.start_time);
  main_.num_fades = 0;
  return Status::ok();
}

Status Animator::crossfade_blend_space(int space, float duration, const CrossfadeOptions& options) {
  if (Status s = check_no_machine("crossfade"); !s) return s;
  if (!std::isfinite(duration) || duration < 0.0f)
    return invalid_argument("crossfade to blend space " + std::to_string(space) + ": duration " +
                            num(duration) + " must be finite and >= 0");
  if (static_cast<uint8_t>(options.curve) > static_cast<uint8_t>(BlendCurve::kSmoothStep))
    return invalid_argument("crossfade to blend space " + std::to_string(space) +
                            ": unknown blend curve");
  if (latest().space == space && space >= 0) {
    // Already the latest target (a no-op), once the index is known to be valid.
    return Status::ok();
  }
  auto p = space_player(space, options.loop, options.speed, "crossfade:");
  if (!p) return p.error();
  start_fade(main_, *p, duration, options.sync_normalized_time || options.sync_markers,
             options.curve, options.sync_markers);
  return Status::ok();
}

Status Animator::set_parameter(const std::string& name, float value, float smoothing) {
  if (name.empty()) return invalid_argument("set_parameter: name is empty");
  if (name.size() > kMaxBlendNameBytes)
    return invalid_argument("set_parameter: name is longer than " +
                            std::to_string(kMaxBlendNameBytes) + " bytes");
  if (!std::isfinite(value))
    return invalid_argument("set_parameter '" + name + "': value " + num(value) + " is not finite");
  if (!std::isfinite(smoothing) || smoothing < 0.0f)
    return invalid_argument("set_parameter '" + name + "': smoothing " + num(smoothing) +
                            " must be finite and >= 0");
  int slot = -1;
  for (int i = 0; i < num_params_; ++i)
    if (controls_->params[static_cast<size_t>(i)].name == name) slot = i;
  if (slot < 0) {
    if (num_params_ == kMaxParameters)
      return Status(StatusCode::kResourceExhausted,
                    "set_parameter '" + name + "': the character has " +
                        std::to_string(kMaxParameters) + " parameters, the most it may have");
    slot = num_params_++;
    controls_.make();
    // A new parameter starts where it is asked to be (there is nothing to smooth from).
    controls_->params[static_cast<size_t>(slot)] = Parameter{name, value, value, 0.0f, 0.0f};
  }
  Parameter& p = controls_->params[static_cast<size_t>(slot)];
  p.target = value;
  p.smoothing = smoothing;
  if (smoothing == 0.0f) {
    p.value = value;
    p.velocity = 0.0f;
  }
  return Status::ok();
}

Expected<float> Animator::parameter(const std::string& name) const {
  for (int i = 0; i < num_params_; ++i)
    if (controls_->params[static_cast<size_t>(i)].name == name)
      return controls_->params[static_cast<size_t>(i)].value;
  return not_found("parameter '" + name + "' is not set on this character");
}

int Animator::current_blend_space() const {
  return latest().space;
}

BlendWeights Animator::current_blend_weights() const {
  return latest().space >= 0 ? latest().weights : BlendWeights{};
}

bool Animator::plays_blend_space() const {
  if (main_.base.space >= 0) return true;
  for (int i = 0; i < main_.num_fades; ++i)
    if (main_.fades[static_cast<size_t>(i)].player.space >= 0) return true;
  return false;
}

void Animator::smooth_parameters(float dt) {
  for (int i = 0; i < num_params_; ++i) {
    Parameter& p = controls_->params[static_cast<size_t>(i)];
    if (p.value == p.target && p.velocity == 0.0f) continue;
    if (!(p.smoothing > 0.0f)) {
      p.value = p.target;
      p.velocity = 0.0f;
      continue;
    }
    // Critically damped spring toward the target, solved exactly over dt (stable at any dt):
    // x(t) = (x0 + (v0 + w x0) t) e^(-w t), w = 4 / smoothing (at t = smoothing, 5 e^-4 = 9%
    // of a step is left).
    const double w = 4.0 / double(p.smoothing);
    const double x0 = double(p.value) - double(p.target);
    const double v0 = p.velocity;
    const double wt = w * double(dt);
    const double e = std::exp(-wt);
    const double tmp = (v0 + w * x0) * double(dt);
    const double x = (x0 + tmp) * e;
    const double v = (v0 - w * tmp) * e;
    // Settled (or beyond what floats resolve): exactly at the target, so that a parameter on
    // a sample point gives that sample alone.
    const double tiny = 1e-6 * std::max(1.0, std::abs(double(p.target)));
    if (wt > 50.0 || !std::isfinite(x) || !std::isfinite(v) ||
        (std::abs(x) <= tiny && std::abs(v) * double(p.smoothing) <= tiny)) {
      p.value = p.target;
      p.velocity = 0.0f;
      continue;
    }
    p.value = static_cast<float>(double(p.target) + x);
    p.velocity = static_cast<float>(v);
  }
}

void Animator::refresh_weights(Player& p) const {
  if (p.space < 0) return;
  const BlendSpace& bs = *spaces_->spaces[static_cast<size_t>(p.space)];
  glm::vec2 at(0.0f);
  for (int a = 0; a < 2; ++a)
    if (p.params[static_cast<size_t>(a)] >= 0)
      at[a] = controls_->params[static_cast<size_t>(p.params[static_cast<size_t>(a)])].value;
  p.weights = bs.weights_at(at);
}

int Animator::term_clip(const Player& p, int k) const {
  const BlendSpace& bs = *spaces_->spaces[static_cast<size_t>(p.space)];
  return bs.samples[static_cast<size_t>(p.weights.sample[static_cast<size_t>(k)])].clip;
}

float Animator::term_time(const Player& p, int k) const {
  return term_time_at(p, k, p.time);
}

float Animator::term_time_at(const Player& p, int k, float phase) const {
  const int clip = term_clip(p, k);
  const float d = clips_[static_cast<size_t>(clip)].duration;
  const float natural = std::min(phase * d, d);
  if (p.weights.count < 2 || !spaces_->spaces[static_cast<size_t>(p.space)]->sync_markers)
    return natural;
  // The leader: the sample of greatest weight (the first of equals), at the phase.
  int lead = 0;
  for (int j = 1; j < p.weights.count; ++j)
    if (p.weights.weight[static_cast<size_t>(j)] > p.weights.weight[static_cast<size_t>(lead)])
      lead = j;
  if (k == lead) return natural;
  const int lead_clip = term_clip(p, lead);
  const float ld = clips_[static_cast<size_t>(lead_clip)].duration;
  float placed = 0.0f;
  return marker_time(lead_clip, std::min(phase * ld, ld), clip, natural, placed) ? placed : natural;
}

}  // namespace anim

// Animator: morph target weights (the layout, the per-update blend, the game's overrides).
#include <cmath>
#include <string>

#include "anim/animator.h"

#include "anim/clip.h"
#include "anim/morph_evaluation.h"

namespace anim {

namespace {

std::string num(float v) {
  return std::to_string(v);
}

float lerp(float a, float b, float t) {
  return t >= 1.0f ? b : a + (b - a) * t;
}

}  // namespace

Status Animator::set_morph_layout(std::shared_ptr<const MorphLayout> layout) {
  if (layout && layout->empty()) layout = nullptr;
  if (!layers_.empty())
    return failed_precondition("set_morph_layout: the character already has layers");
  if (layout)
    for (const Clip& clip : clips_)
      if (Status s = layout->check_clip(clip); !s) return s;
  morph_layout_ = std::move(layout);
  morph_weights_.clear();
  morph_overrides_.clear();
  num_morph_overrides_ = 0;
  if (morph_layout_) {
    morph_weights_ = morph_layout_->defaults;
    morph_overrides_.resize(morph_weights_.size());
  }
  return Status::ok();
}

bool Animator::morph_overridden(int index) const {
  return index >= 0 && index < static_cast<int>(morph_overrides_.size()) &&
         morph_overrides_[static_cast<size_t>(index)].mode != MorphOverride::Mode::kNone;
}

Status Animator::check_morph_command(const char* what, float blend_time) const {
  if (!morph_layout_)
    return failed_precondition(std::string(what) + ": the character's asset has no morph targets");
  if (!std::isfinite(blend_time) || blend_time < 0.0f)
    return invalid_argument(std::string(what) + ": blend_time " + num(blend_time) +
                            " is not a finite number of seconds >= 0");
  return Status::ok();
}

Status Animator::set_morph_weights(std::span<const MorphWeightValue> weights, float blend_time) {
  const char* what = "set_morph_weights";
  if (Status s = check_morph_command(what, blend_time); !s) return s;
  if (weights.size() > static_cast<size_t>(kMaxMorphOverrides))
    return invalid_argument(std::string(what) + ": " + std::to_string(weights.size()) +
                            " weights, at most " + std::to_string(kMaxMorphOverrides));
  const int n = morph_layout_->num_weights();
  std::vector<bool> named(static_cast<size_t>(n), false);
  for (const MorphWeightValue& w : weights) {
    if (w.index < 0 || w.index >= n)
      return not_found(std::string(what) + ": morph weight index " + std::to_string(w.index) +
                       " does not exist (the asset has " + std::to_string(n) + ")");
    const std::string& name = morph_layout_->names[static_cast<size_t>(w.index)];
    if (named[static_cast<size_t>(w.index)])
      return invalid_argument(std::string(what) + ": morph target '" + name + "' named twice");
    named[static_cast<size_t>(w.index)] = true;
    if (!std::isfinite(w.value) || w.value < kMinMorphWeight || w.value > kMaxMorphWeight)
      return invalid_argument(std::string(what) + ": weight " + num(w.value) + " of '" + name +
                              "' is outside [" + num(kMinMorphWeight) + ", " +
                              num(kMaxMorphWeight) + "]");
  }
  for (const MorphWeightValue& w : weights) {
    MorphOverride& o = morph_overrides_[static_cast<size_t>(w.index)];
    if (o.mode == MorphOverride::Mode::kNone) ++num_morph_overrides_;
    o = MorphOverride{MorphOverride::Mode::kSet, morph_weights_[static_cast<size_t>(w.index)],
                      w.value, 0.0f, blend_time};
  }
  return Status::ok();
}

Status Animator::clear_morph_weights(std::span<const int> indices, float blend_time) {
  const char* what = "clear_morph_weights";
  if (Status s = check_morph_command(what, blend_time); !s) return s;
  if (indices.size() > static_cast<size_t>(kMaxMorphOverrides))
    return invalid_argument(std::string(what) + ": " + std::to_string(indices.size()) +
                            " targets, at most " + std::to_string(kMaxMorphOverrides));
  const int n = morph_layout_->num_weights();
  for (int i : indices)
    if (i < 0 || i >= n)
      return not_found(std::string(what) + ": morph weight index " + std::to_string(i) +
                       " does not exist (the asset has " + std::to_string(n) + ")");
  const auto release = [&](int i) {
    MorphOverride& o = morph_overrides_[static_cast<size_t>(i)];
    if (o.mode == MorphOverride::Mode::kNone) return;
    if (blend_time <= 0.0f) {
      o = MorphOverride{};
      --num_morph_overrides_;
      return;
    }
    o = MorphOverride{MorphOverride::Mode::kClearing, morph_weights_[static_cast<size_t>(i)], 0.0f,
                      0.0f, blend_time};
  };
  if (indices.empty())
    for (int i = 0; i < n; ++i) release(i);
  else
    for (int i : indices) release(i);
  return Status::ok();
}

void Animator::advance_morph_overrides(float dt) {
  for (MorphOverride& o : morph_overrides_) {
    if (o.mode == MorphOverride::Mode::kNone) continue;
    o.elapsed += dt;
    if (o.mode == MorphOverride::Mode::kClearing && o.elapsed >= o.duration) {
      o = MorphOverride{};
      --num_morph_overrides_;
    }
  }
}

void Animator::evaluate_morphs(PoseScratch& scratch) {
  blend_morph_weights(*morph_layout_, clips_, evaluated_inputs(), evaluated_setup_.get(), scratch,
                      morph_weights_);
  if (num_morph_overrides_ == 0) return;
  for (size_t i = 0; i < morph_overrides_.size(); ++i) {
    const MorphOverride& o = morph_overrides_[i];
    if (o.mode == MorphOverride::Mode::kSet)
      morph_weights_[i] = lerp(o.from, o.to, o.alpha());
    else if (o.mode == MorphOverride::Mode::kClearing)
      morph_weights_[i] = lerp(o.from, morph_weights_[i], o.alpha());
  }
}

Status Animator::morph_layer_setup(const std::string& who, const std::vector<std::string>& targets,
                                   int reference_clip, float reference_time,
                                   LayerSetup& setup) const {
  if (!morph_layout_) {
    if (targets.empty()) return Status::ok();
    return failed_precondition(who + ": morph targets named, but the asset has none");
  }
  const size_t n = static_cast<size_t>(morph_layout_->num_weights());
  if (!targets.empty()) {
    setup.morph_mask.assign(n, 0.0f);
    for (const std::string& name : targets) {
      Expected<std::vector<int>> found = morph_layout_->resolve(name);
      if (!found) return Status(found.error().code(), who + ": " + found.error().message());
      for (int i : *found) setup.morph_mask[static_cast<size_t>(i)] = 1.0f;
    }
  }
  if (reference_clip >= 0) {
    setup.morph_reference.resize(n);
    sample_morph_source(*morph_layout_, &clips_[static_cast<size_t>(reference_clip)],
                        reference_time, setup.morph_reference);
  }
  return Status::ok();
}

}  // namespace anim

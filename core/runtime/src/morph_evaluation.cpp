// Morph weights blended as the pose is (morph_evaluation.h).
#include "anim/morph_evaluation.h"

#include <algorithm>

#include "anim/clip.h"
#include "anim/morph_weights.h"

namespace anim {

namespace {

float lerp(float a, float b, float t) {
  return t >= 1.0f ? b : a + (b - a) * t;
}

// Walks the clip's channels (in increasing set order) beside the sets; marks the sets it
// animates in `animated` when given.
void sample_clip_weights(const MorphLayout& layout, const Clip* clip, float time,
                         std::span<float> out, std::span<uint8_t> animated) {
  size_t next = 0;
  const size_t channels = clip ? clip->morph_channels.size() : 0;
  for (int s = 0; s < layout.num_sets(); ++s) {
    const size_t first = static_cast<size_t>(layout.set_first[static_cast<size_t>(s)]);
    const size_t count = static_cast<size_t>(layout.set_count[static_cast<size_t>(s)]);
    const std::span<float> dst = out.subspan(first, count);
    while (next < channels && clip->morph_channels[next].set < s) ++next;
    if (next < channels && clip->morph_channels[next].set == s) {
      sample_morph_channel(clip->morph_channels[next], time, dst);
      if (!animated.empty()) animated[static_cast<size_t>(s)] = 1;
    } else {
      std::copy_n(layout.defaults.begin() + static_cast<std::ptrdiff_t>(first), count, dst.begin());
    }
  }
}

void grow(std::vector<float>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

// A source (a clip, its blend-space terms mixed in) into `out`.
void sample_input(const MorphLayout& layout, std::span<const Clip> clips, const ClipInput& in,
                  std::vector<float>& term_buffer, std::span<float> out,
                  std::span<uint8_t> animated) {
  const Clip* clip = in.clip >= 0 ? &clips[static_cast<size_t>(in.clip)] : nullptr;
  sample_clip_weights(layout, clip, in.time, out, animated);
  if (!clip || in.num_terms <= 0) return;
  grow(term_buffer, out.size());
  const std::span<float> term = std::span(term_buffer).first(out.size());
  for (int k = 0; k < in.num_terms && k < 2; ++k) {
    const BlendTermInput& t = in.terms[static_cast<size_t>(k)];
    sample_clip_weights(layout, &clips[static_cast<size_t>(t.clip)], t.time, term, animated);
    for (size_t i = 0; i < out.size(); ++i) out[i] = lerp(out[i], term[i], t.mix);
  }
}

void sample_machine_layer(const MorphLayout& layout, std::span<const Clip> clips,
                          const MachineLayerInput& in, PoseScratch& scratch, std::span<float> out,
                          std::span<uint8_t> animated) {
  sample_input(layout, clips, in.source, scratch.morph_term, out, animated);
  if (in.num_fades <= 0) return;
  grow(scratch.morph_fade, out.size());
  const std::span<float> fade = std::span(scratch.morph_fade).first(out.size());
  for (const FadeInput& f : in.active_fades()) {
    sample_input(layout, clips, f.source, scratch.morph_term, fade, animated);
    for (size_t i = 0; i < out.size(); ++i) out[i] = lerp(out[i], fade[i], f.weight);
  }
}

void apply_layers(const MorphLayout& layout, std::span<const Clip> clips, const PoseInputs& inputs,
                  const PoseSetup& setup, PoseScratch& scratch, std::span<float> source,
                  std::span<float> out) {
  const size_t sets = static_cast<size_t>(layout.num_sets());
  if (scratch.morph_animated.size() < sets) scratch.morph_animated.resize(sets);
  const std::span<uint8_t> animated = std::span(scratch.morph_animated).first(sets);
  size_t machine = 0;
  for (size_t i = 0; i < inputs.layers.size() && i < setup.layers.size(); ++i) {
    const LayerInput& in = inputs.layers[i];
    const LayerSetup& layer = *setup.layers[i];
    const size_t k = layer.machine ? machine++ : 0;
    if (in.weight <= 0.0f) continue;
    std::fill(animated.begin(), animated.end(), uint8_t{0});
    if (layer.machine) {
      if (k >= inputs.machine_layers.size()) continue;
      sample_machine_layer(layout, clips, inputs.machine_layers[k], scratch, source, animated);
    } else {
      if (layer.clip < 0) continue;
      sample_clip_weights(layout, &clips[static_cast<size_t>(layer.clip)], in.time, source,
                          animated);
    }
    const bool additive = layer.blend == LayerBlend::kAdditive;
    for (size_t s = 0; s < sets; ++s) {
      if (!animated[s]) continue;
      const size_t first = static_cast<size_t>(layout.set_first[s]);
      const size_t end = first + static_cast<size_t>(layout.set_count[s]);
      for (size_t w = first; w < end; ++w) {
        const float f = layer.morph_mask.empty() ? in.weight : in.weight * layer.morph_mask[w];
        if (f <= 0.0f) continue;
        if (additive)
          out[w] += f * (source[w] - (layer.morph_reference.empty() ? layout.defaults[w]
                                                                    : layer.morph_reference[w]));
        else
          out[w] = lerp(out[w], source[w], f);
      }
    }
  }
}

}  // namespace

void sample_morph_source(const MorphLayout& layout, const Clip* clip, float time,
                         std::span<float> out) {
  sample_clip_weights(layout, clip, time, out, {});
}

void blend_morph_weights(const MorphLayout& layout, std::span<const Clip> clips,
                         const PoseInputs& inputs, const PoseSetup* setup, PoseScratch& scratch,
                         std::span<float> out) {
  const size_t n = static_cast<size_t>(layout.num_weights());
  out = out.first(n);
  sample_input(layout, clips, inputs.base, scratch.morph_term, out, {});
  grow(scratch.morph_source, n);
  const std::span<float> source = std::span(scratch.morph_source).first(n);
  for (const FadeInput& f : inputs.fades) {
    sample_input(layout, clips, f.source, scratch.morph_term, source, {});
    for (size_t i = 0; i < n; ++i) out[i] = lerp(out[i], source[i], f.weight);
  }
  if (setup) apply_layers(layout, clips, inputs, *setup, scratch, source, out);
}

}  // namespace anim

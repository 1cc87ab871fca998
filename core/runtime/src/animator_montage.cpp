// Animator: montages, clips played once in a slot (commands, clock, weight envelope, sections
// and lifecycle events).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "anim/animator.h"
#include "anim/clip_time.h"
#include "event_search.h"

namespace anim {

namespace {

std::string num(float v) {
  return std::to_string(v);
}

bool finite_non_negative(float v) {
  return std::isfinite(v) && v >= 0.0f;
}

// The blend-out ramp of a playing montage: 1 to 0 over blend_out seconds ending at the
// montage's end, `remaining` character seconds away (infinite in a loop of sections). Below 1:
// the montage blends out.
float out_ramp(const float blend_out, const float remaining) {
  return blend_out > 0.0f   ? std::min(1.0f, std::max(0.0f, remaining) / blend_out)
         : remaining > 0.0f ? 1.0f
                            : 0.0f;
}

// The weight of a playing montage: the smaller of its blend-in ramp (from `start_weight` to 1
// over blend_in seconds) and its blend-out ramp (out_ramp).
float playing_envelope(const float start_weight, const float blend_in, const float blend_out,
                       const float elapsed, const float remaining) {
  const float in = blend_in > 0.0f
                       ? std::min(1.0f, start_weight + (1.0f - start_weight) * elapsed / blend_in)
                       : 1.0f;
  return std::min(in, out_ramp(blend_out, remaining));
}

bool sounding(MontagePhase phase) {
  return phase == MontagePhase::kPlaying || phase == MontagePhase::kStopping;
}

}  // namespace

std::vector<Animator::Layer>::const_iterator Animator::find_layer(int layer_id) const {
  return std::find_if(layers_.begin(), layers_.end(),
                      [&](const Layer& l) { return l.id == layer_id; });
}

float Animator::layer_weight(const Layer& layer) {
  if (!layer.slot) return layer.weight;
  return sounding(layer.montage.phase) ? layer.weight * layer.montage.envelope : 0.0f;
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
  std::shared_ptr<const MontageTimeline> timeline;
  if (!desc.sections.empty()) {
    auto made = make_montage_timeline(desc.sections, clip, who);
    if (!made) return made.error();
    timeline = std::move(*made);
  }
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
  // The montage it replaces is interrupted if it started and had not ended; one replaced
  // before its first update leaves nothing to report but what it replaced itself.
  const bool live = sounding(layer.montage.phase) && layer.montage.started;
  const int interrupted = live ? layer.clip : layer.montage.interrupted_clip;
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
  m.interrupted_clip = interrupted;
  if (timeline) {
    m.section = timeline->section_at(desc.start_time);
    m.envelope = playing_envelope(
        replaced, desc.blend_in, desc.blend_out, 0.0f,
        static_cast<float>(timeline->remaining(m.section, desc.start_time)) / desc.rate);
    m.timeline = std::move(timeline);
  } else {
    m.envelope = playing_envelope(replaced, desc.blend_in, desc.blend_out, 0.0f,
                                  (clip.duration - desc.start_time) / desc.rate);
  }
  m.from_section = m.section;
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

Status Animator::jump_to_section(int slot, const std::string& section) {
  const std::string who = "jump_to_section (slot " + std::to_string(slot) + ")";
  auto it = find_layer(slot);
  if (it == layers_.end()) return not_found(who + ": no layer with id " + std::to_string(slot));
  if (!it->slot)
    return failed_precondition(who + ": layer " + std::to_string(slot) + " is not a slot");
  Layer::Montage& m = it->montage;
  if (!sounding(m.phase)) return failed_precondition(who + ": no montage is playing in it");
  const int s = m.timeline ? m.timeline->find(section) : -1;
  if (s < 0)
    return not_found(who + ": section '" + section + "' is not a section of the montage of clip '" +
                     clips_[static_cast<size_t>(it->clip)].name + "'" +
                     (m.timeline ? "" : " (it has no sections)"));
  const float start = m.timeline->sections[static_cast<size_t>(s)].start;
  m.section = s;
  it->time = start;
  it->carry = 0.0f;
  it->from = start;
  it->fresh = true;
  return Status::ok();
}

Expected<MontageState> Animator::montage(int slot) const {
  auto it = find_layer(slot);
  if (it == layers_.end()) return not_found("montage: no layer with id " + std::to_string(slot));
  if (!it->slot)
    return failed_precondition("montage: layer " + std::to_string(slot) + " is not a slot");
  const Layer::Montage& m = it->montage;
  return MontageState{it->clip, it->time, m.envelope, m.phase, m.section};
}

void Animator::advance_montage(Layer& layer, float dt) {
  Layer::Montage& m = layer.montage;
  const float t0 = layer.time;
  layer.from = t0;
  layer.wraps = 0;
  m.from_section = m.section;
  m.hops = 0;
  m.began_blending_out = false;
  m.ended_now = false;
  if (!sounding(m.phase)) {
    layer.advance = 0.0f;
    return;
  }
  const float elapsed = dt * std::fabs(speed_);
  float remaining = 0.0f;  // clip seconds to the montage's end
  bool at_end = false;
  if (m.timeline) {
    MontagePlayhead p{m.section, t0, layer.carry};
    const MontageMove move = advance_montage_time(*m.timeline, p, elapsed * m.rate);
    m.section = p.section;
    m.hops = move.hops;
    layer.time = p.time;
    layer.carry = p.carry;
    layer.advance = static_cast<float>(move.travel);
    remaining = static_cast<float>(m.timeline->remaining(m.section, layer.time));
    at_end = move.at_end;
  } else {
    const float duration = clips_[layer.clip].duration;
    layer.time = advance_clip_time(t0, layer.carry, elapsed * m.rate, duration, WrapMode::kClamp);
    layer.advance = layer.time - t0;
    remaining = duration - layer.time;
    at_end = layer.time >= duration;
  }
  m.elapsed += elapsed;
  bool blending_out = true;
  if (m.phase == MontagePhase::kStopping) {
    m.stop_elapsed += elapsed;
    m.envelope = m.stop_duration > 0.0f
                     ? m.stop_from * std::max(0.0f, 1.0f - m.stop_elapsed / m.stop_duration)
                     : 0.0f;
  } else {
    m.envelope =
        playing_envelope(m.start_weight, m.blend_in, m.blend_out, m.elapsed, remaining / m.rate);
    blending_out = out_ramp(m.blend_out, remaining / m.rate) < 1.0f;
  }
  m.began_blending_out = blending_out && !m.blending_out;
  m.blending_out = blending_out;
  if (m.envelope <= 0.0f && (m.phase == MontagePhase::kStopping || at_end)) {
    m.envelope = 0.0f;
    m.phase = MontagePhase::kEnded;
    m.ended_now = true;
  }
}

void Animator::fire_montage_event(const Layer& layer, int clip, MontageEvent event) {
  if (num_fired_ == kMaxFiredEvents) {
    ++events_overflowed_;
    return;
  }
  (*fired_)[static_cast<size_t>(num_fired_++)] = FiredEvent{static_cast<int32_t>(clip),
                                                            static_cast<uint16_t>(event),
                                                            1.0f,
                                                            EventSource::kMontage,
                                                            false,
                                                            static_cast<uint32_t>(layer.id)};
}

namespace {

// The events of `list` (sorted by time) between a and b, each end included or not:
// indices [from, to).
std::pair<size_t, size_t> span_of(const std::vector<ClipEvent>& list, float a, bool with_a, float b,
                                  bool with_b) {
  using namespace event_search;
  const size_t from = with_a ? first_at_or_after(list, a) : first_after(list, a);
  return {from, std::max(from, with_b ? first_after(list, b) : first_at_or_after(list, b))};
}

}  // namespace

void Animator::fire_span(int clip, float a, bool with_a, float b, bool with_b, float weight,
                         uint32_t layer_id) {
  const std::vector<ClipEvent>& list = events_->clips[static_cast<size_t>(clip)];
  const auto [from, to] = span_of(list, a, with_a, b, with_b);
  for (size_t i = from; i < to; ++i) {
    if (num_fired_ == kMaxFiredEvents) {
      events_overflowed_ += to - i;
      return;
    }
    (*fired_)[static_cast<size_t>(num_fired_++)] = FiredEvent{static_cast<int32_t>(clip),
                                                              static_cast<uint16_t>(i),
                                                              weight,
                                                              EventSource::kLayer,
                                                              false,
                                                              layer_id};
  }
}

void Animator::fire_montage(Layer& layer) {
  Layer::Montage& m = layer.montage;
  // Lifecycle before the clip's events: what was replaced, then what starts.
  if (m.interrupted_clip >= 0) {
    fire_montage_event(layer, m.interrupted_clip, MontageEvent::kInterrupted);
    m.interrupted_clip = -1;
  }
  if (m.phase != MontagePhase::kNone && !m.started) {
    fire_montage_event(layer, layer.clip, MontageEvent::kStarted);
    m.started = true;
  }
  const float weight = layer_weight(layer);
  const uint32_t id = static_cast<uint32_t>(layer.id);
  if (events_ && layer.clip >= 0 && m.hops == 0) {
    fire_crossings(layer.clip, layer.from, layer.time, 0, layer.advance, layer.fresh, weight,
                   EventSource::kLayer, id);
  } else if (events_ && layer.clip >= 0 && weight > 0.0f &&
             !events_->clips[static_cast<size_t>(layer.clip)].empty()) {
    // Through sections: the rest of the section it left, each section entered whole, then
    // the one it stopped in up to where it stopped. A section holds [start, end), the clip's
    // last one [start, end]: an event where two sections meet is the later one's, and a
    // section entered through `next` crosses its start (as a loop wrap crosses the clip's).
    const MontageTimeline& tl = *m.timeline;
    const int64_t count = static_cast<int64_t>(tl.sections.size());
    const int clip = layer.clip;
    auto section = [&](int s) -> const MontageTimeline::Section& {
      return tl.sections[static_cast<size_t>(s)];
    };
    auto whole = [&](int s) {
      fire_span(clip, section(s).start, true, section(s).end, s == count - 1, weight, id);
    };
    int s = m.from_section;
    fire_span(clip, layer.from, layer.fresh, section(s).end, s == count - 1, weight, id);
    int64_t left = m.hops;
    int64_t walked = 0;
    bool folded = false;
    while (left > 0) {
      s = section(s).next;
      --left;
      ++walked;
      if (left == 0) {
        fire_span(clip, section(s).start, true, layer.time, true, weight, id);
        break;
      }
      whole(s);
      if (folded || walked < count) continue;
      // On a loop now: its whole turns (back to this section) are fired while there is
      // room and counted after that, never walked one by one past the buffer.
      folded = true;
      double seconds = 0.0;
      int64_t per_turn = 0;
      tl.loop_of(s, seconds, per_turn);
      const int64_t turns = (left - 1) / per_turn;
      if (turns <= 0) continue;
      const std::vector<ClipEvent>& list = events_->clips[static_cast<size_t>(clip)];
      uint64_t events_per_turn = 0;
      for (int k = 0, t = section(s).next; k < per_turn; ++k, t = section(t).next) {
        const auto [from, to] =
            span_of(list, section(t).start, true, section(t).end, t == count - 1);
        events_per_turn += to - from;
      }
      int64_t done = 0;
      while (done < turns && num_fired_ < kMaxFiredEvents && events_per_turn > 0) {
        for (int k = 0, t = section(s).next; k < per_turn; ++k, t = section(t).next) whole(t);
        ++done;
      }
      events_overflowed_ += static_cast<uint64_t>(turns - done) * events_per_turn;
      left -= turns * per_turn;
    }
  }
  if (layer.advance != 0.0f) layer.fresh = false;
  // Then what this update's envelope began or ended.
  if (m.began_blending_out) fire_montage_event(layer, layer.clip, MontageEvent::kBlendingOut);
  if (m.ended_now) fire_montage_event(layer, layer.clip, MontageEvent::kEnded);
}

}  // namespace anim

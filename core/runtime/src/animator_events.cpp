// Animator: clip events, the table every clip's events come from and the events each update's
// playheads cross (in order, within kMaxFiredEvents; the rest counted).
#include <algorithm>
#include <array>
#include <string>

#include "anim/animator.h"
#include "anim/clip_events.h"
#include "anim/status.h"
#include "event_search.h"

namespace anim {

Status Animator::set_event_table(std::shared_ptr<const ClipEventTable> table) {
  if (table) {
    if (table->clips.size() != clips_.size())
      return invalid_argument("set_event_table: the table has " +
                              std::to_string(table->clips.size()) + " clip lists, the character " +
                              std::to_string(clips_.size()) + " clips");
    for (size_t c = 0; c < clips_.size(); ++c) {
      const auto& list = table->clips[c];
      if (list.size() > static_cast<size_t>(kMaxEventsPerClip))
        return invalid_argument("set_event_table: clip '" + clips_[c].name + "' has " +
                                std::to_string(list.size()) + " events, more than " +
                                std::to_string(kMaxEventsPerClip));
      for (size_t i = 0; i < list.size(); ++i) {
        if (Status s = check_event(
                list[i], clips_[c],
                "set_event_table: clip '" + clips_[c].name + "' event " + std::to_string(i));
            !s)
          return s;
        if (i > 0 && list[i].time < list[i - 1].time)
          return invalid_argument("set_event_table: the events of clip '" + clips_[c].name +
                                  "' are not sorted by time");
      }
    }
  }
  if (table) fired_.make();
  events_ = std::move(table);
  if (events_held_) {
    num_fired_ = 0;
    events_overflowed_ = 0;
    events_held_ = false;
  }
  return Status::ok();
}

void Animator::fire_events() {
  // After a catch_up, its events stay and this step's follow them.
  if (!events_held_) {
    num_fired_ = 0;
    events_overflowed_ = 0;
  }
  if (!events_) {
    // No clip events; montages still report their lifecycle.
    for (Layer& l : layers_)
      if (l.slot) fire_montage(l);
    return;
  }
  fire_track(main_, 1.0f, EventSource::kBase, EventSource::kFade, 0);
  for (Layer& l : layers_) {
    if (l.slot) {
      fire_montage(l);
      continue;
    }
    if (l.machine) {
      fire_track(l.machine->track, layer_weight(l), EventSource::kLayer, EventSource::kLayer,
                 static_cast<uint32_t>(l.id));
      continue;
    }
    fire_crossings(l.clip, l.from, l.time, l.wraps, l.advance, l.fresh, layer_weight(l),
                   EventSource::kLayer, static_cast<uint32_t>(l.id));
    if (l.advance != 0.0f) l.fresh = false;
  }
}

void Animator::fire_track(Track& track, float weight, EventSource base_source,
                          EventSource fade_source, uint32_t layer_id) {
  // Each source's share of the pose after this update: fades blend over what is under them,
  // so a fade keeps w times what the newer fades leave, and the base what all of them leave.
  std::array<float, kMaxFades> fade_share{};
  float above = weight;
  for (int i = track.num_fades - 1; i >= 0; --i) {
    const float w = track.fades[i].weight();
    fade_share[i] = w * above;
    above *= 1.0f - w;
  }
  auto player = [&](Player& p, float share, EventSource source) {
    if (p.space >= 0) {
      // Each sample's clip crosses what the shared phase crossed, with its share of the pose.
      for (int k = 0; k < p.weights.count; ++k) {
        const int clip = term_clip(p, k);
        const float d = clips_[static_cast<size_t>(clip)].duration;
        float from = 0.0f;
        int64_t wraps = 0;
        term_span(p, k, from, wraps);
        fire_crossings(clip, from, term_time(p, k), wraps, p.advance * d, p.fresh,
                       share * p.weights.weight[static_cast<size_t>(k)], source, layer_id);
      }
      if (p.advance != 0.0f) p.fresh = false;
      return;
    }
    if (p.clip < 0) return;
    fire_crossings(p.clip, p.from, p.time, p.wraps, p.advance, p.fresh, share, source, layer_id);
    if (p.advance != 0.0f) p.fresh = false;
  };
  player(track.base, above, base_source);
  for (int i = 0; i < track.num_fades; ++i)
    player(track.fades[i].player, fade_share[i], fade_source);
}

void Animator::fire_crossings(int clip, float t0, float t1, int64_t wraps, float advance,
                              bool fresh, float weight, EventSource source, uint32_t layer_id) {
  const std::vector<ClipEvent>& list = events_->clips[static_cast<size_t>(clip)];
  if (list.empty() || !(weight > 0.0f) || advance == 0.0f) return;
  const bool forward = advance > 0.0f;
  const size_t n = list.size();
  auto emit = [&](size_t i) {
    if (num_fired_ == kMaxFiredEvents) {
      ++events_overflowed_;
      return;
    }
    (*fired_)[static_cast<size_t>(num_fired_++)] = FiredEvent{
        static_cast<int32_t>(clip), static_cast<uint16_t>(i), weight, source, !forward, layer_id};
  };
  // Whole cycles: written while there is room, the rest counted (no loop over 2^40 cycles).
  auto cycles = [&](uint64_t count) {
    const uint64_t total = count * n;
    const uint64_t room = static_cast<uint64_t>(kMaxFiredEvents - num_fired_);
    const uint64_t written = std::min(total, room);
    for (uint64_t k = 0; k < written; ++k) emit(forward ? k % n : n - 1 - k % n);
    events_overflowed_ += total - written;
  };
  // First index with time >= t (lower) or > t (upper): the list is sorted by time.
  auto lower = [&](float t) { return event_search::first_at_or_after(list, t); };
  auto upper = [&](float t) { return event_search::first_after(list, t); };
  // Crossed: forward (t0, t1], backward [t1, t0), unrolled over the wraps; the start time
  // too while the playhead is fresh.
  if (forward) {
    const size_t from = fresh ? lower(t0) : upper(t0);
    const size_t to = wraps > 0 ? n : upper(t1);
    for (size_t i = from; i < to; ++i) emit(i);
    if (wraps > 0) {
      cycles(static_cast<uint64_t>(wraps - 1));
      const size_t end = upper(t1);
      for (size_t i = 0; i < end; ++i) emit(i);
    }
  } else {
    const size_t from = fresh ? upper(t0) : lower(t0);  // [0, from): before t0
    const size_t to = wraps < 0 ? 0 : lower(t1);        // [to, ...): at or after t1
    for (size_t i = from; i > to; --i) emit(i - 1);
    if (wraps < 0) {
      cycles(static_cast<uint64_t>(-(wraps + 1)));
      const size_t end = lower(t1);
      for (size_t i = n; i > end; --i) emit(i - 1);
    }
  }
}

}  // namespace anim

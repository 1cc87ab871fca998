#include "stream_state.h"

#include <algorithm>
#include <cmath>

namespace animview {

void ServerClock::observe(double server_time, double local_time) {
  double sample = server_time - local_time;
  if (!valid_) {
    offset_ = sample;
    valid_ = true;
  } else {
    constexpr double kDecayPerSecond = 1e-3;  // follows drift of up to 1000 ppm
    constexpr double kJump = 1.0;             // server restarted or clock stepped
    double decayed = offset_ - kDecayPerSecond * std::max(0.0, local_time - last_local_);
    offset_ = std::max(sample, decayed);
    if (sample < offset_ - kJump) offset_ = sample;
  }
  last_local_ = local_time;
}

bool StreamState::accept(const anim::v1::CharacterFrame& cf, uint64_t tick, double server_time) {
  const auto& pal = cf.palette();
  if (pal.empty() || pal.size() % kFloatsPerJoint != 0) {
    last_error_ = "character " + std::to_string(cf.character_id()) + ": palette of " +
                  std::to_string(pal.size()) + " floats is not a whole number of joints (12 each)";
    return false;
  }
  for (float v : pal) {
    if (!std::isfinite(v)) {
      last_error_ =
          "character " + std::to_string(cf.character_id()) + ": palette holds a non-finite value";
      return false;
    }
  }
  for (float w : cf.morph_weights()) {
    if (!std::isfinite(w)) {
      last_error_ = "character " + std::to_string(cf.character_id()) +
                    ": morph weights hold a non-finite value";
      return false;
    }
  }
  RootTransform root;
  if (!root_from_proto(cf.root(), root)) {
    last_error_ = "character " + std::to_string(cf.character_id()) +
                  ": root transform is not finite or has a zero scale";
    return false;
  }
  auto [it, inserted] = tracks_.try_emplace(cf.character_id());
  CharacterTrack& t = it->second;
  if (inserted) {
    t.id = cf.character_id();
  } else {
    if (tick <= t.latest.tick) return true;  // duplicate or late: the newer pose stands
    // An asset change makes the previous pose meaningless for blending.
    t.has_prev =
        t.asset == cf.asset() && t.latest.palette.size() == static_cast<size_t>(pal.size());
    std::swap(t.prev, t.latest);
  }
  if (t.asset != cf.asset()) t.asset = cf.asset();
  t.latest.tick = tick;
  t.latest.server_time = server_time;
  t.latest.root = root;
  t.latest.palette.assign(pal.begin(), pal.end());
  t.latest.morph_weights.assign(cf.morph_weights().begin(), cf.morph_weights().end());
  return true;
}

void StreamState::on_frame(const anim::v1::StreamFrame& frame, double local_time) {
  ++frames_;
  const double st = frame.server_time();
  if (std::isfinite(st)) {
    clock_.observe(st, local_time);
    if (last_frame_time_ >= 0.0 && st > last_frame_time_) {
      double d = st - last_frame_time_;
      // Smoothed, so one late or coalesced frame does not jerk the render delay.
      period_ = period_ > 0.0 ? period_ + (d - period_) * 0.1 : d;
    }
    last_frame_time_ = st;
  }
  latest_tick_ = std::max<uint64_t>(latest_tick_, frame.tick());
  for (uint32_t id : frame.despawned()) tracks_.erase(id);
  for (uint32_t id : frame.left()) tracks_.erase(id);  // out of a region subscription's region
  // After dropped frames (part 0): `members` is everything the subscription follows now (the
  // lost frames' despawned/left notices are not repeated); forget the rest.
  if (frame.dropped_since_last() > 0 && frame.part() == 0) {
    const auto& m = frame.members();
    std::erase_if(tracks_, [&](const auto& entry) {
      return std::find(m.begin(), m.end(), entry.first) == m.end();
    });
  }
  for (const auto& cf : frame.characters()) {
    if (!accept(cf, frame.tick(), st)) ++rejected_;
  }
}

void StreamState::sample(double local_time, bool interpolate, std::vector<CharacterSample>& out) {
  out.clear();
  render_time_ = clock_.valid() ? clock_.to_server(local_time) - period_ : 0.0;
  for (auto& [id, t] : tracks_) {
    CharacterSample s;
    s.id = id;
    s.asset = &t.asset;
    s.tick = t.latest.tick;
    s.joints = static_cast<uint32_t>(t.latest.palette.size() / kFloatsPerJoint);
    if (interpolate && t.has_prev && clock_.valid()) {
      float a = interpolation_alpha(render_time_, t.prev.server_time, t.latest.server_time);
      t.blended.resize(t.latest.palette.size());
      lerp_palette(t.prev.palette.data(), t.latest.palette.data(), t.blended.size(), a,
                   t.blended.data());
      s.palette = t.blended.data();
      s.model = interpolate_root(t.prev.root, t.latest.root, a).matrix();
      if (t.prev.morph_weights.size() == t.latest.morph_weights.size()) {
        t.blended_weights.resize(t.latest.morph_weights.size());
        lerp_palette(t.prev.morph_weights.data(), t.latest.morph_weights.data(),
                     t.blended_weights.size(), a, t.blended_weights.data());
        s.morph_weights = t.blended_weights.data();
      } else {
        s.morph_weights = t.latest.morph_weights.data();
      }
    } else {
      s.palette = t.latest.palette.data();
      s.model = t.latest.root.matrix();
      s.morph_weights = t.latest.morph_weights.data();
    }
    s.morph_weight_count = static_cast<uint32_t>(t.latest.morph_weights.size());
    if (s.morph_weight_count == 0) s.morph_weights = nullptr;
    out.push_back(s);
  }
}

void StreamState::clear() {
  tracks_.clear();
  clock_.reset();
  latest_tick_ = 0;
  last_frame_time_ = -1.0;
  period_ = 0.0;
  render_time_ = 0.0;
}

}  // namespace animview

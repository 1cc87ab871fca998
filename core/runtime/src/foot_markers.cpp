// Foot markers and marker sync (foot_markers.h).
#include "foot_markers.h"

#include <algorithm>
#include <cmath>

namespace anim::foot_markers {

namespace {

float wrap_into(float t, float d) {
  if (!(d > 0.0f)) return 0.0f;
  float w = std::fmod(t, d);
  if (w < 0.0f) w += d;
  return w >= d ? 0.0f : w;
}

// The index of the last plant at or before t (cyclically: the last plant when t comes before
// the first), and the times of it and the next one, unwrapped around t.
int around(std::span<const Plant> p, float d, float t, float& from, float& to) {
  const auto after =
      std::upper_bound(p.begin(), p.end(), t, [](float v, const Plant& x) { return v < x.time; });
  const int n = static_cast<int>(p.size());
  int i = static_cast<int>(after - p.begin()) - 1;
  from = i >= 0 ? p[static_cast<size_t>(i)].time : p[static_cast<size_t>(n - 1)].time - d;
  if (i < 0) i = n - 1;
  const int next = (i + 1) % n;
  to = p[static_cast<size_t>(next)].time;
  if (to <= from) to += d;
  return i;
}

}  // namespace

int plants_of(const StrideCurves& curves, float duration, std::span<Plant, kMaxPlants> out) {
  int n = 0;
  for (int foot = 0; foot < kNumFeet; ++foot) {
    const auto& contacts = curves.contacts[static_cast<size_t>(foot)];
    const bool wraps = !contacts.empty() && contacts.back().end >= duration - 1e-4f;
    for (const ContactInterval& c : contacts) {
      if (c.start <= 0.0f && wraps && contacts.size() > 1) continue;
      if (n == kMaxPlants) break;
      out[static_cast<size_t>(n++)] = Plant{wrap_into(c.start, duration), foot};
    }
  }
  std::sort(out.begin(), out.begin() + n, [](const Plant& a, const Plant& b) {
    return a.time < b.time || (a.time == b.time && a.foot < b.foot);
  });
  return n;
}

bool follow(std::span<const Plant> leader, float leader_duration, float leader_time,
            std::span<const Plant> follower, float follower_duration, float follower_time,
            float& out) {
  if (leader.empty() || follower.empty() || !(leader_duration > 0.0f) ||
      !(follower_duration > 0.0f))
    return false;
  float from = 0.0f, to = 0.0f;
  const int i = around(leader, leader_duration, leader_time, from, to);
  const int n = static_cast<int>(leader.size());
  const int foot_from = leader[static_cast<size_t>(i)].foot;
  const int foot_to = leader[static_cast<size_t>((i + 1) % n)].foot;
  float t = leader_time;
  if (t < from) t += leader_duration;
  const float u = to > from ? std::clamp((t - from) / (to - from), 0.0f, 1.0f) : 0.0f;
  // The follower's pairs with the same feet: the one holding follower_time, else the first.
  const int m = static_cast<int>(follower.size());
  int chosen = -1;
  float chosen_from = 0.0f, chosen_to = 0.0f;
  for (int k = 0; k < m; ++k) {
    const Plant& a = follower[static_cast<size_t>(k)];
    const Plant& b = follower[static_cast<size_t>((k + 1) % m)];
    if (a.foot != foot_from || b.foot != foot_to) continue;
    const float a_time = a.time;
    const float b_time = b.time > a_time ? b.time : b.time + follower_duration;
    float ft = follower_time;
    if (ft < a_time) ft += follower_duration;
    const bool holds = ft >= a_time && ft < b_time;
    if (chosen < 0 || holds) {
      chosen = k;
      chosen_from = a_time;
      chosen_to = b_time;
      if (holds) break;
    }
  }
  if (chosen < 0) return false;
  out = wrap_into(chosen_from + u * (chosen_to - chosen_from), follower_duration);
  return true;
}

}  // namespace anim::foot_markers

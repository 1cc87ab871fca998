#pragma once
// Binary searches over one clip's events (sorted by time): where the playhead's span starts
// and ends. Shared by the clocks' events (animator.cpp) and the montages' (animator_montage.cpp).

#include <algorithm>
#include <cstddef>
#include <vector>

#include "anim/clip_events.h"

namespace anim::event_search {

// The index of the first event at or after time t (list.size() when none).
inline size_t first_at_or_after(const std::vector<ClipEvent>& list, float t) {
  return static_cast<size_t>(
      std::lower_bound(list.begin(), list.end(), t,
                       [](const ClipEvent& e, float v) { return e.time < v; }) -
      list.begin());
}

// The index of the first event strictly after time t (list.size() when none).
inline size_t first_after(const std::vector<ClipEvent>& list, float t) {
  return static_cast<size_t>(
      std::upper_bound(list.begin(), list.end(), t,
                       [](float v, const ClipEvent& e) { return v < e.time; }) -
      list.begin());
}

}  // namespace anim::event_search

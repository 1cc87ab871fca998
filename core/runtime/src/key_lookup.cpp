#include "anim/key_lookup.h"

#include <algorithm>
#include <cmath>

namespace anim {

KeyLookup::KeyLookup(std::span<const float> times) {
  const size_t n = times.size();
  if (n < 2) return;
  start_ = times.front();
  const float span = times.back() - start_;
  if (!(span > 0.0f)) {
    slot_first_key_.assign(1, 0);
    return;
  }
  // One slot per key interval keeps the table as small as the key array and makes the
  // bucket for evenly spaced keys hold one or two keys.
  const size_t slots = n - 1;
  slots_per_second_ = static_cast<float>(slots) / span;
  slot_first_key_.resize(slots + 1);
  size_t key = 0;
  for (size_t s = 0; s <= slots; ++s) {
    const float slot_start = start_ + static_cast<float>(s) / slots_per_second_;
    while (key + 1 < n && times[key + 1] <= slot_start) ++key;
    slot_first_key_[s] = static_cast<uint32_t>(key);
  }
}

uint32_t KeyLookup::find(std::span<const float> times, float t) const {
  const uint32_t n = static_cast<uint32_t>(times.size());
  const uint32_t last_interval = n - 2;
  if (slot_first_key_.empty() || slots_per_second_ == 0.0f) {
    // Degenerate: all keys at one time. The first interval is as good as any.
    return 0;
  }
  const uint32_t slots = static_cast<uint32_t>(slot_first_key_.size()) - 1;
  const float f = (t - start_) * slots_per_second_;
  // Written so that NaN lands in slot 0: converting NaN or a too-large float to an integer
  // is undefined behaviour.
  const uint32_t s = !(f > 0.0f)                      ? 0u
                     : f >= static_cast<float>(slots) ? slots
                                                      : static_cast<uint32_t>(f);
  // Keys in [lo, hi) may hold the answer: the slot's first key up to one past the next
  // slot's first key. Rounding of f can misplace t by one slot, so widen by one each side.
  uint32_t lo = slot_first_key_[s];
  if (lo > 0) --lo;
  const uint32_t hi = std::min((s < slots ? slot_first_key_[s + 1] : n - 1) + 2, n);
  const float* first = times.data() + lo;
  const float* last = times.data() + hi;
  // Last key with time <= t in the window (a binary search over a handful of keys).
  const float* it = std::upper_bound(first, last, t);
  uint32_t i = it == first ? lo : static_cast<uint32_t>(it - times.data()) - 1;
  // Guard against float rounding at slot edges; each loop runs at most a step or two.
  while (i > 0 && times[i] > t) --i;
  while (i + 1 < n && times[i + 1] <= t) ++i;
  return std::min(i, last_interval);
}

}  // namespace anim

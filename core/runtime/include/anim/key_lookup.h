#pragma once
// KeyLookup: finds the keyframe interval holding a time in O(1) for evenly spaced keys and
// O(log k) in the worst case, without per-character state.
//
// The time range [times.front(), times.back()] is cut into `buckets` equal slots. Slot s
// remembers the last key whose time is <= the slot's start. A query jumps to its slot and
// then binary-searches only between that key and the next slot's key, so there is never a
// linear scan over keyframes and the table is shared read-only by every character.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace anim {

class KeyLookup {
 public:
  KeyLookup() = default;

  // `times` must be finite and non-decreasing (checked by the caller). The table holds
  // about one slot per key.
  explicit KeyLookup(std::span<const float> times);

  // For a time inside [times.front(), times.back()], the index i of the last key with
  // times[i] <= t, capped at times.size() - 2 so that [i, i+1] is always an interval.
  // Requires times.size() >= 2.
  uint32_t find(std::span<const float> times, float t) const;

  // Heap memory the table holds, in bytes.
  size_t memory_bytes() const { return slot_first_key_.size() * sizeof(uint32_t); }

 private:
  float start_ = 0.0f;
  float slots_per_second_ = 0.0f;
  std::vector<uint32_t> slot_first_key_;
};

}  // namespace anim

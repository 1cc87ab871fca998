#pragma once
// Checks shared by the jobs' validate().

#include <span>

#include "anim/transform.h"

namespace anim::detail {

// The jobs work four joints at a time: an output that is exactly an input (in place) is
// fine, one shifted against an input would overwrite joints before they are read.
inline bool same_or_disjoint(std::span<const Transform> in, std::span<const Transform> out) {
  return in.data() == out.data() || in.data() + in.size() <= out.data() ||
         out.data() + out.size() <= in.data();
}

// Empty, or `n` weights each in [0, 1] (NaN fails).
inline bool valid_mask(std::span<const float> mask, size_t n) {
  if (mask.empty()) return true;
  if (mask.size() != n) return false;
  for (float m : mask)
    if (!(m >= 0.0f && m <= 1.0f)) return false;
  return true;
}

}  // namespace anim::detail

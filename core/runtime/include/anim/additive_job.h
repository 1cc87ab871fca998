#pragma once
// AdditiveJob: adds the difference between two poses onto a third, joint by joint:
//
//   w           = weight * (mask.empty() ? 1 : mask[j])
//   delta       = current[j] - reference[j]:   rotation inverse(ref) * cur, translation and
//                 scale differences (not ratios)
//   output[j]   = base[j].rotation * slerp(identity, delta.rotation, w),
//                 base[j].translation + w * delta.translation, base[j].scale + w * delta.scale
//
// the semantics of blend.h's add_additive (and of the golden files and three.js additive
// blending). Where w <= 0 the joint is base[j] bit for bit. `output` may be `base` itself.
// Allocates nothing, owns no memory.

#include <span>

#include "anim/transform.h"

namespace anim {

struct AdditiveJob {
  std::span<const Transform> base;       // the pose to add onto
  std::span<const Transform> current;    // the additive clip's pose; as many joints as base
  std::span<const Transform> reference;  // the pose the delta is taken against; as many
  float weight = 0.0f;                   // in [0, 1]
  std::span<const float> mask;           // empty (every joint 1) or one weight per joint
  std::span<Transform> output;           // as many joints as base

  // Sizes agree, weight is finite, mask weights are in [0, 1], and output is each input
  // exactly (in place) or overlaps none of it.
  bool validate() const;
  // Returns false (and writes nothing) when validate() fails.
  bool run() const;
};

}  // namespace anim

#pragma once
// BlendJob: the blend of two poses, joint by joint.
//
//   out[j] = mix(a[j], b[j], w),  w = weight * (mask.empty() ? 1 : mask[j])
//
// Rotations slerp along the shortest arc (exactly, as three.js: see quat4.h), translations
// and scales lerp. Where w <= 0 the joint is a[j] bit for bit (outside the mask, or weight
// 0); where w >= 1 it is b[j] bit for bit, so a finished crossfade is exactly its target.
// `output` may alias `a` or `b` (in-place blending), but not overlap them otherwise.
// Allocates nothing, owns no memory.

#include <span>

#include "anim/transform.h"

namespace anim {

struct BlendJob {
  std::span<const Transform> a;  // the pose at weight 0
  std::span<const Transform> b;  // the pose at weight 1; as many joints as a
  float weight = 0.0f;           // in [0, 1]
  std::span<const float> mask;   // empty (every joint 1) or one weight in [0, 1] per joint
  std::span<Transform> output;   // as many joints as a

  // Sizes agree, weight is finite, mask weights are in [0, 1], and `output` is `a` or `b`
  // itself or overlaps neither.
  bool validate() const;
  // Returns false (and writes nothing) when validate() fails.
  bool run() const;
};

}  // namespace anim

#pragma once
// Pose blending and additive layering, joint by joint, with a JointMask.
//
// Both functions allocate nothing and accept `out` being `a` / `base` itself (in-place use).
// They run BlendJob / AdditiveJob (blend_job.h, additive_job.h): a call those refuse (sizes
// that differ, a NaN weight, mask weights outside [0, 1], a partly overlapping `out`) writes
// nothing.
// A joint whose effective weight (t or weight, times the mask's weight) is 0 is copied from
// the first pose bit for bit; for blend() a joint whose effective weight is 1 is copied from
// `b` bit for bit, so a finished blend is exactly its target.

#include <span>

#include "anim/joint_mask.h"
#include "anim/transform.h"

namespace anim {

// out[j] = mix(a[j], b[j], t * mask.weight(j)): rotations slerp along the shortest arc,
// translations and scales lerp. t in [0, 1]. All spans have the same length; the mask is
// empty or has one weight per joint.
void blend(std::span<const Transform> a, std::span<const Transform> b, float t,
           const JointMask& mask, std::span<Transform> out);

// The additive delta of `current` against `reference` (one joint):
//   rotation    = inverse(reference.rotation) * current.rotation
//   translation = current.translation - reference.translation
//   scale       = current.scale - reference.scale   (a difference, not a ratio)
Transform additive_delta(const Transform& current, const Transform& reference);

// Applies one additive delta to one joint with weight w in [0, 1]:
//   rotation    = base.rotation * slerp(identity, delta.rotation, w)
//   translation = base.translation + w * delta.translation
//   scale       = base.scale + w * delta.scale
Transform apply_additive(const Transform& base, const Transform& delta, float w);

// For every joint: base[j] += weight * mask.weight(j) * (current[j] - reference[j]) with the
// operations above, written to out (which may alias base). This is the semantics of the
// golden files (../shared/assets/README.md) and of three.js additive blending.
void add_additive(std::span<const Transform> base, std::span<const Transform> current,
                  std::span<const Transform> reference, float weight, const JointMask& mask,
                  std::span<Transform> out);

}  // namespace anim

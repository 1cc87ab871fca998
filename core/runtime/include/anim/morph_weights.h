#pragma once
// Morph target weights from clips: sampling Clip::morph_channels for one morph set of a
// SkinnedMesh (skinned_mesh.h), with the glTF 2.0 semantics of a `weights` channel.

#include <span>

#include "anim/clip.h"
#include "anim/skinned_mesh.h"

namespace anim {

// Index into clip.morph_channels of the channel of morph set `set`, or -1 when the clip does
// not animate that set. O(log channels): the channels are in increasing set order.
int find_morph_channel(const Clip& clip, int set);

// The weights of `channel` at `time` (seconds, used as is: see clip_time.h for looping), one
// per target, into `out` (channel.num_targets entries). kStep: the last key at or before
// `time`; kLinear: each weight lerped between the two keys around `time`; kCubicSpline: each
// weight on the glTF Hermite spline (value and out-tangent of key i, in-tangent and value of
// key i + 1, tangents scaled by the interval's length). Before the first key: the first key's
// weights; at or after the last: the last key's; a NaN time gives the first key's. The
// channel must be finalized. Allocates nothing; O(log keys) through its KeyLookup.
void sample_morph_channel(const MorphWeightChannel& channel, float time, std::span<float> out);

// The weights of morph set `set` of `mesh` that `clip` gives at `time` (seconds, used as is),
// into `out` (one per target of the set): the clip's channel for the set, sampled as
// sample_morph_channel says, or, when the clip has none, the set's default weights. False,
// and nothing written, when `set` is not a set of `mesh`, `out` does not have the set's
// target count, or the clip's channel has another target count (a clip of another asset).
// Allocates nothing.
bool sample_morph_weights(const Clip& clip, const SkinnedMesh& mesh, int set, float time,
                          std::span<float> out);

}  // namespace anim

#pragma once
// Morph weights of one evaluation: the clips' weights blended exactly as evaluate_pose blends
// their poses (docs/animation.md, "Morph targets"). For a character whose asset has morph
// targets (MorphLayout not empty); a character without them never calls this.
//
//  - A source (a clip at a time) gives each morph set its channel's weights at that time
//    (morph_weights.h), or the set's defaults when the clip has no channel for it; the rest
//    pose gives the defaults; a blend space mixes its samples' weights with the pose's mixes.
//  - The base, then each fade lerped over the result with the fade's weight.
//  - Each layer with weight w > 0 reaches only the sets its clip animates (a machine layer:
//    the sets any of its sources' clips animate), and of those the weights its morph mask
//    keeps (factor m): override: lerp(weight, layer's, w x m); additive: weight + w x m x
//    (layer's - reference's). Joint masks do not apply to morph weights; held poses and IK
//    do not change them.
//
// Deterministic as evaluate_pose: the same inputs give the same weights, bit for bit.

#include <span>

#include "anim/morph_layout.h"
#include "anim/pose_evaluation.h"

namespace anim {

class Clip;

// Writes layout.num_weights() weights into `out`. Preconditions as evaluate_pose's, and every
// clip's morph channels fit the layout (MorphLayout::check_clip); layers' morph_mask and
// morph_reference empty or of the layout's weight count. The scratch's morph vectors are
// grown on first use (the only allocation).
void blend_morph_weights(const MorphLayout& layout, std::span<const Clip> clips,
                         const PoseInputs& inputs, const PoseSetup* setup, PoseScratch& scratch,
                         std::span<float> out);

// The weights `clip` gives at `time` seconds (null: the rest pose, the defaults), into `out`
// (the layout's weight count). Allocates nothing.
void sample_morph_source(const MorphLayout& layout, const Clip* clip, float time,
                         std::span<float> out);

}  // namespace anim

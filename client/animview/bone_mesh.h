#pragma once
// Stick-figure geometry for an asset that has a skeleton but no mesh (a BVH capture), so it
// can be watched: a thin box along every bone (from each joint to each child), drawn by the
// same GPU skinning as any mesh. A box's corners at the parent end are bound to the parent
// joint and those at the child end to the child, each with weight 1, so in every pose the
// box spans the two joints, whatever either joint's channels do (a BVH joint may translate).
// Joints that are neither a parent nor a child (a lone root) get a small cube. No GL.

#include <string>

#include "anim/v1/assets.pb.h"
#include "mesh_decode.h"

namespace animview {

// Fraction of the skeleton's size (the largest extent of its bind-pose joints) used as the
// half width of a bone at its parent end; the child end is 60% of that, so a bone shows
// which way it points.
inline constexpr float kBoneHalfWidth = 0.012f;

// Builds the bone boxes of `skeleton` in its bind pose (joint j at the translation of
// inverse(inverse_bind[j]), model space, as the palette expects) into `out`, with flat
// normals, bounds and per-joint bounds (CpuMesh's invariants hold). On failure (arrays of
// the wrong size, no joint, a parent index not before its joint, non-finite or singular
// binds, more joints than 16-bit indices reach) returns false and says why in `error`.
bool build_bone_mesh(const anim::v1::SkeletonData& skeleton, CpuMesh& out, std::string& error);

}  // namespace animview

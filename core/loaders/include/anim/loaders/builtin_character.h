#pragma once
// The built-in character: a procedural humanoid generated in code, so that the daemon and
// the viewer have something to show with no asset files. Full description:
// docs/builtin-character.md.
//
// Skeleton (22 joints, Y up, metres, facing +Z so its left is +X, feet on y = 0 at rest,
// about 1.8 m tall, arms in an A-pose), parents first, in this index order:
//   root (on the ground, never animated), hips, spine, chest, neck, head,
//   shoulder_l, upper_arm_l, forearm_l, hand_l, shoulder_r, upper_arm_r, forearm_r, hand_r,
//   thigh_l, shin_l, foot_l, toe_l, thigh_r, shin_r, foot_r, toe_r.
// Inverse binds are the inverses of the rest model matrices (the rest palette is identity).
//
// Mesh: about 3,700 triangles in two submeshes, "cloth" then "skin".
//
// Clips (LINEAR keys at 30 keys/s, the last key at exactly `duration` equal to the first,
// so each loops seamlessly; no root motion):
//   "idle" 3.0 s, "walk" 1.0 s, "run" 0.7 s, "wave" 2.0 s (right arm raised, waving),
//   "lean" 2.0 s, an additive clip whose first frame is the rest pose: use it as an additive
//   layer with its first frame as the reference, and "jump" 1.2 s, a standing jump made to
//   be played once (it starts and ends in idle's first pose, so it also loops seamlessly).

#include "anim/asset.h"

namespace anim {

// Deterministic: every call returns the same asset. Named "builtin", source "builtin";
// `warnings` is empty.
Asset make_builtin_character();

}  // namespace anim

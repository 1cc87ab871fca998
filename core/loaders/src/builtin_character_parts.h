#pragma once
// Internal pieces of the built-in character (see anim/loaders/builtin_character.h): the rig, the
// skinned mesh and the clips are built by separate files so that each stays small. Not a
// public header: only builtin_character*.cpp include it.

#include <vector>

#include "anim/clip.h"
#include "anim/skeleton.h"
#include "anim/skinned_mesh.h"
#include "anim/status.h"

namespace anim::builtin {

// The 22-joint humanoid skeleton: Y-up, metres, facing +Z (its left is +X), feet on y = 0,
// arms in an A-pose. Inverse binds are the inverses of the rest model matrices.
Expected<Skeleton> make_rig();

// The skinned mesh for `rig` (found by joint name): capsule-like segments per bone, a
// sphere for the head; two submeshes, "cloth" and "skin".
SkinnedMesh make_mesh(const Skeleton& rig);

// "idle", "walk", "run", "wave" (looping), the additive "lean" (first frame = rest) and
// "jump" (played once; starts and ends in idle's first pose).
Expected<std::vector<Clip>> make_clips(const Skeleton& rig);

}  // namespace anim::builtin

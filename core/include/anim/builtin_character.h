#pragma once
// The built-in character: a procedural humanoid generated in code, so that the daemon and
// the viewer have something to show with no asset files. It has a skinned mesh, the clips
// "idle", "walk", "run", "wave" (all looping seamlessly) and the additive clip "lean"
// (to be used as an additive layer with its first frame as reference).

#include "anim/asset.h"

namespace anim {

// Deterministic: every call returns the same asset. Named "builtin".
Asset make_builtin_character();

}  // namespace anim

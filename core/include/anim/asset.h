#pragma once
// Asset: everything loaded for one character: skeleton, clips (all for this skeleton) and
// its skinned mesh. Immutable after loading; shared read-only by every character spawned
// from it.

#include <string>
#include <vector>

#include "anim/clip.h"
#include "anim/skeleton.h"
#include "anim/skinned_mesh.h"

namespace anim {

struct Asset {
  std::string name;    // e.g. "Fox" (file stem) or "builtin"
  std::string source;  // file path(s) it came from, or "builtin"
  Skeleton skeleton;
  std::vector<Clip> clips;  // names unique within the asset
  SkinnedMesh mesh;
  std::vector<std::string> warnings;  // things ignored while loading (e.g. morph weights)

  // Index of the clip called `name`, or -1.
  int find_clip(std::string_view clip_name) const;
};

}  // namespace anim

// make_builtin_character: assembles the rig, mesh and clips built in builtin_character_*.cpp.
#include "anim/loaders/builtin_character.h"

#include "builtin_character_parts.h"

namespace anim {

Asset make_builtin_character() {
  Asset asset;
  asset.name = "builtin";
  asset.source = "builtin";
  Expected<Skeleton> rig = builtin::make_rig();
  // The rig and clips are fixed data checked by the unit tests; a failure here is a bug in
  // this code, reported through the warnings rather than a crash.
  if (!rig) {
    asset.warnings.push_back("builtin rig: " + rig.error().message());
    return asset;
  }
  asset.skeleton = std::move(*rig);
  asset.mesh = builtin::make_mesh(asset.skeleton);
  Expected<std::vector<Clip>> clips = builtin::make_clips(asset.skeleton);
  if (!clips)
    asset.warnings.push_back("builtin clips: " + clips.error().message());
  else
    asset.clips = std::move(*clips);
  asset.hit_volumes = fit_hit_volumes(asset.skeleton, asset.clips, asset.mesh);
  return asset;
}

}  // namespace anim

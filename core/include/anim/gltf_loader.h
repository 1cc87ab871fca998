#pragma once
// glTF 2.0 loader (.gltf with .bin or data: URIs, and .glb), built on tinygltf.
//
// Picks one skin (by index or name; default the skin of the first skinned mesh node in the
// default scene, as three.js does) and merges every skin sharing joints with it; builds the
// Skeleton (joints reordered parent-first; the root joints' non-joint ancestors in
// Skeleton::root_transform, so model space is the scene space and palette = joint world x
// inverse bind, where three.js draws each skinned vertex; static non-joint nodes between
// joints folded into the joint below them), every animation's translation/rotation/scale
// channels that target the joints as Clips (morph-target weights are ignored and a warning
// says so), and the SkinnedMesh of the whole character: every primitive of every mesh node
// skinned by a merged skin, plus every mesh node hanging under a joint, bound to that joint
// with weight 1. Skins sharing no joint are left out with a warning.
// Every failure names the file and what is wrong; nothing is returned on failure. Images are
// never decoded. Details: docs/loader-gltf.md.

#include <string>

#include "anim/asset.h"
#include "anim/status.h"

namespace anim {

struct GltfOptions {
  int skin_index = -1;    // >= 0: use this skin (an index past the last skin is kNotFound)
  std::string skin_name;  // non-empty (and skin_index < 0): use the skin with this name
};

Expected<Asset> load_gltf(const std::string& path, const GltfOptions& options = {});

}  // namespace anim

#pragma once
// Asset: everything loaded for one character: skeleton, clips (all for this skeleton), its
// skinned mesh and the hit volumes fitted to it. Immutable after loading; shared read-only by
// every character spawned from it.

#include <cstdint>
#include <string>
#include <vector>

#include "anim/clip.h"
#include "anim/hit_volumes.h"
#include "anim/skeleton.h"
#include "anim/skinned_mesh.h"

namespace anim {

struct Asset {
  std::string name;    // e.g. "Fox" (file stem) or "builtin"
  std::string source;  // file path(s) it came from, or "builtin"
  Skeleton skeleton;
  std::vector<Clip> clips;  // names unique within the asset
  SkinnedMesh mesh;
  // Capsules per joint and their broad-phase bound (hit_volumes.h), fitted by the loaders
  // (fit_hit_volumes on the finished skeleton, clips and mesh). An asset put together by hand
  // has none (capsules empty) until someone calls fit_hit_volumes.
  HitVolumes hit_volumes;
  // A bound of every pose its clips give (pose_reach), set by the host with the hit volumes
  // (animd: when the asset is added); radius infinity until then.
  PoseReach reach;
  // Whether set_detail_joints (joint_detail.h) chose skeleton.detail_joints; hosts derive
  // them for an asset that comes without (animd: when the asset is added).
  bool detail_joints_set = false;
  std::vector<std::string> warnings;  // things ignored while loading (e.g. morph weights)
  // A 64-bit hash of everything its poses depend on (skeleton, clips' keys, morph layout),
  // set by the host once the asset is complete (animd: assets/asset_fingerprint.h); 0: not
  // computed. Two assets with one fingerprint give the same poses for the same state.
  uint64_t fingerprint = 0;

  // Index of the clip called `name`, or -1.
  int find_clip(std::string_view clip_name) const;
};

}  // namespace anim

#pragma once
// Joint detail: the joints a character far from every viewer may leave at their rest pose
// (joint LOD). Fingers, toes and face joints move little of the body: a host that evaluates a
// distant character with PoseInputs::skip_detail samples none of their channels and the pose
// gives each of them its rest local transform (pose_evaluation.h).
//
// The detail joints of an asset are closed under descent: a detail joint's children are
// detail joints. Roots never are. Derived from the rest pose and the skinned mesh unless the
// host names them:
//
//   reach(j) = the largest distance from j's parent to j, a joint below it, or a vertex one
//              of them moves (skin weight >= kDetailWeight; vertices and their joints in bind
//              space, joints without a mesh in the rest pose, model space);
//   size     = the longest side of the box around every joint's rest origin and every vertex;
//   j is a detail joint when its parent is one, or when reach(j) <= kDetailReach * size.
//
// For a 1.8 m human the threshold is 13.5 cm: whole fingers (knuckle to tip), toes, eyes, jaw
// and other face joints; never a hand, a foot or the head, whose skin reaches further.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "anim/skinned_mesh.h"
#include "anim/status.h"

namespace anim {

struct Asset;
class Skeleton;

inline constexpr float kDetailReach = 0.075f;
inline constexpr float kDetailWeight = 0.2f;

// The derived detail joints of a skeleton and its skinned mesh (none: joints only), ascending.
std::vector<int32_t> derive_detail_joints(const Skeleton& skeleton, const SkinnedMesh& mesh = {});

// The joints called `names` and every joint below them, ascending. Fails, naming the entry by
// its position, on an unknown or a root joint.
Expected<std::vector<int32_t>> detail_joints_named(const Skeleton& skeleton,
                                                   std::span<const std::string> names);

// Makes `joints` (ascending, each below a detail joint or named, closed under descent: what
// the two functions above return) the asset's detail joints (Skeleton::detail_joints) and
// rebuilds every clip's tracks with them first-out (clip_tracks.h). Fails, changing nothing,
// when the list is not ascending, in range and closed under descent, or names a root.
Status set_detail_joints(Asset& asset, std::vector<int32_t> joints);

}  // namespace anim

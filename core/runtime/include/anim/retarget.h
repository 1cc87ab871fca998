#pragma once
// Retargeting: a clip made for one skeleton (the source: e.g. a BVH capture) replayed on
// another skeleton (the target: e.g. a glTF character) whose joints carry the same names.
//
// Matching: a source joint drives the target joint of the same name (exact, case-sensitive);
// failing that, of the same name once a namespace prefix up to the last ':' is dropped from
// both ("mixamorig:Hips" ~ "Hips"), when that is unambiguous. Two source joints may not drive
// the same target joint. The hierarchies must agree on what they share: when source joint B
// lies below matched joint A, target B must lie below target A (joints either side lacks in
// between are allowed: an extra twist joint in the target, a "LowerBack" in the source).
//
// Rotations are carried over in model space, relative to each skeleton's rest pose: a matched
// target joint turns, in model space, by the rotation its source joint has turned away from
// the source's rest pose:
//   target_model_rotation(t) = source_model(t) * inverse(source_model_rest) * target_model_rest
// then made local to the target parent's (already retargeted) model rotation. This is right
// when both rest poses show the same posture (both a T-pose, say); a difference between the
// rest postures stays in the result as a constant offset. Target joints without a source keep
// their rest rotation, so they follow their parents rigidly.
//
// Translations: only the topmost matched joints (no matched target ancestor; usually the
// hips) move: their model position becomes the source joint's model position times `scale`,
// expressed in the parent's rest model space. Every other target joint keeps its rest
// translation, so the target keeps its own proportions. Scale channels are not carried.
//
// Axes: both model spaces are taken as they are (our model space is Y up; a BVH is Y up by
// convention), so no axis is turned. Units: `scale` target model units per source model unit;
// by default measured as the summed length of the matched bones (between a matched joint and
// its nearest matched ancestor) in the target's rest pose over the source's.
//
// The result has one key per distinct key time of the source clip (LINEAR); channels that do
// not change are stored once. See docs/loader-bvh.md, "Attaching to a loaded asset".

#include <string>
#include <vector>

#include "anim/clip.h"
#include "anim/skeleton.h"
#include "anim/status.h"

namespace anim {

struct RetargetOptions {
  // Target model units per source model unit: finite, >= 0; 0 = measured (see above).
  float scale = 0.0f;
  // The new clip's name; empty = the source clip's.
  std::string clip_name;
};

struct RetargetResult {
  Clip clip;           // for the target skeleton
  float scale = 1.0f;  // the scale used
  int matched = 0;     // source joints that drive a target joint
  // Source joints the clip animates that have no target joint (their motion still reaches
  // the matched joints below them, which are carried over in model space).
  std::vector<std::string> unmatched;
};

// Retargets `clip` (finalized, for `source`) onto `target`. Fails (INVALID_ARGUMENT, naming
// the joints) when no joint name is shared, when two source joints match one target joint, or
// when the hierarchies disagree as described above.
Expected<RetargetResult> retarget_clip(const Skeleton& source, const Clip& clip,
                                       const Skeleton& target, const RetargetOptions& options = {});

}  // namespace anim

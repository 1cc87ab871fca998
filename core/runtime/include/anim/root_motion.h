#pragma once
// Root motion: the travel a clip gives one joint (its horizontal translation and its yaw, and
// optionally its height) taken out of the pose and applied to the character's root transform,
// so that a character walks through the world as far as its clip walks, instead of walking
// away from its root and snapping back at every loop. docs/animation.md, "Root motion", has
// the semantics; this header has the arithmetic the Animator and pose evaluation share.
//
// Spaces: a joint's motion frame is read in model space (the asset's scene space: Y up), so
// "horizontal" is the XZ plane and "yaw" the rotation about +Y, whatever the rig's own axes.
// Nothing here allocates.

#include <cstdint>
#include <span>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/transform.h"

namespace anim {

class Clip;
class Skeleton;

enum class RootMotionMode : uint8_t {
  kOff,      // the clip's travel stays in the pose; the root moves only when it is set
  kExtract,  // the joint's travel leaves the pose and moves the root
};

// A character's root-motion settings (Animator::set_root_motion).
struct RootMotionOptions {
  RootMotionMode mode = RootMotionMode::kOff;
  // The joint whose travel is extracted (skeleton index); -1: the skeleton's root joint
  // (index 0, the first joint with no parent).
  int joint = -1;
  // false: the joint's height stays in the pose (the root moves on its horizontal plane);
  // true: the joint's height change moves the root too and the joint keeps its rest height.
  bool extract_vertical = false;
};

// A rigid motion on the ground plane: a turn of `yaw` radians about +Y, then a translation.
// With vertical extraction the translation's y is used too; otherwise it is 0. Yaw is not
// wrapped: a sum of turns keeps whole turns (a clip that turns 90 degrees per cycle turns 360
// in four cycles).
struct RootMotion {
  glm::vec3 translation{0.0f};
  float yaw = 0.0f;  // radians, counter-clockwise seen from +Y

  // The motion applied to a point: rotate about +Y, then translate.
  glm::vec3 apply(const glm::vec3& p) const;
};

// a then b, b expressed in a's frame (as matrices: a * b).
RootMotion compose(const RootMotion& a, const RootMotion& b);
RootMotion inverse(const RootMotion& m);
// m composed with itself n times (n < 0: the inverse |n| times; 0: identity). O(log |n|).
RootMotion power(const RootMotion& m, int64_t n);
// Lerps translation and yaw (the yaws as given, unwrapped); t in [0, 1]. For blending the
// per-tick motions of crossfading clips, which are small and in the same frame.
RootMotion mix(const RootMotion& a, const RootMotion& b, float t);
// from^-1 * to, with the yaw difference wrapped into (-pi, pi]: how to get from frame `from`
// to frame `to` the short way round.
RootMotion relative(const RootMotion& from, const RootMotion& to);
// The unit quaternion of a turn of `yaw` radians about +Y.
glm::quat yaw_rotation(float yaw);

// The root-motion part of one pose evaluation (anim::PoseInputs::root_motion).
struct RootMotionInput {
  int joint = -1;         // the extracted joint (skeleton index); -1: root motion is off
  bool vertical = false;  // RootMotionOptions::extract_vertical
};

// The motion frame of a model-space placement: its horizontal position (and height with
// `vertical`; else y = 0) and its yaw, the twist of `rotation` about +Y.
RootMotion motion_frame(const glm::vec3& position, const glm::quat& rotation, bool vertical);

// The motion frame of `in.joint` in `clip` at `time` seconds (used as is), or in the rest pose
// when `clip` is null. Samples only the joint and its ancestors. in.joint must be >= 0.
RootMotion clip_motion_frame(const Skeleton& skeleton, const Clip* clip, float time,
                             const RootMotionInput& in);

// How far `in.joint` travels while a playhead moves from `t0` to `t1` seconds of `clip`
// crossing the clip's end `wraps` times (a looping clip; < 0: crossing its start, playing in
// reverse), expressed in the joint's motion frame at t0. Whole cycles in between count the
// clip's per-cycle travel (its frame at the end relative to its frame at the start).
RootMotion clip_motion_delta(const Skeleton& skeleton, const Clip& clip, const RootMotionInput& in,
                             float t0, float t1, int64_t wraps);

// Pins `in.joint` of a sampled pose to its rest motion frame: its model-space horizontal
// position and yaw (and height with in.vertical) become those of the rest pose, the rest of
// its placement (pitch, roll, height, scale) stays. Changes only locals[in.joint]; the
// ancestors are read from `locals` (one entry per joint). Nothing when in.joint < 0.
void remove_root_motion(const Skeleton& skeleton, const RootMotionInput& in,
                        std::span<Transform> locals);

// `root` moved by `delta`, a motion in model space (the root's local space): the translation
// goes through the root's rotation and scale, the yaw turns it about its own +Y. Scale is kept.
Transform apply_root_motion(const Transform& root, const RootMotion& delta);

}  // namespace anim

#pragma once
// Clip: keyframed animation for the joints of one skeleton.
//
// A clip holds one channel per animated (joint, property) pair. Properties a clip does not
// animate keep the skeleton's rest pose. A channel with a single key is constant and costs
// one copy when sampled. Key times are in seconds from the start of the clip; the clip's
// duration is the latest key time over all channels (time 0 is the start, as in glTF and
// three.js, even when the first key comes later).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/clip_events.h"
#include "anim/clip_tracks.h"
#include "anim/key_lookup.h"
#include "anim/status.h"
#include "anim/transform.h"

namespace anim {

class Skeleton;

enum class Interpolation : uint8_t {
  kStep,         // value of the last key at or before t
  kLinear,       // vectors lerp; quaternions slerp along the shortest arc
  kCubicSpline,  // glTF cubic Hermite; values hold (in-tangent, value, out-tangent) per key
};

// Keys for one property. V is glm::vec3 (translation, scale) or glm::quat (rotation).
template <class V>
struct Channel {
  Interpolation interpolation = Interpolation::kLinear;
  std::vector<float> times;  // seconds, finite, non-decreasing, at least one key
  // One value per key, or three per key for kCubicSpline (in-tangent, value, out-tangent),
  // tangents in units per second as in glTF.
  std::vector<V> values;
  KeyLookup lookup;  // built by finalize()

  int num_keys() const { return static_cast<int>(times.size()); }

  // Checks sizes, finiteness and ordering, normalizes quaternion key values (for
  // kCubicSpline the middle value of each triple; tangents are left as they are) and
  // builds the lookup table. `what` names the channel in the error message. kCubicSpline
  // segments whose values plus tangents x segment duration exceed a quarter of the float
  // range are refused, so that every sample is finite.
  Status finalize(const std::string& what);

  // Value at time t (seconds). Before the first key: the first value; after the last: the
  // last value. Rotations come back normalized.
  V sample(float t) const;
};

using Vec3Channel = Channel<glm::vec3>;
using QuatChannel = Channel<glm::quat>;

// Which channels animate one joint (indices into the clip's channel arrays, -1 = none).
struct JointChannels {
  int32_t translation = -1;  // into Clip::vec3_channels
  int32_t rotation = -1;     // into Clip::quat_channels
  int32_t scale = -1;        // into Clip::vec3_channels
};

// Keys for the morph target weights of one morph set (SkinnedMesh::morph_sets): every
// target's weight at each key, sampled with morph_weights.h. Weights interpolate as plain
// numbers: kLinear lerps each weight, kStep holds, kCubicSpline is the glTF Hermite spline on
// each weight.
struct MorphWeightChannel {
  int32_t set = -1;         // index into SkinnedMesh::morph_sets, >= 0
  int32_t num_targets = 0;  // that set's target count, >= 1
  Interpolation interpolation = Interpolation::kLinear;
  std::vector<float> times;  // seconds, finite, non-negative, non-decreasing, at least one key
  // Per key num_targets weights (target order). kCubicSpline: per key the in-tangents of every
  // target, then the values, then the out-tangents (num_targets each, the glTF layout);
  // tangents in weight units per second.
  std::vector<float> values;
  KeyLookup lookup;  // built by finalize()

  int num_keys() const { return static_cast<int>(times.size()); }

  // Checks sizes, finiteness and ordering as Channel::finalize does (cubic segments that could
  // overflow are refused) and builds the lookup table. `what` names the channel in errors.
  Status finalize(const std::string& what);
};

class Clip {
 public:
  std::string name;
  float duration = 0.0f;              // seconds, >= 0: the latest key time
  std::vector<JointChannels> joints;  // one entry per skeleton joint (skeleton order)
  std::vector<Vec3Channel> vec3_channels;
  std::vector<QuatChannel> quat_channels;
  // Morph weights, at most one channel per morph set, in increasing set order. Sets without a
  // channel keep their default weights while the clip plays.
  std::vector<MorphWeightChannel> morph_channels;
  // The channels rearranged for sampling (clip_tracks.h); built by finalize(). Whoever
  // changes the channels afterwards must finalize() again.
  ClipTracks tracks;
  // Animation events authored with the clip (glTF: the animation's extras), sorted by time,
  // each within [0, duration] (clip_events.h). A character plays them from the Animator's
  // event table, made from these and changed by the daemon's add_clip_events.
  std::vector<ClipEvent> events;

  // Finalizes every channel (morph channels included), sets duration (morph keys count) and
  // builds `tracks`. `num_joints` is the skeleton's joint count.
  Status finalize(int num_joints);

  // Heap memory the clip holds, in bytes: its channels' keys and lookup tables (morph channels
  // included), its joint table and its sampling tracks.
  size_t memory_bytes() const;

  // Samples every joint at `time` (seconds, used as is: see clip_time.h for looping) into
  // `out` (num_joints entries). Joints or properties without a channel take `rest`.
  // Allocates nothing. The same as SamplingJob (sampling_job.h) without a cursor.
  void sample(float time, std::span<const Transform> rest, std::span<Transform> out) const;

  // Samples one joint.
  Transform sample_joint(int joint, float time, const Transform& rest) const;
};

}  // namespace anim

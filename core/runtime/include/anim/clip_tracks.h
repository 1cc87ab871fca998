#pragma once
// ClipTracks: a clip's channels rearranged for sampling many joints at once.
//
// Clip keeps its channels as loaded (one array of keys per joint property: the form loaders
// fill, validation checks and tests read). Clip::finalize() also builds this copy, which is
// what sampling reads. Exported clips almost always key every property at the same times
// (one glTF input accessor per clip, MD5 frames), so linear channels that share one list of
// key times become one Timeline: a key is found once per timeline, not once per channel, and
// the values of all its channels at one key sit side by side in memory, four channels to a
// block in structure-of-arrays order for the 4-wide interpolation of simd4.h. Channels that do
// not fit (step or cubic interpolation, a single key) stay "loose" and are sampled one by
// one. Nothing here is ever changed after finalize().
//
// Detail joints (joint_detail.h): when the tracks are built with a detail mask, each
// timeline's lanes and the loose channels hold the other joints' channels first, so that a
// sample that skips the detail joints reads only a prefix of each key (the coarse_* counts).
// Without a mask the coarse counts equal the full ones.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "anim/key_lookup.h"

namespace anim {

class Clip;

struct ClipTimeline {
  std::vector<float> times;      // seconds, non-decreasing, at least 2 keys
  KeyLookup lookup;              // over `times`
  uint32_t rotation_blocks = 0;  // blocks of 4 rotation channels
  uint32_t vector_blocks = 0;    // blocks of 4 translation or scale channels
  // The leading blocks that hold every channel of a joint outside the detail mask (the rest
  // hold detail joints' channels only): <= rotation_blocks, vector_blocks.
  uint32_t coarse_rotation_blocks = 0;
  uint32_t coarse_vector_blocks = 0;
  // Floats per key: 16 per rotation block (x0..x3, y0..y3, z0..z3, w0..w3), then 12 per vector
  // block (x0..x3, y0..y3, z0..z3).
  uint32_t floats_per_key = 0;
  // Key k's values start at values[k * floats_per_key]. Padding lanes of a last, partly used
  // block hold the identity (rotations) or zero (vectors) and are never written out.
  std::vector<float> values;
  // Per lane, where its result goes, as an index into the output pose seen as an array of
  // floats (joint * 10 + 0 for translation, + 3 for rotation, + 7 for scale: Transform is 10
  // floats); -1 for a padding lane. 4 entries per block.
  std::vector<int32_t> rotation_targets;
  std::vector<int32_t> vector_targets;
  // True when consecutive rotation keys of every channel here are close enough (|dot| >
  // 0.9995, under 3.6 degrees apart) that interpolation is always the nlerp branch of
  // quat4.h's slerp: sampling then skips the test per block. Captured and baked clips at
  // 30 keys per second usually qualify.
  bool rotations_close = false;
};

// A channel sampled on its own.
struct LooseChannel {
  enum class Property : uint8_t { kTranslation, kRotation, kScale };
  Property property = Property::kTranslation;
  int32_t channel = 0;  // into Clip::vec3_channels (translation, scale) or quat_channels
  int32_t joint = 0;
};

// The joints of which no channel animates one property (translation, rotation or scale):
// sampling copies it from the rest pose. The joints outside the detail mask first, each part
// in joint order.
struct RestJoints {
  std::vector<int32_t> joints;
  uint32_t coarse = 0;  // joints[0, coarse) are outside the detail mask
};

struct ClipTracks {
  std::vector<ClipTimeline> timelines;
  std::vector<LooseChannel> loose;  // the non-detail joints' first
  uint32_t coarse_loose = 0;        // loose channels of joints outside the detail mask
  RestJoints rest_translations;
  RestJoints rest_rotations;
  RestJoints rest_scales;

  // Builds the tracks of a finalized clip (channels checked, rotations normalized).
  // `detail`: empty, or one flag per joint (non-zero: a detail joint).
  static ClipTracks build(const Clip& clip, std::span<const uint8_t> detail = {});

  // Heap memory these tracks hold, in bytes (hosts cap the memory of loaded assets: a clip
  // whose channels share no key times makes tracks several times the size of its channels).
  size_t memory_bytes() const;
};

}  // namespace anim

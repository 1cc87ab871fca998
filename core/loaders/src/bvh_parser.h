#pragma once
// Internal to the BVH loader: a .bvh text read into its parts and checked against the
// grammar and the loader's limits. Nothing is interpreted yet (no rotations composed, no
// names made up for End Sites): bvh_loader.cpp turns a BvhFile into a skeleton and a clip.
//
// Grammar (keywords case-insensitive; any blanks and line breaks between tokens):
//   HIERARCHY
//   ROOT <name>  { <body> }          one or more roots
//   MOTION
//   Frames: <n>                      1 <= n <= kMaxFrames
//   Frame Time: <seconds>            > 0 (0 allowed for a single frame), <= kMaxFrameTime
//   <n lines of values>              each line exactly the HIERARCHY's channel count
// <body> of ROOT / JOINT: OFFSET x y z and CHANNELS k <names> (each exactly once, either
// order, before any child), then any number of  JOINT <name> { <body> }  and
// End Site { OFFSET x y z }. <name> is the rest of its line (may hold spaces); channel
// names are X/Y/Z + position/rotation, each at most once per joint, 0 <= k <= 6.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "anim/status.h"

namespace anim::bvh {

// Joints, End Sites included (the skeleton's limit: they all become joints).
inline constexpr int kMaxJoints = 1024;
// Frames of MOTION: about 39 hours at 120 fps. With channels, the file size bounds the
// frame count much sooner (every value takes at least two bytes of text).
inline constexpr int64_t kMaxFrames = int64_t{1} << 24;
inline constexpr double kMaxFrameTime = 60.0;  // seconds per frame
inline constexpr size_t kMaxNameBytes = 256;

enum class ChannelKind : uint8_t {
  kXposition,
  kYposition,
  kZposition,
  kXrotation,
  kYrotation,
  kZrotation
};

// "Xposition", ... as BVH writes them.
const char* channel_name(ChannelKind c);
inline bool is_rotation(ChannelKind c) {
  return c >= ChannelKind::kXrotation;
}
// 0, 1, 2 for X, Y, Z.
inline int channel_axis(ChannelKind c) {
  return static_cast<int>(c) % 3;
}

struct BvhJoint {
  std::string name;  // as written (valid UTF-8, no control characters); "" for an End Site
  int parent = -1;   // index into BvhFile::joints; -1 for a ROOT
  bool end_site = false;
  glm::dvec3 offset{0.0};                 // OFFSET: position in the parent's space, file units
  std::array<ChannelKind, 6> channels{};  // the first num_channels, in file order
  int num_channels = 0;
  int first_value = 0;  // index of its first channel's value within a frame line
  int64_t line = 0;     // the ROOT / JOINT / End Site line
};

struct BvhFile {
  std::vector<BvhJoint> joints;  // file order: depth first, parents before children
  int values_per_frame = 0;      // sum of num_channels
  int64_t num_frames = 0;        // >= 1
  double frame_time = 0.0;       // seconds
  // num_frames x values_per_frame values, frame after frame, as written (degrees for
  // rotations, file units for positions); every one finite, |v| <= kMaxMagnitude.
  std::vector<float> values;
};

// The most memory `frames` frames of these joints decode to: BvhFile::values plus, per joint
// with position / rotation channels and frame, a key time and a vec3 / quat in the clip's
// channel and the vec3 / quat again in its sampling track (before constant channels are
// folded). What BvhOptions::max_clip_bytes bounds.
uint64_t decoded_bytes_bound(const std::vector<BvhJoint>& joints, int64_t frames);

// Reads `text`; every error names `label`, the line and what is wrong. Memory is bounded by a
// small multiple of the text's size, whatever the text claims, and refused with
// RESOURCE_EXHAUSTED (from the MOTION header, before any frame is read) when
// decoded_bytes_bound exceeds `max_decoded_bytes` (0 = no limit).
Expected<BvhFile> parse_bvh(std::string_view text, const std::string& label,
                            uint64_t max_decoded_bytes = 0);

}  // namespace anim::bvh

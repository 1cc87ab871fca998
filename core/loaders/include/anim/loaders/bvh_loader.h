#pragma once
// BVH (Biovision Hierarchy) motion capture loader: a .bvh file becomes an Asset with a
// skeleton, one clip and no mesh (render clients draw it as bones).
//
// Skeleton: one joint per ROOT / JOINT and one per End Site (named "<parent>_End", with a
// number added when that name is taken), in file order (already parents before children).
// Rest pose: translation = OFFSET, rotation identity, scale 1: the pose the OFFSETs draw,
// which is what the channels rotate from. Inverse binds invert that pose's model matrices,
// so the rest palette is the identity.
//
// Clip (named after the file): one key per frame at t = k x Frame Time (computed in double,
// stored as float), LINEAR. Per joint, as the file says and independently of channel order:
//   translation = OFFSET + (Xposition, Yposition, Zposition)   (absent components are 0)
//   rotation    = R(c1) * R(c2) * ...   the rotation channels in the order CHANNELS lists
//                 them, composed left to right (so the last one applies first to a child's
//                 offset); angles in degrees, right-handed, about the parent-space axes X/Y/Z
// Channels that never change are stored once; those equal to the rest pose not at all.
//
// Spaces: BVH has no declared up axis or unit; the convention (and every common exporter:
// CMU, Motionbuilder, Blender's default) is Y up, right-handed, like glTF, so no axis is
// turned. Units are the file's own (a .bvh does not declare them); BvhOptions::scale puts a uniform
// scale into Skeleton::root_transform, so model space is `scale` x file units while clips keep the
// file's numbers. See docs/loader-bvh.md.
//
// Files are treated as hostile: every failure returns a Status naming the label, the line and
// what is wrong (wrong channel count, truncated MOTION, NaN, a joint or frame count past the
// limits), memory stays within a small multiple of the text's size, and nothing is returned
// on failure. Limits: 1024 joints (End Sites included), 2^24 frames, 6 channels per joint,
// names up to 256 bytes of UTF-8, numbers of magnitude up to 1e7, and BvhOptions::
// max_clip_bytes for what the frames decode to (checked from the header, before the frames
// are read or anything is allocated for them).

#include <string>
#include <string_view>

#include "anim/asset.h"
#include "anim/status.h"

namespace anim {

struct BvhOptions {
  // Model (scene) units per file unit, in [1e-6, 1e6]: becomes Skeleton::root_transform =
  // scale(s). 1 keeps the file's units (e.g. 0.01 for a file in centimetres to get metres).
  float scale = 1.0f;
  // The clip's name; empty = the file's stem (load_bvh) or the label's stem (from memory).
  std::string clip_name;
  // The most memory the frames may decode to: the parsed values (4 bytes each) plus the
  // clip's keys (per joint and frame: a key time, and the translation (12 bytes) / rotation
  // (16) both in the clip's channel and in its sampling track), counted before channels that
  // never change are folded. A file needing more is refused with RESOURCE_EXHAUSTED before
  // its frames are read. Text decodes to at most about 20 times its size (joints of one
  // rotation channel: 2 bytes of text per value), so this bound is what limits large files.
  // 0 = no limit.
  size_t max_clip_bytes = size_t{256} << 20;
  // load_bvh only: how messages name the file (e.g. its path relative to an asset root, so
  // that a daemon's replies never carry host paths). Empty = the path as given.
  std::string label;
};

// Reads and loads a .bvh file. Asset::name is the file's stem; Asset::source the label.
Expected<Asset> load_bvh(const std::string& path, const BvhOptions& options = {});

// The same on text in memory (uploads, fuzzing): nothing is read from disk. `label` names the
// text in every message and becomes Asset::source; Asset::name is "" (the caller names it).
Expected<Asset> load_bvh_from_memory(std::string_view text, const std::string& label,
                                     const BvhOptions& options = {});

}  // namespace anim

#pragma once
// A character for the client-side tests of compact_morphs (libanimclient, the Python client):
// a two-joint skeleton as get_asset_data sends it, its pose frames of any kind (it stands
// still, so every kind is valid against any frames held), and morph keys and deltas of float
// weights as the daemon quantizes them. Needs animcodec and the generated protocol.

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/v1/assets.pb.h"
#include "animcodec/compact.h"
#include "animcodec/morph_codec.h"

namespace animtest {

inline constexpr uint32_t kMorphTestSkeletonId = 0x4D4F5250;

// Two joints, the second 1 unit above the first.
inline anim::v1::SkeletonData two_joint_skeleton() {
  anim::v1::SkeletonData d;
  for (int j = 0; j < 2; ++j) {
    d.add_joint_names(j == 0 ? "root" : "head");
    d.add_parents(j - 1);
    d.add_rest_pose()->mutable_translation()->set_y(static_cast<float>(j));
    for (int i = 0; i < 16; ++i) d.add_inverse_bind(i % 5 == 0 ? 1.0f : 0.0f);
  }
  for (int i = 0; i < 16; ++i) d.add_root_transform(i % 5 == 0 ? 1.0f : 0.0f);
  d.set_compact_precision(std::string("\x0c\x0a\x0a\x0c\x0a\x0a", 6));
  d.set_compact_skeleton_id(kMorphTestSkeletonId);
  return d;
}

// The daemon's side of two_joint_skeleton(), at rest: its compact pose frames.
struct StillSender {
  animcodec::Skeleton skeleton;
  std::vector<animcodec::QJoint> pose;
  animcodec::QRoot root;

  StillSender() {
    EXPECT_EQ(animcodec::skeleton_from_proto(two_joint_skeleton(), skeleton), "");
    pose = skeleton.layout.rest_q;
  }
  std::string frame(animcodec::FrameKind kind) const {
    animcodec::Baseline b;
    if (kind != animcodec::FrameKind::kKey) b.prev1 = pose, b.root1 = &root;
    if (kind == animcodec::FrameKind::kDelta2) b.prev2 = pose, b.root2 = &root;
    std::vector<uint8_t> out(animcodec::max_frame_bytes(pose.size()));
    out.resize(animcodec::encode_frame(skeleton.layout, kind, pose, root, b, out));
    EXPECT_FALSE(out.empty());
    return {out.begin(), out.end()};
  }
};

inline std::vector<uint16_t> quantized_morphs(const std::vector<float>& w) {
  std::vector<uint16_t> q;
  for (float v : w) q.push_back(animcodec::quantize_morph_weight(v));
  return q;
}

inline std::string morph_key(const std::vector<float>& w) {
  std::string out;
  EXPECT_TRUE(animcodec::encode_morph_key(quantized_morphs(w), out));
  return out;
}

inline std::string morph_delta(const std::vector<float>& now, const std::vector<float>& then) {
  std::string out;
  EXPECT_TRUE(animcodec::encode_morph_delta(quantized_morphs(now), quantized_morphs(then), out));
  return out;
}

}  // namespace animtest

#pragma once
// Test helpers for the compact encoding: a layout from a core skeleton, and a sender/receiver
// pair that runs the codec frame after frame as the daemon and a client would.

#include <algorithm>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/asset.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/loaders/md5_loader.h"
#include "anim/pose.h"
#include "anim/skeleton.h"
#include "animcodec/compact.h"
#include "shared_assets.h"

namespace codectest {

// Calls `fn` with every .glb and .md5mesh asset under ../shared/assets that has clips (in
// file-name order, named after its file; an MD5 mesh with the .md5anim beside it) and returns
// how many. A file that does not load fails the test. The caller skips when shared is absent.
inline int for_each_shared_asset(const std::function<void(anim::Asset&)>& fn) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(animtest::shared_path("assets")))
    if (e.path().extension() == ".glb" || e.path().extension() == ".md5mesh")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int assets = 0;
  for (const fs::path& p : files) {
    anim::Expected<anim::Asset> asset =
        p.extension() == ".glb"
            ? anim::load_gltf(p.string())
            : anim::load_md5(p.string(),
                             {(p.parent_path() / (p.stem().string() + ".md5anim")).string()});
    EXPECT_TRUE(asset) << p << ": " << asset.error().message();
    if (!asset || asset->clips.empty()) continue;
    asset->name = p.stem().string();
    fn(*asset);
    ++assets;
  }
  return assets;
}

// The codec's skeleton of an asset, with the layout the daemon derives (mesh included).
inline animcodec::Skeleton codec_skeleton(const anim::Asset& asset) {
  const anim::Skeleton& s = asset.skeleton;
  const int n = s.num_joints();
  std::vector<int> parents(s.parents.begin(), s.parents.end());
  std::vector<animcodec::Trs> rest(n);
  for (int j = 0; j < n; ++j)
    rest[j] = {s.rest_pose[j].translation, s.rest_pose[j].rotation, s.rest_pose[j].scale};
  const animcodec::SkinView skin{asset.mesh.positions, asset.mesh.joints, asset.mesh.weights,
                                 s.inverse_bind};
  animcodec::Skeleton out;
  out.layout = animcodec::make_layout(parents, rest, s.root_transform, &skin);
  out.parents = parents;
  out.inverse_bind = s.inverse_bind;
  out.root_transform = s.root_transform;
  return out;
}

// `prev1`, `prev2`: the previous quantized frames (may be empty), as the daemon passes them.
inline void quantize_pose(const animcodec::Layout& l, std::span<const anim::Transform> locals,
                          std::vector<animcodec::QJoint>& out,
                          const std::vector<animcodec::QJoint>& prev1 = {},
                          const std::vector<animcodec::QJoint>& prev2 = {}) {
  out.resize(locals.size());
  for (size_t j = 0; j < locals.size(); ++j)
    out[j] = animcodec::quantize_joint(l, j, locals[j].translation, locals[j].rotation,
                                       locals[j].scale, prev1.empty() ? nullptr : &prev1[j],
                                       prev2.empty() ? nullptr : &prev2[j]);
}

// One character's stream: the sender's quantized history and the receiver's decoded one.
// push() encodes the newest pose with the best kind the history allows (as the daemon does
// for a subscriber that got every frame), decodes it, and checks both sides agree.
struct Stream {
  const animcodec::Skeleton* skeleton;
  std::vector<animcodec::QJoint> sent[2];  // [0] newest
  animcodec::QRoot sent_root[2];
  int held = 0;
  std::vector<animcodec::QJoint> recv[2];
  animcodec::QRoot recv_root[2];
  std::vector<uint8_t> buffer;
  size_t bytes = 0, frames = 0, key_frames = 0;

  explicit Stream(const animcodec::Skeleton& s) : skeleton(&s) {
    buffer.resize(animcodec::max_frame_bytes(s.layout.num_joints()));
  }

  // Returns the frame's size; fails the test when the receiver disagrees.
  size_t push(const std::vector<animcodec::QJoint>& pose, const animcodec::QRoot& root,
              bool force_key = false) {
    using animcodec::FrameKind;
    const auto& l = skeleton->layout;
    const FrameKind kind = force_key || held == 0 ? FrameKind::kKey
                           : held == 1            ? FrameKind::kDelta1
                                                  : FrameKind::kDelta2;
    if (force_key) held = 0;
    animcodec::Baseline b;
    if (held >= 1) b.prev1 = sent[0], b.root1 = &sent_root[0];
    if (held >= 2) b.prev2 = sent[1], b.root2 = &sent_root[1];
    const size_t n = animcodec::encode_frame(l, kind, pose, root, b, buffer);
    EXPECT_GT(n, 0u);
    animcodec::Baseline rb;
    if (held >= 1) rb.prev1 = recv[0], rb.root1 = &recv_root[0];
    if (held >= 2) rb.prev2 = recv[1], rb.root2 = &recv_root[1];
    std::vector<animcodec::QJoint> out(l.num_joints());
    animcodec::QRoot out_root;
    const std::string err =
        animcodec::decode_frame(l, std::span(buffer.data(), n), rb, out, out_root);
    EXPECT_EQ(err, "");
    EXPECT_TRUE(out == pose) << "decoded pose differs from the sent one";
    EXPECT_TRUE(out_root == root) << "decoded root differs from the sent one";
    sent[1] = std::move(sent[0]);
    sent[0] = pose;
    sent_root[1] = sent_root[0];
    sent_root[0] = root;
    recv[1] = std::move(recv[0]);
    recv[0] = std::move(out);
    recv_root[1] = recv_root[0];
    recv_root[0] = out_root;
    held = std::min(held + 1, 2);
    bytes += n;
    ++frames;
    key_frames += kind == FrameKind::kKey;
    return n;
  }
};

}  // namespace codectest

// Joint detail (joint LOD): which joints are derived as detail joints (a hand-measured rig and
// bench64), naming them, what set_detail_joints refuses, and what a pose that skips them is:
// every other joint exactly as the full pose, every detail joint at rest, through the
// Animator and evaluate_pose alike.
#include "anim/joint_detail.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/asset.h"
#include "anim/loaders/builtin_character.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/palette.h"
#include "anim/sampling_job.h"
#include "anim/skinned_mesh.h"
#include "anim_test_rig.h"
#include "shared_assets.h"

namespace anim {
namespace joint_detail_test {

bool same_bits(const Transform& a, const Transform& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Joint origins (rest pose, model space), the parent first:
//   root (0,0,0); hips (0,1,0); spine (0,1.5,0); head (0,1.9,0); head_end (0,1.95,0);
//   eye (0.03,1.92,0.05); thigh (0.1,0.95,0); shin (0.1,0.5,0); foot (0.1,0.08,0);
//   toe (0.1,0.03,0.12); hand (0.6,1.5,0); finger0 (0.63,1.5,0); finger1 (0.66,1.5,0).
// Box sides 0.66 x 1.95 x 0.12: size 1.95, threshold 0.075 x 1.95 = 0.14625 m. Reaches from
// the parent: head_end 0.05, eye |(0.03,0.02,0.05)| = 0.0616, toe |(0,-0.05,0.12)| = 0.13,
// finger0 0.06 (to finger1), finger1 0.03: detail. foot 0.42 + (toe) , hand 0.66, head 0.45,
// shin 0.92: not.
Skeleton detail_rig() {
  const std::vector<std::string> names = {"root", "hips",    "spine",  "head", "head_end",
                                          "eye",  "thigh",   "shin",   "foot", "toe",
                                          "hand", "finger0", "finger1"};
  const std::vector<int> parents = {-1, 0, 1, 2, 3, 3, 1, 6, 7, 8, 2, 10, 11};
  const std::vector<glm::vec3> offsets = {{0, 0, 0},          {0, 1, 0},      {0, 0.5f, 0},
                                          {0, 0.4f, 0},       {0, 0.05f, 0},  {0.03f, 0.02f, 0.05f},
                                          {0.1f, -0.05f, 0},  {0, -0.45f, 0}, {0, -0.42f, 0},
                                          {0, -0.05f, 0.12f}, {0.6f, 0, 0},   {0.03f, 0, 0},
                                          {0.03f, 0, 0}};
  std::vector<Transform> rest(names.size());
  for (size_t i = 0; i < names.size(); ++i) rest[i].translation = offsets[i];
  std::vector<glm::mat4> inverse_bind(names.size(), glm::mat4(1.0f));
  auto s = Skeleton::from_unordered(names, parents, rest, inverse_bind, glm::mat4(1.0f));
  EXPECT_TRUE(s.has_value());
  return std::move(*s);
}

std::vector<std::string> names_of(const Skeleton& s, const std::vector<int32_t>& joints) {
  std::vector<std::string> out;
  for (int32_t j : joints) out.push_back(s.names[static_cast<size_t>(j)]);
  return out;
}

TEST(JointDetail, DerivedFromTheRestPoseReach) {
  const Skeleton s = detail_rig();
  EXPECT_EQ(names_of(s, derive_detail_joints(s)),
            (std::vector<std::string>{"head_end", "eye", "toe", "finger0", "finger1"}));
}

// A vertex the eye moves, 0.2 m in front of the head: the eye's reach is then 0.2 m (from
// the head's bind origin, at the rest origin here), beyond the threshold. The vertex also
// widens nothing (it lies inside the box). A weight below kDetailWeight counts for nothing.
TEST(JointDetail, TheSkinAJointMovesCountsInItsReach) {
  const Skeleton s = detail_rig();
  SkinnedMesh mesh;
  mesh.positions = {{0.0f, 1.9f, 0.2f}, {0.0f, 1.9f, 0.1f}};
  const uint16_t eye = static_cast<uint16_t>(s.find_joint("eye"));
  const uint16_t head = static_cast<uint16_t>(s.find_joint("head"));
  mesh.joints = {{eye, head, 0, 0}, {head, 0, 0, 0}};
  mesh.weights = {{0.5f, 0.5f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}};
  std::vector<glm::mat4> model(static_cast<size_t>(s.num_joints()));
  local_to_model(s, s.rest_pose, model);
  Skeleton bound = s;
  for (size_t j = 0; j < model.size(); ++j) bound.inverse_bind[j] = glm::inverse(model[j]);
  EXPECT_EQ(names_of(bound, derive_detail_joints(bound, mesh)),
            (std::vector<std::string>{"head_end", "toe", "finger0", "finger1"}));
  mesh.weights[0] = {0.1f, 0.9f, 0.0f, 0.0f};
  EXPECT_EQ(names_of(bound, derive_detail_joints(bound, mesh)),
            (std::vector<std::string>{"head_end", "eye", "toe", "finger0", "finger1"}));
}

// The builtin character's smallest end chains carry skin beyond its threshold: its head (a
// leaf 10 cm above the neck, the head's skin above that), hands and toes stay.
TEST(JointDetail, TheBuiltinCharacterHasNone) {
  const Asset a = make_builtin_character();
  EXPECT_TRUE(derive_detail_joints(a.skeleton, a.mesh).empty());
  // Without its mesh the head would be one.
  EXPECT_EQ(names_of(a.skeleton, derive_detail_joints(a.skeleton)),
            (std::vector<std::string>{"head"}));
}

TEST(JointDetail, NamedJointsBringTheirSubtrees) {
  const Skeleton s = detail_rig();
  const std::vector<std::string> hand = {"hand"};
  auto named = detail_joints_named(s, hand);
  ASSERT_TRUE(named) << named.error().message();
  EXPECT_EQ(names_of(s, *named), (std::vector<std::string>{"hand", "finger0", "finger1"}));

  const std::vector<std::string> unknown = {"hand", "tail"};
  auto bad = detail_joints_named(s, unknown);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.error().message().find("detail_joints[1]"), std::string::npos);
  EXPECT_NE(bad.error().message().find("tail"), std::string::npos);

  const std::vector<std::string> root = {"root"};
  auto rooted = detail_joints_named(s, root);
  ASSERT_FALSE(rooted);
  EXPECT_NE(rooted.error().message().find("root joint"), std::string::npos);
}

Asset rig_asset() {
  Asset a;
  a.name = "rig";
  a.skeleton = detail_rig();
  const int n = a.skeleton.num_joints();
  a.clips.push_back(animtest::make_swing_clip("swing", n, 1.0f, 1.2f, {0, 0, 1}, 0.3f));
  a.clips.push_back(animtest::make_swing_clip("turn", n, 0.8f, -0.9f, {1, 1, 0}));
  return a;
}

TEST(JointDetail, RefusedListsChangeNothing) {
  Asset a = rig_asset();
  // Built without detail joints: every block is coarse.
  auto all_coarse = [&] {
    for (const ClipTimeline& t : a.clips[0].tracks.timelines)
      if (t.coarse_rotation_blocks != t.rotation_blocks ||
          t.coarse_vector_blocks != t.vector_blocks)
        return false;
    return true;
  };
  ASSERT_TRUE(all_coarse());
  const int finger0 = a.skeleton.find_joint("finger0");
  const int finger1 = a.skeleton.find_joint("finger1");
  // Not closed under descent (finger1 lies below finger0), descending, a root, out of range.
  for (const std::vector<int32_t>& bad :
       {std::vector<int32_t>{finger0}, std::vector<int32_t>{finger1, finger0},
        std::vector<int32_t>{0}, std::vector<int32_t>{99}}) {
    EXPECT_FALSE(set_detail_joints(a, bad));
    EXPECT_TRUE(a.skeleton.detail_joints.empty());
    EXPECT_FALSE(a.detail_joints_set);
    EXPECT_TRUE(all_coarse());
  }
  ASSERT_TRUE(set_detail_joints(a, {finger0, finger1}));
  EXPECT_TRUE(a.detail_joints_set);
  EXPECT_EQ(a.skeleton.detail_joints, (std::vector<int32_t>{finger0, finger1}));
  EXPECT_FALSE(all_coarse());  // the tracks were rebuilt with the fingers' lanes last
}

// The properties a clip does not animate come from the rest pose whatever the output held
// before: every joint's, and with skip_detail every joint's outside the detail mask.
TEST(JointDetail, SamplingTakesUnanimatedPropertiesFromRestWithAndWithoutDetail) {
  Asset a = rig_asset();
  ASSERT_TRUE(set_detail_joints(a, derive_detail_joints(a.skeleton)));
  const Skeleton& s = a.skeleton;
  std::vector<uint8_t> detail(static_cast<size_t>(s.num_joints()), 0);
  for (int32_t j : s.detail_joints) detail[static_cast<size_t>(j)] = 1;
  // The clip animates every rotation and the root's translation only.
  for (const bool skip : {false, true}) {
    Transform stale;
    stale.translation = {9, 9, 9};
    stale.scale = {7, 7, 7};
    std::vector<Transform> out(static_cast<size_t>(s.num_joints()), stale);
    SamplingJob job;
    job.clip = &a.clips[0];
    job.time = 0.4f;
    job.rest = s.rest_pose;
    job.output = out;
    job.skip_detail = skip;
    ASSERT_TRUE(job.run());
    for (size_t j = 0; j < out.size(); ++j) {
      if (skip && detail[j]) continue;
      EXPECT_EQ(out[j].scale, s.rest_pose[j].scale) << s.names[j] << " skip " << skip;
      if (j > 0) {
        EXPECT_EQ(out[j].translation, s.rest_pose[j].translation) << s.names[j] << " skip " << skip;
      }
    }
  }
}

// Two animators of one asset, one of them skipping detail: after the same commands and steps,
// the non-detail joints are bit for bit the full pose's and the detail joints are at rest.
void expect_skip_detail_pose(const Asset& asset) {
  const Skeleton& s = asset.skeleton;
  ASSERT_FALSE(s.detail_joints.empty());
  Animator full(s, asset.clips), coarse(s, asset.clips);
  coarse.set_skip_detail(true);
  for (Animator* a : {&full, &coarse}) {
    ASSERT_TRUE(a->play(0));
    a->update(0.3f);
    ASSERT_TRUE(a->crossfade(1, 0.4f));
    a->update(0.1f);
  }
  std::vector<uint8_t> detail(static_cast<size_t>(s.num_joints()), 0);
  for (int32_t j : s.detail_joints) detail[static_cast<size_t>(j)] = 1;
  const auto& f = full.local_pose().locals;
  const auto& c = coarse.local_pose().locals;
  int differing = 0;
  for (size_t j = 0; j < detail.size(); ++j) {
    if (detail[j]) {
      EXPECT_TRUE(same_bits(c[j], s.rest_pose[j])) << s.names[j];
      differing += !same_bits(f[j], s.rest_pose[j]);
    } else {
      EXPECT_TRUE(same_bits(c[j], f[j])) << s.names[j];
    }
  }
  // The clips do move the detail joints: the full pose has them away from rest.
  EXPECT_GT(differing, 0);
  EXPECT_TRUE(coarse.evaluated_inputs().skip_detail);
  EXPECT_FALSE(full.evaluated_inputs().skip_detail);
}

TEST(JointDetail, SkippingLeavesDetailJointsAtRestAndTheRestUntouched) {
  Asset a = rig_asset();
  ASSERT_TRUE(set_detail_joints(a, derive_detail_joints(a.skeleton)));
  expect_skip_detail_pose(a);
}

TEST(JointDetail, ReorderedTracksSampleTheFullPoseAsBefore) {
  Asset plain = rig_asset();
  Asset ordered = rig_asset();
  ASSERT_TRUE(set_detail_joints(ordered, derive_detail_joints(ordered.skeleton)));
  Animator a(plain.skeleton, plain.clips), b(ordered.skeleton, ordered.clips);
  for (Animator* x : {&a, &b}) {
    ASSERT_TRUE(x->play(0));
    x->update(0.37f);
  }
  for (size_t j = 0; j < a.local_pose().locals.size(); ++j)
    EXPECT_TRUE(same_bits(a.local_pose().locals[j], b.local_pose().locals[j])) << j;
}

TEST(JointDetail, WithoutDetailJointsSkippingChangesNothing) {
  Asset a = rig_asset();
  ASSERT_TRUE(set_detail_joints(a, {}));
  Animator full(a.skeleton, a.clips), coarse(a.skeleton, a.clips);
  coarse.set_skip_detail(true);
  for (Animator* x : {&full, &coarse}) {
    ASSERT_TRUE(x->play(0));
    x->update(0.37f);
  }
  for (size_t j = 0; j < full.local_pose().locals.size(); ++j)
    EXPECT_TRUE(same_bits(full.local_pose().locals[j], coarse.local_pose().locals[j])) << j;
  EXPECT_FALSE(coarse.evaluated_inputs().skip_detail);
  EXPECT_FALSE(coarse.skip_detail());
}

// bench64: fingers (5 chains of 3 per hand, 9 cm from the hand to a tip) and the nine face
// joints (1.4 cm from the head) are detail joints: 39 of 64. Its toes are not (13 cm from the
// foot to the toe joint, and their skin beyond), nor head_end (15 cm), the hands or the feet.
TEST(JointDetail, Bench64DerivesFingersAndFace) {
  ANIMD_REQUIRE_SHARED();
  auto asset = load_gltf(animtest::shared_path("assets/Bench64/bench64.glb"));
  ASSERT_TRUE(asset) << asset.error().message();
  const Skeleton& s = asset->skeleton;
  const std::vector<int32_t> derived = derive_detail_joints(s, asset->mesh);
  std::vector<std::string> expected;
  for (const std::string& name : s.names)
    if (name.starts_with("finger") || name.starts_with("extra")) expected.push_back(name);
  EXPECT_EQ(expected.size(), 39u);
  std::vector<std::string> got = names_of(s, derived);
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
  ASSERT_TRUE(set_detail_joints(*asset, derived));
  expect_skip_detail_pose(*asset);
}

}  // namespace joint_detail_test
}  // namespace anim

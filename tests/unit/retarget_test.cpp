// retarget_clip: a BVH clip replayed on targets that share its rest posture but differ in
// everything else (rest rotations, units and root transform, extra and missing joints, name
// prefixes) must put every matched joint where the source puts it (times the scale), at
// every key and between keys. Plus the matching rules and their errors.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include "anim/loaders/bvh_loader.h"
#include "anim/palette.h"
#include "anim/retarget.h"
#include "anim/skeleton.h"

namespace anim {
namespace retarget_test {

// Hips moving and turning, a back chain with an extra "LowerBack", one leg; four frames of
// unrelated rotations in an unusual channel order.
const char* kSource = R"(HIERARCHY
ROOT Hips
{
  OFFSET 0 10 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT LowerBack
  {
    OFFSET 0 1 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT Spine
    {
      OFFSET 0 3 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      JOINT Neck
      {
        OFFSET 0 3 0
        CHANNELS 3 Zrotation Xrotation Yrotation
        End Site
        {
          OFFSET 0 2 0
        }
      }
    }
  }
  JOINT LeftUpLeg
  {
    OFFSET 1 -1 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT LeftLeg
    {
      OFFSET 0 -4 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      End Site
      {
        OFFSET 0 -4 0.5
      }
    }
  }
}
MOTION
Frames: 4
Frame Time: 0.1
0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
1 0.5 -2 10 20 30 5 -10 15 20 0 -5 -30 10 0 45 -20 10 0 60 0
2 0.2 -4 -20 35 -60 0 25 0 -10 10 40 15 -35 5 -60 30 0 90 0 -10
3 -0.3 1 170 -80 100 30 30 30 0 -45 0 5 5 5 10 100 -30 -90 45 45
)";

Asset source_asset() {
  auto a = load_bvh_from_memory(kSource, "source.bvh");
  EXPECT_TRUE(a) << a.error().message();
  return std::move(*a);
}

std::vector<glm::vec3> model_positions(const Skeleton& s, const Clip& clip, float t) {
  std::vector<Transform> locals(s.num_joints());
  clip.sample(t, s.rest_pose, locals);
  std::vector<glm::mat4> model(s.num_joints());
  local_to_model(s, locals, model);
  std::vector<glm::vec3> out;
  for (const auto& m : model) out.emplace_back(m[3]);
  return out;
}

std::vector<glm::vec3> rest_positions(const Skeleton& s) {
  std::vector<glm::mat4> model(s.num_joints());
  local_to_model(s, s.rest_pose, model);
  std::vector<glm::vec3> out;
  for (const auto& m : model) out.emplace_back(m[3]);
  return out;
}

// A target joint given in model space at rest: its locals are derived from the parent's.
struct TargetJoint {
  std::string name;
  int parent;
  glm::vec3 position;  // model space
  glm::quat rotation;  // model space
};

// Joint model matrices are T(position) R(rotation) S(k), where k is the root transform's
// uniform scale (as under a glTF "Armature" node scaled to centimetres).
Skeleton make_target(const std::vector<TargetJoint>& joints, float k = 1.0f,
                     const glm::quat& root_rotation = glm::quat(1, 0, 0, 0)) {
  const glm::mat4 root = glm::mat4_cast(root_rotation) * glm::scale(glm::mat4(1.0f), glm::vec3(k));
  std::vector<std::string> names;
  std::vector<int> parents;
  std::vector<Transform> rest;
  std::vector<glm::mat4> model, inverse_bind;
  for (const TargetJoint& j : joints) {
    const glm::mat4 m = glm::translate(glm::mat4(1.0f), j.position) * glm::mat4_cast(j.rotation) *
                        glm::scale(glm::mat4(1.0f), glm::vec3(k));
    const glm::mat4 parent = j.parent < 0 ? root : model[j.parent];
    names.push_back(j.name);
    parents.push_back(j.parent);
    rest.push_back(from_matrix(glm::inverse(parent) * m));
    model.push_back(m);
    inverse_bind.push_back(glm::inverse(m));
  }
  auto s = Skeleton::from_unordered(names, parents, rest, inverse_bind, root);
  EXPECT_TRUE(s) << s.error().message();
  return std::move(*s);
}

// The source's joints at k x their rest positions, each with its own rest rotation (none of
// them the identity), renamed by `prefix`; `skip` names source joints left out (their
// children hang on the nearest kept ancestor).
std::vector<TargetJoint> like_source(const Skeleton& src, float k, const std::string& prefix = "",
                                     const std::vector<std::string>& skip = {}) {
  const auto p = rest_positions(src);
  std::vector<TargetJoint> out;
  std::vector<int> index(src.num_joints(), -1);
  for (int j = 0; j < src.num_joints(); ++j) {
    if (std::find(skip.begin(), skip.end(), src.names[j]) != skip.end()) {
      index[j] = src.parents[j] < 0 ? -1 : index[src.parents[j]];
      continue;
    }
    const float a = 0.3f + 0.7f * static_cast<float>(j);
    const glm::quat q =
        glm::angleAxis(a, glm::normalize(glm::vec3(std::sin(a), 1.0f, std::cos(3 * a))));
    out.push_back(
        {prefix + src.names[j], src.parents[j] < 0 ? -1 : index[src.parents[j]], k * p[j], q});
    index[j] = static_cast<int>(out.size()) - 1;
  }
  return out;
}

// Every target joint named like a source joint sits where the source joint is, times `scale`.
void expect_same_positions(const Asset& src, const Skeleton& target, const Clip& clip, float scale,
                           const std::string& prefix = "") {
  for (float t : {0.0f, 0.1f, 0.15f, 0.2f, 0.27f, 0.3f}) {
    SCOPED_TRACE("t = " + std::to_string(t));
    const auto want = model_positions(src.skeleton, src.clips[0], t);
    const auto got = model_positions(target, clip, t);
    for (int s = 0; s < src.skeleton.num_joints(); ++s) {
      const int j = target.find_joint(prefix + src.skeleton.names[s]);
      if (j < 0) continue;
      SCOPED_TRACE(target.names[j]);
      for (int a = 0; a < 3; ++a)
        EXPECT_NEAR(got[j][a], scale * want[s][a], 2e-4f * std::max(scale, 1.0f));
    }
  }
}

TEST(Retarget, OntoItselfReproducesTheClip) {
  const Asset src = source_asset();
  auto r = retarget_clip(src.skeleton, src.clips[0], src.skeleton);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FLOAT_EQ(r->scale, 1.0f);
  EXPECT_EQ(r->matched, src.skeleton.num_joints());
  EXPECT_TRUE(r->unmatched.empty());
  EXPECT_EQ(r->clip.name, src.clips[0].name);
  EXPECT_FLOAT_EQ(r->clip.duration, src.clips[0].duration);
  expect_same_positions(src, src.skeleton, r->clip, 1.0f);
}

TEST(Retarget, OtherRestRotationsSamePostureSamePositions) {
  const Asset src = source_asset();
  const Skeleton target = make_target(like_source(src.skeleton, 1.0f));
  auto r = retarget_clip(src.skeleton, src.clips[0], target);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_NEAR(r->scale, 1.0f, 1e-6f);
  expect_same_positions(src, target, r->clip, 1.0f);
  // At the source's rest frame (frame 0) the target is at its own rest pose.
  std::vector<Transform> locals(target.num_joints());
  r->clip.sample(0.0f, target.rest_pose, locals);
  for (int j = 0; j < target.num_joints(); ++j)
    EXPECT_GT(std::fabs(glm::dot(locals[j].rotation, target.rest_pose[j].rotation)), 1 - 1e-6f);
}

TEST(Retarget, UnitsAndRootTransformScaleTheMotion) {
  // The target in centimetres-to-metres style: root transform scale 0.01 and turned about Y,
  // joints at 0.01 x the source's positions. The measured scale is 0.01.
  const Asset src = source_asset();
  const glm::quat turn = glm::angleAxis(0.5f, glm::vec3(0, 1, 0));
  const Skeleton target = make_target(like_source(src.skeleton, 0.01f), 0.01f, turn);
  auto r = retarget_clip(src.skeleton, src.clips[0], target);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_NEAR(r->scale, 0.01f, 1e-7f);
  expect_same_positions(src, target, r->clip, 0.01f);
  // An explicit scale is used as given: the hips' model position is scale x the source's.
  RetargetOptions o;
  o.scale = 0.02f;
  o.clip_name = "mocap";
  auto r2 = retarget_clip(src.skeleton, src.clips[0], target, o);
  ASSERT_TRUE(r2) << r2.error().message();
  EXPECT_EQ(r2->clip.name, "mocap");
  const auto want = model_positions(src.skeleton, src.clips[0], 0.2f);
  const auto got = model_positions(target, r2->clip, 0.2f);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(got[0][a], 0.02f * want[0][a], 1e-5f);
}

TEST(Retarget, ExtraJointsAndNamePrefixes) {
  // The target has a twist joint between Spine and Neck and a "Hat" above the head end, and
  // prefixes every source name with "mixamorig:". Joints either side lacks follow rigidly,
  // so every matched joint still lands where the source's does.
  const Asset src = source_asset();
  auto joints = like_source(src.skeleton, 1.0f, "mixamorig:");
  int spine = -1, neck = -1;
  for (int j = 0; j < static_cast<int>(joints.size()); ++j) {
    if (joints[j].name == "mixamorig:Spine") spine = j;
    if (joints[j].name == "mixamorig:Neck") neck = j;
  }
  ASSERT_GE(spine, 0);
  ASSERT_EQ(neck, spine + 1);
  // Inserted right before Neck, so parents still come first; indices from Neck on shift by 1.
  joints.insert(joints.begin() + neck, {"mixamorig:SpineTwist", spine,
                                        0.5f * (joints[spine].position + joints[neck].position),
                                        glm::angleAxis(0.4f, glm::vec3(0, 1, 0))});
  for (size_t j = neck + 1; j < joints.size(); ++j)
    if (joints[j].parent >= neck) ++joints[j].parent;
  joints[neck + 1].parent = neck;  // Neck hangs on the twist joint
  const int head_end = neck + 2;
  ASSERT_EQ(joints[head_end].name, "mixamorig:Neck_End");
  joints.push_back(
      {"Hat", head_end, joints[head_end].position + glm::vec3(0, 1, 0), glm::quat(1, 0, 0, 0)});
  const Skeleton target = make_target(joints);
  auto r = retarget_clip(src.skeleton, src.clips[0], target);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->matched, src.skeleton.num_joints());
  EXPECT_EQ(r->clip.joints[target.find_joint("mixamorig:SpineTwist")].rotation, -1);
  EXPECT_EQ(r->clip.joints[target.find_joint("Hat")].rotation, -1);
  expect_same_positions(src, target, r->clip, 1.0f, "mixamorig:");
}

// Model-space rotation of every joint (the rotation part of its model matrix).
std::vector<glm::quat> model_rotations(const Skeleton& s, const Clip& clip, float t) {
  std::vector<Transform> locals(s.num_joints());
  clip.sample(t, s.rest_pose, locals);
  std::vector<glm::mat4> model(s.num_joints());
  local_to_model(s, locals, model);
  std::vector<glm::quat> out;
  for (const auto& m : model) out.push_back(from_matrix(m).rotation);
  return out;
}

TEST(Retarget, MissingJointsStillCarryEveryMatchedRotation) {
  // Without LowerBack the target's Spine hangs on Hips: its position no longer follows the
  // source's (LowerBack's turn is not there to move it), but every matched joint turns, in
  // model space, exactly as its source joint turns away from rest.
  const Asset src = source_asset();
  const Skeleton target = make_target(like_source(src.skeleton, 1.0f, "", {"LowerBack"}));
  auto r = retarget_clip(src.skeleton, src.clips[0], target);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->matched, src.skeleton.num_joints() - 1);
  EXPECT_EQ(r->unmatched, std::vector<std::string>{"LowerBack"});
  const auto source_rest = model_rotations(src.skeleton, src.clips[0], 0.0f);
  const auto target_rest = model_rotations(target, r->clip, 0.0f);
  for (float t : {0.1f, 0.2f, 0.3f}) {
    const auto s_now = model_rotations(src.skeleton, src.clips[0], t);
    const auto t_now = model_rotations(target, r->clip, t);
    for (int s = 0; s < src.skeleton.num_joints(); ++s) {
      const int j = target.find_joint(src.skeleton.names[s]);
      if (j < 0) continue;
      SCOPED_TRACE(target.names[j] + " at " + std::to_string(t));
      const glm::quat want = s_now[s] * glm::inverse(source_rest[s]);
      const glm::quat got = t_now[j] * glm::inverse(target_rest[j]);
      EXPECT_GT(std::fabs(glm::dot(want, got)), 1.0f - 1e-5f);
    }
    const auto s_pos = model_positions(src.skeleton, src.clips[0], t);
    const auto t_pos = model_positions(target, r->clip, t);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(t_pos[0][a], s_pos[0][a], 1e-4f);  // Hips
  }
}

TEST(Retarget, RefusesUnrelatedOrConflictingSkeletons) {
  const Asset src = source_asset();
  // No shared name.
  auto other =
      make_target({{"root", -1, {0, 0, 0}, {1, 0, 0, 0}}, {"tip", 0, {0, 1, 0}, {1, 0, 0, 0}}});
  auto r = retarget_clip(src.skeleton, src.clips[0], other);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("no joint name is shared"), std::string::npos);
  // LeftLeg above LeftUpLeg: the hierarchies differ.
  auto swapped = make_target({{"Hips", -1, {0, 10, 0}, {1, 0, 0, 0}},
                              {"LeftLeg", 0, {1, 9, 0}, {1, 0, 0, 0}},
                              {"LeftUpLeg", 1, {1, 5, 0}, {1, 0, 0, 0}}});
  r = retarget_clip(src.skeleton, src.clips[0], swapped);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("the hierarchies differ: source joint 'LeftLeg' lies below "
                                     "'LeftUpLeg', but target joint 'LeftLeg' does not lie below "
                                     "'LeftUpLeg'"),
            std::string::npos)
      << r.error().message();
  // Two source joints for one target joint: "Neck" exactly, "x:Neck" once unprefixed.
  auto two = load_bvh_from_memory(
      "HIERARCHY\nROOT Neck\n{\nOFFSET 0 0 0\nCHANNELS 0\nJOINT x:Neck\n{\nOFFSET 0 1 0\n"
      "CHANNELS 0\n}\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n",
      "two.bvh");
  ASSERT_TRUE(two) << two.error().message();
  r = retarget_clip(two->skeleton, two->clips[0], src.skeleton);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("source joints 'Neck' and 'x:Neck' both match target joint "
                                     "'Neck'"),
            std::string::npos)
      << r.error().message();
  RetargetOptions o;
  o.scale = -1.0f;
  EXPECT_FALSE(retarget_clip(src.skeleton, src.clips[0], src.skeleton, o));
}

}  // namespace retarget_test
}  // namespace anim

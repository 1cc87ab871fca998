// Hit volumes (hit_volumes.h): capsules fitted to a hand-made mesh, bone capsules without a
// mesh, the broad-phase bound computed by hand and checked against sampled poses of real
// characters, edits, and posed ray / sphere tests with hand-computed answers.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/hit_volumes.h"
#include "anim/loaders/builtin_character.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/skinned_mesh.h"

#include <glm/gtc/matrix_transform.hpp>

#include "anim_test_rig.h"
#include "shared_assets.h"

namespace anim {
namespace hit_volumes_test {

constexpr float kEps = 1e-4f;

// Two joints along +y: "lower" at the origin, "upper" 1 above it; inverse binds from the rest
// pose.
Skeleton two_joint_rig(const glm::mat4& root_transform = glm::mat4(1.0f)) {
  std::vector<std::string> names = {"lower", "upper"};
  std::vector<int> parents = {-1, 0};
  std::vector<Transform> rest(2);
  rest[1].translation = {0, 1, 0};
  std::vector<glm::mat4> inverse_bind = {glm::inverse(root_transform),
                                         glm::inverse(root_transform * to_matrix(rest[1]))};
  auto s = Skeleton::from_unordered(names, parents, rest, inverse_bind, root_transform);
  EXPECT_TRUE(s.has_value());
  return std::move(*s);
}

// A vertex ring of radius `r` around the y axis at height y (8 points), owned by `joint`.
void add_ring(SkinnedMesh& m, float y, float r, uint16_t joint) {
  for (int k = 0; k < 8; ++k) {
    const float a = static_cast<float>(k) * animtest::kPi / 4.0f;
    m.positions.push_back({r * std::cos(a), y, r * std::sin(a)});
    m.joints.push_back({joint, 0, 0, 0});
    m.weights.push_back({1, 0, 0, 0});
  }
}

// The capsule's ends, sorted by y (fitting may orient the axis either way).
std::pair<glm::vec3, glm::vec3> ends_by_y(const HitCapsule& c) {
  return c.a.y <= c.b.y ? std::make_pair(c.a, c.b) : std::make_pair(c.b, c.a);
}

void expect_near(const glm::vec3& got, const glm::vec3& want) {
  EXPECT_NEAR(got.x, want.x, kEps);
  EXPECT_NEAR(got.y, want.y, kEps);
  EXPECT_NEAR(got.z, want.z, kEps);
}

TEST(FitCapsules, TubesOfVerticesGiveCapsulesAlongTheirAxisInJointSpace) {
  const Skeleton s = two_joint_rig();
  SkinnedMesh m;
  // Lower: rings of radius 0.2 at y = 0, 0.5, 1. Upper: radius 0.1 at y = 1.2, 1.6, 2.
  for (float y : {0.0f, 0.5f, 1.0f}) add_ring(m, y, 0.2f, 0);
  for (float y : {1.2f, 1.6f, 2.0f}) add_ring(m, y, 0.1f, 1);
  const auto caps = fit_capsules(s, m);
  ASSERT_EQ(caps.size(), 2u);
  // Every vertex is at the radius, so the segment spans exactly the rings' heights.
  EXPECT_NEAR(caps[0].radius, 0.2f, kEps);
  auto [lo, hi] = ends_by_y(caps[0]);
  expect_near(lo, {0, 0, 0});
  expect_near(hi, {0, 1, 0});
  // Upper's joint space is 1 below the mesh: rings at 0.2 .. 1.0.
  EXPECT_NEAR(caps[1].radius, 0.1f, kEps);
  std::tie(lo, hi) = ends_by_y(caps[1]);
  expect_near(lo, {0, 0.2f, 0});
  expect_near(hi, {0, 1.0f, 0});
}

TEST(FitCapsules, SegmentIsShortenedWhereTheEndsAreNarrow) {
  // A ring of radius 0.3 at y = 0 and a single vertex on the axis at y = 1: radius 0.3; the
  // apex is enclosed by the end sphere when the segment reaches 1 - 0.3 = 0.7.
  const Skeleton s = two_joint_rig();
  SkinnedMesh m;
  add_ring(m, 0.0f, 0.3f, 0);
  m.positions.push_back({0, 1, 0});
  m.joints.push_back({0, 0, 0, 0});
  m.weights.push_back({1, 0, 0, 0});
  const auto caps = fit_capsules(s, m);
  EXPECT_NEAR(caps[0].radius, 0.3f, kEps);
  const auto [lo, hi] = ends_by_y(caps[0]);
  expect_near(lo, {0, 0, 0});
  expect_near(hi, {0, 0.7f, 0});
  EXPECT_FALSE(caps[1].present());  // owns no vertex
}

TEST(FitCapsules, EqualWeightsGoToTheLowerJointIndex) {
  const Skeleton s = two_joint_rig();
  SkinnedMesh m;
  add_ring(m, 0.5f, 0.2f, 1);
  for (auto& w : m.weights) w = {0.5f, 0.5f, 0, 0};
  for (auto& j : m.joints) j = {1, 0, 0, 0};  // joint 1 listed first, same weight as joint 0
  const auto caps = fit_capsules(s, m);
  EXPECT_TRUE(caps[0].present());
  EXPECT_FALSE(caps[1].present());
}

TEST(FitCapsules, EveryVertexIsInsideItsOwnersCapsule) {
  const Asset a = make_builtin_character();
  const auto& caps = a.hit_volumes.capsules;
  ASSERT_EQ(caps.size(), static_cast<size_t>(a.skeleton.num_joints()));
  int owned = 0;
  for (size_t v = 0; v < a.mesh.positions.size(); ++v) {
    int owner = -1;
    float best = 0.0f;
    for (int k = 0; k < 4; ++k)
      if (a.mesh.weights[v][k] > best ||
          (a.mesh.weights[v][k] == best && best > 0 && a.mesh.joints[v][k] < owner))
        owner = a.mesh.joints[v][k], best = a.mesh.weights[v][k];
    ASSERT_GE(owner, 0);
    const HitCapsule& c = caps[static_cast<size_t>(owner)];
    ASSERT_TRUE(c.present()) << a.skeleton.names[static_cast<size_t>(owner)];
    const glm::vec3 p = glm::vec3(a.skeleton.inverse_bind[static_cast<size_t>(owner)] *
                                  glm::vec4(a.mesh.positions[v], 1.0f));
    EXPECT_LE(glm::length(p - closest_on_segment(p, c.a, c.b)), c.radius * (1 + 1e-4f) + 1e-6f)
        << "vertex " << v << " of " << a.skeleton.names[static_cast<size_t>(owner)];
    ++owned;
  }
  EXPECT_EQ(owned, a.mesh.num_vertices());
  // The root (on the ground, skinning nothing) has no volume; the head has one.
  EXPECT_FALSE(caps[static_cast<size_t>(a.skeleton.find_joint("root"))].present());
  EXPECT_TRUE(caps[static_cast<size_t>(a.skeleton.find_joint("head"))].present());
}

TEST(FitCapsules, SameAssetSameCapsules) {
  const Asset a = make_builtin_character(), b = make_builtin_character();
  ASSERT_EQ(a.hit_volumes.capsules.size(), b.hit_volumes.capsules.size());
  for (size_t j = 0; j < a.hit_volumes.capsules.size(); ++j) {
    EXPECT_EQ(a.hit_volumes.capsules[j].a, b.hit_volumes.capsules[j].a);
    EXPECT_EQ(a.hit_volumes.capsules[j].b, b.hit_volumes.capsules[j].b);
    EXPECT_EQ(a.hit_volumes.capsules[j].radius, b.hit_volumes.capsules[j].radius);
  }
}

TEST(FitCapsules, WithoutAMeshEachBoneGetsACapsuleToItsChild) {
  const Skeleton s = animtest::make_rig();
  const auto caps = fit_capsules(s, SkinnedMesh{});
  // spine (1) -> chest at +0.4 y: capsule 0..0.4, radius 0.2 x 0.4.
  const HitCapsule& spine = caps[1];
  expect_near(spine.a, {0, 0, 0});
  expect_near(spine.b, {0, 0.4f, 0});
  EXPECT_NEAR(spine.radius, kBoneRadiusFraction * 0.4f, kEps);
  // chest (2) has two children, head (+0.3 y) and upper_arm (+0.2 x): toward their mean.
  expect_near(caps[2].b, {0.1f, 0.15f, 0});
  EXPECT_NEAR(caps[2].radius, kBoneRadiusFraction * std::sqrt(0.01f + 0.0225f), kEps);
  // Leaves (head, hand, foot) have none.
  EXPECT_FALSE(caps[3].present());
  EXPECT_FALSE(caps[6].present());
  EXPECT_FALSE(caps[9].present());
}

// A clip moving channel `property` of the lower joint through `values` (linear, 1 s apart).
Clip lower_joint_clip(const std::string& name, std::vector<glm::vec3> values,
                      Interpolation interpolation = Interpolation::kLinear) {
  Clip clip;
  clip.name = name;
  clip.joints.resize(2);
  Vec3Channel ch;
  ch.interpolation = interpolation;
  const size_t keys =
      interpolation == Interpolation::kCubicSpline ? values.size() / 3 : values.size();
  for (size_t k = 0; k < keys; ++k) ch.times.push_back(static_cast<float>(k));
  ch.values = std::move(values);
  clip.vec3_channels.push_back(ch);
  clip.joints[0].scale = 0;
  EXPECT_TRUE(clip.finalize(2));
  return clip;
}

TEST(JointScales, RestPoseOnlyIsUnit) {
  const JointScales s = joint_scales(two_joint_rig(), {});
  EXPECT_TRUE(s.unit);
  ASSERT_EQ(s.bound.size(), 2u);
  EXPECT_NEAR(s.bound[0], 1.0f, 1e-3f);
  EXPECT_NEAR(s.bound[1], 1.0f, 1e-3f);
}

TEST(JointScales, RootTransformAndClipScalesMultiplyDownTheChain) {
  // A 0.01 unit scale above the roots, and a clip scaling the lower joint up to 3 on one
  // axis: the upper joint's matrix may stretch by 0.01 x 3.
  const std::vector<Clip> clips = {lower_joint_clip("grow", {{1, 1, 1}, {1, 3, 1}})};
  const JointScales s =
      joint_scales(two_joint_rig(glm::scale(glm::mat4(1.0f), glm::vec3(0.01f))), clips);
  EXPECT_FALSE(s.unit);
  EXPECT_NEAR(s.bound[0], 0.03f, 1e-5f);
  EXPECT_NEAR(s.bound[1], 0.03f, 1e-5f);
}

TEST(JointScales, CubicOvershootIsBounded) {
  // Scale 1 at both keys, out-tangent 27 / s over a 1 s segment: the curve peaks at
  // 1 + 27 x 4/27 = 5 (u = 1/3), which the bound must cover.
  const std::vector<Clip> clips = {lower_joint_clip(
      "overshoot", {{0, 0, 0}, {1, 1, 1}, {27, 0, 0}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}},
      Interpolation::kCubicSpline)};
  EXPECT_NEAR(clips[0].vec3_channels[0].sample(1.0f / 3.0f).x, 5.0f, 1e-4f);
  const JointScales s = joint_scales(two_joint_rig(), clips);
  EXPECT_NEAR(s.bound[0], 5.0f, 1e-3f);
  EXPECT_FALSE(s.unit);
}

TEST(MakeHitVolumes, ExtentsAreTheFarthestPointTimesTheScaleBound) {
  JointScales scales;
  scales.bound = {1.0f, 2.0f};
  std::vector<HitCapsule> caps(2);
  caps[1] = {{0, 0, 0}, {0, 1, 0}, 0.25f};  // (1 + 0.25) x 2 = 2.5
  const HitVolumes v = make_hit_volumes(caps, scales);
  EXPECT_FALSE(v.empty);
  EXPECT_EQ(v.extents, (std::vector<float>{0.0f, 2.5f}));
  EXPECT_FLOAT_EQ(v.capsule_reach, 2.5f);
  EXPECT_TRUE(make_hit_volumes(std::vector<HitCapsule>(2), scales).empty);
}

TEST(PoseBound, BoxCentreAndHalfDiagonal) {
  std::vector<glm::mat4> model(3, glm::mat4(1.0f));
  model[0][3] = {1, 0, 0, 1};
  model[1][3] = {3, 4, 0, 1};
  model[2][3] = {2, 2, 2, 1};
  const PoseBound b = pose_bound(model);
  EXPECT_EQ(b.center, glm::vec3(2, 2, 1));
  EXPECT_NEAR(b.radius, std::sqrt(1.0f + 4.0f + 1.0f), 1e-3f);
}

TEST(EditHitVolumes, ReplacesRemovesAndRecomputesTheBound) {
  const Asset a = make_builtin_character();
  const int head = a.skeleton.find_joint("head");
  const int hips = a.skeleton.find_joint("hips");
  const std::vector<CapsuleEdit> edits = {{head, {{0, 0, 0}, {0, 0.3f, 0}, 2.0f}}, {hips, {}}};
  auto v = edit_hit_volumes(a.hit_volumes, edits);
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(v->capsules[static_cast<size_t>(head)].radius, 2.0f);
  EXPECT_FALSE(v->capsules[static_cast<size_t>(hips)].present());
  EXPECT_EQ(v->extents[static_cast<size_t>(hips)], 0.0f);
  EXPECT_NEAR(v->capsule_reach, 2.3f, 1e-3f);                          // the 2 m head: 0.3 + 2
  EXPECT_EQ(v->capsules[0].radius, a.hit_volumes.capsules[0].radius);  // the rest kept
}

TEST(EditHitVolumes, BadEditsAreRefusedByPosition) {
  const Asset a = make_builtin_character();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto fails = [&](std::vector<CapsuleEdit> e) {
    auto v = edit_hit_volumes(a.hit_volumes, e);
    return v ? std::string("accepted") : v.error().message();
  };
  EXPECT_EQ(fails({{1, {}}, {99, {}}}),
            "capsule edit 1: joint index 99 out of range (the skeleton has 22 joints)");
  EXPECT_EQ(fails({{3, {}}, {3, {}}}), "capsule edit 1: joint 3 is given twice");
  EXPECT_EQ(fails({{3, {{0, 0, 0}, {0, 1, 0}, -0.5f}}}), "capsule edit 0: the radius is negative");
  EXPECT_EQ(fails({{3, {{0, nan, 0}, {0, 1, 0}, 0.5f}}}),
            "capsule edit 0: a value is NaN or infinite");
}

// Two joints: "lower" at the model origin and "upper" at (0, 1, 0), each with the capsule
// (0,0,0)-(0,1,0) radius 0.2 in its own space.
struct TwoCapsules {
  HitVolumes volumes;
  std::vector<glm::mat4> model = {glm::mat4(1.0f),
                                  glm::translate(glm::mat4(1.0f), glm::vec3(0, 1, 0))};
  TwoCapsules() {
    volumes = make_hit_volumes({{{0, 0, 0}, {0, 1, 0}, 0.2f}, {{0, 0, 0}, {0, 1, 0}, 0.2f}},
                               JointScales{{1.0f, 1.0f}, true});
  }
};

TEST(RaycastPose, NearestCapsuleOfThePlacedCharacter) {
  TwoCapsules c;
  Transform root;
  root.translation = {10, 0, 0};
  const HitPose pose = hit_pose(c.model, root);
  // At y = 1.5 (the upper capsule's body) from x = 5: the surface is at x = 9.8.
  auto hit = raycast_pose(c.volumes, pose, Ray{{5, 1.5f, 0}, {1, 0, 0}, 100});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->joint, 1);
  EXPECT_NEAR(hit->distance, 4.8f, kEps);
  expect_near(hit->point, {9.8f, 1.5f, 0});
  expect_near(hit->normal, {-1, 0, 0});
  hit = raycast_pose(c.volumes, pose, Ray{{5, 0.5f, 0}, {1, 0, 0}, 100});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->joint, 0);
  // At y = 1 both capsules are entered at the same distance: the lower index wins.
  hit = raycast_pose(c.volumes, pose, Ray{{5, 1.0f, 0}, {1, 0, 0}, 100});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->joint, 0);
  // From above, straight down the axis: the upper capsule's top cap (y = 2.2) first.
  hit = raycast_pose(c.volumes, pose, Ray{{10, 5, 0}, {0, -1, 0}, 100});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->joint, 1);
  EXPECT_NEAR(hit->distance, 2.8f, kEps);
  EXPECT_FALSE(raycast_pose(c.volumes, pose, Ray{{5, 1.5f, 0}, {1, 0, 0}, 4.7f}));
  EXPECT_FALSE(raycast_pose(c.volumes, pose, Ray{{5, 2.5f, 0}, {1, 0, 0}, 100}));
}

TEST(RaycastPose, RootScaleScalesEndsAndRadius) {
  TwoCapsules c;
  Transform root;
  root.scale = glm::vec3(2.0f);
  const HitPose pose = hit_pose(c.model, root);
  // Upper capsule: y 2..4, radius 0.4: from x = -5 at y = 3 the surface is at x = -0.4.
  const auto hit = raycast_pose(c.volumes, pose, Ray{{-5, 3, 0}, {1, 0, 0}, 100});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->joint, 1);
  EXPECT_NEAR(hit->distance, 4.6f, kEps);
}

TEST(RaycastPose, SkippingFarJointsNeverChangesTheAnswer) {
  // Random rays near a walking built-in character: with the per-joint skip (extents) and
  // without it, the same joint at the same distance.
  const Asset asset = make_builtin_character();
  Animator a(asset.skeleton, asset.clips);
  Transform root;
  root.translation = {1, 0, -2};
  root.rotation = glm::angleAxis(1.1f, glm::vec3(0, 1, 0));
  root.scale = glm::vec3(1.2f);
  ASSERT_TRUE(a.set_root_transform(root));
  ASSERT_TRUE(a.play(asset.find_clip("walk")));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int hits = 0;
  for (int step = 0; step < 20; ++step) {
    ASSERT_TRUE(a.update(0.05f));
    const HitPose fast = hit_pose(a.model_matrices(), root, true);
    const HitPose full = hit_pose(a.model_matrices(), root, false);
    for (int k = 0; k < 100; ++k) {
      const glm::vec3 target =
          root.translation + glm::vec3(0.6f * u(rng), 1.1f + u(rng), 0.6f * u(rng));
      const glm::vec3 from =
          target + 3.0f * glm::normalize(glm::vec3(u(rng), 0.3f * u(rng), u(rng)));
      const Ray ray{from, glm::normalize(target - from), 10.0f};
      const auto x = raycast_pose(asset.hit_volumes, fast, ray);
      const auto y = raycast_pose(asset.hit_volumes, full, ray);
      ASSERT_EQ(x.has_value(), y.has_value());
      if (!x) continue;
      ++hits;
      EXPECT_EQ(x->joint, y->joint);
      EXPECT_EQ(x->distance, y->distance);
    }
  }
  EXPECT_GT(hits, 200);  // the rays do hit, so the comparison means something
}

TEST(OverlapPose, JointsTheSphereTouches) {
  TwoCapsules c;
  const HitPose pose = hit_pose(c.model, Transform{});
  std::vector<uint32_t> joints;
  overlap_pose(c.volumes, pose, {0.5f, 1.0f, 0}, 0.31f, joints);  // at the joint between
  EXPECT_EQ(joints, (std::vector<uint32_t>{0, 1}));
  joints.clear();
  overlap_pose(c.volumes, pose, {0.5f, 1.8f, 0}, 0.31f, joints);
  EXPECT_EQ(joints, (std::vector<uint32_t>{1}));
  joints.clear();
  overlap_pose(c.volumes, pose, {0.5f, 1.8f, 0}, 0.29f, joints);
  EXPECT_TRUE(joints.empty());
}

// In every sampled pose, every capsule lies within the pose's bound grown by the asset's
// capsule reach (what the daemon's broad phase relies on), and each within its joint's extent.
void expect_within_bound(const Asset& asset, const Animator& a) {
  const HitPose pose = hit_pose(a.model_matrices(), a.root_transform());
  const PoseBound bound = pose_bound(a.model_matrices());
  const float scale = pose.root_scale;
  const glm::vec3 center = transform_point(a.root_transform(), bound.center);
  const float radius = (bound.radius + asset.hit_volumes.capsule_reach) * scale;
  for (size_t j = 0; j < asset.hit_volumes.capsules.size(); ++j) {
    const HitCapsule& c = asset.hit_volumes.capsules[j];
    if (!c.present()) continue;
    const WorldCapsule w = world_capsule(c, pose, static_cast<int>(j));
    const glm::vec3 origin(pose.root * pose.model[j][3]);
    const float far = std::max(glm::length(w.a - center), glm::length(w.b - center)) + w.radius;
    ASSERT_LE(far, radius) << asset.name << " joint " << asset.skeleton.names[j];
    const float from_joint =
        std::max(glm::length(w.a - origin), glm::length(w.b - origin)) + w.radius;
    ASSERT_LE(from_joint, asset.hit_volumes.extents[j] * scale * (1 + 1e-5f))
        << asset.name << " joint " << asset.skeleton.names[j];
  }
}

// Every joint origin of the pose lies within the reach bound made from its local transforms
// alone (what the daemon places a character with when it computed no matrices).
void expect_within_reach(const Asset& asset, const PoseReach& reach, const Animator& a) {
  const PoseBound b = reach_bound(asset.skeleton, reach, a.local_pose().locals);
  for (size_t j = 0; j < a.model_matrices().size(); ++j) {
    const glm::vec3 origin(a.model_matrices()[j][3]);
    ASSERT_LE(glm::length(origin - b.center), b.radius)
        << asset.name << " joint " << asset.skeleton.names[j];
  }
}

void check_bound_over_clips(const Asset& asset, int additive_clip) {
  const PoseReach reach = pose_reach(asset.skeleton, asset.clips, asset.hit_volumes.scales);
  ASSERT_TRUE(std::isfinite(reach.radius)) << asset.name;
  ASSERT_FALSE(asset.hit_volumes.empty);
  Transform root;
  root.translation = {3, 0, -2};
  root.rotation = glm::angleAxis(0.7f, glm::vec3(0, 1, 0));
  root.scale = glm::vec3(1.5f);
  // Scales stay within their bounds with additive layers only when nothing animates scale.
  const bool layers = additive_clip >= 0 && asset.hit_volumes.scales.unit;
  for (int clip = 0; clip < static_cast<int>(asset.clips.size()); ++clip) {
    for (int layered = 0; layered < (layers ? 2 : 1); ++layered) {
      Animator a(asset.skeleton, asset.clips);
      ASSERT_TRUE(a.set_root_transform(root));
      ASSERT_TRUE(a.play(clip));
      // A crossfade toward the next clip halfway through, and an additive layer.
      const int next = (clip + 1) % static_cast<int>(asset.clips.size());
      if (layered) {
        AdditiveLayerDesc d;
        d.clip = additive_clip;
        ASSERT_TRUE(a.add_layer(d));
      }
      const float duration = std::max(asset.clips[static_cast<size_t>(clip)].duration, 0.1f);
      for (int step = 0; step < 40; ++step) {
        if (step == 20) {
          ASSERT_TRUE(a.crossfade(next, duration * 0.3f));
        }
        ASSERT_TRUE(a.update(duration / 23.0f));
        expect_within_bound(asset, a);
        if (!layered) expect_within_reach(asset, reach, a);
      }
    }
  }
}

TEST(PoseReach, SumsTheLongestTranslationsDownEachChain) {
  // Root "lower" at the origin, "upper" 1 above: 1 from the root, whatever the rotations.
  const Skeleton s = two_joint_rig();
  const PoseReach reach = pose_reach(s, {}, joint_scales(s, {}));
  EXPECT_EQ(reach.center_joint, 0);
  EXPECT_NEAR(reach.radius, 1.0f, 1e-3f);
  EXPECT_GE(reach.radius, 1.0f);
  // The centre follows the root joint's translation, through the skeleton's root transform.
  std::vector<Transform> locals(2);
  locals[0].translation = {2, 0, 0};
  const Skeleton scaled = two_joint_rig(glm::scale(glm::mat4(1.0f), glm::vec3(2.0f)));
  const PoseReach r2 = pose_reach(scaled, {}, joint_scales(scaled, {}));
  const PoseBound b = reach_bound(scaled, r2, locals);
  expect_near(b.center, {4, 0, 0});
  EXPECT_NEAR(r2.radius, 2.0f, 2e-3f);  // the upper joint's 1, stretched by the root's 2
}

TEST(PoseBoundProperty, BuiltinCapsulesStayInsideTheirBound) {
  const Asset asset = make_builtin_character();
  check_bound_over_clips(asset, asset.find_clip("lean"));
}

TEST(PoseBoundProperty, SharedAssetsCapsulesStayInsideTheirBound) {
  ANIMD_REQUIRE_SHARED();
  for (const char* path : {"assets/Fox/glTF-Binary/Fox.glb", "assets/Bench64/bench64.glb",
                           "assets/CesiumMan/glTF-Binary/CesiumMan.glb"}) {
    auto asset = load_gltf(animtest::shared_path(path));
    ASSERT_TRUE(asset) << path << ": " << asset.error().message();
    SCOPED_TRACE(path);
    check_bound_over_clips(*asset, asset->clips.empty() ? -1 : 0);
  }
}

}  // namespace hit_volumes_test
}  // namespace anim

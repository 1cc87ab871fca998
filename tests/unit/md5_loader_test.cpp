// MD5 loader on small files written here: hand-computed bind vertices, rest locals, w
// recovery, sampled frames, flag subsets, and one error per kind of bad input.
#include "anim/loaders/md5_loader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>

#include <gtest/gtest.h>

#include <glm/gtc/quaternion.hpp>
#include "md5_chain_files.h"

#include "anim/palette.h"
#include "anim/skeleton.h"
#include "process_tmp_dir.h"

namespace anim {
namespace md5_loader_test {

constexpr float kPi = std::numbers::pi_v<float>;

std::string write_file(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = animtest::process_tmp_dir() / "md5";
  const std::filesystem::path file = dir / name;
  std::filesystem::create_directories(file.parent_path());
  const std::string path = file.string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Replaces the first occurrence of `from` (which must exist) by `to`.
std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in text";
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// Text up to (not including) the first occurrence of `marker`.
std::string cut_before(const std::string& s, const std::string& marker) {
  const size_t at = s.find(marker);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << marker << "' not in text";
  return s.substr(0, at);
}

void expect_vec3_near(const glm::vec3& a, const glm::vec3& b, float eps = 1e-5f) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
}

void expect_same_rotation(const glm::quat& a, const glm::quat& b, float eps = 1e-5f) {
  EXPECT_NEAR(std::abs(glm::dot(a, b)), 1.0f, eps) << "rotations differ";
}

using animtest::kChainAnim;
using animtest::kChainMesh;

class Md5Chain : public ::testing::Test {
 protected:
  void SetUp() override {
    mesh_path_ = write_file("chain.md5mesh", kChainMesh);
    anim_path_ = write_file("walk.md5anim", kChainAnim);
  }
  Expected<Asset> load_anim_text(const std::string& name, const std::string& text) {
    return load_md5(mesh_path_, {write_file(name, text)});
  }
  std::string mesh_path_, anim_path_;
};

TEST_F(Md5Chain, RestPoseLocalsAndWRecovery) {
  auto a = load_md5(mesh_path_, {});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  const Skeleton& s = a->skeleton;
  EXPECT_EQ(a->name, "chain");
  EXPECT_EQ(a->source, mesh_path_);
  ASSERT_EQ(s.num_joints(), 3);
  EXPECT_EQ(s.names[0], "root");
  EXPECT_EQ(s.parents[1], 0);
  EXPECT_EQ(s.parents[2], 1);
  // Root: local = Doom model transform; x y z = 0 recovers w = -1 (Doom's negative-w rule).
  EXPECT_FLOAT_EQ(s.rest_pose[0].rotation.w, -1.0f);
  expect_vec3_near(s.rest_pose[0].translation, {0, 0, 0});
  // mid: relative to root: translation (0 0 2), rotation 90 degrees about Z.
  expect_vec3_near(s.rest_pose[1].translation, {0, 0, 2});
  expect_same_rotation(s.rest_pose[1].rotation, glm::angleAxis(kPi / 2, glm::vec3(0, 0, 1)));
  // tip: (1 0 2) - (0 0 2) = (1 0 0) seen from mid (rotated 90 degrees about Z) is (0 -1 0);
  // same orientation as mid, so no local rotation.
  expect_vec3_near(s.rest_pose[2].translation, {0, -1, 0});
  expect_same_rotation(s.rest_pose[2].rotation, glm::quat(1, 0, 0, 0));
  // Z-up -> Y-up: (x, y, z) -> (x, z, -y).
  const glm::vec4 z_up = s.root_transform * glm::vec4(0, 0, 1, 0);
  expect_vec3_near(glm::vec3(z_up), {0, 1, 0});
  const glm::vec4 y_doom = s.root_transform * glm::vec4(0, 1, 0, 0);
  expect_vec3_near(glm::vec3(y_doom), {0, 0, -1});
}

TEST_F(Md5Chain, BindPaletteIsIdentity) {
  auto a = load_md5(mesh_path_, {});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  std::vector<glm::mat4> model(3);
  std::vector<PaletteMatrix> palette(3);
  local_to_model(a->skeleton, a->skeleton.rest_pose, model);
  build_palette(a->skeleton, model, palette);
  for (int j = 0; j < 3; ++j) {
    const glm::mat4 p = palette[j].to_mat4();
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) EXPECT_NEAR(p[c][r], c == r ? 1.0f : 0.0f, 1e-6f) << j;
  }
  // tip's model position, Doom (1 0 2) -> ours (1 2 0).
  expect_vec3_near(glm::vec3(model[2][3]), {1, 2, 0});
}

TEST_F(Md5Chain, BindVerticesWindingNormalsAndInfluences) {
  auto a = load_md5(mesh_path_, {});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  const SkinnedMesh& m = a->mesh;
  ASSERT_EQ(m.num_vertices(), 4);
  // vert 0: root (identity at origin) + (1 0 0) -> Doom (1 0 0) -> ours (1 0 0).
  expect_vec3_near(m.positions[0], {1, 0, 0});
  // vert 1: mid (0 0 2) + Rz90 (1 0 0) = (0 1 2) -> ours (0 2 -1).
  expect_vec3_near(m.positions[1], {0, 2, -1});
  // vert 2: 0.25 * mid (0 0 2) + 0.75 * (tip (1 0 2) + Rz90 (0 0 1)) = (0.75 0 2.75)
  //         -> ours (0.75 2.75 0).
  expect_vec3_near(m.positions[2], {0.75f, 2.75f, 0});
  // Second mesh: the four weights, all at their joint's origin:
  // 0.1 root + 0.3 tip + 0.2 root + 0.4 mid = 0.3 (0 0 0) + 0.3 (1 0 2) + 0.4 (0 0 2)
  // = (0.3 0 1.4) -> ours (0.3 1.4 0).
  expect_vec3_near(m.positions[3], {0.3f, 1.4f, 0});

  // Clockwise (0 1 2) becomes counter-clockwise (0 2 1); the second mesh has no triangles.
  ASSERT_EQ(m.indices.size(), 3u);
  EXPECT_EQ(m.indices[0], 0u);
  EXPECT_EQ(m.indices[1], 2u);
  EXPECT_EQ(m.indices[2], 1u);
  ASSERT_EQ(m.submeshes.size(), 2u);
  EXPECT_EQ(m.submeshes[0].material, "skin");
  EXPECT_EQ(m.submeshes[0].first_index, 0u);
  EXPECT_EQ(m.submeshes[0].index_count, 3u);
  EXPECT_EQ(m.submeshes[1].material, "cap");
  EXPECT_EQ(m.submeshes[1].index_count, 0u);

  // Face normal of (p0, p2, p1): cross(p2 - p0, p1 - p0) = cross((-0.25 2.75 0), (-1 2 -1))
  // = (-2.75 -0.25 2.25), normalized; shared by all three corners.
  const glm::vec3 n = glm::normalize(glm::vec3(-2.75f, -0.25f, 2.25f));
  for (int v = 0; v < 3; ++v) expect_vec3_near(m.normals[v], n);
  // A vertex in no triangle still gets a unit normal.
  EXPECT_NEAR(glm::length(m.normals[3]), 1.0f, 1e-6f);

  ASSERT_EQ(m.uvs.size(), 4u);
  EXPECT_EQ(m.uvs[2], glm::vec2(0.5f, 1.0f));

  // vert 2: tip 0.75, mid 0.25, strongest first.
  EXPECT_EQ(m.joints[2][0], 2);
  EXPECT_EQ(m.joints[2][1], 1);
  EXPECT_NEAR(m.weights[2].x, 0.75f, 1e-6f);
  EXPECT_NEAR(m.weights[2].y, 0.25f, 1e-6f);
  EXPECT_EQ(m.weights[2].z, 0.0f);
  // The cap vertex: root's two weights merge (0.3), so mid 0.4, then root 0.3 and tip 0.3
  // (equal: the lower joint index first).
  EXPECT_EQ(m.joints[3][0], 1);
  EXPECT_EQ(m.joints[3][1], 0);
  EXPECT_EQ(m.joints[3][2], 2);
  EXPECT_NEAR(m.weights[3].x, 0.4f, 1e-6f);
  EXPECT_NEAR(m.weights[3].y, 0.3f, 1e-6f);
  EXPECT_NEAR(m.weights[3].z, 0.3f, 1e-6f);
  EXPECT_EQ(m.weights[3].w, 0.0f);
}

TEST(Md5Influences, KeepsFourStrongestRenormalized) {
  // Six joints at the origin; one vertex with six weights on six different joints.
  std::string text = R"(MD5Version 10
numJoints 6
numMeshes 1
joints {
	"a" -1 ( 0 0 0 ) ( 0 0 0 )
	"b" 0 ( 0 0 0 ) ( 0 0 0 )
	"c" 0 ( 0 0 0 ) ( 0 0 0 )
	"d" 0 ( 0 0 0 ) ( 0 0 0 )
	"e" 0 ( 0 0 0 ) ( 0 0 0 )
	"f" 0 ( 0 0 0 ) ( 0 0 0 )
}
mesh {
	shader ""
	numverts 1
	vert 0 ( 0 0 ) 0 6
	numtris 0
	numweights 6
	weight 0 0 0.05 ( 1 0 0 )
	weight 1 1 0.3 ( 1 0 0 )
	weight 2 2 0.1 ( 1 0 0 )
	weight 3 3 0.2 ( 1 0 0 )
	weight 4 4 0.25 ( 1 0 0 )
	weight 5 5 0.1 ( 1 0 0 )
}
)";
  auto a = load_md5(write_file("six.md5mesh", text), {});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  const SkinnedMesh& m = a->mesh;
  // Kept: b 0.3, e 0.25, d 0.2, c 0.1 (c before f on the tie); sum 0.85.
  EXPECT_EQ(m.joints[0][0], 1);
  EXPECT_EQ(m.joints[0][1], 4);
  EXPECT_EQ(m.joints[0][2], 3);
  EXPECT_EQ(m.joints[0][3], 2);
  EXPECT_NEAR(m.weights[0].x, 0.3f / 0.85f, 1e-6f);
  EXPECT_NEAR(m.weights[0].y, 0.25f / 0.85f, 1e-6f);
  EXPECT_NEAR(m.weights[0].z, 0.2f / 0.85f, 1e-6f);
  EXPECT_NEAR(m.weights[0].w, 0.1f / 0.85f, 1e-6f);
  // The bind position uses every weight: sum of biases (1.0) * (1 0 0).
  expect_vec3_near(m.positions[0], {1, 0, 0});
}

TEST(Md5Normals, OverflowingFaceNormalsFallBackToUp) {
  // A weight of 1.7e24 puts vertex 0 far out: the face normal's cross product overflows into
  // infinite and NaN components, which must not reach the mesh.
  const std::string text = R"(MD5Version 10
numJoints 2
numMeshes 1
joints {
	"hip" -1 ( 0 0 0 ) ( 0 0 0 )
	"knee" 0 ( 0 0 1 ) ( 5 0 0 )
}
mesh {
	shader "leg"
	numverts 3
	vert 0 ( 0 0 ) 0 1
	vert 1 ( 1 0 ) 1 1
	vert 2 ( 0 1 ) 2 2
	numtris 1
	tri 0 0 1 2
	numweights 4
	weight 0 0 1666666666666666666666666.0 ( 1 0 2 )
	weight 1 1 1.0 ( 1 0 0 )
	weight 2 0 0.5 ( 0 1 0 )
	weight 3 1 5.5 ( 2 1 0 )
}
)";
  auto a = load_md5(write_file("overflow.md5mesh", text), {});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  for (const glm::vec3& n : a->mesh.normals) {
    ASSERT_TRUE(is_finite(n));
    EXPECT_NEAR(glm::length(n), 1.0f, 1e-5f);
  }
}

TEST_F(Md5Chain, TwoFrameAnimSampledAtAndBetweenFrames) {
  auto a = load_md5(mesh_path_, {anim_path_});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  EXPECT_EQ(a->source, mesh_path_ + "; " + anim_path_);
  ASSERT_EQ(a->clips.size(), 1u);
  const Clip& c = a->clips[0];
  EXPECT_EQ(c.name, "walk");
  EXPECT_FLOAT_EQ(c.duration, 0.1f);
  const Skeleton& s = a->skeleton;
  const auto rz = [](float deg) { return glm::angleAxis(deg * kPi / 180, glm::vec3(0, 0, 1)); };

  const Transform r0 = c.sample_joint(0, 0.0f, s.rest_pose[0]);
  const Transform m0 = c.sample_joint(1, 0.0f, s.rest_pose[1]);
  expect_vec3_near(r0.translation, {0, 0, 0});
  expect_same_rotation(r0.rotation, glm::quat(1, 0, 0, 0));
  expect_vec3_near(m0.translation, {0, 0, 2});  // baseframe: Tx..Tz are not animated
  expect_same_rotation(m0.rotation, rz(90));

  const Transform r1 = c.sample_joint(0, 0.05f, s.rest_pose[0]);
  const Transform m1 = c.sample_joint(1, 0.05f, s.rest_pose[1]);
  expect_vec3_near(r1.translation, {1, 0, 2});
  expect_same_rotation(m1.rotation, rz(45));  // slerp half way from 90 to 0 degrees

  const Transform r2 = c.sample_joint(0, 0.1f, s.rest_pose[0]);
  const Transform m2 = c.sample_joint(1, 0.1f, s.rest_pose[1]);
  expect_vec3_near(r2.translation, {2, 0, 4});
  expect_same_rotation(m2.rotation, glm::quat(1, 0, 0, 0));

  // At frame 1 in model space: root Doom (2 0 4) -> mid (2 0 6) -> tip (2 -1 6) (mid is now
  // unrotated), i.e. ours (2 6 1).
  std::vector<Transform> locals(3);
  c.sample(0.1f, s.rest_pose, locals);
  std::vector<glm::mat4> model(3);
  local_to_model(s, locals, model);
  expect_vec3_near(glm::vec3(model[2][3]), {2, 6, 1});

  // Channel layout: root translation with 2 keys; root rotation constant at rest (dropped);
  // mid rotation with 2 keys, mid translation constant at rest (dropped); tip untouched.
  ASSERT_GE(c.joints[0].translation, 0);
  EXPECT_EQ(c.vec3_channels[c.joints[0].translation].num_keys(), 2);
  EXPECT_EQ(c.vec3_channels[c.joints[0].translation].interpolation, Interpolation::kLinear);
  EXPECT_EQ(c.joints[0].rotation, -1);
  ASSERT_GE(c.joints[1].rotation, 0);
  EXPECT_EQ(c.quat_channels[c.joints[1].rotation].num_keys(), 2);
  EXPECT_EQ(c.joints[1].translation, -1);
}

TEST_F(Md5Chain, JointNeverAnimatedKeepsRest) {
  auto a = load_md5(mesh_path_, {anim_path_});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  const Clip& c = a->clips[0];
  EXPECT_EQ(c.joints[2].translation, -1);
  EXPECT_EQ(c.joints[2].rotation, -1);
  EXPECT_EQ(c.joints[2].scale, -1);
  for (float t : {0.0f, 0.03f, 0.1f}) {
    const Transform tip = c.sample_joint(2, t, a->skeleton.rest_pose[2]);
    EXPECT_EQ(tip.translation, a->skeleton.rest_pose[2].translation);
    EXPECT_EQ(tip.rotation, a->skeleton.rest_pose[2].rotation);
  }
}

TEST_F(Md5Chain, FlagSubsetsReadTheirComponentsInOrder) {
  // root: Ty and Qy (flags 2 | 16 = 18) from components 0, 1; mid: Qx and Qz (8 | 32 = 40)
  // from components 2, 3; tip: Tz (4) from component 4, the same in both frames.
  std::string text = kChainAnim;
  text = replace(text, "numAnimatedComponents 4", "numAnimatedComponents 5");
  text = replace(text, "\"root\"\t-1 7 0", "\"root\"\t-1 18 0");
  text = replace(text, "\"mid\"\t0 32 3", "\"mid\"\t0 40 2");
  text = replace(text, "\"tip\"\t1 0 4", "\"tip\"\t1 4 4");
  text = replace(text, "( 0 0 0 ) ( 0 0 0 )\n\t( 0 0 2 )", "( 1 2 3 ) ( 0 0 0 )\n\t( 0 0 2 )");
  text = replace(text, "0 0 0 -0.70710678\n", "5 0 0 -0.70710678 9\n");
  text = replace(text, "2 0 4 0\n", "7 0.6 0.6 0 9\n");
  auto a = load_anim_text("subsets.md5anim", text);
  ASSERT_TRUE(a.has_value()) << a.error().message();
  const Clip& c = a->clips[0];
  const Skeleton& s = a->skeleton;
  const Transform r0 = c.sample_joint(0, 0.0f, s.rest_pose[0]);
  const Transform r1 = c.sample_joint(0, 0.1f, s.rest_pose[0]);
  expect_vec3_near(r0.translation, {1, 5, 3});  // x, z from the baseframe
  expect_vec3_near(r1.translation, {1, 7, 3});
  expect_same_rotation(r0.rotation, glm::quat(1, 0, 0, 0));
  expect_same_rotation(r1.rotation, glm::quat(-0.8f, 0, 0.6f, 0));  // w = -sqrt(1 - 0.36)
  const Transform m0 = c.sample_joint(1, 0.0f, s.rest_pose[1]);
  const Transform m1 = c.sample_joint(1, 0.1f, s.rest_pose[1]);
  expect_same_rotation(m0.rotation, glm::quat(-0.70710678f, 0, 0, -0.70710678f));
  expect_same_rotation(m1.rotation, glm::quat(-0.8f, 0.6f, 0, 0));
  // tip: constant (0 -1 9) in both frames, not its rest: a single key.
  ASSERT_GE(c.joints[2].translation, 0);
  const Vec3Channel& tip = c.vec3_channels[c.joints[2].translation];
  EXPECT_EQ(tip.num_keys(), 1);
  expect_vec3_near(tip.values[0], {0, -1, 9});
  expect_vec3_near(c.sample_joint(2, 0.07f, s.rest_pose[2]).translation, {0, -1, 9});
}

TEST_F(Md5Chain, BaseframeDifferentFromRestIsUsedForUnanimatedJoint) {
  // tip has flags 0 but its baseframe puts it at (0 -3 0): a constant channel, not rest.
  std::string text = replace(kChainAnim, "( 0 -1 0 ) ( 0 0 0 )", "( 0 -3 0 ) ( 0 0 0 )");
  auto a = load_anim_text("moved.md5anim", text);
  ASSERT_TRUE(a.has_value()) << a.error().message();
  const Clip& c = a->clips[0];
  ASSERT_GE(c.joints[2].translation, 0);
  EXPECT_EQ(c.vec3_channels[c.joints[2].translation].num_keys(), 1);
  expect_vec3_near(c.sample_joint(2, 0.05f, a->skeleton.rest_pose[2]).translation, {0, -3, 0});
}

// ---- Bad input: each is an error naming the file and the problem; nothing is returned.

void expect_error(const Expected<Asset>& a, const std::string& path,
                  std::initializer_list<std::string> parts) {
  ASSERT_FALSE(a.has_value()) << "expected an error for " << path;
  const std::string& msg = a.error().message();
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
}

Expected<Asset> load_mesh_text(const std::string& name, const std::string& text,
                               std::string* path) {
  *path = write_file(name, text);
  return load_md5(*path, {});
}

TEST(Md5Errors, MissingFile) {
  const std::string path = (animtest::process_tmp_dir() / "md5").string() + "/no-such.md5mesh";
  auto a = load_md5(path, {});
  expect_error(a, path, {"not found"});
  EXPECT_EQ(a.error().code(), StatusCode::kNotFound);
}

TEST_F(Md5Chain, MissingAnimFile) {
  const std::string path = (animtest::process_tmp_dir() / "md5").string() + "/no-such.md5anim";
  expect_error(load_md5(mesh_path_, {path}), path, {"not found"});
}

TEST(Md5Errors, TruncatedMidJoints) {
  std::string path;
  // Ends inside mid's position, on line 9.
  auto a = load_mesh_text("cut_joints.md5mesh", cut_before(kChainMesh, "2 ) ( 0 0 -0.7"), &path);
  expect_error(a, path, {":9:", "expected joint position", "end of file"});
  EXPECT_EQ(a.error().code(), StatusCode::kDataLoss);
}

TEST(Md5Errors, TruncatedMidMesh) {
  std::string path;
  auto a = load_mesh_text("cut_mesh.md5mesh", cut_before(kChainMesh, "weight 2 1"), &path);
  expect_error(a, path, {"expected 'weight'", "end of file"});
}

TEST_F(Md5Chain, TruncatedMidFrame) {
  const std::string text = cut_before(kChainAnim, "4 0\n}");
  const std::string path = write_file("cut_frame.md5anim", text);
  expect_error(load_md5(mesh_path_, {path}), path,
               {":31:", "expected frame 1 component", "end of file"});
}

TEST(Md5Errors, WeightJointIndexOutOfRange) {
  std::string path;
  auto a = load_mesh_text("bad_weight.md5mesh",
                          replace(kChainMesh, "weight 3 2 0.75", "weight 3 3 0.75"), &path);
  expect_error(a, path, {":25:", "weight 3 joint index 3 is out of range"});
}

TEST(Md5Errors, ParentOutOfRange) {
  std::string path;
  auto a =
      load_mesh_text("bad_parent.md5mesh", replace(kChainMesh, "\"tip\"\t1", "\"tip\"\t5"), &path);
  expect_error(a, path, {":10:", "parent index of joint 'tip' 5 is out of range"});
}

TEST(Md5Errors, SecondRootJoint) {
  // tip (line 10) claims parent -1 while root (line 8) already has it.
  std::string path;
  auto a =
      load_mesh_text("two_roots.md5mesh", replace(kChainMesh, "\"tip\"\t1", "\"tip\"\t-1"), &path);
  expect_error(a, path, {":10:", "joint 'tip' is a second root", "joint 'root' on line 8"});
  EXPECT_EQ(a.error().code(), StatusCode::kInvalidArgument);
}

TEST(Md5Errors, CyclicHierarchy) {
  std::string text = replace(kChainMesh, "\"root\"\t-1", "\"root\"\t2");
  std::string path;
  auto a = load_mesh_text("cycle.md5mesh", text, &path);
  expect_error(a, path, {"cycle"});
}

TEST(Md5Errors, StartWeightPlusCountOutOfRange) {
  std::string path;
  auto a = load_mesh_text("bad_range.md5mesh",
                          replace(kChainMesh, "vert 2 ( 0.5 1.0 ) 2 2", "vert 2 ( 0.5 1.0 ) 3 2"),
                          &path);
  expect_error(a, path, {":18:", "vert 2 uses weights 3..4 but the mesh has 4 weights"});
}

TEST(Md5Errors, TriangleVertexOutOfRange) {
  std::string path;
  auto a =
      load_mesh_text("bad_tri.md5mesh", replace(kChainMesh, "tri 0 0 1 2", "tri 0 0 1 3"), &path);
  expect_error(a, path, {":20:", "vertex index 3 is out of range"});
}

TEST(Md5Errors, VerticesOutOfOrder) {
  std::string path;
  auto a = load_mesh_text("order.md5mesh", replace(kChainMesh, "vert 1 (", "vert 2 ("), &path);
  expect_error(a, path, {":17:", "expected mesh 0 vert index 1, found 2"});
}

TEST(Md5Errors, NanInMesh) {
  std::string path;
  auto a = load_mesh_text("nan.md5mesh", replace(kChainMesh, "( 1 0 2 )", "( 1 nan 2 )"), &path);
  expect_error(a, path, {":10:", "not a finite number"});
}

TEST(Md5Errors, OverflowingBindPosition) {
  std::string path;
  auto a = load_mesh_text(
      "overflow.md5mesh",
      replace(kChainMesh, "weight 0 0 1.0 ( 1 0 0 )", "weight 0 0 3e38 ( 3e38 0 0 )"), &path);
  expect_error(a, path, {":16:", "bind position overflows"});
}

TEST(Md5Errors, UnsupportedVersion) {
  std::string path;
  auto a =
      load_mesh_text("v6.md5mesh", replace(kChainMesh, "MD5Version 10", "MD5Version 6"), &path);
  expect_error(a, path, {":1:", "MD5Version 6"});
}

TEST_F(Md5Chain, NanInFrame) {
  const std::string path = write_file("nan.md5anim", replace(kChainAnim, "2 0 4 0", "2 0 nan 0"));
  expect_error(load_md5(mesh_path_, {path}), path, {":31:", "'nan' is not a finite number"});
}

TEST_F(Md5Chain, InfinityInBaseframe) {
  const std::string path =
      write_file("inf.md5anim", replace(kChainAnim, "( 0 -1 0 )", "( 0 -1 1e40 )"));
  expect_error(load_md5(mesh_path_, {path}), path, {":23:", "not a finite number"});
}

TEST_F(Md5Chain, AnimWithDifferentJointName) {
  const std::string path =
      write_file("renamed.md5anim", replace(kChainAnim, "\"mid\"\t0", "\"middle\"\t0"));
  expect_error(load_md5(mesh_path_, {path}), path,
               {mesh_path_, ":11:", "joint 1 is 'middle'", "is 'mid'"});
}

TEST_F(Md5Chain, AnimWithDifferentParent) {
  const std::string path =
      write_file("reparented.md5anim", replace(kChainAnim, "\"tip\"\t1", "\"tip\"\t0"));
  expect_error(load_md5(mesh_path_, {path}), path,
               {mesh_path_, "joint 2 is 'tip' with parent 0", "with parent 1"});
}

TEST_F(Md5Chain, AnimWithDifferentJointCount) {
  const std::string path =
      write_file("fewer.md5anim", replace(kChainAnim, "numJoints 3", "numJoints 2"));
  expect_error(load_md5(mesh_path_, {path}), path, {mesh_path_, "numJoints 2"});
}

TEST_F(Md5Chain, TooFewAnimatedComponentsForFlags) {
  const std::string path = write_file(
      "short.md5anim", replace(kChainAnim, "numAnimatedComponents 4", "numAnimatedComponents 3"));
  expect_error(load_md5(mesh_path_, {path}), path,
               {":11:", "joint 'mid' needs components 3..3 but numAnimatedComponents is 3"});
}

TEST_F(Md5Chain, BadFrameRateAndFrameCount) {
  const std::string zero_rate =
      write_file("zero_rate.md5anim", replace(kChainAnim, "frameRate 10", "frameRate 0"));
  expect_error(load_md5(mesh_path_, {zero_rate}), zero_rate, {"frameRate must be > 0"});
  const std::string neg_rate =
      write_file("neg_rate.md5anim", replace(kChainAnim, "frameRate 10", "frameRate -24"));
  expect_error(load_md5(mesh_path_, {neg_rate}), neg_rate, {"frameRate must be > 0"});
  const std::string no_frames =
      write_file("no_frames.md5anim", replace(kChainAnim, "numFrames 2", "numFrames 0"));
  expect_error(load_md5(mesh_path_, {no_frames}), no_frames, {"numFrames must be > 0"});
}

TEST_F(Md5Chain, DuplicateClipName) {
  // Clip names come from file stems: two anims called walk.md5anim cannot both load.
  const std::string other = write_file("other/walk.md5anim", kChainAnim);
  expect_error(load_md5(mesh_path_, {anim_path_, other}), other, {"'walk' was already loaded"});
}

TEST_F(Md5Chain, TrailingGarbageAndHugeCounts) {
  const std::string garbage = write_file("garbage.md5anim", std::string(kChainAnim) + "frame 2 {");
  expect_error(load_md5(mesh_path_, {garbage}), garbage, {"unexpected content"});
  // A count far beyond what the file could hold is refused before allocating.
  std::string path;
  auto a = load_mesh_text("huge.md5mesh", replace(kChainMesh, "numverts 3", "numverts 2000000000"),
                          &path);
  expect_error(a, path, {"numverts 2000000000 is out of range"});
}

TEST_F(Md5Chain, EveryPrefixOfTheFilesFailsCleanly) {
  // Cut the files at every byte: each prefix either loads or gives an error naming the file.
  const std::string mesh_text = kChainMesh;
  for (size_t n = 0; n < mesh_text.size(); n += 3) {
    const std::string path = write_file("prefix.md5mesh", mesh_text.substr(0, n));
    auto a = load_md5(path, {});
    if (!a) {
      EXPECT_NE(a.error().message().find(path), std::string::npos);
    }
  }
  const std::string anim_text = kChainAnim;
  for (size_t n = 0; n + 1 < anim_text.size(); n += 3) {
    const std::string path = write_file("prefix.md5anim", anim_text.substr(0, n));
    auto a = load_md5(mesh_path_, {path});
    ASSERT_FALSE(a.has_value()) << "prefix of " << n << " bytes loaded";
    EXPECT_NE(a.error().message().find(path), std::string::npos) << a.error().message();
  }
}

TEST_F(Md5Chain, CorruptedBytesNeverCrashOrGiveInvalidAssets) {
  // Deterministic corruption: one or two bytes replaced by characters that matter to the
  // grammar. Every result is either an error naming the file or an asset that keeps every
  // invariant (valid skeleton, finite unit-sum weights, indices in range, unit normals).
  const std::string chars = "0123456789-.e{}()\"/ \nnX";
  uint32_t seed = 12345;
  auto next = [&seed](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  for (int iter = 0; iter < 400; ++iter) {
    const bool mesh = iter % 2 == 0;
    std::string text = mesh ? kChainMesh : kChainAnim;
    for (int k = 0; k < 1 + (iter / 2) % 2; ++k)
      text[next(static_cast<uint32_t>(text.size()))] =
          chars[next(static_cast<uint32_t>(chars.size()))];
    const std::string path = write_file(mesh ? "fuzz.md5mesh" : "fuzz.md5anim", text);
    auto a = mesh ? load_md5(path, {}) : load_md5(mesh_path_, {path});
    if (!a) {
      EXPECT_NE(a.error().message().find(path), std::string::npos) << a.error().message();
      continue;
    }
    EXPECT_TRUE(a->skeleton.validate().is_ok());
    const SkinnedMesh& m = a->mesh;
    for (int v = 0; v < m.num_vertices(); ++v) {
      const glm::vec4 w = m.weights[v];
      EXPECT_NEAR(w.x + w.y + w.z + w.w, 1.0f, 1e-5f);
      EXPECT_NEAR(glm::length(m.normals[v]), 1.0f, 1e-5f);
      EXPECT_TRUE(is_finite(m.positions[v]));
      for (uint16_t j : m.joints[v]) EXPECT_LT(j, a->skeleton.num_joints());
    }
    for (uint32_t i : m.indices) EXPECT_LT(i, static_cast<uint32_t>(m.num_vertices()));
    for (const Clip& c : a->clips)
      for (float t : {0.0f, 0.05f, 0.1f})
        for (int j = 0; j < a->skeleton.num_joints(); ++j)
          EXPECT_TRUE(is_finite(c.sample_joint(j, t, a->skeleton.rest_pose[j])));
  }
}

}  // namespace md5_loader_test
}  // namespace anim

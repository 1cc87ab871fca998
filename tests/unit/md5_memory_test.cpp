// load_md5_from_memory against load_md5: the same texts give the same asset (bit for bit, as
// both run one pipeline), errors name the label or "<stem>.md5anim", and only the bytes of
// each view are read.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/md5_loader.h"
#include "process_tmp_dir.h"

namespace anim {
namespace md5_memory_test {

// Two joints in Doom's Z-up space: "hip" at the origin, "knee" 1 unit above it; one triangle,
// vertex 2 split between both joints.
const char* kLegMesh = R"(MD5Version 10
commandline ""
numJoints 2
numMeshes 1
joints {
	"hip"	-1 ( 0 0 0 ) ( 0 0 0 )
	"knee"	0 ( 0 0 1 ) ( 0 0 0 )
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
	weight 0 0 1.0 ( 1 0 0 )
	weight 1 1 1.0 ( 1 0 0 )
	weight 2 0 0.5 ( 0 1 0 )
	weight 3 1 0.5 ( 0 1 0 )
}
)";

// Three frames at 24 fps: hip moves along +X (flag Tx), knee turns about Z (flag Qz).
const char* kKickAnim = R"(MD5Version 10
commandline ""
numFrames 3
numJoints 2
frameRate 24
numAnimatedComponents 2
hierarchy {
	"hip"	-1 1 0
	"knee"	0 32 1
}
bounds {
	( -1 -1 -1 ) ( 1 1 2 )
	( -1 -1 -1 ) ( 2 1 2 )
	( -1 -1 -1 ) ( 3 1 2 )
}
baseframe {
	( 0 0 0 ) ( 0 0 0 )
	( 0 0 1 ) ( 0 0 0 )
}
frame 0 {
	0 0
}
frame 1 {
	1 -0.38268343
}
frame 2 {
	2 -0.70710678
}
)";

std::string write_file(const std::string& name, std::string_view text) {
  const std::filesystem::path file = animtest::process_tmp_dir() / "md5mem" / name;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
  return file.string();
}

void expect_error_names(const Expected<Asset>& a, const std::string& who, const std::string& what) {
  ASSERT_FALSE(a.has_value()) << "expected an error naming " << who;
  const std::string& msg = a.error().message();
  EXPECT_NE(msg.find(who), std::string::npos) << msg;
  EXPECT_NE(msg.find(what), std::string::npos) << msg;
}

void expect_same_transform(const Transform& a, const Transform& b) {
  EXPECT_EQ(a.translation, b.translation);
  EXPECT_EQ(a.rotation, b.rotation);
  EXPECT_EQ(a.scale, b.scale);
}

TEST(Md5Memory, FileAndMemoryLoadsAgree) {
  const std::string mesh_path = write_file("leg.md5mesh", kLegMesh);
  const std::string anim_path = write_file("kick.md5anim", kKickAnim);
  auto from_file = load_md5(mesh_path, {anim_path});
  auto from_memory = load_md5_from_memory(kLegMesh, {{"kick", kKickAnim}}, "leg.md5mesh");
  ASSERT_TRUE(from_file.has_value()) << from_file.error().message();
  ASSERT_TRUE(from_memory.has_value()) << from_memory.error().message();
  const Asset& f = *from_file;
  const Asset& m = *from_memory;

  EXPECT_EQ(f.name, "leg");
  EXPECT_EQ(m.name, "leg");
  EXPECT_EQ(f.source, mesh_path + "; " + anim_path);
  EXPECT_EQ(m.source, "leg.md5mesh; kick.md5anim");

  ASSERT_EQ(m.skeleton.num_joints(), 2);
  EXPECT_EQ(m.skeleton.names, f.skeleton.names);
  EXPECT_EQ(m.skeleton.parents, f.skeleton.parents);
  EXPECT_EQ(m.skeleton.root_transform, f.skeleton.root_transform);
  EXPECT_EQ(m.skeleton.inverse_bind, f.skeleton.inverse_bind);
  for (int j = 0; j < 2; ++j)
    expect_same_transform(m.skeleton.rest_pose[j], f.skeleton.rest_pose[j]);

  ASSERT_EQ(m.mesh.num_vertices(), 3);
  EXPECT_EQ(m.mesh.positions, f.mesh.positions);
  EXPECT_EQ(m.mesh.normals, f.mesh.normals);
  EXPECT_EQ(m.mesh.uvs, f.mesh.uvs);
  EXPECT_EQ(m.mesh.joints, f.mesh.joints);
  EXPECT_EQ(m.mesh.weights, f.mesh.weights);
  EXPECT_EQ(m.mesh.indices, f.mesh.indices);
  ASSERT_EQ(m.mesh.submeshes.size(), 1u);
  EXPECT_EQ(m.mesh.submeshes[0].material, "leg");
  EXPECT_EQ(f.mesh.submeshes[0].material, "leg");

  ASSERT_EQ(m.clips.size(), 1u);
  ASSERT_EQ(f.clips.size(), 1u);
  EXPECT_EQ(m.clips[0].name, "kick");
  EXPECT_EQ(f.clips[0].name, "kick");
  EXPECT_FLOAT_EQ(m.clips[0].duration, 2.0f / 24.0f);
  EXPECT_EQ(m.clips[0].duration, f.clips[0].duration);
  for (float t : {0.0f, 0.02f, 1.0f / 24.0f, 0.07f, 2.0f / 24.0f})
    for (int j = 0; j < 2; ++j)
      expect_same_transform(m.clips[0].sample_joint(j, t, m.skeleton.rest_pose[j]),
                            f.clips[0].sample_joint(j, t, f.skeleton.rest_pose[j]));
  // The hip's x at frame 1 comes from the anim text (1 unit), through both paths.
  EXPECT_FLOAT_EQ(m.clips[0].sample_joint(0, 1.0f / 24.0f, m.skeleton.rest_pose[0]).translation.x,
                  1.0f);
}

TEST(Md5Memory, ReadsOnlyTheBytesOfEachView) {
  // Each text is a view into a larger buffer whose tail would not parse.
  const std::string mesh_buffer = std::string(kLegMesh) + "numJoints 9 {";
  const std::string anim_buffer = std::string(kKickAnim) + "frame 3 {";
  const std::string_view mesh_view(mesh_buffer.data(), std::string_view(kLegMesh).size());
  const std::string_view anim_view(anim_buffer.data(), std::string_view(kKickAnim).size());
  auto a = load_md5_from_memory(mesh_view, {{"kick", anim_view}}, "leg.md5mesh");
  ASSERT_TRUE(a.has_value()) << a.error().message();
  EXPECT_EQ(a->clips.size(), 1u);
  // The whole buffers do not load: the tails are really there.
  expect_error_names(load_md5_from_memory(mesh_buffer, {}, "leg.md5mesh"), "leg.md5mesh",
                     "unexpected content");
}

TEST(Md5Memory, MeshErrorsNameTheLabelAndLine) {
  std::string bad = kLegMesh;
  bad.replace(bad.find("numverts 3"), 10, "numverts x");
  auto a = load_md5_from_memory(bad, {}, "uploads/leg.md5mesh");
  expect_error_names(a, "uploads/leg.md5mesh:11:", "numverts");
}

TEST(Md5Memory, AnimErrorsNameTheStem) {
  std::string bad = kKickAnim;
  bad.replace(bad.find("\"knee\""), 6, "\"shin\"");
  auto a = load_md5_from_memory(kLegMesh, {{"kick", bad}}, "leg.md5mesh");
  expect_error_names(a, "kick.md5anim", "shin");
}

TEST(Md5Memory, DuplicateStemsAreRefused) {
  auto a =
      load_md5_from_memory(kLegMesh, {{"kick", kKickAnim}, {"kick", kKickAnim}}, "leg.md5mesh");
  expect_error_names(a, "kick.md5anim", "'kick' was already loaded");
}

TEST(Md5Memory, EmptyTextsAreErrorsNotCrashes) {
  expect_error_names(load_md5_from_memory("", {}, "empty.md5mesh"), "empty.md5mesh", "MD5Version");
  expect_error_names(load_md5_from_memory(kLegMesh, {{"none", ""}}, "leg.md5mesh"), "none.md5anim",
                     "MD5Version");
}

// One joint at the origin and one triangle whose corners are `scale` apart.
std::string triangle_mesh(const std::string& scale) {
  return "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n"
         "joints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
         "mesh {\nshader \"s\"\nnumverts 3\n"
         "vert 0 ( 0 0 ) 0 1\nvert 1 ( 0 0 ) 1 1\nvert 2 ( 0 0 ) 2 1\n"
         "numtris 1\ntri 0 0 1 2\nnumweights 3\n"
         "weight 0 0 1 ( 0 0 0 )\n"
         "weight 1 0 1 ( " +
         scale +
         " 0 0 )\n"
         "weight 2 0 1 ( 0 " +
         scale + " 0 )\n}\n";
}

TEST(Md5Memory, NormalsOfTinyAndHugeTrianglesMatchTheUnitOne) {
  // The face normal's components are scale squared: at 1e-22 that is 1e-44, a float denormal
  // whose square underflows to 0; at 1e15 it is 1e30, whose square overflows. The length of
  // either used to be 0 or infinite, and the direction was lost.
  auto unit = load_md5_from_memory(triangle_mesh("1"), {}, "unit.md5mesh");
  ASSERT_TRUE(unit.has_value()) << unit.error().message();
  for (const char* scale : {"1e-22", "1e15"}) {
    auto a = load_md5_from_memory(triangle_mesh(scale), {}, "scaled.md5mesh");
    ASSERT_TRUE(a.has_value()) << a.error().message();
    ASSERT_EQ(a->mesh.num_vertices(), 3);
    for (int v = 0; v < 3; ++v) {
      EXPECT_NEAR(glm::length(a->mesh.normals[v]), 1.0f, 1e-6f) << scale;
      EXPECT_NEAR(a->mesh.normals[v].x, unit->mesh.normals[v].x, 1e-6f) << scale;
      EXPECT_NEAR(a->mesh.normals[v].y, unit->mesh.normals[v].y, 1e-6f) << scale;
      EXPECT_NEAR(a->mesh.normals[v].z, unit->mesh.normals[v].z, 1e-6f) << scale;
    }
  }
  // Unit scale, by hand: Y-up corners (0 0 0), (1 0 0), (0 0 -1) wound 0 2 1 (the loader swaps
  // Doom's clockwise corners) give cross((0 0 -1), (1 0 0)) = (0 -1 0). The old code gave the
  // +Y fallback at both other scales.
  for (int v = 0; v < 3; ++v) {
    EXPECT_NEAR(unit->mesh.normals[v].x, 0.0f, 1e-6f);
    EXPECT_NEAR(unit->mesh.normals[v].y, -1.0f, 1e-6f);
    EXPECT_NEAR(unit->mesh.normals[v].z, 0.0f, 1e-6f);
  }
}

}  // namespace md5_memory_test
}  // namespace anim

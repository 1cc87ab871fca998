// glTF loader on small files built in code (tests/support/gltf_test_files.h), with
// expectations computed by hand: joint reordering and index maps, folding of non-joint
// ancestors into root_transform (model space = scene space), rigidly attached meshes, merged skins,
// STEP / LINEAR / CUBICSPLINE channels, normalized rotations, sparse accessors, byteStride, the
// three file layouts, warnings, and (bad files: gltf_loader_errors_test.cpp).
#include "anim/loaders/gltf_loader.h"

#include <cmath>
#include <filesystem>
#include <numbers>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include "anim/palette.h"
#include "gltf_rig.h"
#include "gltf_test_files.h"

namespace anim {
namespace gltf_loader_test {

using namespace gltf_rig;

TEST(GltfLoader, ReordersJointsParentFirstAndMapsIndices) {
  const Asset a = load_ok(make_rig().file.write_embedded("rig_skeleton"));
  const Skeleton& s = a.skeleton;
  ASSERT_EQ(s.num_joints(), 2);
  EXPECT_EQ(s.names, (std::vector<std::string>{"Root", "Child"}));
  EXPECT_EQ(s.parents, (std::vector<int16_t>{-1, 0}));
  // skin.joints = [Child, Root]: source 0 is joint 1 here and source 1 is joint 0.
  EXPECT_EQ(s.source_of_joint, (std::vector<int>{1, 0}));
  EXPECT_EQ(s.joint_of_source, (std::vector<int>{1, 0}));
  expect_vec3_near(s.rest_pose[0].translation, {0, 1, 0});
  expect_vec3_near(s.rest_pose[1].translation, {0, 2, 0});
  EXPECT_EQ(a.name, "rig_skeleton");
}

TEST(GltfLoader, ModelSpaceIsSceneSpaceWithNonJointAncestorsInRootTransform) {
  const Asset a = load_ok(make_rig().file.write_embedded("rig_root"));
  // The Armature's world matrix; the skinned mesh node's transform plays no part.
  expect_mat_near(a.skeleton.root_transform, translate(1, 2, 3) * scale(2));
  // palette = joint world * inverse bind; these inverse binds fold in world(Body), so at rest
  // every palette is world(Body) = T(0,0,-5), as three.js draws it.
  std::vector<glm::mat4> model(2);
  std::vector<PaletteMatrix> palette(2);
  local_to_model(a.skeleton, a.skeleton.rest_pose, model);
  build_palette(a.skeleton, model, palette);
  for (const PaletteMatrix& p : palette) expect_mat_near(p.to_mat4(), translate(0, 0, -5));
  // Child in scene space: T(1,2,3) S(2) * T(0,1,0) * T(0,2,0).
  expect_mat_near(model[1], translate(1, 8, 3) * scale(2));
}

// The scene-space position of vertex v skinned with the rest-pose palette.
glm::vec3 skinned_at_rest(const Asset& a, int v) {
  const int n = a.skeleton.num_joints();
  std::vector<glm::mat4> model(n);
  std::vector<PaletteMatrix> palette(n);
  local_to_model(a.skeleton, a.skeleton.rest_pose, model);
  build_palette(a.skeleton, model, palette);
  glm::vec3 out(0.0f);
  for (int k = 0; k < 4; ++k)
    out += a.mesh.weights[v][k] *
           glm::vec3(palette[a.mesh.joints[v][k]].to_mat4() * glm::vec4(a.mesh.positions[v], 1));
  return out;
}

// A triangle mesh (positions only) appended to the file; returns the mesh index.
int add_triangle_mesh(GltfFile& f, const std::string& name) {
  const int pos = f.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3);
  f.doc["meshes"].push_back(
      {{"name", name}, {"primitives", {{{"attributes", {{"POSITION", pos}}}}}}});
  return static_cast<int>(f.doc["meshes"].size()) - 1;
}

TEST(GltfLoader, ServesMeshesRigidlyAttachedToJointsInBindSpace) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  // Child -> Holder (non-joint, T(0,1,0)) -> Hat (mesh, rotated 90 deg about Z, not skinned).
  const float s45 = std::sin(kPi / 4);
  const int holder = f.add_node({{"name", "Holder"}, {"translation", {0, 1, 0}}}, rig.child);
  const int hat = add_triangle_mesh(f, "hat");
  f.add_node({{"name", "Hat"}, {"rotation", {0, 0, s45, s45}}, {"mesh", hat}}, holder);
  // A mesh under no joint is scenery: not part of the character.
  f.add_node({{"name", "Ground"}, {"mesh", hat}});
  const Asset a = load_ok(f.write_embedded("rigid_hat"));
  ASSERT_EQ(a.mesh.num_vertices(), 6);  // the skinned triangle, then the hat
  ASSERT_EQ(a.mesh.submeshes.size(), 2u);
  const int child = a.skeleton.find_joint("Child");
  const glm::mat4 hat_world = translate(1, 8, 3) * scale(2) * translate(0, 1, 0) *
                              glm::mat4_cast(glm::angleAxis(kPi / 2, glm::vec3(0, 0, 1)));
  const glm::vec3 corners[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  for (int v = 3; v < 6; ++v) {
    EXPECT_EQ(a.mesh.joints[v][0], child);
    EXPECT_EQ(a.mesh.weights[v], glm::vec4(1, 0, 0, 0));
    // root x palette x bind vertex = the hat's vertex in scene space, as three.js draws it.
    expect_vec3_near(skinned_at_rest(a, v), glm::vec3(hat_world * glm::vec4(corners[v - 3], 1)),
                     1e-4f);
  }
  // Normals turn with the node: the hat faces +Z still (a rotation about Z).
  expect_vec3_near(a.mesh.normals[4], {0, 0, 1});
}

TEST(GltfLoader, MirroredRigidPartKeepsItsTrianglesFrontFacing) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int mesh = add_triangle_mesh(f, "mirrored");
  // Scale -1 in X mirrors the triangle: drawn as is its winding would turn clockwise.
  f.add_node({{"name", "Mirror"}, {"scale", {-1, 1, 1}}, {"mesh", mesh}}, rig.root);
  const Asset a = load_ok(f.write_embedded("mirrored"));
  ASSERT_EQ(a.mesh.num_vertices(), 6);
  const std::vector<uint32_t> tri(a.mesh.indices.begin() + 3, a.mesh.indices.end());
  EXPECT_EQ(tri, (std::vector<uint32_t>{3, 5, 4}));  // reversed
  // Front face still towards the viewer at +Z: counter-clockwise in scene space, normal +Z.
  const glm::vec3 p0 = skinned_at_rest(a, tri[0]), p1 = skinned_at_rest(a, tri[1]),
                  p2 = skinned_at_rest(a, tri[2]);
  EXPECT_GT(glm::cross(p1 - p0, p2 - p0).z, 0.0f);
  for (int v = 3; v < 6; ++v) EXPECT_NEAR(a.mesh.normals[v].z, 1.0f, 1e-5f);
}

TEST(GltfLoader, MergesSkinsThatShareJointsIntoOnePalette) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int extra = f.add_node({{"name", "Extra"}, {"translation", {0, 3, 0}}}, rig.child);
  // Skin 1: Root and a joint of its own, bound in a space shifted by C = T(0,0,7) from skin
  // 0's: its inverse binds are skin 0's * C, so its vertices move by C into skin 0's space.
  const glm::mat4 body_world = translate(0, 0, -5);
  const glm::mat4 c = translate(0, 0, 7);
  const glm::mat4 root_ibm = glm::inverse(translate(1, 4, 3) * scale(2)) * body_world * c;
  const glm::mat4 extra_ibm = glm::inverse(translate(1, 14, 3) * scale(2)) * body_world * c;
  std::vector<float> ibm(32);
  for (int i = 0; i < 16; ++i) {
    ibm[i] = root_ibm[i / 4][i % 4];
    ibm[16 + i] = extra_ibm[i / 4][i % 4];
  }
  f.doc["skins"].push_back(
      {{"joints", {rig.root, extra}}, {"inverseBindMatrices", f.add_floats(ibm, "MAT4", 16)}});
  const int pos = f.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3);
  // Vertex 0 on Root, 1 on Extra, 2 half and half (skin 1 joint indices).
  const int joints = f.add_data(std::vector<uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0},
                                animtest::kUnsignedByte, "VEC4", 4);
  const int weights = f.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0}, "VEC4", 4);
  f.doc["meshes"].push_back(
      {{"name", "visor"},
       {"primitives",
        {{{"attributes", {{"POSITION", pos}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}}}}}});
  const int mesh = static_cast<int>(f.doc["meshes"].size()) - 1;
  f.add_node({{"name", "Visor"}, {"mesh", mesh}, {"skin", 1}});
  // Skin 2 shares nothing: its mesh is left out, with a warning.
  const int lone = f.add_node({{"name", "Lone"}});
  f.doc["skins"].push_back({{"joints", {lone}}});
  f.add_node({{"name", "Other"}, {"mesh", mesh}, {"skin", 2}});

  const Asset a = load_ok(f.write_embedded("two_skins"));
  ASSERT_EQ(a.skeleton.num_joints(), 3);  // Child, Root from skin 0, then Extra
  EXPECT_EQ(a.skeleton.source_of_joint[a.skeleton.find_joint("Extra")], 2);
  ASSERT_EQ(a.mesh.num_vertices(), 6);
  EXPECT_TRUE(has_warning(a, "shares no joint"));
  // In skin 1 alone, at rest vertex v would be at world(Body) * C * v; merged, the same.
  const glm::vec3 corners[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  for (int v = 3; v < 6; ++v)
    expect_vec3_near(skinned_at_rest(a, v),
                     glm::vec3(body_world * c * glm::vec4(corners[v - 3], 1)), 1e-4f);
  EXPECT_EQ(a.mesh.joints[3][0], a.skeleton.find_joint("Root"));
  EXPECT_EQ(a.mesh.joints[4][0], a.skeleton.find_joint("Extra"));
}

TEST(GltfLoader, BuildsMeshWithStrideJointMapAndNormalizedWeights) {
  const Asset a = load_ok(make_rig().file.write_embedded("rig_mesh"));
  const SkinnedMesh& m = a.mesh;
  ASSERT_EQ(m.num_vertices(), 3);
  expect_vec3_near(m.positions[1], {1, 0, 0});
  expect_vec3_near(m.positions[2], {0, 1, 0});
  ASSERT_EQ(m.uvs.size(), 3u);  // read at offset 12 of a stride-20 view
  EXPECT_EQ(m.uvs[1], glm::vec2(1, 0));
  EXPECT_EQ(m.uvs[2], glm::vec2(0, 1));
  EXPECT_EQ(m.indices, (std::vector<uint32_t>{0, 1, 2}));  // generated: no index accessor
  for (const glm::vec3& n : m.normals) expect_vec3_near(n, {0, 0, 1});  // generated, CCW in XY
  // Vertex 0 uses source joint 0 (Child) = skeleton joint 1; vertex 1 source 1 (Root) = 0.
  EXPECT_EQ(m.joints[0][0], 1);
  EXPECT_EQ(m.weights[0], glm::vec4(1, 0, 0, 0));
  EXPECT_EQ(m.joints[1][0], 0);
  // Vertex 2: weights 2 and 2 normalized to 0.5 each, Root (0) before Child (1) on the tie.
  EXPECT_EQ(m.joints[2][0], 0);
  EXPECT_EQ(m.joints[2][1], 1);
  EXPECT_EQ(m.weights[2], glm::vec4(0.5f, 0.5f, 0, 0));
  ASSERT_EQ(m.submeshes.size(), 1u);
  EXPECT_EQ(m.submeshes[0].first_index, 0u);
  EXPECT_EQ(m.submeshes[0].index_count, 3u);
  EXPECT_EQ(m.submeshes[0].material, "skin_mat");
}

TEST(GltfLoader, AppendsIndexedPrimitivesAndSkipsNonTriangleModes) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  json prim = f.doc["meshes"][0]["primitives"][0];
  prim.erase("material");
  json indexed = prim;
  indexed["indices"] =
      f.add_data(std::vector<uint16_t>{2, 1, 0}, animtest::kUnsignedShort, "SCALAR", 1);
  json lines = prim;
  lines["mode"] = 1;  // LINES
  f.doc["meshes"][0]["primitives"].push_back(lines);
  f.doc["meshes"][0]["primitives"].push_back(indexed);
  const Asset a = load_ok(f.write_embedded("prims"));
  const SkinnedMesh& m = a.mesh;
  ASSERT_EQ(m.num_vertices(), 6);
  EXPECT_EQ(m.indices, (std::vector<uint32_t>{0, 1, 2, 5, 4, 3}));
  ASSERT_EQ(m.submeshes.size(), 2u);
  EXPECT_EQ(m.submeshes[1].first_index, 3u);
  EXPECT_EQ(m.submeshes[1].index_count, 3u);
  EXPECT_EQ(m.submeshes[1].material, "");
  EXPECT_TRUE(has_warning(a, "not a triangle list"));
}

// Face normal's z of triangle t of m (all test triangles lie in the z = 0 plane).
float face_z(const SkinnedMesh& m, size_t t) {
  const glm::vec3 a = m.positions[m.indices[3 * t]], b = m.positions[m.indices[3 * t + 1]],
                  c = m.positions[m.indices[3 * t + 2]];
  return glm::cross(b - a, c - a).z;
}

TEST(GltfLoader, ConvertsTriangleStripsAndFansToLists) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  // Five vertices in the z = 0 plane, all bound to joint 0. As a strip (0 1 2 3 4) they form
  // a ladder (0,0) (1,0) (0,1) (1,1) (0,2); as a fan around (0,0) they sweep counterclockwise.
  const int strip_pos = f.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0}, "VEC3", 3);
  const int fan_pos = f.add_floats({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, -1, 1, 0}, "VEC3", 3);
  const int joints = f.add_data(std::vector<uint8_t>(20, 0), animtest::kUnsignedByte, "VEC4", 4);
  const int weights =
      f.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 4);
  auto prim = [&](int pos, int mode) {
    return json{{"attributes", {{"POSITION", pos}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}},
                {"mode", mode}};
  };
  json strip = prim(strip_pos, 5);  // TRIANGLE_STRIP, not indexed
  json fan = prim(fan_pos, 6);      // TRIANGLE_FAN, indexed: 0 1 2 3 4
  fan["indices"] =
      f.add_data(std::vector<uint16_t>{0, 1, 2, 3, 4}, animtest::kUnsignedShort, "SCALAR", 1);
  f.doc["meshes"][0]["primitives"].push_back(strip);
  f.doc["meshes"][0]["primitives"].push_back(fan);
  const Asset a = load_ok(f.write_embedded("strip_fan"));
  const SkinnedMesh& m = a.mesh;
  ASSERT_EQ(m.num_vertices(), 3 + 5 + 5);
  // Rig triangle (0 1 2); strip at offset 3: (0 1 2) (1 3 2) (2 3 4), the odd one swapped;
  // fan at offset 8: (1 2 0) (2 3 0) (3 4 0).
  EXPECT_EQ(m.indices, (std::vector<uint32_t>{0, 1,  2,                        //
                                              3, 4,  5, 4,  6,  5, 5,  6,  7,  //
                                              9, 10, 8, 10, 11, 8, 11, 12, 8}));
  ASSERT_EQ(m.submeshes.size(), 3u);
  EXPECT_EQ(m.submeshes[1].first_index, 3u);
  EXPECT_EQ(m.submeshes[1].index_count, 9u);
  EXPECT_EQ(m.submeshes[2].first_index, 12u);
  EXPECT_EQ(m.submeshes[2].index_count, 9u);
  // Every converted triangle keeps the winding of the first: all face +z.
  for (size_t t = 1; t < 7; ++t) EXPECT_GT(face_z(m, t), 0.0f) << "triangle " << t;
  EXPECT_FALSE(has_warning(a, "skipped"));
}

TEST(GltfLoader, PicksSkinByIndexOrNameAndRejectsUnknownOnes) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  // A second skin with the joints the other way round and no inverse binds.
  f.doc["skins"].push_back({{"name", "second"}, {"joints", {rig.root, rig.child}}});
  const std::string path = f.write_embedded("two_skins");
  Expected<Asset> by_default = load_gltf(path);
  ASSERT_TRUE(by_default.has_value());
  EXPECT_EQ(by_default->skeleton.source_of_joint, (std::vector<int>{1, 0}));  // skin 0 (Body's)
  GltfOptions by_name;
  by_name.skin_name = "second";
  Expected<Asset> second = load_gltf(path, by_name);
  ASSERT_TRUE(second.has_value()) << second.error().message();
  EXPECT_EQ(second->skeleton.source_of_joint, (std::vector<int>{0, 1}));
  EXPECT_EQ(second->mesh.num_vertices(), 0);  // no mesh node uses skin 1
  GltfOptions by_index;
  by_index.skin_index = 1;
  Expected<Asset> one = load_gltf(path, by_index);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->skeleton.names, second->skeleton.names);
  by_index.skin_index = 2;
  Expected<Asset> missing = load_gltf(path, by_index);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), StatusCode::kNotFound);
  by_name.skin_name = "third";
  missing = load_gltf(path, by_name);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message().find("no skin named 'third'"), std::string::npos);
}

TEST(GltfLoader, LoadsStepLinearAndCubicChannels) {
  const Asset a = load_ok(make_rig().file.write_embedded("rig_clips"));
  ASSERT_EQ(a.clips.size(), 2u);
  const Clip& c = a.clips[0];
  EXPECT_EQ(c.name, "animation_0");
  EXPECT_FLOAT_EQ(c.duration, 2.0f);
  const Transform& rest = a.skeleton.rest_pose[1];
  // STEP translation: the first key until t reaches 1.
  expect_vec3_near(c.sample_joint(1, 0.5f, rest).translation, {0, 0, 0});
  expect_vec3_near(c.sample_joint(1, 1.0f, rest).translation, {1, 0, 0});
  // LINEAR rotation over 2 s from identity to 90 deg about Z: 45 deg at t = 1.
  expect_same_rotation(c.sample_joint(1, 1.0f, rest).rotation,
                       glm::angleAxis(kPi / 4, glm::vec3(0, 0, 1)));
  // CUBICSPLINE scale, dt = 1, u = 0.5: 0.5*p0 + 0.125*m0 + 0.5*p1 - 0.125*m1
  //   = 0.5*1 + 0.125*2 + 0.5*3 - 0.125*0 = 2.25.
  expect_vec3_near(c.sample_joint(1, 0.5f, rest).scale, glm::vec3(2.25f));
  expect_vec3_near(c.sample_joint(1, 1.0f, rest).scale, glm::vec3(3.0f));
  // Root's constant translation is stored as one key.
  const int root_t = c.joints[0].translation;
  ASSERT_GE(root_t, 0);
  EXPECT_EQ(c.vec3_channels[root_t].num_keys(), 1);
  expect_vec3_near(c.sample_joint(0, 0.7f, a.skeleton.rest_pose[0]).translation, {0, 1, 0});
  EXPECT_TRUE(has_warning(a, "not joints of the skin")) << "channel on Armature";
}

TEST(GltfLoader, ReadsNormalizedShortRotationsAndWarnsAboutMorphWeights) {
  const Asset a = load_ok(make_rig().file.write_embedded("rig_walk"));
  const int walk = a.find_clip("Walk");
  ASSERT_GE(walk, 0);
  const Transform r = a.clips[walk].sample_joint(0, 1.0f, a.skeleton.rest_pose[0]);
  expect_same_rotation(r.rotation, glm::angleAxis(kPi / 2, glm::vec3(0, 0, 1)), 1e-4f);
  EXPECT_TRUE(has_warning(a, "weights")) << "morph-target weights channel not reported";
}

TEST(GltfLoader, EmbeddedSeparateAndBinaryFilesGiveIdenticalAssets) {
  const Rig rig = make_rig();
  const Asset e = load_ok(rig.file.write_embedded("same_embedded"));
  const Asset s = load_ok(rig.file.write_separate("same_separate"));
  const Asset b = load_ok(rig.file.write_glb("same_binary"));
  for (const Asset* o : {&s, &b}) {
    EXPECT_EQ(o->skeleton.names, e.skeleton.names);
    EXPECT_EQ(o->skeleton.parents, e.skeleton.parents);
    EXPECT_EQ(o->skeleton.root_transform, e.skeleton.root_transform);
    EXPECT_EQ(o->skeleton.inverse_bind, e.skeleton.inverse_bind);
    EXPECT_EQ(o->mesh.positions, e.mesh.positions);
    EXPECT_EQ(o->mesh.joints, e.mesh.joints);
    EXPECT_EQ(o->mesh.weights, e.mesh.weights);
    ASSERT_EQ(o->clips.size(), e.clips.size());
    for (size_t c = 0; c < e.clips.size(); ++c)
      for (float t : {0.0f, 0.3f, 1.1f, 1.9f})
        for (int j = 0; j < 2; ++j) {
          const Transform x = o->clips[c].sample_joint(j, t, o->skeleton.rest_pose[j]);
          const Transform y = e.clips[c].sample_joint(j, t, e.skeleton.rest_pose[j]);
          EXPECT_EQ(x.translation, y.translation);
          EXPECT_EQ(x.rotation, y.rotation);
          EXPECT_EQ(x.scale, y.scale);
        }
  }
  EXPECT_EQ(b.name, "same_binary");
}

TEST(GltfLoader, SupportsSeveralRootJointsInOneSkin) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int other = f.add_node({{"name", "Other"}, {"translation", {3, 0, 0}}}, rig.armature);
  f.doc["skins"][0]["joints"] = {rig.child, rig.root, other};
  f.doc["skins"][0].erase("inverseBindMatrices");  // missing: identity
  const Asset a = load_ok(f.write_embedded("two_roots"));
  ASSERT_EQ(a.skeleton.num_joints(), 3);
  EXPECT_EQ(a.skeleton.parents, (std::vector<int16_t>{-1, 0, -1}));
  EXPECT_EQ(a.skeleton.names[2], "Other");
  EXPECT_EQ(a.skeleton.inverse_bind[2], glm::mat4(1.0f));
}

// Model matrices of every joint at time t.
std::vector<glm::mat4> model_at(const Asset& a, int clip, float t) {
  const int n = a.skeleton.num_joints();
  std::vector<Transform> locals(n);
  std::vector<glm::mat4> model(n);
  a.clips[clip].sample(t, a.skeleton.rest_pose, locals);
  local_to_model(a.skeleton, locals, model);
  return model;
}

TEST(GltfLoader, FoldsNonJointNodeBetweenJointsIntoTheLowerJoint) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  // Root -> Socket (non-joint: T(0,0,1), 90 deg about Y, uniform scale 2) -> Child.
  const float s45 = std::sin(kPi / 4);
  const int socket = f.add_node({{"name", "Socket"},
                                 {"translation", {0, 0, 1}},
                                 {"rotation", {0, s45, 0, s45}},
                                 {"scale", {2, 2, 2}}},
                                rig.root);
  f.doc["nodes"][rig.root]["children"] = {socket};
  f.doc["nodes"][socket]["children"] = {rig.child};
  const Asset a = load_ok(f.write_embedded("socket"));
  ASSERT_EQ(a.skeleton.parents, (std::vector<int16_t>{-1, 0}));
  const glm::mat4 socket_m =
      translate(0, 0, 1) * glm::mat4_cast(glm::angleAxis(kPi / 2, glm::vec3(0, 1, 0))) * scale(2);
  const glm::mat4 root_model = translate(1, 2, 3) * scale(2) * translate(0, 1, 0);
  // At t = 1 the Child channels give T(1,0,0), 45 deg about Z, scale 3 (see make_rig).
  const glm::mat4 child_local =
      translate(1, 0, 0) * glm::mat4_cast(glm::angleAxis(kPi / 4, glm::vec3(0, 0, 1))) * scale(3);
  expect_mat_near(model_at(a, 0, 1.0f)[1], root_model * socket_m * child_local, 1e-4f);
  // At t = 0.5 the cubic scale is 2.25 and its tangents were folded too.
  const glm::mat4 child_half = translate(0, 0, 0) *
                               glm::mat4_cast(glm::angleAxis(kPi / 8, glm::vec3(0, 0, 1))) *
                               scale(2.25f);
  expect_mat_near(model_at(a, 0, 0.5f)[1], root_model * socket_m * child_half, 1e-4f);
  // A clip that does not animate Child uses the folded rest pose: Walk at t = 0.
  expect_mat_near(model_at(a, 1, 0.0f)[1], root_model * socket_m * translate(0, 2, 0), 1e-4f);
}

TEST(GltfLoader, FoldsDifferentParentSpacesOfRootJoints) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int offset = f.add_node({{"name", "Offset"}, {"translation", {0, 5, 0}}});
  const int other = f.add_node({{"name", "Other"}, {"translation", {3, 0, 0}}}, offset);
  f.doc["skins"][0]["joints"] = {rig.child, rig.root, other};
  f.doc["skins"][0].erase("inverseBindMatrices");
  const Asset a = load_ok(f.write_embedded("root_spaces"));
  ASSERT_EQ(a.skeleton.parents, (std::vector<int16_t>{-1, 0, -1}));
  // Model space is the scene's; Other's world is T(0,5,0) T(3,0,0).
  expect_mat_near(model_at(a, 0, 0.0f)[2], translate(3, 5, 0), 1e-5f);
  expect_mat_near(model_at(a, 0, 0.0f)[0], translate(1, 2, 3) * scale(2) * translate(0, 1, 0),
                  1e-5f);
}

TEST(GltfLoader, AppliesSparseAccessorValues) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  // Child STEP translation: dense keys (0,0,0), (1,0,0); sparse replaces key 1 with (0,0,7).
  const std::vector<uint8_t> idx = {1, 0, 0, 0};
  const std::vector<float> val = {0, 0, 7};
  const int iv = f.add_view(idx.data(), 1);
  const int vv = f.add_view(val.data(), 12);
  json& acc = f.doc["accessors"][f.doc["animations"][0]["samplers"][0]["output"].get<int>()];
  acc["sparse"] = {{"count", 1},
                   {"indices", {{"bufferView", iv}, {"componentType", animtest::kUnsignedByte}}},
                   {"values", {{"bufferView", vv}}}};
  const Asset a = load_ok(f.write_embedded("sparse"));
  expect_vec3_near(a.clips[0].sample_joint(1, 1.0f, a.skeleton.rest_pose[1]).translation,
                   {0, 0, 7});
}

// ---- Bad files: an error naming the file and the problem, never a crash or a partial asset.

}  // namespace gltf_loader_test
}  // namespace anim

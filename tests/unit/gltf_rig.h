#pragma once
// The glTF loader tests' hand-built rig (a skinned two-joint armature under a scaled non-joint
// node, written in code) and the comparisons both test files use: gltf_loader_test.cpp (what
// loads) and gltf_loader_errors_test.cpp (what is refused).
#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include "anim/loaders/gltf_loader.h"
#include "gltf_test_files.h"

namespace anim::gltf_rig {

using animtest::GltfFile;
using nlohmann::json;

inline constexpr float kPi = std::numbers::pi_v<float>;

// Scene (node index: name, local transform):
//   0 Armature  T(1,2,3) S(2)          non-joint ancestor of the joints
//   2   Root    T(0,1,0)               joint, skin.joints[1]
//   3     Child T(0,2,0)               joint, skin.joints[0] (listed before its parent)
//   1 Body      T(0,0,-5), mesh 0, skin 0
// World matrices at rest: Root = T(1,4,3) S(2), Child = T(1,8,3) S(2), Body = T(0,0,-5).
// Inverse binds are inverse(world(joint)) * world(Body), so the rest palette is identity.
struct Rig {
  GltfFile file;
  int armature, body, root, child;
};

inline glm::mat4 translate(float x, float y, float z) {
  return glm::translate(glm::mat4(1.0f), {x, y, z});
}
inline glm::mat4 scale(float s) {
  return glm::scale(glm::mat4(1.0f), glm::vec3(s));
}

inline void expect_mat_near(const glm::mat4& a, const glm::mat4& b, float eps = 1e-5f) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      EXPECT_NEAR(a[c][r], b[c][r], eps) << "element [" << c << "][" << r << "]";
}

inline void expect_vec3_near(const glm::vec3& a, const glm::vec3& b, float eps = 1e-5f) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
}

inline void expect_same_rotation(const glm::quat& a, const glm::quat& b, float eps = 1e-5f) {
  EXPECT_NEAR(std::abs(glm::dot(a, b)), 1.0f, eps);
}

inline Rig make_rig() {
  Rig rig;
  GltfFile& f = rig.file;
  rig.armature =
      f.add_node({{"name", "Armature"}, {"translation", {1, 2, 3}}, {"scale", {2, 2, 2}}});
  rig.body = f.add_node({{"name", "Body"}, {"translation", {0, 0, -5}}, {"mesh", 0}, {"skin", 0}});
  rig.root = f.add_node({{"name", "Root"}, {"translation", {0, 1, 0}}}, rig.armature);
  rig.child = f.add_node({{"name", "Child"}, {"translation", {0, 2, 0}}}, rig.root);

  const glm::mat4 body_world = translate(0, 0, -5);
  const glm::mat4 child_ibm = glm::inverse(translate(1, 8, 3) * scale(2)) * body_world;
  const glm::mat4 root_ibm = glm::inverse(translate(1, 4, 3) * scale(2)) * body_world;
  std::vector<float> ibm(32);
  for (int i = 0; i < 16; ++i) {
    ibm[i] = child_ibm[i / 4][i % 4];
    ibm[16 + i] = root_ibm[i / 4][i % 4];
  }
  f.doc["skins"] = json::array({{{"name", "rig"},
                                 {"joints", {rig.child, rig.root}},
                                 {"inverseBindMatrices", f.add_floats(ibm, "MAT4", 16)}}});

  // One triangle, POSITION and TEXCOORD_0 interleaved (stride 20), no indices, no normals.
  const std::vector<float> interleaved = {0, 0, 0, 0, 0,  //
                                          1, 0, 0, 1, 0,  //
                                          0, 1, 0, 0, 1};
  const int view = f.add_view(interleaved.data(), interleaved.size() * 4, 20);
  const int pos = f.add_accessor(view, animtest::kFloat, 3, "VEC3");
  const int uv = f.add_accessor(view, animtest::kFloat, 3, "VEC2", false, 12);
  // Joint indices are skin.joints indices: 0 = Child, 1 = Root.
  const int joints = f.add_data(std::vector<uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0},
                                animtest::kUnsignedByte, "VEC4", 4);
  const int weights = f.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 2, 2, 0, 0}, "VEC4", 4);
  f.doc["meshes"] = json::array(
      {{{"name", "body"},
        {"primitives",
         {{{"attributes",
            {{"POSITION", pos}, {"TEXCOORD_0", uv}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}},
           {"material", 0}}}}}});
  f.doc["materials"] = json::array({{{"name", "skin_mat"}}});

  // Animation 0 (unnamed): Child STEP translation, LINEAR rotation, CUBICSPLINE scale;
  // Root constant translation; a channel on the non-joint Armature.
  const int t01 = f.add_floats({0, 1}, "SCALAR", 1);
  const int t02 = f.add_floats({0, 2}, "SCALAR", 1);
  const int t_const = f.add_floats({0, 0.5f, 1}, "SCALAR", 1);
  const float s45 = std::sin(kPi / 4);
  const int step_vals = f.add_floats({0, 0, 0, 1, 0, 0}, "VEC3", 3);
  const int rot_vals = f.add_floats({0, 0, 0, 1, 0, 0, s45, s45}, "VEC4", 4);  // x y z w
  // (in-tangent, value, out-tangent) per key: p0 = 1, out0 = 2 /s; in1 = 0, p1 = 3.
  const int cubic_vals = f.add_floats({0, 0, 0, 1, 1, 1, 2, 2, 2,  //
                                       0, 0, 0, 3, 3, 3, 9, 9, 9},
                                      "VEC3", 3);
  const int const_vals = f.add_floats({0, 1, 0, 0, 1, 0, 0, 1, 0}, "VEC3", 3);
  const int arm_vals = f.add_floats({0, 0, 0, 5, 5, 5}, "VEC3", 3);
  json a0;
  a0["samplers"] =
      json::array({{{"input", t01}, {"output", step_vals}, {"interpolation", "STEP"}},
                   {{"input", t02}, {"output", rot_vals}, {"interpolation", "LINEAR"}},
                   {{"input", t01}, {"output", cubic_vals}, {"interpolation", "CUBICSPLINE"}},
                   {{"input", t_const}, {"output", const_vals}},
                   {{"input", t01}, {"output", arm_vals}}});
  a0["channels"] = json::array(
      {{{"sampler", 0}, {"target", {{"node", rig.child}, {"path", "translation"}}}},
       {{"sampler", 1}, {"target", {{"node", rig.child}, {"path", "rotation"}}}},
       {{"sampler", 2}, {"target", {{"node", rig.child}, {"path", "scale"}}}},
       {{"sampler", 3}, {"target", {{"node", rig.root}, {"path", "translation"}}}},
       {{"sampler", 4}, {"target", {{"node", rig.armature}, {"path", "translation"}}}}});

  // Animation 1 "Walk": Root rotation as normalized shorts (identity -> 90 deg about Z) and a
  // morph-target weights channel on Body.
  const int16_t q = 23170;  // round(32767 * sin(45 deg))
  const int rot_short = f.add_data(std::vector<int16_t>{0, 0, 0, 32767, 0, 0, q, q},
                                   animtest::kShort, "VEC4", 4, true);
  const int morph = f.add_floats({0, 1}, "SCALAR", 1);
  json a1;
  a1["name"] = "Walk";
  a1["samplers"] =
      json::array({{{"input", t01}, {"output", rot_short}}, {{"input", t01}, {"output", morph}}});
  a1["channels"] =
      json::array({{{"sampler", 0}, {"target", {{"node", rig.root}, {"path", "rotation"}}}},
                   {{"sampler", 1}, {"target", {{"node", rig.body}, {"path", "weights"}}}}});
  f.doc["animations"] = json::array({a0, a1});
  return rig;
}

inline Asset load_ok(const std::string& path) {
  Expected<Asset> a = load_gltf(path);
  EXPECT_TRUE(a.has_value()) << (a ? "" : a.error().message());
  return a ? std::move(*a) : Asset{};
}

inline bool has_warning(const Asset& a, const std::string& needle) {
  for (const std::string& w : a.warnings)
    if (w.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace anim::gltf_rig

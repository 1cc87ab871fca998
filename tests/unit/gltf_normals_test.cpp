// Normals of every magnitude come out unit length (SkinnedMesh's invariant). Regression for the
// glTF fuzz finding fuzz/regressions/gltf/huge-normal-overflows-length.glb: a NORMAL of
// (0, 2.7e24, 0) squared past the float range, and dividing by the infinite length gave (0 0 0);
// and for generated-normal-nan-component.glb (below).
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/gltf_loader.h"
#include "gltf_test_files.h"

namespace anim {
namespace gltf_normals_test {

using animtest::GltfFile;

// One joint at the origin skinning one triangle with the given positions and, when not
// empty, normals (3 floats per vertex).
std::string one_triangle_glb(const std::vector<float>& positions,
                             const std::vector<float>& normals) {
  GltfFile f;
  f.add_node({{"name", "body"}, {"mesh", 0}, {"skin", 0}});
  const int joint = f.add_node({{"name", "root"}});
  f.doc["skins"] = {{{"name", "skin"}, {"joints", {joint}}}};
  nlohmann::json attributes = {
      {"POSITION", f.add_floats(positions, "VEC3", 3)},
      {"JOINTS_0", f.add_data(std::vector<uint8_t>(12, 0), animtest::kUnsignedByte, "VEC4", 4)},
      {"WEIGHTS_0", f.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 4)}};
  if (!normals.empty()) attributes["NORMAL"] = f.add_floats(normals, "VEC3", 3);
  f.doc["meshes"] = {{{"primitives", {{{"attributes", attributes}}}}}};
  return f.glb_bytes();
}

Expected<Asset> load(const std::string& glb) {
  const auto* p = reinterpret_cast<const uint8_t*>(glb.data());
  return load_gltf_from_memory(std::span<const uint8_t>(p, glb.size()), "normals.glb");
}

void expect_vec3_near(const glm::vec3& a, const glm::vec3& b) {
  EXPECT_NEAR(a.x, b.x, 1e-6f);
  EXPECT_NEAR(a.y, b.y, 1e-6f);
  EXPECT_NEAR(a.z, b.z, 1e-6f);
}

TEST(GltfNormals, HugeAndSmallFileNormalsAreNormalized) {
  const std::vector<float> triangle = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  // (0, 2.7e24, 0) as in the fuzz reproducer; (3e30, 4e30, 0) -> (0.6, 0.8, 0);
  // (1e-10, 0, 0) -> (1, 0, 0).
  auto a = load(one_triangle_glb(triangle, {0, 2.7e24f, 0, 3e30f, 4e30f, 0, 1e-10f, 0, 0}));
  ASSERT_TRUE(a.has_value()) << a.error().message();
  ASSERT_EQ(a->mesh.num_vertices(), 3);
  expect_vec3_near(a->mesh.normals[0], {0, 1, 0});
  expect_vec3_near(a->mesh.normals[1], {0.6f, 0.8f, 0});
  expect_vec3_near(a->mesh.normals[2], {1, 0, 0});
}

TEST(GltfNormals, NormalsOfHugeGeneratedTrianglesStayUnit) {
  // No NORMAL: normals come from the triangle. At 1e20 its cross product overflows to
  // infinity, and the documented fallback (+Y) applies; at 1e15 the true normal (+Z) survives.
  auto huge = load(one_triangle_glb({0, 0, 0, 1e20f, 0, 0, 0, 1e20f, 0}, {}));
  ASSERT_TRUE(huge.has_value()) << huge.error().message();
  for (const glm::vec3& n : huge->mesh.normals) expect_vec3_near(n, {0, 1, 0});
  auto big = load(one_triangle_glb({0, 0, 0, 1e15f, 0, 0, 0, 1e15f, 0}, {}));
  ASSERT_TRUE(big.has_value()) << big.error().message();
  for (const glm::vec3& n : big->mesh.normals) expect_vec3_near(n, {0, 0, 1});
}

TEST(GltfNormals, AGeneratedNormalWithANanComponentBecomesUp) {
  // Regression for fuzz/regressions/gltf/generated-normal-nan-component.glb. Edges
  // (1e20, 1e20, 0) and (1e20, 1e20, 1): the cross product is (1e20, -1e20, inf - inf = NaN),
  // and the largest-component scaling skipped the NaN (std::max ignores it), so the "normal"
  // came out NaN. Now any non-finite component gives the documented fallback, +Y.
  auto a = load(one_triangle_glb({0, 0, 0, 1e20f, 1e20f, 0, 1e20f, 1e20f, 1}, {}));
  ASSERT_TRUE(a.has_value()) << a.error().message();
  ASSERT_EQ(a->mesh.num_vertices(), 3);
  for (const glm::vec3& n : a->mesh.normals) expect_vec3_near(n, {0, 1, 0});
}

}  // namespace gltf_normals_test
}  // namespace anim

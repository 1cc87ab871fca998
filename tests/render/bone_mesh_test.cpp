// build_bone_mesh: the stick figure animview draws for a mesh-less asset (a BVH). Boxes run
// from each joint to its children with each end bound to its own joint, so skinning by any
// palette keeps them spanning the joints; lone joints get a cube; bad skeletons are named.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include "bone_mesh.h"

namespace animview {
namespace bone_mesh_test {

// Joints at `positions` (model space, bind pose), parents as given.
anim::v1::SkeletonData skeleton(const std::vector<glm::vec3>& positions,
                                const std::vector<int>& parents) {
  anim::v1::SkeletonData s;
  for (size_t j = 0; j < positions.size(); ++j) {
    s.add_joint_names("j" + std::to_string(j));
    s.add_parents(parents[j]);
    const glm::mat4 inverse_bind = glm::translate(glm::mat4(1.0f), -positions[j]);
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) s.add_inverse_bind(inverse_bind[c][r]);
  }
  return s;
}

glm::vec3 vertex(const CpuMesh& m, uint32_t v) {
  return {m.positions[v * 3], m.positions[v * 3 + 1], m.positions[v * 3 + 2]};
}

TEST(BoneMesh, BoxesSpanTheJointsEachEndOnItsJoint) {
  // A chain 0 -> 1 -> 2 up the Y axis and a lone root 3 at x = 5 (size 5: half width 0.06 at
  // a bone's parent end, 0.036 at its child end).
  const auto s = skeleton({{0, 0, 0}, {0, 2, 0}, {0, 3, 0}, {5, 0, 0}}, {-1, 0, 1, -1});
  CpuMesh m;
  std::string error;
  ASSERT_TRUE(build_bone_mesh(s, m, error)) << error;
  // Two bones and one cube, 6 flat quads each.
  EXPECT_EQ(m.num_vertices, 3u * 24u);
  EXPECT_EQ(m.indices.size(), 3u * 36u);
  EXPECT_EQ(m.positions.size(), m.num_vertices * 3u);
  EXPECT_EQ(m.weights.size(), m.num_vertices * 4u);
  const float w = kBoneHalfWidth * 5.0f;
  for (uint32_t v = 0; v < m.num_vertices; ++v) {
    EXPECT_EQ(m.weights[v * 4], 1.0f);
    EXPECT_EQ(m.weights[v * 4 + 1] + m.weights[v * 4 + 2] + m.weights[v * 4 + 3], 0.0f);
    const glm::vec3 n(m.normals[v * 3], m.normals[v * 3 + 1], m.normals[v * 3 + 2]);
    EXPECT_NEAR(glm::length(n), 1.0f, 1e-5f);
    const glm::vec3 p = vertex(m, v);
    const uint16_t j = m.joints[v * 4];
    // Every corner sits beside its own joint: the parent end at the parent (y 0 for joint 0,
    // y 2 for joint 1 as parent of 2), the child end at the child.
    switch (j) {
      case 0:
        EXPECT_NEAR(p.y, 0.0f, 1e-6f);
        EXPECT_NEAR(std::fabs(p.x), w, 1e-6f);
        break;
      case 1:
        EXPECT_NEAR(p.y, 2.0f, 1e-6f);
        EXPECT_LE(std::fabs(p.x), w + 1e-6f);
        break;
      case 2:
        EXPECT_NEAR(p.y, 3.0f, 1e-6f);
        EXPECT_NEAR(std::fabs(p.x), 0.6f * w, 1e-6f);
        break;
      case 3:
        EXPECT_NEAR(glm::length(p - glm::vec3(5, 0, 0)), std::sqrt(3.0f) * 1.5f * w, 1e-5f);
        break;
      default:
        ADD_FAILURE() << "vertex " << v << " bound to joint " << j;
    }
  }
  for (uint32_t i : m.indices) EXPECT_LT(i, m.num_vertices);
  // Bounds: every joint, and per joint the corners bound to it.
  EXPECT_NEAR(m.bounds.min.y, -1.5f * w, 1e-6f);  // the cube
  EXPECT_NEAR(m.bounds.max.y, 3.0f, 1e-6f);
  EXPECT_NEAR(m.bounds.max.x, 5.0f + 1.5f * w, 1e-5f);
  ASSERT_EQ(m.joint_bounds.size(), 4u);
  EXPECT_NEAR(m.joint_bounds[2].center().y, 3.0f, 1e-6f);
}

TEST(BoneMesh, RefusesSkeletonsItCannotDraw) {
  CpuMesh m;
  std::string error;
  EXPECT_FALSE(build_bone_mesh(anim::v1::SkeletonData{}, m, error));
  EXPECT_EQ(error, "the skeleton has no joints");
  auto s = skeleton({{0, 0, 0}, {0, 1, 0}}, {-1, 0});
  s.add_parents(0);
  EXPECT_FALSE(build_bone_mesh(s, m, error));
  EXPECT_NE(error.find("skeleton arrays differ in size"), std::string::npos) << error;
  EXPECT_FALSE(build_bone_mesh(skeleton({{0, 0, 0}, {0, 1, 0}}, {1, -1}), m, error));
  EXPECT_NE(error.find("parents must come before their children"), std::string::npos) << error;
  s = skeleton({{0, 0, 0}}, {-1});
  for (int k = 0; k < 16; ++k) s.set_inverse_bind(k, 0.0f);
  EXPECT_FALSE(build_bone_mesh(s, m, error));
  EXPECT_NE(error.find("singular inverse bind"), std::string::npos) << error;
}

}  // namespace bone_mesh_test
}  // namespace animview

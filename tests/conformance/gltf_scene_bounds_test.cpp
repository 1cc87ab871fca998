// The whole character, in scene space: skinning the mesh our loader serves with our palettes
// (root x palette x bind vertex, root = identity) must give the box three.js gives for the
// asset's scene. RobotExpressive's figures are three.js's (Box3.setFromObject on the scene at
// Idle t = 0); the other assets' expected boxes are computed here from the golden joint_world
// x the file's inverse binds. Every character must stand upright: Y its tallest axis, its
// lowest point near y = 0.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/loaders/gltf_loader.h"
#include "anim/palette.h"
#include "gltf_scene_json.h"
#include "shared_assets.h"

namespace anim {
namespace gltf_scene_bounds_test {

struct Box {
  glm::vec3 lo{1e30f}, hi{-1e30f};
  void add(const glm::vec3& p) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  glm::vec3 size() const { return hi - lo; }
};

// Linear blend skinning of every vertex with `palette` (skeleton order), as animview's shader.
Box skinned_box(const SkinnedMesh& mesh, const std::vector<glm::mat4>& palette) {
  Box box;
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    glm::vec3 p(0.0f);
    for (int k = 0; k < 4; ++k)
      p += mesh.weights[v][k] *
           glm::vec3(palette[mesh.joints[v][k]] * glm::vec4(mesh.positions[v], 1.0f));
    box.add(p);
  }
  return box;
}

std::vector<glm::mat4> our_palette(const Asset& a, const std::string& clip, float t) {
  const int n = a.skeleton.num_joints();
  std::vector<Transform> locals(n);
  std::vector<glm::mat4> model(n), out(n);
  std::vector<PaletteMatrix> palette(n);
  const int c = a.find_clip(clip);
  EXPECT_GE(c, 0) << "no clip " << clip;
  if (c >= 0)
    a.clips[c].sample(t, a.skeleton.rest_pose, locals);
  else
    locals = a.skeleton.rest_pose;
  local_to_model(a.skeleton, locals, model);
  build_palette(a.skeleton, model, palette);
  for (int j = 0; j < n; ++j) out[j] = palette[j].to_mat4();
  return out;
}

void print_box(const std::string& what, const Box& b) {
  const glm::vec3 s = b.size();
  std::printf("[scene box] %-34s %.3f x %.3f x %.3f, y from %.3f to %.3f\n", what.c_str(), s.x, s.y,
              s.z, b.lo.y, b.hi.y);
}

// A biped's tallest axis is Y; a quadruped (Fox) is longer (Z) than tall, but still taller
// than wide. Either way its lowest point (the feet) is near y = 0.
void expect_upright(const std::string& what, const Box& b, bool quadruped = false) {
  const glm::vec3 s = b.size();
  EXPECT_GT(s.y, s.x) << what << ": wider than tall";
  if (!quadruped) {
    EXPECT_GT(s.y, s.z) << what << ": Y is not the tallest axis";
  }
  EXPECT_LT(std::abs(b.lo.y), 0.03f * s.y) << what << ": lowest point is not near y = 0";
}

TEST(SceneBounds, RobotExpressiveIsServedWholeAndMatchesThreeJsBox) {
  ANIMD_REQUIRE_SHARED();
  const Expected<Asset> a =
      load_gltf(animtest::shared_path("assets/RobotExpressive/RobotExpressive.glb"));
  ASSERT_TRUE(a.has_value()) << a.error().message();
  // Body parts rigidly attached to joints plus both hands (two skins over the same joints).
  EXPECT_EQ(a->mesh.num_vertices(), 7214);
  EXPECT_EQ(a->skeleton.num_joints(), 43);
  const Box box = skinned_box(a->mesh, our_palette(*a, "Idle", 0.0f));
  print_box("RobotExpressive Idle t=0", box);
  // three.js r187: Box3().setFromObject(scene) at Idle t = 0.
  EXPECT_NEAR(box.size().x, 3.10f, 0.01f);
  EXPECT_NEAR(box.size().y, 4.50f, 0.01f);
  EXPECT_NEAR(box.size().z, 2.63f, 0.01f);
  EXPECT_NEAR(box.lo.y, -0.02f, 0.01f);
  expect_upright("RobotExpressive", box);
}

// Skinned with our palettes and with the golden ones (joint_world x inverse bind from the
// file), at the golden's first sample of its first clip: the same box, upright.
TEST(SceneBounds, GoldenAssetsStandUprightAtTheOraclesBox) {
  ANIMD_REQUIRE_SHARED();
  const struct {
    const char* golden;
    const char* file;
    bool quadruped;
  } cases[] = {
      {"CesiumMan", "assets/CesiumMan/glTF-Binary/CesiumMan.glb", false},
      {"RiggedFigure", "assets/RiggedFigure/glTF-Binary/RiggedFigure.glb", false},
      {"Fox", "assets/Fox/glTF-Binary/Fox.glb", true},
      {"RobotExpressive", "assets/RobotExpressive/RobotExpressive.glb", false},
  };
  for (const auto& c : cases) {
    const std::string path = animtest::shared_path(c.file);
    const Expected<Asset> a = load_gltf(path);
    ASSERT_TRUE(a.has_value()) << a.error().message();
    std::ifstream in(animtest::shared_path(std::string("golden/") + c.golden + ".palettes.json"));
    ASSERT_TRUE(in) << c.golden;
    const nlohmann::json golden = nlohmann::json::parse(in);
    const nlohmann::json doc = animtest::read_gltf_json(path);
    const int skin = golden.value("skin", 0);
    const std::vector<glm::dmat4> ibm = animtest::gltf_inverse_binds(path, doc, skin);
    ASSERT_EQ(ibm.size(), golden["joints"].size()) << c.golden;
    const auto& clip = golden["clips"][0];
    const auto& sample = clip["samples"][0];
    // The golden skin's joints are the skeleton's first source indices; any merged joints
    // beyond them take our own palette (none of these assets has any).
    std::vector<glm::mat4> want = our_palette(*a, clip["name"], sample["t"].get<float>());
    for (size_t src = 0; src < ibm.size(); ++src)
      want[a->skeleton.joint_of_source[src]] =
          glm::mat4(animtest::golden_matrix(sample["joint_world"][src]) * ibm[src]);
    const Box expected = skinned_box(a->mesh, want);
    const Box ours = skinned_box(a->mesh, our_palette(*a, clip["name"], sample["t"].get<float>()));
    print_box(std::string(c.golden) + " " + clip["name"].get<std::string>(), ours);
    const float tol = 1e-3f * expected.size().y;
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(ours.lo[i], expected.lo[i], tol) << c.golden << " axis " << i;
      EXPECT_NEAR(ours.hi[i], expected.hi[i], tol) << c.golden << " axis " << i;
    }
    expect_upright(c.golden, ours, c.quadruped);
  }
}

}  // namespace gltf_scene_bounds_test
}  // namespace anim

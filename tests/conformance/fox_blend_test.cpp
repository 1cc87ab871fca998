// The Animator on Fox against ../shared/golden/Fox.blend.json (three.js r187 AnimationMixer
// playing crossfade and additive scenarios), plus Fox-specific checks: an upper-body mask by
// blend root, and IK on Fox's legs and arms.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/animator.h"
#include "anim/blend.h"
#include "anim/loaders/gltf_loader.h"
#include "fox_golden.h"
#include "shared_assets.h"

namespace anim {
namespace fox_blend_test {

using animtest::fox;
using animtest::fox_clip;
using animtest::fox_mesh_world;
using animtest::fox_palette_error;

TEST(FoxBlendGolden, EveryScenarioMatchesThreeJsWithin1e4) {
  ANIMD_REQUIRE_SHARED();
  const Asset& a = fox();
  ASSERT_GT(a.skeleton.num_joints(), 0);
  std::ifstream in(animtest::shared_path("golden/Fox.blend.json"));
  ASSERT_TRUE(in) << "cannot open Fox.blend.json";
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_GE(doc["scenarios"].size(), 1u);
  const glm::dmat4 mesh_world = fox_mesh_world();
  EXPECT_EQ(mesh_world, glm::dmat4(1.0)) << "Fox's mesh node is expected at the scene origin";
  for (const auto& sc : doc["scenarios"]) {
    const std::string name = sc["name"];
    ASSERT_EQ(sc["joints"].size(), static_cast<size_t>(a.skeleton.num_joints())) << name;
    Animator anim(a.skeleton, a.clips);
    ASSERT_TRUE(anim.play(fox_clip(a, sc["base"]))) << name;
    const bool fades = sc.contains("crossfade");
    const float fade_at = fades ? sc["crossfade"]["at"].get<float>() : 0.0f;
    bool faded = false;
    if (sc.contains("additive")) {
      AdditiveLayerDesc d;
      d.clip = fox_clip(a, sc["additive"]["clip"]);
      d.reference_time = sc["additive"]["reference_time"];
      d.weight = sc["additive"]["weight"];
      ASSERT_TRUE(anim.add_layer(d).has_value()) << name;
    }
    float now = 0.0f, worst = 0.0f;
    for (const auto& sample : sc["samples"]) {
      const float t = sample["t"];
      // Start the fade exactly at its time, as the oracle does, then go on to the sample.
      if (fades && !faded && t >= fade_at) {
        ASSERT_TRUE(anim.update(fade_at - now));
        now = fade_at;
        ASSERT_TRUE(anim.crossfade(fox_clip(a, sc["crossfade"]["to"]),
                                   sc["crossfade"]["duration"].get<float>()));
        faded = true;
      }
      ASSERT_TRUE(anim.update(t - now));
      now = t;
      const float err = fox_palette_error(a, anim.palette(), sample["palette"], mesh_world);
      EXPECT_LT(err, 1e-4f) << name << " at t = " << t;
      worst = std::max(worst, err);
    }
    std::printf("[ golden   ] %-50s max palette error %.3g\n", name.c_str(), worst);
  }
}

TEST(FoxMask, UpperBodyMaskByBlendRootLeavesTheRestBitIdentical) {
  ANIMD_REQUIRE_SHARED();
  const Asset& a = fox();
  ASSERT_GT(a.skeleton.num_joints(), 0);
  const Skeleton& s = a.skeleton;
  const int chest = s.find_joint("b_Spine02_03");
  ASSERT_GE(chest, 0);
  auto upper = JointMask::subtree(s, chest);
  ASSERT_TRUE(upper.has_value());
  // Neck, head and both arms are in; hips, legs, tail and spine01 are out.
  for (const char* in :
       {"b_Spine02_03", "b_Neck_04", "b_Head_05", "b_LeftHand_011", "b_RightForeArm_07"})
    EXPECT_EQ(upper->weights[s.find_joint(in)], 1.0f) << in;
  for (const char* out : {"b_Hip_01", "b_Spine01_02", "b_Tail02_013", "b_LeftFoot01_017"})
    EXPECT_EQ(upper->weights[s.find_joint(out)], 0.0f) << out;

  // blend(): Walk with Run's upper body.
  const int n = s.num_joints();
  std::vector<Transform> walk(n), run(n), out(n);
  a.clips[fox_clip(a, "Walk")].sample(0.3f, s.rest_pose, walk);
  a.clips[fox_clip(a, "Run")].sample(0.5f, s.rest_pose, run);
  blend(walk, run, 1.0f, *upper, out);
  for (int j = 0; j < n; ++j) {
    const Transform& want = upper->weights[j] > 0.0f ? run[j] : walk[j];
    EXPECT_EQ(std::memcmp(&out[j], &want, sizeof(Transform)), 0) << s.names[j];
  }

  // An additive layer (Survey) on the upper body only: the lower body's palette equals that
  // of Walk alone, bit for bit.
  Animator plain(s, a.clips), layered(s, a.clips);
  for (Animator* x : {&plain, &layered}) ASSERT_TRUE(x->play(fox_clip(a, "Walk")));
  AdditiveLayerDesc d;
  d.clip = fox_clip(a, "Survey");
  d.mask = *upper;
  ASSERT_TRUE(layered.add_layer(d).has_value());
  for (Animator* x : {&plain, &layered}) ASSERT_TRUE(x->update(1.3f));
  int changed = 0;
  for (int j = 0; j < n; ++j) {
    const bool same =
        std::memcmp(&plain.palette()[j], &layered.palette()[j], sizeof(PaletteMatrix)) == 0;
    if (upper->weights[j] == 0.0f) {
      EXPECT_TRUE(same) << s.names[j];
    }
    if (!same) ++changed;
  }
  EXPECT_GT(changed, 0);
}

// IK on Fox: every solver reaches reachable targets on the legs (and CCD / FABRIK on the
// arms) within 1 mm. Fox's units are centimetres, so 1 mm is 0.1 units.
TEST(FoxIk, SolversReachTargetsOnLegsAndArms) {
  ANIMD_REQUIRE_SHARED();
  const Asset& a = fox();
  ASSERT_GT(a.skeleton.num_joints(), 0);
  const Skeleton& s = a.skeleton;
  struct Chain {
    const char* root;
    const char* effector;
    IkSolver solver;
  };
  const Chain chains[] = {
      {"b_LeftLeg01_015", "b_LeftFoot01_017", IkSolver::kTwoBone},
      {"b_RightLeg01_019", "b_RightFoot01_021", IkSolver::kTwoBone},
      {"b_LeftLeg01_015", "b_LeftFoot02_018", IkSolver::kCcd},
      {"b_RightLeg01_019", "b_RightFoot02_022", IkSolver::kFabrik},
      {"b_LeftUpperArm_09", "b_LeftHand_011", IkSolver::kFabrik},
      {"b_RightUpperArm_06", "b_RightHand_08", IkSolver::kCcd},
      {"b_Spine01_02", "b_Head_05", IkSolver::kFabrik},
  };
  for (const Chain& c : chains) {
    Animator anim(s, a.clips);
    ASSERT_TRUE(anim.play(fox_clip(a, "Walk")));
    ASSERT_TRUE(anim.update(0.2f));
    const int root = s.find_joint(c.root), eff = s.find_joint(c.effector);
    ASSERT_GE(root, 0);
    ASSERT_GE(eff, 0);
    const glm::vec3 r(anim.model_matrices()[root][3]), e(anim.model_matrices()[eff][3]);
    // Move the effector 30% of the way toward the root and sideways: reachable.
    const float len = glm::length(e - r);
    const glm::vec3 target = e + 0.3f * (r - e) + glm::vec3(0.1f * len, 0, 0.1f * len);
    IkGoalDesc g;
    g.root_joint = c.root;
    g.effector_joint = c.effector;
    g.solver = c.solver;
    g.target = target;
    g.max_iterations = 32;
    g.tolerance = 1e-3f;
    ASSERT_TRUE(anim.set_ik_goal(g).has_value()) << c.root;
    ASSERT_TRUE(anim.update(0.0f));
    const glm::vec3 got(anim.model_matrices()[eff][3]);
    EXPECT_LT(glm::length(got - target), 0.1f) << c.root << ".." << c.effector;
  }
}

}  // namespace fox_blend_test
}  // namespace anim

// Conformance of the BVH loader on the CMU capture ../shared/assets/BVH/01_01.bvh against
// ../shared/golden/01_01.bvh.positions.json: world positions of every joint (End Sites
// included) at six frames, computed independently by direct forward kinematics. Ours come
// from the loaded skeleton and clip, sampled at each frame's key time, through the same
// local-to-model pass the runtime uses. Tolerance: 1e-4 in the file's units.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/loaders/bvh_loader.h"
#include "anim/palette.h"
#include "anim/skeleton.h"
#include "shared_assets.h"

namespace anim {
namespace bvh_positions_test {

TEST(BvhConformance, JointPositionsMatchTheGoldenAtEveryListedFrame) {
  ANIMD_REQUIRE_SHARED();
  const std::string golden_path = animtest::shared_path("golden/01_01.bvh.positions.json");
  std::ifstream in(golden_path);
  if (!in) GTEST_SKIP() << "skipped: " << golden_path << " not found";
  const nlohmann::json golden = nlohmann::json::parse(in);

  auto asset = load_bvh(animtest::shared_path("assets/BVH/01_01.bvh"));
  ASSERT_TRUE(asset) << asset.error().message();
  const Skeleton& s = asset->skeleton;
  ASSERT_EQ(asset->clips.size(), 1u);
  const Clip& clip = asset->clips[0];

  // Same joints in the same order: names (End Sites are "ENDSITE" there, "<parent>_End"
  // here), parents.
  const auto& names = golden.at("joints");
  const auto& parents = golden.at("parents");
  const auto& end_site = golden.at("is_end_site");
  ASSERT_EQ(static_cast<int>(names.size()), s.num_joints());
  for (int j = 0; j < s.num_joints(); ++j) {
    SCOPED_TRACE(s.names[j]);
    EXPECT_EQ(parents[j].get<int>(), s.parents[j]);
    if (end_site[j].get<bool>())
      EXPECT_EQ(s.names[j], s.names[s.parents[j]] + "_End");
    else
      EXPECT_EQ(names[j].get<std::string>(), s.names[j]);
  }
  const double frame_time = golden.at("frame_time").get<double>();
  const int num_frames = golden.at("num_frames").get<int>();
  EXPECT_NEAR(clip.duration, (num_frames - 1) * frame_time, 1e-3);

  std::vector<Transform> locals(s.num_joints());
  std::vector<glm::mat4> model(s.num_joints());
  int checked = 0;
  double worst = 0.0;
  for (const auto& sample : golden.at("samples")) {
    const int frame = sample.at("frame").get<int>();
    SCOPED_TRACE("frame " + std::to_string(frame));
    // The loader's key time for this frame (k x Frame Time in double, stored as float).
    const auto t = static_cast<float>(static_cast<double>(frame) * frame_time);
    clip.sample(t, s.rest_pose, locals);
    local_to_model(s, locals, model);
    const auto& positions = sample.at("positions");
    ASSERT_EQ(static_cast<int>(positions.size()), s.num_joints());
    for (int j = 0; j < s.num_joints(); ++j) {
      for (int a = 0; a < 3; ++a) {
        const double expected = positions[j][a].get<double>();
        const double error = std::fabs(model[j][3][a] - expected);
        worst = std::max(worst, error);
        EXPECT_LE(error, 1e-4) << "joint " << s.names[j] << " axis " << a << ": " << model[j][3][a]
                               << " vs " << expected;
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, 6);
  std::printf("01_01.bvh: %d frames x %d joints, largest error %.3g units\n", checked,
              s.num_joints(), worst);
}

}  // namespace bvh_positions_test
}  // namespace anim

// Montages on Fox against ../shared/golden/Fox.montage.json (three.js r187 AnimationMixer
// playing a one-shot in a masked override slot over a looping base): every palette and the
// montage's weight at each sample within 1e-4, the montage played and stopped at the times
// the golden gives.
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/animator.h"
#include "fox_golden.h"
#include "shared_assets.h"

namespace anim {
namespace fox_montage_test {

using animtest::fox;
using animtest::fox_clip;
using animtest::fox_mesh_world;
using animtest::fox_palette_error;

TEST(FoxMontageGolden, EveryScenarioMatchesThreeJsWithin1e4) {
  ANIMD_REQUIRE_SHARED();
  const Asset& a = fox();
  ASSERT_GT(a.skeleton.num_joints(), 0);
  std::ifstream in(animtest::shared_path("golden/Fox.montage.json"));
  ASSERT_TRUE(in) << "cannot open Fox.montage.json";
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_GE(doc["scenarios"].size(), 2u);
  const glm::dmat4 mesh_world = fox_mesh_world();
  for (const auto& sc : doc["scenarios"]) {
    const std::string name = sc["name"];
    const Skeleton& s = a.skeleton;
    ASSERT_EQ(sc["joints"].size(), static_cast<size_t>(s.num_joints())) << name;
    // The slot's mask is the subtree the golden names, and no other joint.
    const int mask_root = s.find_joint(sc["mask_root"].get<std::string>());
    ASSERT_GE(mask_root, 0) << name;
    auto mask = JointMask::subtree(s, mask_root);
    ASSERT_TRUE(mask.has_value()) << name;
    size_t masked = 0;
    for (const auto& joint : sc["masked_joints"]) {
      const int j = s.find_joint(joint.get<std::string>());
      ASSERT_GE(j, 0) << name;
      EXPECT_EQ(mask->weights[static_cast<size_t>(j)], 1.0f) << name << ": " << joint;
      ++masked;
    }
    size_t in_mask = 0;
    for (float w : mask->weights) in_mask += w > 0.0f ? 1 : 0;
    EXPECT_EQ(in_mask, masked) << name;

    Animator anim(s, a.clips);
    ASSERT_TRUE(anim.play(fox_clip(a, sc["base"])));
    AdditiveLayerDesc slot_desc;
    slot_desc.blend = LayerBlend::kOverride;
    slot_desc.mask = *mask;
    const Expected<int> slot = anim.add_layer(slot_desc);
    ASSERT_TRUE(slot.has_value()) << slot.error().message();
    const int montage_clip = fox_clip(a, sc["montage"]);
    EXPECT_NEAR(a.clips[montage_clip].duration, sc["montage_duration"].get<float>(), 1e-4f);
    MontageDesc montage;
    montage.clip = montage_clip;
    montage.rate = sc["rate"];
    montage.blend_in = sc["blend_in"];
    montage.blend_out = sc["blend_out"];
    const float at = sc["at"];
    const bool stops = sc.contains("stop_at");
    const float stop_at = stops ? sc["stop_at"].get<float>() : 0.0f;
    bool started = false, stopped = false;
    float now = 0.0f, worst = 0.0f;
    for (const auto& sample : sc["samples"]) {
      const float t = sample["t"];
      // Each command exactly at its time, as the oracle does, then on to the sample.
      if (!started && t >= at) {
        ASSERT_TRUE(anim.update(at - now));
        now = at;
        ASSERT_TRUE(anim.play_montage(*slot, montage));
        started = true;
      }
      if (stops && !stopped && t >= stop_at) {
        ASSERT_TRUE(anim.update(stop_at - now));
        now = stop_at;
        ASSERT_TRUE(anim.stop_montage(*slot, sc["stop_blend_out"].get<float>()));
        stopped = true;
      }
      ASSERT_TRUE(anim.update(t - now));
      now = t;
      const Expected<MontageState> state = anim.montage(*slot);
      ASSERT_TRUE(state.has_value());
      EXPECT_NEAR(state->weight, sample["montage_weight"].get<float>(), 1e-4f)
          << name << " at t = " << t;
      const float err = fox_palette_error(a, anim.palette(), sample["palette"], mesh_world);
      EXPECT_LT(err, 1e-4f) << name << " at t = " << t;
      worst = std::max(worst, err);
    }
    // Every scenario runs to the montage's end: the slot is silent again.
    EXPECT_EQ(anim.montage(*slot)->phase, MontagePhase::kEnded) << name;
    std::printf("[ golden   ] %-62s max palette error %.3g\n", name.c_str(), worst);
  }
}

}  // namespace fox_montage_test
}  // namespace anim

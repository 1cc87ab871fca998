// Conformance: our loader + sampler + model-space pass + palette against the golden palettes
// of ../shared/golden/*.palettes.json (three.js r187). Every clip, every golden time, every
// joint; the .glb and, where one exists, the .gltf variant of each asset.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/gltf_loader.h"
#include "anim/palette.h"
#include "shared_assets.h"

namespace {

namespace fs = std::filesystem;
constexpr double kTolerance = 1e-4;

std::vector<fs::path> golden_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(animtest::shared_dir() / "golden")) {
    const std::string name = e.path().filename().string();
    if (name.size() > 15 && name.ends_with(".palettes.json")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every file under assets/ called `file_name` (any folder depth).
std::vector<fs::path> find_assets(const std::string& file_name) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(animtest::shared_dir() / "assets"))
    if (e.is_regular_file() && e.path().filename() == file_name) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The variants to check for a golden "asset": the .glb itself (preferred) and the same stem
// as .gltf, wherever they are.
std::vector<fs::path> asset_variants(const std::string& asset) {
  const std::string stem = fs::path(asset).stem().string();
  std::vector<fs::path> out = find_assets(stem + ".glb");
  for (const fs::path& p : find_assets(stem + ".gltf")) out.push_back(p);
  if (out.empty()) out = find_assets(asset);
  return out;
}

// Largest |ours - golden| over every clip, sample, joint and matrix element; fails the test
// (with the place) when the golden file does not match the asset's structure.
double max_palette_error(const anim::Asset& asset, const nlohmann::json& golden,
                         const std::string& label) {
  const anim::Skeleton& sk = asset.skeleton;
  const int n = sk.num_joints();
  EXPECT_EQ(static_cast<size_t>(n), golden["joints"].size()) << label;
  if (static_cast<size_t>(n) != golden["joints"].size()) return INFINITY;
  std::vector<anim::Transform> locals(n);
  std::vector<glm::mat4> model(n);
  std::vector<anim::PaletteMatrix> palette(n);
  double worst = 0.0;
  for (const auto& gclip : golden["clips"]) {
    const std::string name = gclip["name"];
    const int ci = asset.find_clip(name);
    EXPECT_GE(ci, 0) << label << ": no clip '" << name << "'";
    if (ci < 0) {
      worst = INFINITY;
      continue;
    }
    const anim::Clip& clip = asset.clips[ci];
    EXPECT_NEAR(clip.duration, gclip["duration"].get<double>(), 1e-4) << label << " " << name;
    for (const auto& sample : gclip["samples"]) {
      const float t = sample["t"].get<float>();
      clip.sample(t, sk.rest_pose, locals);
      anim::local_to_model(sk, locals, model);
      anim::build_palette(sk, model, palette);
      const auto& gpal = sample["palette"];
      for (int src = 0; src < n; ++src) {
        const glm::mat4 ours = palette[sk.joint_of_source[src]].to_mat4();
        double joint_err = 0.0;
        for (int e = 0; e < 16; ++e)
          joint_err =
              std::max(joint_err, std::abs(ours[e / 4][e % 4] - gpal[src][e].get<double>()));
        EXPECT_LE(joint_err, kTolerance) << label << " clip '" << name << "' t=" << t << " joint "
                                         << src << " (" << sk.names[sk.joint_of_source[src]] << ")";
        worst = std::max(worst, joint_err);
      }
    }
  }
  return worst;
}

TEST(GltfConformance, PalettesMatchGolden) {
  ANIMD_REQUIRE_SHARED();
  const std::vector<fs::path> goldens = golden_files();
  ASSERT_FALSE(goldens.empty()) << "no *.palettes.json under " << animtest::shared_dir();
  for (const fs::path& gpath : goldens) {
    std::ifstream in(gpath);
    const nlohmann::json golden = nlohmann::json::parse(in);
    const std::string asset_name = golden["asset"];
    const std::vector<fs::path> variants = asset_variants(asset_name);
    EXPECT_FALSE(variants.empty()) << gpath << ": asset " << asset_name << " not found";
    for (const fs::path& file : variants) {
      anim::GltfOptions options;
      options.skin_index = golden.value("skin", -1);
      const anim::Expected<anim::Asset> asset = anim::load_gltf(file.string(), options);
      ASSERT_TRUE(asset.has_value()) << asset.error().message();
      // The default choice (first skinned mesh in the scene) must agree with the oracle's.
      const anim::Expected<anim::Asset> by_default = anim::load_gltf(file.string());
      ASSERT_TRUE(by_default.has_value()) << by_default.error().message();
      EXPECT_EQ(by_default->skeleton.names, asset->skeleton.names) << file;
      const std::string label = fs::relative(file, animtest::shared_dir()).string();
      const double err = max_palette_error(*asset, golden, label);
      std::cout << "[conformance] " << label << ": max palette error " << err << " over "
                << golden["clips"].size() << " clip(s), " << asset->skeleton.num_joints()
                << " joints\n";
      std::string key = "max_error_" + label;  // XML-safe property name
      std::replace_if(
          key.begin(), key.end(),
          [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
      ::testing::Test::RecordProperty(key, std::to_string(err));
    }
  }
}

}  // namespace

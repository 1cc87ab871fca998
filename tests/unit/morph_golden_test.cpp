// Morph targets against three.js r187 (../shared/golden/*.morphs.json, format in
// ../shared/assets/README.md): the targets each asset loads with, every clip weight sample,
// and the morphed + skinned vertices of each scenario. Skipped when ../shared is absent.
//
// three.js draws each primitive of a glTF mesh as its own mesh, so a golden "mesh" is one
// range of one of our morph sets: the sets in order, each set's ranges in order.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/animator.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/morph_layout.h"
#include "anim/morph_weights.h"
#include "anim/palette.h"
#include "shared_assets.h"

namespace anim {
namespace morph_golden_test {

using nlohmann::json;

constexpr double kWeightTolerance = 1e-5;
constexpr double kPositionTolerance = 1e-4;

struct GoldenMesh {
  int set = -1;
  VertexRange range;
};

struct Loaded {
  Asset asset;
  json golden;
  std::vector<GoldenMesh> meshes;  // golden mesh i -> our set and range
};

// Loads the asset and the golden, and pairs the golden meshes with our sets' ranges.
bool load(const std::string& asset_path, const std::string& golden_path, Loaded* out) {
  Expected<Asset> a = load_gltf(animtest::shared_path(asset_path));
  EXPECT_TRUE(a.has_value()) << (a ? "" : a.error().message());
  if (!a) return false;
  out->asset = std::move(*a);
  std::ifstream in(animtest::shared_path(golden_path));
  out->golden = json::parse(in);
  for (size_t s = 0; s < out->asset.mesh.morph_sets.size(); ++s)
    for (const VertexRange& r : out->asset.mesh.morph_sets[s].ranges)
      out->meshes.push_back({static_cast<int>(s), r});
  EXPECT_EQ(out->meshes.size(), out->golden["meshes"].size()) << asset_path;
  return out->meshes.size() == out->golden["meshes"].size();
}

// The weights of every set that `clip` gives at `t`.
std::vector<std::vector<float>> clip_weights(const Asset& a, const Clip& clip, float t) {
  std::vector<std::vector<float>> w;
  for (size_t s = 0; s < a.mesh.morph_sets.size(); ++s) {
    w.emplace_back(a.mesh.morph_sets[s].num_targets());
    EXPECT_TRUE(sample_morph_weights(clip, a.mesh, static_cast<int>(s), t, w.back()));
  }
  return w;
}

// The Animator's flat weights split by set.
std::vector<std::vector<float>> by_set(const MorphLayout& layout, std::span<const float> flat) {
  std::vector<std::vector<float>> w;
  for (int s = 0; s < layout.num_sets(); ++s)
    w.emplace_back(flat.begin() + layout.set_first[s],
                   flat.begin() + layout.set_first[s] + layout.set_count[s]);
  return w;
}

void check_targets(const Loaded& l) {
  const Asset& a = l.asset;
  for (const std::string& w : a.warnings)
    EXPECT_EQ(w.find("morph"), std::string::npos) << "warning: " << w;
  for (size_t i = 0; i < l.meshes.size(); ++i) {
    const json& g = l.golden["meshes"][i];
    const MorphSet& set = a.mesh.morph_sets[l.meshes[i].set];
    EXPECT_EQ(l.meshes[i].range.vertex_count, g["vertices"].get<uint32_t>()) << g["name"];
    std::vector<std::string> names;
    for (const MorphTarget& t : set.targets) names.push_back(t.name);
    EXPECT_EQ(names, g["targets"].get<std::vector<std::string>>()) << g["name"];
  }
}

double check_clip_weights(const Loaded& l) {
  const Asset& a = l.asset;
  double worst = 0.0;
  for (const json& gc : l.golden["clip_weights"]) {
    const int ci = a.find_clip(gc["clip"].get<std::string>());
    EXPECT_GE(ci, 0) << gc["clip"];
    if (ci < 0) continue;
    EXPECT_NEAR(a.clips[ci].duration, gc["duration"].get<double>(), 1e-5) << gc["clip"];
    auto layout = std::make_shared<const MorphLayout>(make_morph_layout(a.mesh));
    for (const json& sample : gc["samples"]) {
      const float t = sample["t"].get<float>();
      const auto w = clip_weights(a, a.clips[ci], t);
      // The same weights through an Animator playing the clip, held at t.
      Animator animator(a.skeleton, a.clips);
      EXPECT_TRUE(animator.set_morph_layout(layout));
      EXPECT_TRUE(animator.play(ci, {.loop = true, .speed = 0.0f, .start_time = t}));
      EXPECT_TRUE(animator.update(0.0f));
      EXPECT_EQ(by_set(*layout, animator.morph_weights()), w) << gc["clip"] << " t=" << t;
      for (size_t i = 0; i < l.meshes.size(); ++i) {
        const std::vector<float>& ours = w[l.meshes[i].set];
        const std::vector<double> want = sample["weights"][i].get<std::vector<double>>();
        EXPECT_EQ(ours.size(), want.size());
        for (size_t k = 0; k < std::min(ours.size(), want.size()); ++k) {
          const double err = std::abs(ours[k] - want[k]);
          worst = std::max(worst, err);
          EXPECT_LE(err, kWeightTolerance)
              << gc["clip"] << " t=" << t << " mesh " << i << " target " << k;
        }
      }
    }
  }
  return worst;
}

// Scene-space vertices: bind position plus the weighted deltas, then skinned with the palette
// of an Animator playing the clip from 0, looping, updated to t (every golden t is inside
// the clip, so the weights are the clip's at t), the weights the Animator gives (the game's
// through set_morph_weights). Our palette maps bind space to the scene
// space, where three.js's skinned meshes (palette relative to the mesh node, then the node's
// world matrix) and rigidly attached ones (the node's world matrix) end up.
// `moved`: the largest distance a vertex moves in bind space under the scenarios' weights
// (shows that the comparison covers morphed vertices, not only the base shape).
double check_scenarios(const Loaded& l, double* moved) {
  const Asset& a = l.asset;
  const Skeleton& sk = a.skeleton;
  double worst = 0.0;
  *moved = 0.0;
  for (const json& sc : l.golden["scenarios"]) {
    const std::string label = sc["name"];
    const int ci = a.find_clip(sc["clip"].get<std::string>());
    EXPECT_GE(ci, 0) << label;
    if (ci < 0) continue;
    const Clip& clip = a.clips[ci];
    const float t = sc["t"].get<float>();
    EXPECT_LT(t, clip.duration) << label << ": the clip would wrap";
    // The game's weights through set_morph_weights (every target so named, in any set).
    auto layout = std::make_shared<const MorphLayout>(make_morph_layout(a.mesh));
    std::vector<MorphWeightValue> set;
    if (sc.contains("set_weights"))
      for (auto& [name, value] : sc["set_weights"].items())
        for (int i = 0; i < layout->num_weights(); ++i)
          if (layout->target_names[i] == name) set.push_back({i, value.get<float>()});

    Animator animator(sk, a.clips);
    EXPECT_TRUE(animator.set_morph_layout(layout));
    EXPECT_TRUE(animator.play(ci, {.loop = true}));
    if (!set.empty()) {
      EXPECT_TRUE(animator.set_morph_weights(set, 0.0f));
    }
    EXPECT_TRUE(animator.update(t));
    const auto weights = by_set(*layout, animator.morph_weights());
    EXPECT_NEAR(animator.current_clip_time(), t, 1e-6f) << label;
    const std::span<const PaletteMatrix> palette = animator.palette();
    EXPECT_EQ(palette.size(), static_cast<size_t>(sk.num_joints()));
    std::vector<glm::mat4> pal(palette.size());
    for (size_t j = 0; j < palette.size(); ++j) pal[j] = palette[j].to_mat4();

    std::vector<glm::vec3> morphed = a.mesh.positions;
    for (size_t s = 0; s < weights.size(); ++s)
      apply_morph_positions(a.mesh.morph_sets[s], weights[s], morphed);
    for (size_t v = 0; v < morphed.size(); ++v)
      *moved = std::max(*moved, double{glm::length(morphed[v] - a.mesh.positions[v])});

    for (size_t i = 0; i < l.meshes.size(); ++i) {
      const json& gm = sc["meshes"][i];
      const std::vector<float>& w = weights[l.meshes[i].set];
      const std::vector<double> want_w = gm["weights"].get<std::vector<double>>();
      for (size_t k = 0; k < std::min(w.size(), want_w.size()); ++k)
        EXPECT_NEAR(w[k], want_w[k], kWeightTolerance) << label << " mesh " << i;
      const VertexRange r = l.meshes[i].range;
      EXPECT_EQ(gm["positions"].size(), r.vertex_count) << label << " mesh " << i;
      for (uint32_t v = 0; v < std::min<size_t>(r.vertex_count, gm["positions"].size()); ++v) {
        const uint32_t vi = r.first_vertex + v;
        glm::vec4 p(0.0f);
        for (int c = 0; c < 4; ++c)
          if (a.mesh.weights[vi][c] > 0.0f)
            p += a.mesh.weights[vi][c] * (pal[a.mesh.joints[vi][c]] * glm::vec4(morphed[vi], 1));
        const std::vector<double> want = gm["positions"][v].get<std::vector<double>>();
        double err = 0.0;
        for (int c = 0; c < 3; ++c) err = std::max(err, std::abs(p[c] - want[c]));
        worst = std::max(worst, err);
        EXPECT_LE(err, kPositionTolerance) << label << " mesh " << i << " vertex " << v;
        if (err > kPositionTolerance) break;  // one line per mesh is enough
      }
    }
  }
  return worst;
}

void run_golden(const std::string& asset_path, const std::string& golden_path) {
  Loaded l;
  if (!load(asset_path, golden_path, &l)) return;
  check_targets(l);
  const double weights = check_clip_weights(l);
  double moved = 0.0;
  const double positions = check_scenarios(l, &moved);
  EXPECT_GT(moved, 1e-3) << asset_path << ": no scenario morphs a vertex";
  std::cout << "[morph golden] " << asset_path << ": max clip weight error " << weights
            << ", max scenario position error " << positions << " (vertices moved by morphs up to "
            << moved << " in bind space)\n";
}

TEST(MorphGolden, MorphArmMatchesThreeJs) {
  ANIMD_REQUIRE_SHARED();
  run_golden("assets/MorphArm/MorphArm.glb", "golden/MorphArm.morphs.json");
}

TEST(MorphGolden, RobotExpressiveMatchesThreeJs) {
  ANIMD_REQUIRE_SHARED();
  run_golden("assets/RobotExpressive/RobotExpressive.glb", "golden/RobotExpressive.morphs.json");
}

}  // namespace morph_golden_test
}  // namespace anim

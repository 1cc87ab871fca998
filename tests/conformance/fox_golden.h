#pragma once
// Fox (../shared/assets/Fox) and its golden palettes: the asset, its clips by name, and the
// distance between an Animator's palette and a three.js palette from ../shared/golden.

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/animator.h"
#include "anim/loaders/gltf_loader.h"
#include "gltf_scene_json.h"
#include "shared_assets.h"

namespace animtest {

inline const anim::Asset& fox() {
  static const anim::Expected<anim::Asset> asset =
      anim::load_gltf(animtest::shared_path("assets/Fox/glTF-Binary/Fox.glb"));
  EXPECT_TRUE(asset.has_value()) << (asset ? "" : asset.error().message());
  static const anim::Asset empty;
  return asset ? *asset : empty;
}

inline int fox_clip(const anim::Asset& a, const std::string& name) {
  const int i = a.find_clip(name);
  EXPECT_GE(i, 0) << "Fox has no clip '" << name << "'";
  return i;
}

// Fox's skinned mesh node's scene-space matrix, read from the file's JSON. The golden blend
// palettes are in that node's space (the glTF spec's joint matrix); ours are in scene space,
// so the golden is mapped by it first. (It is the identity for Fox, which the test checks.)
inline glm::dmat4 fox_mesh_world() {
  const std::string path = animtest::shared_path("assets/Fox/glTF-Binary/Fox.glb");
  const nlohmann::json doc = animtest::read_gltf_json(path);
  const int node = animtest::gltf_first_skinned_mesh_node(doc, 0);
  EXPECT_GE(node, 0) << "Fox has no skinned mesh node";
  return node < 0 ? glm::dmat4(1.0) : animtest::gltf_node_world(doc, node);
}

// Largest absolute difference between our palette (skeleton order) and mesh_world * a golden
// palette (skin.joints order, column-major 4x4).
inline float fox_palette_error(const anim::Asset& a, std::span<const anim::PaletteMatrix> palette,
                               const nlohmann::json& golden, const glm::dmat4& mesh_world) {
  float worst = 0.0f;
  for (size_t src = 0; src < golden.size(); ++src) {
    const glm::mat4 m = palette[a.skeleton.joint_of_source[src]].to_mat4();
    const glm::dmat4 want = mesh_world * animtest::golden_matrix(golden[src]);
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r)
        worst = std::max(worst, static_cast<float>(std::abs(m[c][r] - want[c][r])));
  }
  return worst;
}

}  // namespace animtest

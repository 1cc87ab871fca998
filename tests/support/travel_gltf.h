#pragma once
// A small skinned glTF whose root joint travels, for root-motion and event tests through the
// real daemon (uploaded as glb_data) and the loader: joints "Root" and "Hip" (1 above it);
// animation "Stride" moves Root from (0, 0, 0) to (0, 0, 2) in 1 s (LINEAR), and "Stand"
// holds it at the origin for 1 s. `stride_extras`, when given, becomes the Stride
// animation's `extras` (clip events: docs/loader-gltf.md).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gltf_test_files.h"

namespace animtest {

inline GltfFile travel_gltf(const nlohmann::json& stride_extras = nullptr) {
  GltfFile f;
  const int root = f.add_node({{"name", "Root"}});
  const int hip = f.add_node({{"name", "Hip"}, {"translation", {0.0, 1.0, 0.0}}}, root);
  const std::vector<float> inverse_bind = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                                           1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
  const int ibm = f.add_floats(inverse_bind, "MAT4", 16);
  f.doc["skins"] = nlohmann::json::array({{{"joints", {root, hip}}, {"inverseBindMatrices", ibm}}});
  const int times = f.add_floats({0.0f, 1.0f}, "SCALAR", 1);
  f.doc["accessors"][times]["min"] = {0.0};
  f.doc["accessors"][times]["max"] = {1.0};
  const int stride = f.add_floats({0, 0, 0, 0, 0, 2}, "VEC3", 3);
  const int stand = f.add_floats({0, 0, 0, 0, 0, 0}, "VEC3", 3);
  auto animation = [&](const char* name, int values) {
    return nlohmann::json{
        {"name", name},
        {"channels", {{{"sampler", 0}, {"target", {{"node", root}, {"path", "translation"}}}}}},
        {"samplers", {{{"input", times}, {"output", values}, {"interpolation", "LINEAR"}}}}};
  };
  f.doc["animations"] =
      nlohmann::json::array({animation("Stride", stride), animation("Stand", stand)});
  if (!stride_extras.is_null()) f.doc["animations"][0]["extras"] = stride_extras;
  return f;
}

}  // namespace animtest

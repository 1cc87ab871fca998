#pragma once
// Crafted .glb uploads that attack the loader's bounds (docs/security.md, "Hostile assets"):
// each is small on the wire and, without the bounds, crashed the daemon, took memory far
// beyond its size, or held the loader for seconds. Built as JSON text where the shape is
// too deep or too wide for a JSON library to hold comfortably.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gltf_uri_cases.h"

namespace animtest {

// `doc` as text with the string value "@HOLE@" replaced by the JSON text `fill`.
inline std::string fill_hole(const nlohmann::json& doc, const std::string& fill) {
  std::string text = doc.dump();
  const std::string marker = "\"@HOLE@\"";
  text.replace(text.find(marker), marker.size(), fill);
  return text;
}

// A valid one-joint upload (its inverse bind matrix in the BIN chunk).
inline nlohmann::json one_joint_upload_document() {
  return one_joint_document(nlohmann::json{{"byteLength", 64}});
}

// asset.extras nesting `levels` arrays: 30,000 levels overflowed the parser's stack.
inline std::string deep_extras_glb(size_t levels) {
  nlohmann::json doc = one_joint_upload_document();
  doc["asset"]["extras"] = "@HOLE@";
  return glb_of_text(fill_hole(doc, std::string(levels, '[') + std::string(levels, ']')),
                     identity_matrix_bytes());
}

// `extra` empty nodes beside the joint: 400,000 took 225 times their upload in memory.
inline std::string empty_nodes_glb(size_t extra) {
  nlohmann::json doc = one_joint_upload_document();
  doc["nodes"] = "@HOLE@";
  std::string nodes = "[{\"name\":\"Root\"}";
  for (size_t i = 0; i < extra; ++i) nodes += ",{}";
  nodes += "]";
  return glb_of_text(fill_hole(doc, nodes), identity_matrix_bytes());
}

// A chain of `length` non-joint nodes with the joint at its bottom: quadratic ancestor walks
// held the loader for seconds.
inline std::string node_chain_glb(int length) {
  nlohmann::json doc = one_joint_upload_document();
  doc["nodes"] = "@HOLE@";
  doc["scenes"] = nlohmann::json::array({{{"nodes", {1}}}});
  doc["skins"] = nlohmann::json::array({{{"joints", {0}}, {"inverseBindMatrices", 0}}});
  // Node 0 is the joint; node 1 the chain's top; node k's child is k + 1; the last's is 0.
  std::string nodes = "[{\"name\":\"Root\"}";
  for (int k = 1; k <= length; ++k)
    nodes += ",{\"children\":[" + std::to_string(k < length ? k + 1 : 0) + "]}";
  nodes += "]";
  return glb_of_text(fill_hole(doc, nodes), identity_matrix_bytes());
}

// An animation whose key values are an accessor of `count` VEC3 elements with no buffer
// view (zeros under one sparse value): 2^28 elements asked for 6 GiB from 15 KB.
inline std::string sparse_bomb_glb(uint64_t count) {
  nlohmann::json doc = one_joint_upload_document();
  std::string bin = identity_matrix_bytes();  // view 0: 64 bytes
  const size_t times_at = bin.size();
  const float times[2] = {0.0f, 1.0f};
  bin.append(reinterpret_cast<const char*>(times), sizeof times);
  const size_t index_at = bin.size();
  const uint32_t index = 1;
  bin.append(reinterpret_cast<const char*>(&index), 4);
  const size_t value_at = bin.size();
  const float value[3] = {0.0f, 0.0f, 7.0f};
  bin.append(reinterpret_cast<const char*>(value), sizeof value);
  doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", times_at}, {"byteLength", 8}});
  doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", index_at}, {"byteLength", 4}});
  doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", value_at}, {"byteLength", 12}});
  doc["accessors"].push_back(
      {{"bufferView", 1}, {"componentType", kFloat}, {"count", 2}, {"type", "SCALAR"}});
  doc["accessors"].push_back({{"componentType", kFloat},
                              {"count", count},
                              {"type", "VEC3"},
                              {"sparse",
                               {{"count", 1},
                                {"indices", {{"bufferView", 2}, {"componentType", kUnsignedInt}}},
                                {"values", {{"bufferView", 3}}}}}});
  doc["animations"] = nlohmann::json::array(
      {{{"name", "sparse"},
        {"samplers", {{{"input", 1}, {"output", 2}}}},
        {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}}}}}});
  doc["buffers"][0]["byteLength"] = bin.size();
  return glb_of(doc, bin);
}

// `animations` clips that all read the same `keys` keys: a load whose cost is its decoding,
// not its size (each clip decodes the shared accessors again).
inline std::string aliasing_clips_glb(int animations, size_t keys) {
  nlohmann::json doc = one_joint_upload_document();
  std::string bin = identity_matrix_bytes();
  const size_t times_at = bin.size();
  for (size_t k = 0; k < keys; ++k) {
    const float t = static_cast<float>(k) / 30.0f;
    bin.append(reinterpret_cast<const char*>(&t), 4);
  }
  const size_t values_at = bin.size();
  for (size_t k = 0; k < keys; ++k) {
    const float v[3] = {static_cast<float>(k % 7), 0.0f, 0.0f};
    bin.append(reinterpret_cast<const char*>(v), sizeof v);
  }
  doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", times_at}, {"byteLength", keys * 4}});
  doc["bufferViews"].push_back(
      {{"buffer", 0}, {"byteOffset", values_at}, {"byteLength", keys * 12}});
  doc["accessors"].push_back(
      {{"bufferView", 1}, {"componentType", kFloat}, {"count", keys}, {"type", "SCALAR"}});
  doc["accessors"].push_back(
      {{"bufferView", 2}, {"componentType", kFloat}, {"count", keys}, {"type", "VEC3"}});
  for (int a = 0; a < animations; ++a)
    doc["animations"].push_back(
        {{"name", "clip" + std::to_string(a)},
         {"samplers", {{{"input", 1}, {"output", 2}}}},
         {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}}}}});
  doc["buffers"][0]["byteLength"] = bin.size();
  return glb_of(doc, bin);
}

}  // namespace animtest

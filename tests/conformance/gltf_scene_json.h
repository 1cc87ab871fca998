#pragma once
// Reading a glTF file's node hierarchy straight from its JSON (no loader of ours involved), to
// turn golden palettes, which the oracle wrote in the skinned mesh node's space (the glTF
// spec's joint matrix: inverse(mesh node world) * joint world * inverse bind), into the scene
// space our palettes use (joint world * inverse bind): scene = mesh node world * golden.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <nlohmann/json.hpp>

namespace animtest {

// The JSON document of a .gltf or .glb file (the .glb's first chunk); null when unreadable.
inline nlohmann::json read_gltf_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() >= 20 && bytes.compare(0, 4, "glTF") == 0) {
    uint32_t length = 0;
    std::memcpy(&length, bytes.data() + 12, 4);
    if (20 + static_cast<size_t>(length) > bytes.size()) return nullptr;
    return nlohmann::json::parse(bytes.substr(20, length), nullptr, false);
  }
  return nlohmann::json::parse(bytes, nullptr, false);
}

// A node's local matrix: `matrix` (column-major) or T * R * S.
inline glm::dmat4 gltf_node_local(const nlohmann::json& node) {
  if (node.contains("matrix")) {
    glm::dmat4 m(1.0);
    for (int i = 0; i < 16; ++i) m[i / 4][i % 4] = node["matrix"][i].get<double>();
    return m;
  }
  glm::dmat4 t(1.0), s(1.0);
  glm::dquat r(1.0, 0.0, 0.0, 0.0);
  if (node.contains("translation"))
    for (int i = 0; i < 3; ++i) t[3][i] = node["translation"][i].get<double>();
  if (node.contains("rotation")) {
    const auto& q = node["rotation"];  // x, y, z, w
    r = glm::dquat(q[3].get<double>(), q[0].get<double>(), q[1].get<double>(), q[2].get<double>());
  }
  if (node.contains("scale"))
    for (int i = 0; i < 3; ++i) s[i][i] = node["scale"][i].get<double>();
  return t * glm::mat4_cast(r) * s;
}

// The scene-space matrix of node `index` (product of its ancestors' locals and its own).
inline glm::dmat4 gltf_node_world(const nlohmann::json& doc, int index) {
  const auto& nodes = doc["nodes"];
  std::vector<int> parent(nodes.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].contains("children"))
      for (const auto& c : nodes[i]["children"]) parent[c.get<int>()] = static_cast<int>(i);
  glm::dmat4 w(1.0);
  for (int j = index; j >= 0; j = parent[j]) w = gltf_node_local(nodes[j]) * w;
  return w;
}

// The first node of the default scene (depth first, children in file order, as three.js
// traverses) that has a mesh and skin `skin`; -1 when there is none.
inline int gltf_first_skinned_mesh_node(const nlohmann::json& doc, int skin) {
  const auto& nodes = doc["nodes"];
  const int scene = doc.value("scene", 0);
  std::vector<int> stack;
  const auto& roots = doc["scenes"][scene]["nodes"];
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back(it->get<int>());
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (nodes[n].contains("mesh") && nodes[n].value("skin", -1) == skin) return n;
    if (nodes[n].contains("children")) {
      const auto& ch = nodes[n]["children"];
      for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(it->get<int>());
    }
  }
  return -1;
}

// Skin `skin`'s inverse bind matrices, read from the file's bytes (float MAT4 accessor in a
// .glb's BIN chunk or an external .bin beside a .gltf); identity for every joint when the skin
// has none; empty when they cannot be read.
inline std::vector<glm::dmat4> gltf_inverse_binds(const std::string& path,
                                                  const nlohmann::json& doc, int skin) {
  const auto& sk = doc["skins"][skin];
  const size_t joints = sk["joints"].size();
  if (!sk.contains("inverseBindMatrices")) return std::vector<glm::dmat4>(joints, glm::dmat4(1.0));
  const auto& acc = doc["accessors"][sk["inverseBindMatrices"].get<int>()];
  const auto& view = doc["bufferViews"][acc["bufferView"].get<int>()];
  const auto& buffer = doc["buffers"][view["buffer"].get<int>()];
  std::string data;
  if (buffer.contains("uri")) {
    const std::string uri = buffer["uri"];
    if (uri.starts_with("data:")) return {};
    const std::string dir = path.substr(0, path.find_last_of('/') + 1);
    std::ifstream in(dir + uri, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    uint32_t json_length = 0, bin_length = 0;
    std::memcpy(&json_length, bytes.data() + 12, 4);
    const size_t bin_at = 20 + json_length;
    if (bin_at + 8 > bytes.size()) return {};
    std::memcpy(&bin_length, bytes.data() + bin_at, 4);
    data = bytes.substr(bin_at + 8, bin_length);
  }
  const size_t offset = view.value("byteOffset", size_t{0}) + acc.value("byteOffset", size_t{0});
  const size_t stride = view.value("byteStride", size_t{64});
  if (acc["componentType"].get<int>() != 5126 || offset + stride * (joints - 1) + 64 > data.size())
    return {};
  std::vector<glm::dmat4> out(joints);
  for (size_t k = 0; k < joints; ++k)
    for (int i = 0; i < 16; ++i) {
      float v;
      std::memcpy(&v, data.data() + offset + stride * k + 4 * i, 4);
      out[k][i / 4][i % 4] = v;
    }
  return out;
}

// Column-major 16 floats of a golden file as a matrix.
inline glm::dmat4 golden_matrix(const nlohmann::json& m16) {
  glm::dmat4 m;
  for (int i = 0; i < 16; ++i) m[i / 4][i % 4] = m16[i].get<double>();
  return m;
}

}  // namespace animtest

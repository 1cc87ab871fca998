#pragma once
// Building small glTF files in test code: a JSON document plus one binary buffer, written as
// .gltf with an embedded data: URI, .gltf + .bin, or .glb. Tests describe exactly the nodes,
// skins, accessors and animations they need, so every expectation can be computed by hand.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process_tmp_dir.h"

namespace animtest {

// glTF component types and accessor types, spelled as in the spec.
enum : int {
  kByte = 5120,
  kUnsignedByte = 5121,
  kShort = 5122,
  kUnsignedShort = 5123,
  kUnsignedInt = 5125,
  kFloat = 5126,
};

// This process's own scratch folder (see process_tmp_dir.h).
inline std::filesystem::path test_tmp_dir() {
  return process_tmp_dir();
}

inline std::string base64(const std::string& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v =
        (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += abc[v >> 18];
    out += abc[(v >> 12) & 63];
    out += abc[(v >> 6) & 63];
    out += abc[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint8_t(bytes[i]) << 16;
    out += abc[v >> 18];
    out += abc[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out += abc[v >> 18];
    out += abc[(v >> 12) & 63];
    out += abc[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

class GltfFile {
 public:
  nlohmann::json doc;  // everything but buffers; tests edit it freely
  std::string bin;     // the one binary buffer

  GltfFile() {
    doc["asset"] = {{"version", "2.0"}};
    doc["scene"] = 0;
    doc["scenes"] = nlohmann::json::array({{{"nodes", nlohmann::json::array()}}});
    doc["nodes"] = nlohmann::json::array();
  }

  // Appends raw bytes (4-byte aligned) as a buffer view; returns its index.
  int add_view(const void* data, size_t size, int stride = 0) {
    while (bin.size() % 4) bin.push_back('\0');
    nlohmann::json v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", size}};
    if (stride) v["byteStride"] = stride;
    bin.append(static_cast<const char*>(data), size);
    doc["bufferViews"].push_back(v);
    return static_cast<int>(doc["bufferViews"].size()) - 1;
  }

  int add_accessor(int view, int component_type, size_t count, const std::string& type,
                   bool normalized = false, size_t byte_offset = 0) {
    nlohmann::json a = {
        {"bufferView", view}, {"componentType", component_type}, {"count", count}, {"type", type}};
    if (byte_offset) a["byteOffset"] = byte_offset;
    if (normalized) a["normalized"] = true;
    doc["accessors"].push_back(a);
    return static_cast<int>(doc["accessors"].size()) - 1;
  }

  // Tightly packed accessor of `values` (count = values.size() / components).
  template <class T>
  int add_data(const std::vector<T>& values, int component_type, const std::string& type,
               int components, bool normalized = false) {
    const int view = add_view(values.data(), values.size() * sizeof(T));
    return add_accessor(view, component_type, values.size() / components, type, normalized);
  }
  int add_floats(const std::vector<float>& v, const std::string& type, int components) {
    return add_data(v, kFloat, type, components);
  }

  // A node (optionally with a parent) and its index. Root nodes join scene 0.
  int add_node(nlohmann::json node, int parent = -1) {
    doc["nodes"].push_back(node);
    const int i = static_cast<int>(doc["nodes"].size()) - 1;
    if (parent >= 0)
      doc["nodes"][parent]["children"].push_back(i);
    else
      doc["scenes"][0]["nodes"].push_back(i);
    return i;
  }

  // Writes <stem>.gltf with the buffer embedded as a base64 data: URI.
  std::string write_embedded(const std::string& stem) const {
    nlohmann::json d = doc;
    d["buffers"] = {{{"byteLength", bin.size()},
                     {"uri", "data:application/octet-stream;base64," + base64(bin)}}};
    return write_text(stem + ".gltf", d.dump());
  }

  // Writes <stem>.gltf and <stem>.bin. `bin_bytes` overrides the .bin contents (truncation).
  std::string write_separate(const std::string& stem,
                             const std::string* bin_bytes = nullptr) const {
    nlohmann::json d = doc;
    d["buffers"] = {{{"byteLength", bin.size()}, {"uri", stem + ".bin"}}};
    write_text(stem + ".bin", bin_bytes ? *bin_bytes : bin);
    return write_text(stem + ".gltf", d.dump());
  }

  // The .glb bytes: header, JSON chunk, BIN chunk.
  std::string glb_bytes() const {
    nlohmann::json d = doc;
    d["buffers"] = {{{"byteLength", bin.size()}}};
    std::string json = d.dump();
    while (json.size() % 4) json.push_back(' ');
    std::string b = bin;
    while (b.size() % 4) b.push_back('\0');
    std::string out;
    auto u32 = [&out](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
    out += "glTF";
    u32(2);
    u32(static_cast<uint32_t>(12 + 8 + json.size() + 8 + b.size()));
    u32(static_cast<uint32_t>(json.size()));
    u32(0x4E4F534A);  // JSON
    out += json;
    u32(static_cast<uint32_t>(b.size()));
    u32(0x004E4942);  // BIN
    out += b;
    return out;
  }

  std::string write_glb(const std::string& stem) const {
    return write_text(stem + ".glb", glb_bytes());
  }

  static std::string write_text(const std::string& name, const std::string& bytes) {
    const std::filesystem::path p = test_tmp_dir() / name;
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p.string();
  }
};

}  // namespace animtest

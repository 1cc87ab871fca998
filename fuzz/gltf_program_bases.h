#pragma once
// The base documents a program starts from, and the tables its operations index (keys,
// strings, numbers).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gltf_program_tree.h"
#include "gltf_seed_files.h"
#include "hostile_gltf.h"
#include "travel_gltf.h"

namespace animfuzz::gltfprog {

struct Base {
  std::string name;
  Value glb;   // the document as written in a .glb (buffer 0 is the BIN chunk)
  Value text;  // the same as .gltf text (buffer 0 a base64 data: URI of `bin`)
  std::string bin;
};

// A .glb's JSON and BIN chunks (the generators of hostile_gltf.h write .glb bytes).
inline void split_glb(const std::string& glb, nlohmann::json& doc, std::string& bin) {
  auto u32 = [&glb](size_t at) {
    uint32_t v = 0;
    std::memcpy(&v, glb.data() + at, 4);
    return v;
  };
  const uint32_t json_length = u32(12);
  doc = nlohmann::json::parse(glb.substr(20, json_length));
  const size_t bin_at = 20 + json_length;
  bin = bin_at + 8 <= glb.size() ? glb.substr(bin_at + 8, u32(bin_at)) : std::string();
}

inline Base make_base(std::string name, nlohmann::json doc, std::string bin) {
  Base b;
  b.name = std::move(name);
  b.bin = std::move(bin);
  doc["buffers"] = nlohmann::json::array({{{"byteLength", b.bin.size()}}});
  b.glb = from_json(doc);
  doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + animtest::base64(b.bin);
  b.text = from_json(doc);
  return b;
}

inline Base base_of_glb(std::string name, const std::string& glb) {
  nlohmann::json doc;
  std::string bin;
  split_glb(glb, doc, bin);
  return make_base(std::move(name), std::move(doc), std::move(bin));
}

inline Base base_of_file(std::string name, const animtest::GltfFile& f) {
  return make_base(std::move(name), f.doc, f.bin);
}

// The seeds of the `gltf` target and small instances of every hostile shape of
// hostile_gltf.h, so that one operation turns a base into the attack at full size.
inline const std::vector<Base>& bases() {
  static const std::vector<Base> all = [] {
    std::vector<Base> b;
    b.push_back(base_of_glb("one_joint", animtest::glb_of(animtest::one_joint_upload_document(),
                                                          animtest::identity_matrix_bytes())));
    b.push_back(base_of_file("tiny", tiny_gltf(false)));
    b.push_back(base_of_file("cubic", tiny_gltf(true)));
    b.push_back(base_of_file("builtin_part", builtin_part_gltf()));
    b.push_back(base_of_file("events", animtest::travel_gltf(events_extras())));
    b.push_back(base_of_glb("deep_extras", animtest::deep_extras_glb(4)));
    b.push_back(base_of_glb("empty_nodes", animtest::empty_nodes_glb(4)));
    b.push_back(base_of_glb("node_chain", animtest::node_chain_glb(6)));
    b.push_back(base_of_glb("sparse", animtest::sparse_bomb_glb(4)));
    b.push_back(base_of_glb("aliasing_clips", animtest::aliasing_clips_glb(3, 4)));
    return b;
  }();
  return all;
}

// ---- Tables -------------------------------------------------------------------------------

// glTF 2.0 member names, and those of the extras the loader reads (animation events).
// clang-format off
inline constexpr std::array<std::string_view, 76> kKeys = {
    "asset", "version", "generator", "minVersion", "copyright", "scene", "scenes", "nodes",
    "children", "mesh", "skin", "camera", "matrix", "translation", "rotation", "scale",
    "weights", "name", "meshes", "primitives", "attributes", "POSITION", "NORMAL", "TANGENT",
    "TEXCOORD_0", "JOINTS_0", "WEIGHTS_0", "JOINTS_1", "WEIGHTS_1", "indices", "material",
    "mode", "targets", "skins", "joints", "skeleton", "inverseBindMatrices", "accessors",
    "bufferView", "byteOffset", "componentType", "normalized", "count", "type", "max", "min",
    "sparse", "values", "bufferViews", "buffer", "byteLength", "byteStride", "target",
    "buffers", "uri", "animations", "channels", "sampler", "node", "path", "samplers", "input",
    "output", "interpolation", "materials", "images", "textures", "cameras", "extensions",
    "extras", "extensionsUsed", "extensionsRequired", "mimeType", "source", "events", "time",
};
// clang-format on

// clang-format off
inline constexpr std::array<std::string_view, 36> kStrings = {
    "2.0", "1.0", "3.0", "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4", "LINEAR",
    "STEP", "CUBICSPLINE", "translation", "rotation", "scale", "weights", "skin", "Root", "",
    "data:application/octet-stream;base64,",
    "data:application/octet-stream;base64,AAAAAAAAgD8AAAAA",
    "data:application/gltf-buffer;base64,AAAA", "data:image/png;base64,iVBORw0KGgo=", "data:,",
    "data:application/octet-stream;base64,@@@", "model.bin", "../secret.bin", "/etc/passwd",
    "file:///etc/passwd", "KHR_mesh_quantization", "KHR_materials_variants", "image/png",
    "step", "caf\xc3\xa9", "quote\" and \\ and \n",
};
// clang-format on

// clang-format off
inline constexpr std::array<std::string_view, 34> kNumbers = {
    "0", "-1", "1", "2", "3", "4", "63", "64", "65", "255", "256", "65535", "65536", "65537",
    "1048576", "268435456", "2147483647", "2147483648", "-2147483648", "4294967295",
    "4294967296", "9007199254740993", "18446744073709551615", "18446744073709551616", "1e308",
    "-1e308", "4.9e-324", "-0", "0.5", "5121", "5123", "5125", "5126", "34962",
};
// clang-format on

}  // namespace animfuzz::gltfprog

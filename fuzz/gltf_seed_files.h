#pragma once
// The glTF documents the fuzz seeds start from, built in code (no binary glTF is checked in):
// written as files by make_gltf_seeds.cpp (the `gltf` target's seeds) and used as base
// documents by the `gltf_json` target (gltf_program.h).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "anim/loaders/builtin_character.h"
#include "gltf_test_files.h"

namespace animfuzz {

using animtest::GltfFile;
using nlohmann::json;

// `f` as .gltf text, its buffer embedded as a base64 data: URI.
inline std::string embedded_gltf(const GltfFile& f) {
  json d = f.doc;
  d["buffers"] = {{{"byteLength", f.bin.size()},
                   {"uri", "data:application/octet-stream;base64," + animtest::base64(f.bin)}}};
  return d.dump();
}

// tiny.glb: root joint "hip" at the origin, "knee" one unit up; a skinned triangle; clip "kick".
inline GltfFile tiny_gltf(bool cubic) {
  GltfFile f;
  const int mesh_node = f.add_node({{"name", "leg"}, {"mesh", 0}, {"skin", 0}});
  (void)mesh_node;
  const int hip = f.add_node({{"name", "hip"}});
  const int knee = f.add_node({{"name", "knee"}, {"translation", {0, 1, 0}}}, hip);
  const std::vector<float> ibm = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                                  1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
  f.doc["skins"] = {{{"name", "skin"},
                     {"joints", {hip, knee}},
                     {"skeleton", hip},
                     {"inverseBindMatrices", f.add_floats(ibm, "MAT4", 16)}}};
  const int pos = f.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3);
  f.doc["accessors"][pos]["min"] = {0, 0, 0};
  f.doc["accessors"][pos]["max"] = {1, 1, 0};
  const int nrm = f.add_floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3", 3);
  const int jnt = f.add_data(std::vector<uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0},
                             animtest::kUnsignedByte, "VEC4", 4);
  const int wgt = f.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0}, "VEC4", 4);
  const int idx = f.add_data(std::vector<uint16_t>{0, 1, 2}, animtest::kUnsignedShort, "SCALAR", 1);
  f.doc["meshes"] = {
      {{"primitives",
        {{{"attributes",
           {{"POSITION", pos}, {"NORMAL", nrm}, {"JOINTS_0", jnt}, {"WEIGHTS_0", wgt}}},
          {"indices", idx},
          {"material", 0}}}}}};
  f.doc["materials"] = {{{"name", "skin"}}};

  const int t = f.add_floats({0.0f, 0.5f, 1.0f}, "SCALAR", 1);
  int rot;
  if (cubic)  // (in-tangent, value, out-tangent) per key
    rot = f.add_floats({0,     0,     0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,     0,     0, 0, 0, 0,
                        0.38f, 0.92f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.71f, 0.71f, 0, 0, 0, 0},
                       "VEC4", 4);
  else
    rot = f.add_floats({0, 0, 0, 1, 0, 0, 0.38f, 0.92f, 0, 0, 0.71f, 0.71f}, "VEC4", 4);
  const int tr = f.add_floats({0, 0, 0, 0, 0.5f, 0, 0, 1, 0}, "VEC3", 3);
  f.doc["animations"] = {
      {{"name", "kick"},
       {"samplers",
        {{{"input", t}, {"output", rot}, {"interpolation", cubic ? "CUBICSPLINE" : "LINEAR"}},
         {{"input", t}, {"output", tr}, {"interpolation", "STEP"}}}},
       {"channels",
        {{{"sampler", 0}, {"target", {{"node", knee}, {"path", "rotation"}}}},
         {{"sampler", 1}, {"target", {{"node", hip}, {"path", "translation"}}}}}}}};
  return f;
}

inline GltfFile builtin_part_gltf() {
  const anim::Asset a = anim::make_builtin_character();
  const anim::Skeleton& s = a.skeleton;
  GltfFile f;
  f.add_node({{"name", "body"}, {"mesh", 0}, {"skin", 0}});
  std::vector<int> node_of_joint;
  for (int j = 0; j < s.num_joints(); ++j) {
    const anim::Transform& r = s.rest_pose[j];
    json n = {{"name", s.names[j]},
              {"translation", {r.translation.x, r.translation.y, r.translation.z}},
              {"rotation", {r.rotation.x, r.rotation.y, r.rotation.z, r.rotation.w}}};
    node_of_joint.push_back(f.add_node(n, s.parents[j] < 0 ? -1 : node_of_joint[s.parents[j]]));
  }
  std::vector<float> ibm;
  for (const glm::mat4& m : s.inverse_bind)
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) ibm.push_back(m[c][r]);
  f.doc["skins"] = {{{"name", "skin"},
                     {"joints", node_of_joint},
                     {"inverseBindMatrices", f.add_floats(ibm, "MAT4", 16)}}};

  // The first 24 triangles, their vertices renumbered from 0.
  const anim::SkinnedMesh& m = a.mesh;
  std::map<uint32_t, uint16_t> new_index;
  std::vector<float> pos, nrm, wgt;
  std::vector<uint16_t> jnt, idx;
  for (size_t i = 0; i < 72 && i < m.indices.size(); ++i) {
    const uint32_t v = m.indices[i];
    auto [it, added] = new_index.emplace(v, static_cast<uint16_t>(new_index.size()));
    if (added) {
      for (int k = 0; k < 3; ++k) pos.push_back(m.positions[v][k]);
      for (int k = 0; k < 3; ++k) nrm.push_back(m.normals[v][k]);
      for (int k = 0; k < 4; ++k) jnt.push_back(m.joints[v][k]);
      for (int k = 0; k < 4; ++k) wgt.push_back(m.weights[v][k]);
    }
    idx.push_back(it->second);
  }
  const int p = f.add_floats(pos, "VEC3", 3);
  const int n = f.add_floats(nrm, "VEC3", 3);
  const int j = f.add_data(jnt, animtest::kUnsignedShort, "VEC4", 4);
  const int w = f.add_floats(wgt, "VEC4", 4);
  const int ix = f.add_data(idx, animtest::kUnsignedShort, "SCALAR", 1);
  f.doc["meshes"] = {
      {{"primitives",
        {{{"attributes", {{"POSITION", p}, {"NORMAL", n}, {"JOINTS_0", j}, {"WEIGHTS_0", w}}},
          {"indices", ix}}}}}};

  // "wave", every 5th key (30 keys/s -> 6 keys/s).
  const int clip = a.find_clip("wave");
  json samplers = json::array(), channels = json::array();
  auto add_channel = [&](const auto& ch, int components, const char* type, int joint,
                         const char* path) {
    std::vector<float> times, values;
    for (int k = 0; k < ch.num_keys(); k += 5) {
      times.push_back(ch.times[k]);
      for (int c = 0; c < components; ++c) values.push_back(ch.values[k][c]);
    }
    const int in = f.add_floats(times, "SCALAR", 1);
    const int out = f.add_floats(values, type, components);
    samplers.push_back({{"input", in}, {"output", out}});
    channels.push_back({{"sampler", samplers.size() - 1},
                        {"target", {{"node", node_of_joint[joint]}, {"path", path}}}});
  };
  if (clip >= 0) {
    const anim::Clip& c = a.clips[clip];
    for (int jt = 0; jt < s.num_joints(); ++jt) {
      const anim::JointChannels& jc = c.joints[jt];
      if (jc.translation >= 0)
        add_channel(c.vec3_channels[jc.translation], 3, "VEC3", jt, "translation");
      if (jc.rotation >= 0) add_channel(c.quat_channels[jc.rotation], 4, "VEC4", jt, "rotation");
    }
    f.doc["animations"] = {{{"name", "wave"}, {"samplers", samplers}, {"channels", channels}}};
  }
  return f;
}

// The extras of events.glb (tests/support/travel_gltf.h): animation events, good and malformed.
inline json events_extras() {
  return {{"events",
           {{{"name", "step"}, {"time", 0.25}, {"payload", "left"}},
            {{"name", "late"}, {"time", 5}},
            {{"name", 3}, {"time", "soon"}},
            "loose"}}};
}

}  // namespace animfuzz

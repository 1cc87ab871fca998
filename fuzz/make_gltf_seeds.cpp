// Writes the glTF fuzz target's seed corpus into the folder given as argv[1] (run at build
// time, so no binary glTF is checked into the repo). Each seed is one options byte (0: the
// default skin) followed by the file:
//   tiny.glb / tiny.gltf  a 2-joint skin, one triangle, one LINEAR rotation and one STEP
//                         translation channel (the .gltf embeds its buffer as a data: URI);
//   cubic.glb             the same with a CUBICSPLINE rotation channel;
//   builtin_part.glb      the built-in character's 22-joint skeleton, its first 24 triangles
//                         and its "wave" clip at 6 keys/s, so the fuzzer starts from a real rig;
//   events.glb            tests/support/travel_gltf.h with animation events in its extras,
//                         good and malformed ones (docs/loader-gltf.md).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "anim/builtin_character.h"
#include "gltf_test_files.h"
#include "travel_gltf.h"

namespace {

using animtest::GltfFile;
using nlohmann::json;

void write_seed(const std::filesystem::path& dir, const std::string& name,
                const std::string& bytes) {
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.put('\0');
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string embedded_gltf(const GltfFile& f) {
  json d = f.doc;
  d["buffers"] = {{{"byteLength", f.bin.size()},
                   {"uri", "data:application/octet-stream;base64," + animtest::base64(f.bin)}}};
  return d.dump();
}

// Root joint "hip" at the origin, "knee" one unit up; a skinned triangle; clip "kick".
GltfFile tiny(bool cubic) {
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

GltfFile builtin_part() {
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  write_seed(dir, "tiny.glb", tiny(false).glb_bytes());
  write_seed(dir, "tiny.gltf", embedded_gltf(tiny(false)));
  write_seed(dir, "cubic.glb", tiny(true).glb_bytes());
  write_seed(dir, "builtin_part.glb", builtin_part().glb_bytes());
  const nlohmann::json events = {{"events",
                                  {{{"name", "step"}, {"time", 0.25}, {"payload", "left"}},
                                   {{"name", "late"}, {"time", 5}},
                                   {{"name", 3}, {"time", "soon"}},
                                   "loose"}}};
  write_seed(dir, "events.glb", animtest::travel_gltf(events).glb_bytes());
  return 0;
}

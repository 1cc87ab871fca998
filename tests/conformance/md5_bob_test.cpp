// Conformance of the MD5 loader on the real asset ../shared/assets/Bob_assimp (Bob.md5mesh +
// Bob.md5anim). The expectations are recomputed here from the file text by a deliberately
// simple, independent reader (double precision, Doom 3's own weight formula), then compared
// with what the loader + palette + linear blend skinning produce.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include "anim/loaders/md5_loader.h"
#include "anim/palette.h"
#include "anim/skeleton.h"
#include "shared_assets.h"

namespace anim {
namespace md5_bob_test {

// ---- An independent reader: comments dropped, punctuation and quotes turned into spaces,
// then plain whitespace-separated tokens. Good enough for well-formed files such as Bob.

std::vector<std::string> simple_tokens(const std::string& path) {
  std::ifstream in(path);
  std::string text, line;
  while (std::getline(in, line)) {
    if (auto c = line.find("//"); c != std::string::npos) line.erase(c);
    for (char& ch : line)
      if (ch == '{' || ch == '}' || ch == '(' || ch == ')' || ch == '"') ch = ' ';
    text += line + "\n";
  }
  std::istringstream ss(text);
  std::vector<std::string> out;
  for (std::string t; ss >> t;) out.push_back(t);
  return out;
}

struct Cursor {
  const std::vector<std::string>& t;
  size_t i = 0;
  void skip_to(const std::string& word) {
    while (t.at(i) != word) ++i;
    ++i;
  }
  double num() { return std::stod(t.at(i++)); }
  std::string str() { return t.at(i++); }
};

struct RefJoint {
  std::string name;
  int parent;
  glm::dvec3 pos;
  glm::dquat q;
};

glm::dquat ref_quat(double x, double y, double z) {
  double t = 1.0 - x * x - y * y - z * z;
  return glm::dquat(t < 0.0 ? 0.0 : -std::sqrt(t), x, y, z);
}

struct RefWeight {
  int joint;
  double bias;
  glm::dvec3 pos;
};
struct RefVertex {
  std::vector<RefWeight> weights;
};

struct RefMesh {
  std::vector<RefJoint> joints;
  std::vector<RefVertex> vertices;  // all meshes, in file order
};

RefMesh read_ref_mesh(const std::string& path) {
  auto tokens = simple_tokens(path);
  Cursor c{tokens};
  RefMesh m;
  c.skip_to("numJoints");
  int nj = static_cast<int>(c.num());
  c.skip_to("numMeshes");
  int nm = static_cast<int>(c.num());
  c.skip_to("joints");
  for (int j = 0; j < nj; ++j) {
    RefJoint r;
    r.name = c.str();
    r.parent = static_cast<int>(c.num());
    r.pos.x = c.num(), r.pos.y = c.num(), r.pos.z = c.num();
    double x = c.num(), y = c.num(), z = c.num();
    r.q = ref_quat(x, y, z);
    m.joints.push_back(r);
  }
  for (int k = 0; k < nm; ++k) {
    c.skip_to("numverts");
    int nv = static_cast<int>(c.num());
    std::vector<std::pair<int, int>> ranges;
    for (int v = 0; v < nv; ++v) {
      c.skip_to("vert");
      c.num(), c.num(), c.num();  // index, u, v
      int start = static_cast<int>(c.num()), count = static_cast<int>(c.num());
      ranges.push_back({start, count});
    }
    c.skip_to("numweights");
    int nw = static_cast<int>(c.num());
    std::vector<RefWeight> weights;
    for (int w = 0; w < nw; ++w) {
      c.skip_to("weight");
      c.num();
      RefWeight r;
      r.joint = static_cast<int>(c.num());
      r.bias = c.num();
      r.pos.x = c.num(), r.pos.y = c.num(), r.pos.z = c.num();
      weights.push_back(r);
    }
    for (auto [start, count] : ranges) {
      RefVertex v;
      for (int w = 0; w < count; ++w) v.weights.push_back(weights.at(start + w));
      m.vertices.push_back(v);
    }
  }
  return m;
}

struct RefAnim {
  int num_frames = 0;
  double frame_rate = 0;
  std::vector<RefJoint> base;  // baseframe, parent from the hierarchy
  std::vector<int> flags, start;
  std::vector<std::vector<double>> frames;
};

RefAnim read_ref_anim(const std::string& path) {
  auto tokens = simple_tokens(path);
  Cursor c{tokens};
  RefAnim a;
  c.skip_to("numFrames");
  a.num_frames = static_cast<int>(c.num());
  c.skip_to("numJoints");
  int nj = static_cast<int>(c.num());
  c.skip_to("frameRate");
  a.frame_rate = c.num();
  c.skip_to("numAnimatedComponents");
  int nc = static_cast<int>(c.num());
  c.skip_to("hierarchy");
  a.base.resize(nj);
  for (int j = 0; j < nj; ++j) {
    a.base[j].name = c.str();
    a.base[j].parent = static_cast<int>(c.num());
    a.flags.push_back(static_cast<int>(c.num()));
    a.start.push_back(static_cast<int>(c.num()));
  }
  c.skip_to("baseframe");
  for (int j = 0; j < nj; ++j) {
    a.base[j].pos.x = c.num(), a.base[j].pos.y = c.num(), a.base[j].pos.z = c.num();
    // Keep x, y, z in q.x/y/z for now; w is recovered per frame.
    a.base[j].q.x = c.num(), a.base[j].q.y = c.num(), a.base[j].q.z = c.num();
  }
  for (int k = 0; k < a.num_frames; ++k) {
    c.skip_to("frame");
    c.num();
    std::vector<double> f;
    for (int i = 0; i < nc; ++i) f.push_back(c.num());
    a.frames.push_back(f);
  }
  return a;
}

// Frame k's joints: local (parent-space) transforms, as the file defines them.
std::vector<RefJoint> ref_frame_locals(const RefAnim& a, int k) {
  std::vector<RefJoint> out = a.base;
  for (size_t j = 0; j < out.size(); ++j) {
    double v[6] = {a.base[j].pos.x, a.base[j].pos.y, a.base[j].pos.z,
                   a.base[j].q.x,   a.base[j].q.y,   a.base[j].q.z};
    int next = a.start[j];
    for (int b = 0; b < 6; ++b)
      if (a.flags[j] & (1 << b)) v[b] = a.frames[k][next++];
    out[j].pos = {v[0], v[1], v[2]};
    out[j].q = ref_quat(v[3], v[4], v[5]);
  }
  return out;
}

// Doom model space (Z-up) joints from locals; the file lists parents before children.
std::vector<RefJoint> ref_model(std::vector<RefJoint> j) {
  for (size_t i = 0; i < j.size(); ++i) {
    if (j[i].parent < 0) continue;
    const RefJoint& p = j[j[i].parent];
    j[i].pos = p.pos + p.q * j[i].pos;
    j[i].q = p.q * j[i].q;
  }
  return j;
}

// Doom 3's vertex formula, then Z-up -> Y-up.
std::vector<glm::dvec3> ref_vertices(const RefMesh& m, const std::vector<RefJoint>& model) {
  std::vector<glm::dvec3> out;
  for (const RefVertex& v : m.vertices) {
    glm::dvec3 p(0.0);
    for (const RefWeight& w : v.weights) {
      const RefJoint& j = model.at(w.joint);
      p += w.bias * (j.pos + j.q * w.pos);
    }
    out.push_back({p.x, p.z, -p.y});
  }
  return out;
}

std::vector<glm::vec3> skin(const Asset& a, std::span<const Transform> locals) {
  const int n = a.skeleton.num_joints();
  std::vector<glm::mat4> model(n);
  std::vector<PaletteMatrix> palette(n);
  local_to_model(a.skeleton, locals, model);
  build_palette(a.skeleton, model, palette);
  std::vector<glm::vec3> out;
  for (int v = 0; v < a.mesh.num_vertices(); ++v) {
    glm::vec4 p(a.mesh.positions[v], 1.0f);
    glm::vec3 s(0.0f);
    for (int i = 0; i < 4; ++i)
      s += a.mesh.weights[v][i] * glm::vec3(palette[a.mesh.joints[v][i]].to_mat4() * p);
    out.push_back(s);
  }
  return out;
}

float model_size(const std::vector<glm::dvec3>& v) {
  glm::dvec3 lo(1e30), hi(-1e30);
  for (const auto& p : v) lo = glm::min(lo, p), hi = glm::max(hi, p);
  return static_cast<float>(glm::length(hi - lo));
}

class Md5Bob : public ::testing::Test {
 protected:
  void SetUp() override {
    ANIMD_REQUIRE_SHARED();
    mesh_path_ = animtest::shared_path("assets/Bob_assimp/Bob.md5mesh");
    anim_path_ = animtest::shared_path("assets/Bob_assimp/Bob.md5anim");
    auto a = load_md5(mesh_path_, {anim_path_});
    ASSERT_TRUE(a.has_value()) << a.error().message();
    asset_ = std::move(*a);
  }
  std::string mesh_path_, anim_path_;
  Asset asset_;
};

TEST_F(Md5Bob, LoadsSkeletonClipAndMesh) {
  EXPECT_EQ(asset_.name, "Bob");
  EXPECT_EQ(asset_.skeleton.num_joints(), 33);
  EXPECT_TRUE(asset_.skeleton.validate().is_ok());
  EXPECT_EQ(asset_.skeleton.find_joint("head"), 7);
  ASSERT_EQ(asset_.clips.size(), 1u);
  const Clip& clip = asset_.clips[0];
  EXPECT_EQ(clip.name, "Bob");
  EXPECT_NEAR(clip.duration, 139.0f / 24.0f, 1e-5f);
  int full_channels = 0;
  for (const auto& c : clip.quat_channels) {
    EXPECT_TRUE(c.num_keys() == 1 || c.num_keys() == 140);
    if (c.num_keys() == 140) ++full_channels;
  }
  EXPECT_GT(full_channels, 0);
  // Every vertex of the 6 meshes, each with its material.
  const RefMesh ref = read_ref_mesh(mesh_path_);
  EXPECT_EQ(asset_.mesh.num_vertices(), static_cast<int>(ref.vertices.size()));
  EXPECT_EQ(asset_.mesh.submeshes.size(), 6u);
  EXPECT_EQ(asset_.mesh.submeshes[0].material, "guard1_body.png");
  EXPECT_EQ(asset_.mesh.normals.size(), asset_.mesh.positions.size());
}

TEST_F(Md5Bob, BindPosePaletteReproducesBindVertices) {
  const RefMesh ref = read_ref_mesh(mesh_path_);
  const auto expected = ref_vertices(ref, ref.joints);
  ASSERT_EQ(expected.size(), asset_.mesh.positions.size());
  const float size = model_size(expected);

  // The loader's bind vertices against Doom's formula computed independently.
  double load_err = 0.0;
  for (size_t v = 0; v < expected.size(); ++v)
    load_err = std::max(load_err, glm::length(glm::dvec3(asset_.mesh.positions[v]) - expected[v]));
  // The bind palette applied to the bind vertices.
  const auto skinned = skin(asset_, asset_.skeleton.rest_pose);
  double skin_err = 0.0;
  for (size_t v = 0; v < expected.size(); ++v)
    skin_err = std::max(skin_err, glm::length(glm::dvec3(skinned[v]) - expected[v]));
  std::cout << "[md5 Bob] model size " << size << ", bind vertices max error " << load_err
            << " (relative " << load_err / size << "), bind-palette skinning max error " << skin_err
            << " (relative " << skin_err / size << ")\n";
  EXPECT_LT(load_err / size, 1e-4);
  EXPECT_LT(skin_err / size, 1e-4);
  // Scene space (docs/loader-md5.md): Y up, Doom units. Bob stands on y = 0 (67 units tall;
  // the bind pose is a T-pose, so the arms make X the widest axis).
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (const glm::vec3& p : skinned) lo = glm::min(lo, p), hi = glm::max(hi, p);
  const glm::vec3 extent = hi - lo;
  std::cout << "[md5 Bob] scene box " << extent.x << " x " << extent.y << " x " << extent.z
            << " (Doom units), y from " << lo.y << " to " << hi.y << "\n";
  EXPECT_GT(extent.y, extent.z);
  EXPECT_LT(std::abs(lo.y), 0.03f * extent.y);
}

TEST_F(Md5Bob, SampledFramesMatchFileFrames) {
  const RefMesh ref_mesh = read_ref_mesh(mesh_path_);
  const RefAnim ref = read_ref_anim(anim_path_);
  ASSERT_EQ(ref.num_frames, 140);
  ASSERT_EQ(ref.frame_rate, 24.0);
  const Skeleton& skel = asset_.skeleton;
  const Clip& clip = asset_.clips[0];
  const float size = model_size(ref_vertices(ref_mesh, ref_mesh.joints));

  double max_t = 0.0, max_r = 0.0, max_v = 0.0;
  std::vector<Transform> locals(skel.num_joints());
  for (int k : {0, 1, 17, 50, 69, 100, 138, 139}) {
    const float t = static_cast<float>(k / ref.frame_rate);
    clip.sample(t, skel.rest_pose, locals);
    // Joint by joint against the file's frame data.
    const auto file_locals = ref_frame_locals(ref, k);
    for (int s = 0; s < skel.num_joints(); ++s) {
      const Transform& got = locals[skel.joint_of_source[s]];
      max_t = std::max(max_t, glm::length(glm::dvec3(got.translation) - file_locals[s].pos));
      // Distance between unit quaternions, sign-insensitive (about half the angle between
      // the rotations; better conditioned than acos of the dot product).
      const glm::dvec4 q(file_locals[s].q.x, file_locals[s].q.y, file_locals[s].q.z,
                         file_locals[s].q.w);
      const glm::dvec4 g(got.rotation.x, got.rotation.y, got.rotation.z, got.rotation.w);
      max_r = std::max(max_r, std::min(glm::length(q - g), glm::length(q + g)));
    }
    // Palette-skinned bind vertices against Doom's weight formula on frame k's joints.
    const auto expected = ref_vertices(ref_mesh, ref_model(file_locals));
    const auto skinned = skin(asset_, locals);
    for (size_t v = 0; v < expected.size(); ++v)
      max_v = std::max(max_v, glm::length(glm::dvec3(skinned[v]) - expected[v]));
  }
  std::cout << "[md5 Bob] sampled frames vs file: max translation error " << max_t
            << ", max rotation (quaternion distance) error " << max_r
            << "; skinned vertices vs MD5 weight formula"
            << " max error " << max_v << " (relative " << max_v / size << ")\n";
  EXPECT_LT(max_t, 1e-4);
  EXPECT_LT(max_r, 1e-4);
  EXPECT_LT(max_v / size, 1e-4);
}

}  // namespace md5_bob_test
}  // namespace anim

// Morph targets through the real daemon against three.js (../shared/golden/*.morphs.json):
// animd serves MorphArm and RobotExpressive from ../shared; get_asset_data's morph sets,
// decoded by animview's decoder, equal what the glTF loader holds byte for byte, and
// AssetInfo names the flat weight order. For each golden scenario the character plays the
// scenario's clip held at its time (start_time t, speed 0), the game's weights sent with
// set_morph_weights. query_pose's weights must be the golden's within 1e-5; the bind
// positions morphed with the streamed weights, then skinned with the streamed palette on the
// CPU (root x palette[j] x vertex with an identity root), must land on the golden's
// scene-space positions within 1e-4 from the float stream and within 0.5 mm scaled to a
// 1.8 m character from the compact stream. The palette maps bind space to scene space, mesh
// node transforms included (docs/protocol.md, "Spaces"), where three.js applies the mesh
// node's world matrix after skinning.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/loaders/gltf_loader.h"
#include "integration_support.h"
#include "mesh_decode.h"
#include "morph_decode.h"
#include "shared_assets.h"

namespace animtest {
namespace morph_golden_roundtrip_test {

namespace fs = std::filesystem;
using anim::v1::Request;
using nlohmann::json;

constexpr double kPositionTolerance = 1e-4;
constexpr double kWeightTolerance = 1e-5;

struct Case {
  const char* asset;   // file stem = asset name
  const char* file;    // under ../shared/assets
  const char* golden;  // under ../shared/golden
};

const Case kCases[] = {
    {"MorphArm", "MorphArm/MorphArm.glb", "MorphArm.morphs.json"},
    {"RobotExpressive", "RobotExpressive/RobotExpressive.glb", "RobotExpressive.morphs.json"},
};

template <class T>
bool same_bytes(const std::vector<T>& a, const void* b, size_t count) {
  return a.size() == count && (count == 0 || std::memcmp(a.data(), b, count * sizeof(T)) == 0);
}

// The decoded sets equal the loader's: names, ranges, default weights and every delta, bit
// for bit.
void expect_sets_equal_loader(const std::vector<animview::CpuMorphSet>& got,
                              const std::vector<anim::MorphSet>& want, const std::string& asset) {
  ASSERT_EQ(got.size(), want.size()) << asset;
  size_t deltas = 0;
  for (size_t s = 0; s < want.size(); ++s) {
    const std::string where = asset + " set " + want[s].name;
    EXPECT_EQ(got[s].name, want[s].name) << where;
    EXPECT_EQ(got[s].node, want[s].node) << where;
    ASSERT_EQ(got[s].ranges.size(), want[s].ranges.size()) << where;
    for (size_t r = 0; r < want[s].ranges.size(); ++r) {
      EXPECT_EQ(got[s].ranges[r].first, want[s].ranges[r].first_vertex) << where;
      EXPECT_EQ(got[s].ranges[r].count, want[s].ranges[r].vertex_count) << where;
    }
    EXPECT_TRUE(same_bytes(got[s].default_weights, want[s].default_weights.data(),
                           want[s].default_weights.size()))
        << where;
    ASSERT_EQ(got[s].targets.size(), want[s].targets.size()) << where;
    for (size_t k = 0; k < want[s].targets.size(); ++k) {
      const anim::MorphTarget& w = want[s].targets[k];
      const animview::CpuMorphTarget& g = got[s].targets[k];
      EXPECT_EQ(g.name, w.name) << where;
      EXPECT_TRUE(same_bytes(g.vertices, w.vertices.data(), w.vertices.size()))
          << where << " target " << w.name << ": vertices";
      EXPECT_TRUE(
          same_bytes(g.position_deltas, w.position_deltas.data(), 3 * w.position_deltas.size()))
          << where << " target " << w.name << ": position deltas";
      EXPECT_TRUE(same_bytes(g.normal_deltas, w.normal_deltas.data(), 3 * w.normal_deltas.size()))
          << where << " target " << w.name << ": normal deltas";
      deltas += w.vertices.size();
    }
  }
  std::printf("[morph data] %-16s %zu sets, %zu sparse entries, equal to the loader's\n",
              asset.c_str(), got.size(), deltas);
}

// Golden mesh i is range i of the sets taken in order (three.js draws each primitive of a
// glTF mesh as its own mesh): its set and range.
struct GoldenMesh {
  size_t set = 0;
  animview::CpuVertexRange range;
};

std::vector<GoldenMesh> golden_meshes(const std::vector<animview::CpuMorphSet>& sets) {
  std::vector<GoldenMesh> out;
  for (size_t s = 0; s < sets.size(); ++s)
    for (const animview::CpuVertexRange& r : sets[s].ranges) out.push_back({s, r});
  return out;
}

// The first frame of a new subscription to character `id` in `encoding` whose tick is after
// `after` (the character held still from then on: speed 0), as the client delivers it (a
// compact frame decoded: palette and morph_weights filled in).
anim::v1::CharacterFrame streamed(animclient::Client& c, uint32_t id, uint64_t after,
                                  anim::v1::Encoding encoding) {
  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  sub.set_encoding(encoding);
  auto s = c.subscribe(sub);
  EXPECT_TRUE(s) << s.error().to_string();
  anim::v1::CharacterFrame out;
  if (!s) return out;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    auto f = c.next_frame(std::chrono::milliseconds(1000));
    if (!f || f->subscription_id() != s->subscription_id() || f->tick() <= after) continue;
    for (const auto& ch : f->characters())
      if (ch.character_id() == id) out = ch;
    if (out.character_id() == id) break;
  }
  EXPECT_TRUE(c.unsubscribe(s->subscription_id()));
  EXPECT_EQ(out.character_id(), id) << "no frame after tick " << after;
  return out;
}

// The largest distance (per axis) between the golden's scene-space positions of scenario
// `sc` and the bind positions morphed with `weights`, skinned with `palette`; `moved`: how far
// the morphs moved a vertex.
double vertex_error(const animview::CpuMesh& mesh, const std::vector<GoldenMesh>& meshes,
                    const json& sc, const float* palette, uint32_t joints,
                    const std::vector<float>& weights, double tolerance, const std::string& label,
                    double* moved) {
  std::vector<float> morphed = mesh.positions;
  animview::apply_morph_positions(mesh.morph_sets, weights.data(), morphed);
  double worst = 0.0;
  for (size_t i = 0; i < meshes.size(); ++i) {
    const json& want = sc["meshes"][i]["positions"];
    EXPECT_EQ(want.size(), meshes[i].range.count) << label << " mesh " << i;
    for (uint32_t v = 0; v < std::min<size_t>(meshes[i].range.count, want.size()); ++v) {
      const uint32_t vi = meshes[i].range.first + v;
      const float* p = &morphed[3 * size_t{vi}];
      double skinned[3] = {0, 0, 0};
      for (int k = 0; k < 4; ++k) {
        const float w = mesh.weights[4 * size_t{vi} + k];
        const uint16_t j = mesh.joints[4 * size_t{vi} + k];
        if (w == 0.0f || j >= joints) continue;
        const float* m = palette + 12 * size_t{j};
        for (int r = 0; r < 3; ++r)
          skinned[r] +=
              w * (m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3]);
      }
      double err = 0.0;
      for (int r = 0; r < 3; ++r) {
        err = std::max(err, std::abs(skinned[r] - want[v][r].get<double>()));
        *moved = std::max(*moved, double{std::abs(p[r] - mesh.positions[3 * size_t{vi} + r])});
      }
      worst = std::max(worst, err);
      EXPECT_LE(err, tolerance) << label << " mesh " << i << " vertex " << v;
      if (err > tolerance) break;  // one line per mesh is enough
    }
  }
  return worst;
}

// The largest extent of the golden's positions over its scenarios' meshes (the character's
// size, scene units).
double golden_extent(const json& golden) {
  double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
  for (const json& sc : golden["scenarios"])
    for (const json& m : sc["meshes"])
      for (const json& p : m["positions"])
        for (int r = 0; r < 3; ++r) {
          lo[r] = std::min(lo[r], p[r].get<double>());
          hi[r] = std::max(hi[r], p[r].get<double>());
        }
  return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
}

// Runs every scenario of `golden` on a character of `asset` (the game's weights through
// set_morph_weights); checks the weights query_pose answers, and the vertices from the
// float stream's palette and weights (within 1e-4) and from the compact stream's (within
// 0.5 mm scaled to a 1.8 m character). Returns the largest float-stream position error.
double run_scenarios(animclient::Client& c, const Case& cs, const animview::CpuMesh& mesh,
                     const json& golden) {
  const std::vector<GoldenMesh> meshes = golden_meshes(mesh.morph_sets);
  EXPECT_EQ(meshes.size(), golden["meshes"].size()) << cs.asset;
  if (meshes.size() != golden["meshes"].size()) return 1e30;
  const double compact_tolerance = 5e-4 * golden_extent(golden) / 1.8;
  double worst = 0.0;
  for (const json& sc : golden["scenarios"]) {
    const std::string label = std::string(cs.asset) + ": " + sc["name"].get<std::string>();
    auto spawned = c.spawn(cs.asset);
    EXPECT_TRUE(spawned) << label << ": " << (spawned ? "" : spawned.error().to_string());
    if (!spawned) continue;
    const uint32_t id = spawned->character_id();
    if (sc.contains("set_weights")) {
      Request set;
      set.mutable_set_morph_weights()->set_character_id(id);
      for (auto& [name, value] : sc["set_weights"].items()) {
        auto* w = set.mutable_set_morph_weights()->add_weights();
        w->set_name(name);
        w->set_value(value.get<float>());
      }
      call_ok(c, set);
    }
    Request play;
    play.mutable_play()->set_character_id(id);
    play.mutable_play()->set_clip(sc["clip"].get<std::string>());
    play.mutable_play()->set_start_time(sc["t"].get<float>());
    play.mutable_play()->set_speed(0.0f);
    const uint64_t play_tick = call_ok(c, play).tick();

    // The golden's weights per set (every range of a set has the same).
    std::vector<float> weights;
    std::vector<int> first_mesh_of_set(mesh.morph_sets.size(), -1);
    for (size_t i = 0; i < meshes.size(); ++i)
      if (first_mesh_of_set[meshes[i].set] < 0)
        first_mesh_of_set[meshes[i].set] = static_cast<int>(i);
    for (size_t s = 0; s < mesh.morph_sets.size(); ++s) {
      const auto w = sc["meshes"][first_mesh_of_set[s]]["weights"].get<std::vector<float>>();
      EXPECT_EQ(w.size(), mesh.morph_sets[s].targets.size()) << label;
      weights.insert(weights.end(), w.begin(), w.end());
    }
    for (size_t i = 0; i < meshes.size(); ++i) {
      const auto w = sc["meshes"][i]["weights"].get<std::vector<float>>();
      const auto& set_w = sc["meshes"][first_mesh_of_set[meshes[i].set]]["weights"];
      EXPECT_EQ(w, set_w.get<std::vector<float>>()) << label << ": mesh " << i;
    }
    const size_t count = animview::morph_weight_count(mesh.morph_sets);
    EXPECT_EQ(weights.size(), count) << label;
    if (weights.size() != count) continue;

    const anim::v1::CharacterFrame flt = streamed(c, id, play_tick, anim::v1::ENCODING_FLOAT_3X4);
    const anim::v1::CharacterFrame cmp = streamed(c, id, play_tick, anim::v1::ENCODING_COMPACT);
    const anim::v1::QueryPoseReply pose = pose_at(c, id, play_tick + 1);
    const int n = static_cast<int>(count);
    EXPECT_EQ(flt.morph_weights_size(), n) << label;
    EXPECT_EQ(cmp.morph_weights_size(), n) << label;
    EXPECT_EQ(pose.morph_weights_size(), n) << label;
    EXPECT_EQ(cmp.palette_size(), flt.palette_size()) << label;
    if (flt.morph_weights_size() != n || cmp.morph_weights_size() != n ||
        pose.morph_weights_size() != n || cmp.palette_size() != flt.palette_size())
      continue;
    for (size_t k = 0; k < count; ++k) {
      EXPECT_NEAR(pose.morph_weights(k), weights[k], kWeightTolerance) << label << " " << k;
      EXPECT_EQ(flt.morph_weights(k), pose.morph_weights(k)) << label << " weight " << k;
      EXPECT_NEAR(cmp.morph_weights(k), weights[k], 1.0 / 2048 + kWeightTolerance)
          << label << " weight " << k;
    }
    const uint32_t joints = static_cast<uint32_t>(flt.palette_size() / 12);
    const std::vector<float> flt_w(flt.morph_weights().begin(), flt.morph_weights().end());
    const std::vector<float> cmp_w(cmp.morph_weights().begin(), cmp.morph_weights().end());
    double moved = 0.0;
    const double float_worst = vertex_error(mesh, meshes, sc, flt.palette().data(), joints, flt_w,
                                            kPositionTolerance, label + " (float)", &moved);
    const double compact_worst = vertex_error(mesh, meshes, sc, cmp.palette().data(), joints, cmp_w,
                                              compact_tolerance, label + " (compact)", &moved);
    std::printf(
        "[morph golden] %-50s float %.3g, compact %.3g (limit %.3g) (morphs move vertices up to "
        "%.3g)\n",
        label.c_str(), float_worst, compact_worst, compact_tolerance, moved);
    worst = std::max(worst, float_worst);
  }
  return worst;
}

TEST(MorphGolden, AssetDataThroughTheDaemonMorphsAndSkinsLikeThreeJs) {
  ANIMD_REQUIRE_SHARED();
  TempDir tmp("morph-golden");
  ASSERT_TRUE(tmp.ok());
  const fs::path assets = tmp.path() / "assets";
  fs::create_directories(assets);
  for (const Case& cs : kCases) {
    const fs::path src = shared_dir() / "assets" / cs.file;
    ASSERT_TRUE(fs::exists(src)) << src;
    fs::create_symlink(src, assets / (std::string(cs.asset) + ".glb"));
  }
  DaemonProcess daemon({"--assets", assets.string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto listed = client->list_assets();
  ASSERT_TRUE(listed) << listed.error().to_string();

  for (const Case& cs : kCases) {
    auto data = client->get_asset_data(cs.asset);
    ASSERT_TRUE(data) << cs.asset << ": " << data.error().to_string();
    animview::CpuMesh mesh;
    std::string error;
    const uint32_t joints = static_cast<uint32_t>(data->skeleton().joint_names_size());
    ASSERT_TRUE(animview::decode_mesh(data->mesh(), joints, mesh, error))
        << cs.asset << ": " << error;
    ASSERT_FALSE(mesh.morph_sets.empty()) << cs.asset;

    anim::Expected<anim::Asset> loaded =
        anim::load_gltf((shared_dir() / "assets" / cs.file).string());
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message();
    expect_sets_equal_loader(mesh.morph_sets, loaded->mesh.morph_sets, cs.asset);

    // The flat weight order, in get_asset_data's summary and in list_assets'.
    std::vector<std::string> names;
    for (const anim::MorphSet& s : loaded->mesh.morph_sets)
      for (const anim::MorphTarget& t : s.targets) names.push_back(s.name + "/" + t.name);
    EXPECT_EQ(std::vector<std::string>(data->info().morph_targets().begin(),
                                       data->info().morph_targets().end()),
              names)
        << cs.asset;
    bool found = false;
    for (const auto& info : listed->assets()) {
      if (info.name() != cs.asset) continue;
      found = true;
      EXPECT_EQ(info.morph_targets_size(), static_cast<int>(names.size())) << cs.asset;
    }
    EXPECT_TRUE(found) << cs.asset << " not in list_assets";

    std::ifstream in(shared_dir() / "golden" / cs.golden);
    ASSERT_TRUE(in) << cs.golden;
    const json golden = json::parse(in);
    const double worst = run_scenarios(*client, cs, mesh, golden);
    EXPECT_LE(worst, kPositionTolerance) << cs.asset;
  }
  // An asset without targets: nothing new on the wire.
  auto builtin = client->get_asset_data("builtin");
  ASSERT_TRUE(builtin) << builtin.error().to_string();
  EXPECT_EQ(builtin->mesh().morph_sets_size(), 0);
  EXPECT_EQ(builtin->info().morph_targets_size(), 0);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace morph_golden_roundtrip_test
}  // namespace animtest

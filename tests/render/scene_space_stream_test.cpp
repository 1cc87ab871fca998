// Every asset stands where its glTF scene puts it, through the real daemon: animd loads
// CesiumMan, RiggedFigure, RobotExpressive and Fox from ../shared; each is spawned beside the
// built-in character, cut to a clip at time 0 with speed 0 (a pose three.js was sampled at);
// the mesh is fetched with get_asset_data and decoded as animview decodes it, one streamed
// frame is received, and every vertex is skinned on the CPU exactly as animview's shader does
// (root x sum of weight x palette[j] x bind vertex). The box must be upright (Y up, feet near
// y = 0) at the height three.js gives for that pose (figures from the golden joint_world x
// inverse bind, see tests/conformance/gltf_scene_bounds_test.cpp; RobotExpressive's from
// three.js's Box3 of the scene).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include "animclient/client.h"
#include "bounds.h"
#include "connected_daemon.h"
#include "daemon_process.h"
#include "mesh_decode.h"
#include "shared_assets.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct Case {
  const char* asset;  // file stem = asset name
  const char* file;   // under ../shared/assets
  const char* clip;   // posed at t = 0
  float height;       // expected Y extent at that pose, scene units
  float lowest_y;     // expected lowest point
  bool quadruped;     // longer than tall (Fox): Y need not be the tallest axis
};

// Scene-space boxes at t = 0 (three.js r187 / golden palettes): CesiumMan 0.505 x 1.458 x
// 0.896 (y -0.011..1.447), RiggedFigure 0.552 x 1.476 x 0.352 (y 0..1.476), RobotExpressive
// 3.10 x 4.50 x 2.63 (y -0.02..4.48), Fox 41.5 x 74.8 x 141.0 (y -0.13..74.64; Fox.glb has no
// unit scale, so its scene is 75 units tall).
const Case kCases[] = {
    {"CesiumMan", "CesiumMan/glTF-Binary/CesiumMan.glb", "animation_0", 1.458f, -0.011f, false},
    {"RiggedFigure", "RiggedFigure/glTF-Binary/RiggedFigure.glb", "animation_0", 1.476f, 0.0f,
     false},
    {"RobotExpressive", "RobotExpressive/RobotExpressive.glb", "Idle", 4.497f, -0.020f, false},
    {"Fox", "Fox/glTF-Binary/Fox.glb", "Survey", 74.77f, -0.131f, true},
};

anim::v1::Transform at_x(float x) {
  anim::v1::Transform t;
  t.mutable_translation()->set_x(x);
  t.mutable_rotation()->set_w(1.0f);
  t.mutable_scale()->set_x(1.0f);
  t.mutable_scale()->set_y(1.0f);
  t.mutable_scale()->set_z(1.0f);
  return t;
}

glm::mat4 root_matrix(const anim::v1::Transform& t) {
  const glm::vec3 tr(t.translation().x(), t.translation().y(), t.translation().z());
  const glm::quat q(t.rotation().w(), t.rotation().x(), t.rotation().y(), t.rotation().z());
  const glm::vec3 s(t.has_scale() ? t.scale().x() : 1.0f, t.has_scale() ? t.scale().y() : 1.0f,
                    t.has_scale() ? t.scale().z() : 1.0f);
  glm::mat4 m = glm::mat4_cast(q);
  m[0] *= s.x;
  m[1] *= s.y;
  m[2] *= s.z;
  m[3] = glm::vec4(tr, 1.0f);
  return m;
}

// root x sum_k w_k x palette[j_k] x v for every vertex (palette rows as streamed), as
// animview's vertex shader computes it.
animview::Aabb skinned_world_box(const animview::CpuMesh& mesh,
                                 const anim::v1::CharacterFrame& frame) {
  const glm::mat4 root = root_matrix(frame.root());
  animview::Aabb box;
  for (uint32_t v = 0; v < mesh.num_vertices; ++v) {
    const glm::vec4 p(mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2],
                      1.0f);
    glm::vec3 skinned(0.0f);
    for (int k = 0; k < 4; ++k) {
      const float w = mesh.weights[4 * v + k];
      if (w == 0.0f) continue;
      const float* m = frame.palette().data() + 12 * mesh.joints[4 * v + k];
      for (int r = 0; r < 3; ++r)
        skinned[r] += w * (m[4 * r] * p.x + m[4 * r + 1] * p.y + m[4 * r + 2] * p.z + m[4 * r + 3]);
    }
    box.add(glm::vec3(root * glm::vec4(skinned, 1.0f)));
  }
  return box;
}

TEST(SceneSpaceStream, AssetsStandUprightAtTheirTrueHeightsBesideTheBuiltin) {
  ANIMD_REQUIRE_SHARED();
  animtest::TempDir tmp("scene-space");
  ASSERT_TRUE(tmp.ok());
  const fs::path assets = tmp.path() / "assets";
  fs::create_directories(assets);
  for (const Case& c : kCases) {
    const fs::path src = animtest::shared_dir() / "assets" / c.file;
    ASSERT_TRUE(fs::exists(src)) << src;
    fs::create_symlink(src, assets / (std::string(c.asset) + ".glb"));
  }
  animtest::ConnectedDaemon served({"--assets", assets.string()});
  ASSERT_TRUE(served.ok()) << served.error();
  auto& daemon = served.daemon();
  auto& cl = served.client();

  // Spawn: the built-in at rest at x = 0, each asset 3 units further along X (Fox: 100).
  struct Spawned {
    const Case* c;
    float x;
  };
  std::map<uint32_t, Spawned> spawned;
  anim::v1::SpawnRequest b;
  b.set_asset("builtin");
  *b.mutable_root() = at_x(0.0f);
  auto builtin = cl.spawn(b);
  ASSERT_TRUE(builtin) << builtin.error().to_string();
  float x = 0.0f;
  for (const Case& c : kCases) {
    x += c.quadruped ? 100.0f : 3.0f;
    anim::v1::SpawnRequest s;
    s.set_asset(c.asset);
    *s.mutable_root() = at_x(x);
    auto r = cl.spawn(s);
    ASSERT_TRUE(r) << c.asset << ": " << r.error().to_string() << "\n" << daemon.log_tail();
    anim::v1::PlayRequest play;
    play.set_character_id(r->character_id());
    play.set_clip(c.clip);
    play.set_speed(0.0f);  // hold t = 0: the pose the expected figures were taken at
    auto p = cl.play(play);
    ASSERT_TRUE(p) << c.asset << ": " << p.error().to_string();
    spawned[r->character_id()] = {&c, x};
  }

  anim::v1::SubscribeRequest sub;
  sub.set_all_characters(true);
  auto subscribed = cl.subscribe(sub);
  ASSERT_TRUE(subscribed) << subscribed.error().to_string();
  std::optional<anim::v1::StreamFrame> frame;
  for (int i = 0; i < 200; ++i) {  // bounded: the first frame holding every character
    frame = cl.next_frame(5s);
    ASSERT_TRUE(frame.has_value()) << "no stream frame\n" << daemon.log_tail();
    if (frame->characters_size() == static_cast<int>(spawned.size()) + 1) break;
  }
  ASSERT_EQ(frame->characters_size(), static_cast<int>(spawned.size()) + 1);

  for (const auto& ch : frame->characters()) {
    auto data = cl.get_asset_data(ch.asset());
    ASSERT_TRUE(data) << ch.asset() << ": " << data.error().to_string();
    animview::CpuMesh mesh;
    std::string error;
    const uint32_t joints = static_cast<uint32_t>(data->skeleton().joint_names_size());
    ASSERT_TRUE(animview::decode_mesh(data->mesh(), joints, mesh, error)) << error;
    ASSERT_EQ(ch.palette_size(), static_cast<int>(12 * joints)) << ch.asset();
    const animview::Aabb box = skinned_world_box(mesh, ch);
    const glm::vec3 size = box.size();
    std::printf(
        "[scene space] %-16s %5u vertices: %.3f x %.3f x %.3f, y %.3f..%.3f, x centre %.2f\n",
        ch.asset().c_str(), mesh.num_vertices, size.x, size.y, size.z, box.min.y, box.max.y,
        box.center().x);
    EXPECT_GT(size.y, size.x) << ch.asset() << ": wider than tall";
    EXPECT_LT(std::abs(box.min.y), 0.03f * size.y) << ch.asset() << ": feet not near y = 0";
    if (ch.character_id() == builtin->character_id()) {
      // docs/builtin-character.md: Y up, metres, a ~1.8 m humanoid standing on y = 0.
      EXPECT_GT(size.y, 1.5f);
      EXPECT_LT(size.y, 2.1f);
      EXPECT_GT(size.y, size.z);
      continue;
    }
    const auto it = spawned.find(ch.character_id());
    ASSERT_NE(it, spawned.end());
    const Case& c = *it->second.c;
    EXPECT_NEAR(size.y, c.height, 0.005f * c.height) << c.asset;
    EXPECT_NEAR(box.min.y, c.lowest_y, 0.005f * c.height) << c.asset;
    if (!c.quadruped) {
      EXPECT_GT(size.y, size.z) << c.asset << ": Y is not the tallest axis";
    }
    // Placed by its root beside the others: centred near its root's x.
    EXPECT_NEAR(box.center().x, it->second.x, 0.5f * size.x + 0.01f * c.height) << c.asset;
  }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace

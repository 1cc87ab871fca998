// RobotExpressive's face drawn by animview's renderer (under xvfb-run with Mesa): the mesh
// and a pose come from the real daemon (get_asset_data decoded as animview decodes it; Idle
// held at t = 0, the palette from query_pose), and the character is drawn twice from the
// front of its head with the weights the daemon gives: Idle's (every weight 0), then after
// set_morph_weights {Surprised: 1} (what `animctl morph ID Surprised=1` sends), each as
// query_pose answers them for the tick (the stream's, bit for bit). The two pictures must differ
// inside the screen box of the triangles that "Surprised" moves, and be the same pixels everywhere
// else. Both pictures are written to ANIMD_TEST_TMP_DIR (morph_render_*.png).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "connected_daemon.h"
#include "gl_context.h"
#include "render_target.h"
#include "renderer.h"
#include "screenshot.h"
#include "shared_assets.h"

namespace animview {
namespace {

constexpr int kSize = 512;

// The pose of a character held still (speed 0) once the tick after `play_tick` is done.
anim::v1::QueryPoseReply held_pose(animclient::Client& c, uint32_t id, uint64_t play_tick) {
  anim::v1::QueryPoseReply pose;
  for (int i = 0; i < 2000; ++i) {
    anim::v1::QueryPoseRequest q;
    q.set_character_id(id);
    auto r = c.query_pose(q);
    if (r && r->tick() > play_tick) return *r;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pose;
}

// root (identity) x sum_k w_k x palette[j_k] x v for vertex v of `positions`.
glm::vec3 skin(const CpuMesh& mesh, const std::vector<float>& positions, const float* palette,
               uint32_t v) {
  const glm::vec4 p(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2], 1.0f);
  glm::vec3 out(0.0f);
  for (int k = 0; k < 4; ++k) {
    const float w = mesh.weights[4 * v + k];
    if (w == 0.0f) continue;
    const float* m = palette + 12 * mesh.joints[4 * v + k];
    for (int r = 0; r < 3; ++r)
      out[r] += w * (m[4 * r] * p.x + m[4 * r + 1] * p.y + m[4 * r + 2] * p.z + m[4 * r + 3]);
  }
  return out;
}

glm::vec2 to_pixel(const OrbitCamera& camera, const glm::vec3& world) {
  const glm::vec4 clip = camera.projection(1.0f) * camera.view() * glm::vec4(world, 1.0f);
  const glm::vec2 ndc = glm::vec2(clip) / clip.w;
  return {(ndc.x * 0.5f + 0.5f) * kSize, (0.5f - ndc.y * 0.5f) * kSize};  // rows top to bottom
}

TEST(MorphRender, RobotExpressiveSurprisedChangesTheFaceAndNothingElse) {
  ANIMD_REQUIRE_SHARED();
  std::string error;
  std::unique_ptr<GlContext> gl = GlContext::create(kSize, kSize, true, "morph_render", error);
  ASSERT_NE(gl, nullptr) << error << " (run under xvfb-run -a)";
  Renderer renderer;
  ASSERT_TRUE(renderer.init(error)) << error;
  RenderTarget target;
  ASSERT_TRUE(target.create(kSize, kSize, 0, error)) << error;
  GridLayout far_away;  // the ground grid behind the camera: only the character is drawn
  far_away.center = {0, 0, 1e4f};
  renderer.set_grid(far_away);

  animtest::ConnectedDaemon served({"--assets", animtest::shared_path("assets/RobotExpressive")});
  ASSERT_TRUE(served.ok()) << served.error();
  auto& client = served.client();
  auto data = client.get_asset_data("RobotExpressive");
  ASSERT_TRUE(data) << data.error().to_string();
  const uint32_t joints = static_cast<uint32_t>(data->skeleton().joint_names_size());
  CpuMesh mesh;
  ASSERT_TRUE(decode_mesh(data->mesh(), joints, mesh, error)) << error;
  const uint32_t weight_count = morph_weight_count(mesh.morph_sets);
  ASSERT_GT(weight_count, 0u);

  // "Surprised" in every set that has it, and the vertices it moves.
  std::vector<float> surprised(weight_count, 0.0f);
  std::vector<bool> moved(mesh.num_vertices, false);
  uint32_t k = 0;
  for (const CpuMorphSet& set : mesh.morph_sets)
    for (const CpuMorphTarget& t : set.targets) {
      if (t.name == "Surprised") {
        surprised[k] = 1.0f;
        for (uint32_t v : t.vertices) moved[v] = true;
      }
      ++k;
    }
  ASSERT_NE(std::count(surprised.begin(), surprised.end(), 1.0f), 0) << "no target 'Surprised'";

  auto spawned = client.spawn("RobotExpressive");
  ASSERT_TRUE(spawned) << spawned.error().to_string();
  anim::v1::Request play;
  play.mutable_play()->set_character_id(spawned->character_id());
  play.mutable_play()->set_clip("Idle");
  play.mutable_play()->set_speed(0.0f);
  auto played = client.call(play);
  ASSERT_TRUE(played) << played.error().to_string();
  ASSERT_EQ(played->status().code(), anim::v1::STATUS_OK) << played->status().message();
  const anim::v1::QueryPoseReply pose = held_pose(client, spawned->character_id(), played->tick());
  ASSERT_EQ(pose.palette_size(), static_cast<int>(12 * joints));
  const std::vector<float> palette(pose.palette().begin(), pose.palette().end());
  const std::vector<float> idle_weights(pose.morph_weights().begin(), pose.morph_weights().end());
  EXPECT_EQ(idle_weights, std::vector<float>(weight_count, 0.0f));
  anim::v1::Request morph;
  morph.mutable_set_morph_weights()->set_character_id(spawned->character_id());
  auto* w = morph.mutable_set_morph_weights()->add_weights();
  w->set_name("Surprised");
  w->set_value(1.0f);
  auto morphed_reply = client.call(morph);
  ASSERT_TRUE(morphed_reply) << morphed_reply.error().to_string();
  ASSERT_EQ(morphed_reply->status().code(), anim::v1::STATUS_OK)
      << morphed_reply->status().message();
  const anim::v1::QueryPoseReply surprised_pose =
      held_pose(client, spawned->character_id(), morphed_reply->tick());
  const std::vector<float> daemon_weights(surprised_pose.morph_weights().begin(),
                                          surprised_pose.morph_weights().end());
  EXPECT_EQ(daemon_weights, surprised);
  EXPECT_EQ(std::vector<float>(surprised_pose.palette().begin(), surprised_pose.palette().end()),
            palette);

  // Scene-space vertices in both states; the head (every vertex of a morph set) and the face
  // (the vertices "Surprised" moves).
  std::vector<float> morphed = mesh.positions;
  apply_morph_positions(mesh.morph_sets, surprised.data(), morphed);
  Aabb head;
  glm::vec3 head_sum(0.0f), face_sum(0.0f);
  size_t head_n = 0, face_n = 0;
  for (const CpuMorphSet& set : mesh.morph_sets)
    for (const CpuVertexRange& r : set.ranges)
      for (uint32_t v = r.first; v < r.first + r.count; ++v) {
        const glm::vec3 p = skin(mesh, mesh.positions, palette.data(), v);
        head.add(p);
        head_sum += p;
        ++head_n;
        if (moved[v]) {
          face_sum += p;
          ++face_n;
        }
      }
  ASSERT_GT(face_n, 0u);
  // Look at the head from the side the face is on (the moved vertices' side of its centre).
  const glm::vec3 facing = face_sum / float(face_n) - head_sum / float(head_n);
  OrbitCamera camera;
  camera.yaw = std::atan2(facing.x, facing.z);
  camera.pitch = 0.0f;
  camera.frame(head, 1.0f);

  // Where the pictures may differ: the screen box of every triangle with a moved vertex, in
  // both states, widened by 2 pixels for rasterization.
  glm::vec2 lo(1e9f), hi(-1e9f);
  for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    const uint32_t tri[3] = {mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]};
    if (!moved[tri[0]] && !moved[tri[1]] && !moved[tri[2]]) continue;
    for (uint32_t v : tri)
      for (const std::vector<float>* p : {&mesh.positions, &morphed}) {
        const glm::vec2 px = to_pixel(camera, skin(mesh, *p, palette.data(), v));
        lo = glm::min(lo, px);
        hi = glm::max(hi, px);
      }
  }
  lo -= glm::vec2(2.0f);
  hi += glm::vec2(2.0f);

  AssetMap assets;
  auto drawable = std::make_unique<DrawableAsset>();
  drawable->mesh.upload(mesh);
  ASSERT_TRUE(drawable->mesh.has_morphs()) << drawable->mesh.morph_error();
  drawable->joints = joints;
  const std::string name = "RobotExpressive";
  assets[name] = std::move(drawable);
  auto render = [&](const std::vector<float>& weights) {
    std::vector<CharacterSample> characters(1);
    characters[0].id = 1;
    characters[0].asset = &name;
    characters[0].palette = palette.data();
    characters[0].joints = joints;
    characters[0].morph_weights = weights.data();
    characters[0].morph_weight_count = static_cast<uint32_t>(weights.size());
    target.bind();
    renderer.draw(camera, kSize, kSize, characters, assets);
    EXPECT_EQ(renderer.skipped(), 0u);
    EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
    return target.read_pixels();
  };
  const std::vector<uint8_t> neutral = render(idle_weights);
  const std::vector<uint8_t> surprise = render(daemon_weights);
  for (const auto& [file, pixels] : {std::pair{"morph_render_neutral.png", &neutral},
                                     std::pair{"morph_render_surprised.png", &surprise}}) {
    const std::string path = std::string(ANIMD_TEST_TMP_DIR) + "/" + file;
    EXPECT_TRUE(write_png(path, kSize, kSize, *pixels, error)) << error;
  }

  size_t inside = 0, differ_inside = 0, differ_outside = 0, drawn = 0;
  const uint8_t bg = static_cast<uint8_t>(std::lround(kBackground[0] * 255.0f));
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      const size_t i = (static_cast<size_t>(y) * kSize + x) * 4;
      const bool differ = neutral[i] != surprise[i] || neutral[i + 1] != surprise[i + 1] ||
                          neutral[i + 2] != surprise[i + 2];
      const bool in_face = x >= lo.x && x <= hi.x && y >= lo.y && y <= hi.y;
      inside += in_face;
      differ_inside += in_face && differ;
      differ_outside += !in_face && differ;
      drawn += std::abs(int(neutral[i]) - int(bg)) > 3;
    }
  std::printf(
      "[morph render] face box %.0f..%.0f x %.0f..%.0f px (%zu pixels): %zu differ; %zu differ "
      "outside it; the character covers %zu of %d pixels\n",
      lo.x, hi.x, lo.y, hi.y, inside, differ_inside, differ_outside, drawn, kSize * kSize);
  EXPECT_GT(drawn, static_cast<size_t>(kSize * kSize / 10)) << "the head does not fill the view";
  EXPECT_LT(inside, static_cast<size_t>(kSize * kSize / 2)) << "the face box is most of the view";
  EXPECT_GT(differ_inside, 200u) << "Surprised = 1 barely changes the face";
  EXPECT_EQ(differ_outside, 0u) << "pixels changed away from the moved triangles";
  EXPECT_EQ(served.daemon().stop(), 0) << served.daemon().log_tail();
}

}  // namespace
}  // namespace animview

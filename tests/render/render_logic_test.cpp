// animview's pure logic: camera framing, mesh byte decoding, palette/root interpolation,
// stream state by render time, grid layout, command line. No GL, no server.
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include "camera.h"
#include "grid_layout.h"
#include "mesh_decode.h"
#include "options.h"
#include "palette_interp.h"
#include "stream_state.h"

namespace animview {
namespace render_logic_test {

constexpr float kPi = std::numbers::pi_v<float>;

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}

// --- camera -----------------------------------------------------------------------------

TEST(OrbitCamera, EyeFollowsYawAndPitch) {
  OrbitCamera c;
  c.target = {0, 1, 0};
  c.distance = 5;
  c.yaw = 0;
  c.pitch = 0;
  glm::vec3 e = c.eye();
  EXPECT_NEAR(e.x, 0, 1e-5);
  EXPECT_NEAR(e.y, 1, 1e-5);
  EXPECT_NEAR(e.z, 5, 1e-5);
  c.yaw = kPi / 2;
  e = c.eye();
  EXPECT_NEAR(e.x, 5, 1e-5);
  EXPECT_NEAR(e.z, 0, 1e-5);
  c.yaw = 0;
  c.pitch = kPi / 6;  // 30 degrees up: height 5 * sin 30 = 2.5 above the target
  e = c.eye();
  EXPECT_NEAR(e.y, 3.5, 1e-5);
  EXPECT_NEAR(e.z, 5 * std::cos(kPi / 6), 1e-5);
}

TEST(OrbitCamera, FrameFindsTheClosestDistanceThatShowsEveryCorner) {
  OrbitCamera c;
  c.fov_y = kPi / 2;  // 90 degrees: tan(half) = 1
  c.yaw = 0;          // camera axes = world axes
  c.pitch = 0;
  Aabb box;
  box.add({-1, -1, -1});
  box.add({1, 1, 1});
  c.frame(box, 1.0f);
  // The near corners (z = +1 toward the camera) need d - 1 >= |x| / 1 = 1: d = 2, plus 10%.
  EXPECT_NEAR(c.distance, 2.2f, 1e-5);
  EXPECT_NEAR(glm::length(c.target), 0.0f, 1e-6);
  // Portrait 1:2: tan(half x) = 0.5, so d - 1 >= 1 / 0.5: d = 3, plus 10%.
  c.frame(box, 0.5f);
  EXPECT_NEAR(c.distance, 3.3f, 1e-5);
  // A wide, flat box: its width decides at a 16:9 aspect only when wider than 16/9 of its
  // height. Box 8 x 1 x 0 (no depth): d = max(4 / (16/9), 0.5 / 1) = 2.25, plus 10%.
  Aabb flat;
  flat.add({-4, -0.5f, 0});
  flat.add({4, 0.5f, 0});
  c.frame(flat, 16.0f / 9.0f);
  EXPECT_NEAR(c.distance, 2.475f, 1e-5);
}

TEST(OrbitCamera, FramedBoxProjectsInsideTheViewAtAnyAngleAndAspect) {
  Aabb box;
  box.add({-0.4f, 0.0f, -0.3f});
  box.add({2.5f, 1.8f, 0.6f});  // two characters side by side
  for (float aspect : {0.5f, 1.0f, 16.0f / 9.0f, 3.0f}) {
    for (float yaw : {0.0f, 0.7f, 2.0f, -2.5f}) {
      for (float pitch : {-0.5f, 0.0f, 0.3f, 1.2f}) {
        OrbitCamera c;
        c.yaw = yaw;
        c.pitch = pitch;
        c.frame(box, aspect);
        glm::mat4 vp = c.projection(aspect) * c.view();
        float largest = 0.0f;
        for (int i = 0; i < 8; ++i) {
          glm::vec3 p{(i & 1) ? box.max.x : box.min.x, (i & 2) ? box.max.y : box.min.y,
                      (i & 4) ? box.max.z : box.min.z};
          glm::vec4 clip = vp * glm::vec4(p, 1);
          ASSERT_GT(clip.w, 0.0f);
          glm::vec3 ndc = glm::vec3(clip) / clip.w;
          EXPECT_LE(std::abs(ndc.x), 1.0f) << "aspect " << aspect << " yaw " << yaw;
          EXPECT_LE(std::abs(ndc.y), 1.0f) << "aspect " << aspect << " pitch " << pitch;
          EXPECT_GT(ndc.z, -1.0f);
          EXPECT_LT(ndc.z, 1.0f);
          largest = std::max({largest, std::abs(ndc.x), std::abs(ndc.y)});
        }
        // Framed tightly: the limiting corner sits at the 10% margin (1 / 1.1 of the way out
        // at the target's depth, a little less when nearer the camera).
        EXPECT_GT(largest, 0.75f);
      }
    }
  }
}

TEST(OrbitCamera, EmptyBoxFramesADefaultBoxAtTheOrigin) {
  OrbitCamera c;
  c.frame(Aabb{}, 1.0f);
  EXPECT_NEAR(c.target.y, 1.0f, 1e-6);
  EXPECT_GT(c.distance, 1.0f);
  EXPECT_TRUE(std::isfinite(c.distance));
}

TEST(OrbitCamera, RotateClampsPitchZoomAndPanMoveByDistance) {
  OrbitCamera c;
  c.pitch = 0;
  c.rotate(0, 10000);
  EXPECT_FLOAT_EQ(c.pitch, OrbitCamera::kMaxPitch);
  c.rotate(0, -100000);
  EXPECT_FLOAT_EQ(c.pitch, -OrbitCamera::kMaxPitch);
  c.distance = 10;
  c.zoom(1);
  EXPECT_NEAR(c.distance, 9.0f, 1e-5);
  c.zoom(-2);
  EXPECT_NEAR(c.distance, 9.0f / 0.81f, 1e-4);
  // Yaw 0 looks along -Z: "forward" on the ground is -Z, "right" is +X.
  c.yaw = 0;
  c.pitch = 0.4f;
  c.distance = 10;
  c.target = {0, 0, 0};
  c.pan_ground(0.5f, 0.0f);
  EXPECT_NEAR(c.target.z, -5.0f, 1e-5);
  EXPECT_NEAR(c.target.y, 0.0f, 1e-6);
  c.pan_ground(0.0f, 0.1f);
  EXPECT_NEAR(c.target.x, 1.0f, 1e-5);
  // Screen pan at pitch 0: right is +X, up is +Y.
  c.pitch = 0;
  c.target = {0, 0, 0};
  c.pan_screen(0.1f, 0.2f);
  EXPECT_NEAR(c.target.x, 1.0f, 1e-5);
  EXPECT_NEAR(c.target.y, 2.0f, 1e-5);
}

TEST(Bounds, TransformedBoxHoldsTheMovedCorners) {
  Aabb box;
  box.add({0, 0, 0});
  box.add({1, 2, 1});
  // Rotate 90 degrees about Y ((x, z) -> (z, -x)), then move by (10, 0, 0).
  glm::mat4 m = glm::translate(glm::mat4(1), {10, 0, 0}) *
                glm::rotate(glm::mat4(1), kPi / 2, glm::vec3(0, 1, 0));
  Aabb t = transformed(box, m);
  EXPECT_NEAR(t.min.x, 10, 1e-5);
  EXPECT_NEAR(t.max.x, 11, 1e-5);
  EXPECT_NEAR(t.min.z, -1, 1e-5);
  EXPECT_NEAR(t.max.z, 0, 1e-5);
  EXPECT_NEAR(t.max.y, 2, 1e-5);
  EXPECT_TRUE(transformed(Aabb{}, m).empty());
}

// --- mesh decoding ------------------------------------------------------------------------

// One triangle in the XY plane, counter-clockwise seen from +Z, on joints 0 and 1.
anim::v1::MeshData triangle_mesh() {
  anim::v1::MeshData m;
  m.set_num_vertices(3);
  m.set_positions(bytes_of(std::vector<float>{0, 0, 0, 2, 0, 0, 0, 3, -1}));
  m.set_normals(bytes_of(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1}));
  m.set_joints(bytes_of(std::vector<uint16_t>{0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  m.set_weights(bytes_of(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0}));
  m.set_indices(bytes_of(std::vector<uint32_t>{0, 1, 2}));
  return m;
}

TEST(MeshDecode, DecodesLittleEndianArraysAndBounds) {
  CpuMesh out;
  std::string error;
  ASSERT_TRUE(decode_mesh(triangle_mesh(), 2, out, error)) << error;
  EXPECT_EQ(out.num_vertices, 3u);
  EXPECT_EQ(out.positions, (std::vector<float>{0, 0, 0, 2, 0, 0, 0, 3, -1}));
  EXPECT_EQ(out.joints[4], 1);
  EXPECT_EQ(out.weights[9], 0.75f);
  EXPECT_EQ(out.indices, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(out.bounds.min, glm::vec3(0, 0, -1));
  EXPECT_EQ(out.bounds.max, glm::vec3(2, 3, 0));
}

TEST(MeshDecode, PerJointBoundsSkinnedByAPaletteBoundWhatIsDrawn) {
  CpuMesh out;
  std::string error;
  ASSERT_TRUE(decode_mesh(triangle_mesh(), 2, out, error)) << error;
  ASSERT_EQ(out.joint_bounds.size(), 2u);
  // Joint 0 moves vertices 0 and 2, joint 1 vertices 1 and 2.
  EXPECT_EQ(out.joint_bounds[0].min, glm::vec3(0, 0, -1));
  EXPECT_EQ(out.joint_bounds[0].max, glm::vec3(0, 3, 0));
  EXPECT_EQ(out.joint_bounds[1].min, glm::vec3(0, 0, -1));
  EXPECT_EQ(out.joint_bounds[1].max, glm::vec3(2, 3, 0));
  // Palette (3x4 rows): joint 0 scales by 100 (a mesh in centimetres-like bind units drawn in
  // metres), joint 1 moves by (0, 0, 10). The drawn vertices are 0 -> (0,0,0),
  // 1 -> (2,0,10), 2 -> 0.25 * (0,300,-100) + 0.75 * (0,3,9) = (0, 77.25, -18.25).
  const std::vector<float> palette = {100, 0, 0, 0, 0, 100, 0, 0, 0, 0, 100, 0,  //
                                      1,   0, 0, 0, 0, 1,   0, 0, 0, 0, 1,   10};
  const Aabb box = skinned_bounds(out.joint_bounds, palette.data(), 2);
  for (const glm::vec3& p :
       {glm::vec3(0, 0, 0), glm::vec3(2, 0, 10), glm::vec3(0, 77.25f, -18.25f)})
    for (int i = 0; i < 3; ++i) {
      EXPECT_LE(box.min[i], p[i]);
      EXPECT_GE(box.max[i], p[i]);
    }
  // Tight on the joints' own boxes: joint 0's box scaled, joint 1's moved.
  EXPECT_EQ(box.min, glm::vec3(0, 0, -100));
  EXPECT_EQ(box.max, glm::vec3(2, 300, 10));
  // A palette shorter than the box list uses only the joints it has.
  EXPECT_EQ(skinned_bounds(out.joint_bounds, palette.data(), 1).max, glm::vec3(0, 300, 0));
}

TEST(MeshDecode, RejectsWrongSizesWithTheArrayNamed) {
  CpuMesh out;
  std::string error;
  auto m = triangle_mesh();
  m.mutable_positions()->pop_back();
  EXPECT_FALSE(decode_mesh(m, 2, out, error));
  EXPECT_NE(error.find("positions"), std::string::npos) << error;
  EXPECT_NE(error.find("35 bytes, expected 36"), std::string::npos) << error;

  m = triangle_mesh();
  m.set_num_vertices(4);  // arrays hold 3
  EXPECT_FALSE(decode_mesh(m, 2, out, error));

  m = triangle_mesh();
  m.set_indices(bytes_of(std::vector<uint32_t>{0, 1}));
  EXPECT_FALSE(decode_mesh(m, 2, out, error));
  EXPECT_NE(error.find("triangles"), std::string::npos) << error;

  m = triangle_mesh();
  m.set_normals(bytes_of(std::vector<float>{0, 0, 1}));
  EXPECT_FALSE(decode_mesh(m, 2, out, error));
  EXPECT_NE(error.find("normals"), std::string::npos) << error;
}

TEST(MeshDecode, RejectsOutOfRangeIndicesJointsAndBadValues) {
  CpuMesh out;
  std::string error;
  auto m = triangle_mesh();
  m.set_indices(bytes_of(std::vector<uint32_t>{0, 1, 3}));
  EXPECT_FALSE(decode_mesh(m, 2, out, error));
  EXPECT_NE(error.find("index 2 is 3"), std::string::npos) << error;

  // Vertex 1 uses joint 1 with weight 1: a one-joint skeleton cannot draw it.
  EXPECT_FALSE(decode_mesh(triangle_mesh(), 1, out, error));
  EXPECT_NE(error.find("vertex 1 uses joint 1"), std::string::npos) << error;

  m = triangle_mesh();
  m.set_positions(bytes_of(std::vector<float>{0, 0, 0, NAN, 0, 0, 0, 3, -1}));
  EXPECT_FALSE(decode_mesh(m, 2, out, error));
  EXPECT_NE(error.find("not finite"), std::string::npos) << error;

  m = triangle_mesh();
  m.set_weights(bytes_of(std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0, 0.25f, 0.75f, 0, 0}));
  EXPECT_FALSE(decode_mesh(m, 2, out, error));
  EXPECT_NE(error.find("all weights zero"), std::string::npos) << error;

  m = triangle_mesh();
  m.set_weights(bytes_of(std::vector<float>{1, 0, 0, 0, 1.5f, -0.5f, 0, 0, 0.25f, 0.75f, 0, 0}));
  EXPECT_FALSE(decode_mesh(m, 2, out, error));
  EXPECT_NE(error.find("negative"), std::string::npos) << error;
}

TEST(MeshDecode, UnusedInfluenceMayNameAnyJointAndWeightsAreRenormalized) {
  auto m = triangle_mesh();
  // Vertex 0: joint 7 with weight 0 (unused), weights 2 + 0 summing to 2.
  m.set_joints(bytes_of(std::vector<uint16_t>{0, 7, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  m.set_weights(bytes_of(std::vector<float>{1, 0, 1, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0}));
  CpuMesh out;
  std::string error;
  ASSERT_TRUE(decode_mesh(m, 2, out, error)) << error;
  EXPECT_EQ(out.joints[1], 0);  // clamped to a valid index: the shader skips weight 0 anyway
  EXPECT_FLOAT_EQ(out.weights[0], 0.5f);
  EXPECT_FLOAT_EQ(out.weights[2], 0.5f);
}

TEST(MeshDecode, MissingNormalsAreComputedFromTriangles) {
  auto m = triangle_mesh();
  // Flat triangle in z = 0, counter-clockwise seen from +Z: normal +Z.
  m.set_positions(bytes_of(std::vector<float>{0, 0, 0, 2, 0, 0, 0, 3, 0}));
  m.clear_normals();
  CpuMesh out;
  std::string error;
  ASSERT_TRUE(decode_mesh(m, 2, out, error)) << error;
  ASSERT_EQ(out.normals.size(), 9u);
  for (int v = 0; v < 3; ++v) {
    EXPECT_NEAR(out.normals[v * 3 + 0], 0, 1e-6);
    EXPECT_NEAR(out.normals[v * 3 + 1], 0, 1e-6);
    EXPECT_NEAR(out.normals[v * 3 + 2], 1, 1e-6);
  }
}

// --- interpolation ------------------------------------------------------------------------

TEST(PaletteInterp, LerpsEveryFloat) {
  std::vector<float> a(24), b(24), out(24);
  for (int i = 0; i < 24; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(i) + 4.0f;
  }
  lerp_palette(a.data(), b.data(), 24, 0.25f, out.data());
  for (int i = 0; i < 24; ++i) EXPECT_FLOAT_EQ(out[i], i + 1.0f);
}

TEST(PaletteInterp, AlphaIsClampedAndHoldsTheNewestWhenTimesAreEqual) {
  EXPECT_FLOAT_EQ(interpolation_alpha(1.5, 1.0, 2.0), 0.5f);
  EXPECT_FLOAT_EQ(interpolation_alpha(1.25, 1.0, 2.0), 0.25f);
  EXPECT_FLOAT_EQ(interpolation_alpha(0.0, 1.0, 2.0), 0.0f);
  EXPECT_FLOAT_EQ(interpolation_alpha(9.0, 1.0, 2.0), 1.0f);  // stalled: newest
  EXPECT_FLOAT_EQ(interpolation_alpha(1.0, 2.0, 2.0), 1.0f);
}

TEST(PaletteInterp, RootFromProtoAppliesDefaultsAndRejectsBadValues) {
  anim::v1::Transform t;
  t.mutable_translation()->set_x(3);
  RootTransform r;
  ASSERT_TRUE(root_from_proto(t, r));
  EXPECT_EQ(r.translation, glm::vec3(3, 0, 0));
  EXPECT_EQ(r.scale, glm::vec3(1));  // unset scale
  EXPECT_FLOAT_EQ(r.rotation.w, 1);  // all-zero rotation = identity
  t.mutable_rotation()->set_z(2);    // not unit: normalized
  ASSERT_TRUE(root_from_proto(t, r));
  EXPECT_FLOAT_EQ(r.rotation.z, 1);
  EXPECT_FLOAT_EQ(r.rotation.w, 0);

  RootTransform before = r;
  anim::v1::Transform bad = t;
  bad.mutable_translation()->set_y(INFINITY);
  EXPECT_FALSE(root_from_proto(bad, r));
  bad = t;
  bad.mutable_scale()->set_x(1);  // y, z stay 0
  EXPECT_FALSE(root_from_proto(bad, r));
  EXPECT_EQ(r.translation, before.translation);  // unchanged on failure
}

TEST(PaletteInterp, RootRotationSlerpsAlongTheShortestArc) {
  RootTransform a, b;
  b.translation = {2, 0, 0};
  b.scale = {3, 3, 3};
  b.rotation = glm::angleAxis(kPi / 2, glm::vec3(0, 1, 0));
  RootTransform m = interpolate_root(a, b, 0.5f);
  EXPECT_NEAR(m.translation.x, 1, 1e-6);
  EXPECT_NEAR(m.scale.y, 2, 1e-6);
  glm::quat expected = glm::angleAxis(kPi / 4, glm::vec3(0, 1, 0));
  EXPECT_NEAR(std::abs(glm::dot(m.rotation, expected)), 1, 1e-6);
  // The same end rotation given as -q must not take the long way round.
  b.rotation = -b.rotation;
  m = interpolate_root(a, b, 0.5f);
  EXPECT_NEAR(std::abs(glm::dot(m.rotation, expected)), 1, 1e-6);
}

// --- stream state ---------------------------------------------------------------------

// A frame with one character whose palette is `joints` identity matrices with translation
// x = `x`, placed at root x = `root_x`.
anim::v1::StreamFrame make_frame(uint64_t tick, double server_time, uint32_t id, float x,
                                 int joints = 2, float root_x = 0.0f) {
  anim::v1::StreamFrame f;
  f.set_tick(tick);
  f.set_server_time(server_time);
  auto* c = f.add_characters();
  c->set_character_id(id);
  c->set_asset("builtin");
  c->mutable_root()->mutable_translation()->set_x(root_x);
  for (int j = 0; j < joints; ++j) {
    float rows[12] = {1, 0, 0, x, 0, 1, 0, 0, 0, 0, 1, 0};
    for (float v : rows) c->add_palette(v);
  }
  return f;
}

TEST(StreamState, InterpolatesBetweenTheTwoNewestFramesByRenderTime) {
  StreamState s;
  // Ticks 1 and 2, 0.1 s apart on the server's clock, each arriving 0.1 s apart locally.
  s.on_frame(make_frame(1, 5.0, 7, 0.0f, 2, 0.0f), 100.0);
  s.on_frame(make_frame(2, 5.1, 7, 1.0f, 2, 4.0f), 100.1);
  EXPECT_NEAR(s.frame_period(), 0.1, 1e-9);
  std::vector<CharacterSample> out;
  // Local 100.15 is server 5.15; render time is one period earlier, 5.05: halfway.
  s.sample(100.15, true, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(s.render_time(), 5.05, 1e-9);
  EXPECT_EQ(out[0].id, 7u);
  EXPECT_EQ(*out[0].asset, "builtin");
  EXPECT_EQ(out[0].joints, 2u);
  EXPECT_EQ(out[0].tick, 2u);
  EXPECT_NEAR(out[0].palette[3], 0.5f, 1e-5);
  EXPECT_NEAR(out[0].palette[12 + 3], 0.5f, 1e-5);
  EXPECT_NEAR(out[0].palette[0], 1.0f, 1e-6);
  EXPECT_NEAR(out[0].model[3][0], 2.0f, 1e-5);  // root x halfway between 0 and 4
  // Without interpolation: the newest frame as is.
  s.sample(100.15, false, out);
  EXPECT_FLOAT_EQ(out[0].palette[3], 1.0f);
  EXPECT_NEAR(out[0].model[3][0], 4.0f, 1e-6);
}

TEST(StreamState, AStalledStreamHoldsTheNewestPose) {
  StreamState s;
  s.on_frame(make_frame(1, 5.0, 7, 0.0f), 100.0);
  s.on_frame(make_frame(2, 5.1, 7, 1.0f), 100.1);
  std::vector<CharacterSample> out;
  s.sample(160.0, true, out);  // a minute without frames
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].palette[3], 1.0f);
}

TEST(StreamState, AFirstFrameAloneIsDrawnAsIs) {
  StreamState s;
  s.on_frame(make_frame(1, 5.0, 3, 0.75f), 100.0);
  std::vector<CharacterSample> out;
  s.sample(100.5, true, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].palette[3], 0.75f);
}

TEST(StreamState, RenderTimeFollowsTheFastestDeliverySeen) {
  StreamState s;
  // Frame 2 arrives late (0.05 s more transit): the clock keeps the faster frame 1's offset.
  s.on_frame(make_frame(1, 5.0, 7, 0.0f), 100.0);
  s.on_frame(make_frame(2, 5.1, 7, 1.0f), 100.15);
  std::vector<CharacterSample> out;
  s.sample(100.15, true, out);
  // offset -95 (less 1 ms/s of decay over 0.15 s); render = 5.15 - 0.00015 - 0.1
  EXPECT_NEAR(s.render_time(), 5.05 - 0.00015, 1e-9);
  EXPECT_NEAR(out[0].palette[3], (5.05 - 0.00015 - 5.0) / 0.1, 1e-4);
}

TEST(StreamState, KeepsPalettesOf256JointsIntact) {
  StreamState s;
  s.on_frame(make_frame(1, 1.0, 1, 0.0f, 256), 10.0);
  s.on_frame(make_frame(2, 1.1, 1, 2.0f, 256), 10.1);
  std::vector<CharacterSample> out;
  s.sample(10.15, true, out);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].joints, 256u);
  EXPECT_NEAR(out[0].palette[255 * 12 + 3], 1.0f, 1e-5);
  EXPECT_NEAR(out[0].palette[255 * 12 + 10], 1.0f, 1e-6);
}

TEST(StreamState, DespawnedCharactersGoAndOldFramesAreIgnored) {
  StreamState s;
  s.on_frame(make_frame(5, 5.0, 1, 3.0f), 100.0);
  anim::v1::StreamFrame f = make_frame(5, 5.0, 2, 0.0f);
  s.on_frame(f, 100.0);
  EXPECT_EQ(s.characters().size(), 2u);
  s.on_frame(make_frame(4, 4.9, 1, 9.0f), 100.01);  // older than character 1's newest
  EXPECT_EQ(s.characters().at(1).latest.palette[3], 3.0f);
  EXPECT_FALSE(s.characters().at(1).has_prev);
  anim::v1::StreamFrame d;
  d.set_tick(6);
  d.set_server_time(5.1);
  d.add_despawned(2);
  s.on_frame(d, 100.1);
  EXPECT_EQ(s.characters().size(), 1u);
  EXPECT_EQ(s.characters().count(1), 1u);
  EXPECT_EQ(s.latest_tick(), 6u);
  s.clear();
  EXPECT_TRUE(s.characters().empty());
  EXPECT_EQ(s.latest_tick(), 0u);
}

TEST(StreamState, BadCharacterEntriesAreSkippedWithAReason) {
  StreamState s;
  auto f = make_frame(1, 1.0, 9, 0.0f);
  f.mutable_characters(0)->add_palette(1.0f);  // 25 floats
  s.on_frame(f, 10.0);
  EXPECT_TRUE(s.characters().empty());
  EXPECT_EQ(s.rejected(), 1u);
  EXPECT_NE(s.last_error().find("character 9"), std::string::npos) << s.last_error();
  EXPECT_NE(s.last_error().find("25 floats"), std::string::npos) << s.last_error();

  f = make_frame(1, 1.0, 9, NAN);
  s.on_frame(f, 10.0);
  EXPECT_TRUE(s.characters().empty());
  EXPECT_NE(s.last_error().find("non-finite"), std::string::npos) << s.last_error();

  f = make_frame(1, 1.0, 9, 0.0f);
  f.mutable_characters(0)->mutable_root()->mutable_scale()->set_x(1);  // y, z scale 0
  s.on_frame(f, 10.0);
  EXPECT_TRUE(s.characters().empty());
  EXPECT_EQ(s.rejected(), 3u);
}

TEST(StreamState, AnAssetChangeDoesNotBlendAcrossSkeletons) {
  StreamState s;
  s.on_frame(make_frame(1, 1.0, 4, 0.0f, 2), 10.0);
  auto f = make_frame(2, 1.1, 4, 1.0f, 3);
  f.mutable_characters(0)->set_asset("fox");
  s.on_frame(f, 10.1);
  std::vector<CharacterSample> out;
  s.sample(10.15, true, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(*out[0].asset, "fox");
  EXPECT_EQ(out[0].joints, 3u);
  EXPECT_FLOAT_EQ(out[0].palette[3], 1.0f);
}

// --- grid -----------------------------------------------------------------------------

TEST(GridLayout, SpacingIsARoundNumberScaledToTheScene) {
  Aabb metres;  // a 1.8 m character: raw 1.8 / 6 = 0.3 -> 0.2
  metres.add({-0.3f, 0, -0.2f});
  metres.add({0.3f, 1.8f, 0.2f});
  EXPECT_FLOAT_EQ(layout_grid(metres).spacing, 0.2f);
  Aabb centimetres;  // 120 units: raw 20 -> 20
  centimetres.add({-60, 0, -20});
  centimetres.add({60, 80, 20});
  GridLayout g = layout_grid(centimetres);
  EXPECT_FLOAT_EQ(g.spacing, 20.0f);
  EXPECT_EQ(g.half_lines, 9);  // ceil(1.5 * 120 / 20)
  EXPECT_FLOAT_EQ(g.fade_radius, 180.0f);
  EXPECT_EQ(g.center, glm::vec3(0, 0, 0));
  // 2 * 9 + 1 lines per axis, 2 vertices each, 6 floats per vertex.
  EXPECT_EQ(grid_vertices(g).size(), static_cast<size_t>((2 * 9 + 1) * 2 * 2 * 6));
  Aabb wide;  // 3 m: raw 0.5 -> 0.5; centre (1.3, 0, 0.1) snaps to (1.5, 0, 0)
  wide.add({-0.2f, 0, -0.4f});
  wide.add({2.8f, 1, 0.6f});
  g = layout_grid(wide);
  EXPECT_FLOAT_EQ(g.spacing, 0.5f);
  EXPECT_NEAR(g.center.x, 1.5f, 1e-6);
  EXPECT_NEAR(g.center.z, 0.0f, 1e-6);
  EXPECT_GT(layout_grid(Aabb{}).spacing, 0.0f);
}

// --- options --------------------------------------------------------------------------

TEST(Options, DefaultsAndFlags) {
  Options o;
  std::string error;
  ASSERT_TRUE(parse_options({}, o, error)) << error;
  EXPECT_EQ(o.host, "127.0.0.1");
  EXPECT_EQ(o.port, 7450);
  EXPECT_TRUE(o.interpolate);
  EXPECT_TRUE(o.characters.empty());
  ASSERT_TRUE(parse_options({"--host",
                             "example",
                             "--port=9000",
                             "--characters",
                             "1,2,30",
                             "--no-interpolate",
                             "--headless",
                             "--frames",
                             "5",
                             "--screenshot",
                             "a.png",
                             "--width",
                             "640",
                             "--height=480",
                             "--wait",
                             "2.5",
                             "--run-seconds",
                             "3",
                             "--max-fps",
                             "30"},
                            o, error))
      << error;
  EXPECT_EQ(o.host, "example");
  EXPECT_EQ(o.port, 9000);
  EXPECT_EQ(o.characters, (std::vector<uint32_t>{1, 2, 30}));
  EXPECT_FALSE(o.interpolate);
  EXPECT_TRUE(o.headless);
  EXPECT_EQ(o.frames, 5);
  EXPECT_EQ(o.screenshot, "a.png");
  EXPECT_EQ(o.width, 640);
  EXPECT_EQ(o.height, 480);
  EXPECT_DOUBLE_EQ(o.wait_seconds, 2.5);
  EXPECT_DOUBLE_EQ(o.run_seconds, 3.0);
  EXPECT_DOUBLE_EQ(o.max_fps, 30.0);
}

TEST(Options, ConnectTakesSeveralDaemons) {
  Options o;
  std::string error;
  ASSERT_TRUE(parse_options({}, o, error)) << error;
  EXPECT_EQ(endpoints(o), (std::vector<std::pair<std::string, uint16_t>>{{"127.0.0.1", 7450}}));
  ASSERT_TRUE(parse_options(
      {"--connect", "127.0.0.1:7450", "--connect=h2:7460", "--connect", "h3:7470"}, o, error))
      << error;
  EXPECT_EQ(endpoints(o), (std::vector<std::pair<std::string, uint16_t>>{
                              {"127.0.0.1", 7450}, {"h2", 7460}, {"h3", 7470}}));
  for (const char* bad : {"host", "host:", ":7450", "host:0", "host:70000", "host:x"}) {
    EXPECT_FALSE(parse_options({"--connect", bad}, o, error)) << bad;
    EXPECT_NE(error.find("--connect"), std::string::npos) << error;
  }
}

TEST(Options, BadValuesNameTheFlag) {
  Options o;
  std::string error;
  EXPECT_FALSE(parse_options({"--port", "70000"}, o, error));
  EXPECT_NE(error.find("--port"), std::string::npos) << error;
  EXPECT_FALSE(parse_options({"--characters", "1,x"}, o, error));
  EXPECT_NE(error.find("--characters"), std::string::npos) << error;
  EXPECT_FALSE(parse_options({"--characters", "0"}, o, error));
  EXPECT_FALSE(parse_options({"--frames", "0"}, o, error));
  EXPECT_FALSE(parse_options({"--run-seconds", "-1"}, o, error));
  EXPECT_FALSE(parse_options({"--wait", "nan"}, o, error));
  EXPECT_FALSE(parse_options({"--width"}, o, error));
  EXPECT_NE(error.find("needs a value"), std::string::npos) << error;
  EXPECT_FALSE(parse_options({"--screenshot", "a.png"}, o, error));
  EXPECT_NE(error.find("--headless"), std::string::npos) << error;
  EXPECT_FALSE(parse_options({"--bogus"}, o, error));
  EXPECT_NE(error.find("--bogus"), std::string::npos) << error;
}

}  // namespace render_logic_test
}  // namespace animview

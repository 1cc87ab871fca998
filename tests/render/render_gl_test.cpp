// animview's GL parts on synthetic meshes, rendered offscreen (run under xvfb-run with
// Mesa): the palette texture buffer (256 joints, row-major 3x4 rows), skinning in the vertex
// shader, morph targets before skinning with each character's weights, the offscreen target
// and the PNG writer.
#include <cmath>
#include <filesystem>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <stb_image.h>

#include "gl_context.h"
#include "palette_buffer.h"
#include "process_tmp_dir.h"
#include "render_target.h"
#include "renderer.h"
#include "screenshot.h"

namespace animview {
namespace {

constexpr int kSize = 512;

class RenderGl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    context_ = GlContext::create(kSize, kSize, true, "render_gl_tests", error).release();
    ASSERT_NE(context_, nullptr) << error << " (run under xvfb-run -a)";
  }
  static void TearDownTestSuite() {
    delete context_;
    context_ = nullptr;
  }
  void SetUp() override {
    if (!context_) GTEST_FAIL() << "no GL context";
    std::string error;
    ASSERT_TRUE(renderer_.init(error)) << error;
    ASSERT_TRUE(target_.create(kSize, kSize, 0, error)) << error;
    // Park the ground grid behind the camera so only the characters are in the picture.
    GridLayout far_away;
    far_away.center = {0, 0, 1e4f};
    renderer_.set_grid(far_away);
  }

  // Renders one character of `asset` with `palette` (and `morph_weights`, none when null)
  // and returns the pixels (top row first).
  std::vector<uint8_t> render(const CpuMesh& mesh, uint32_t joints,
                              const std::vector<float>& palette, const OrbitCamera& camera,
                              const std::vector<float>* morph_weights = nullptr) {
    AssetMap assets;
    auto a = std::make_unique<DrawableAsset>();
    a->mesh.upload(mesh);
    a->bounds = mesh.bounds;
    a->joints = joints;
    assets["synthetic"] = std::move(a);
    std::vector<CharacterSample> characters(1);
    characters[0].id = 1;
    characters[0].asset = &asset_name_;
    characters[0].palette = palette.data();
    characters[0].joints = static_cast<uint32_t>(palette.size() / 12);
    if (morph_weights) {
      characters[0].morph_weights = morph_weights->data();
      characters[0].morph_weight_count = static_cast<uint32_t>(morph_weights->size());
    }
    target_.bind();
    renderer_.draw(camera, kSize, kSize, characters, assets);
    EXPECT_EQ(renderer_.skipped(), 0u);
    EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
    return target_.read_pixels();
  }

  // The pixel a world point lands on, RGB.
  static glm::ivec3 pixel_at(const std::vector<uint8_t>& rgba, const OrbitCamera& camera,
                             glm::vec3 world) {
    glm::vec4 clip = camera.projection(1.0f) * camera.view() * glm::vec4(world, 1.0f);
    glm::vec2 ndc = glm::vec2(clip) / clip.w;
    int x = static_cast<int>((ndc.x * 0.5f + 0.5f) * kSize);
    int y = static_cast<int>((0.5f - ndc.y * 0.5f) * kSize);  // rows run top to bottom
    x = std::clamp(x, 0, kSize - 1);
    y = std::clamp(y, 0, kSize - 1);
    const uint8_t* p = &rgba[(static_cast<size_t>(y) * kSize + x) * 4];
    return {p[0], p[1], p[2]};
  }

  static bool is_background(glm::ivec3 c) {
    for (int k = 0; k < 3; ++k)
      if (std::abs(c[k] - static_cast<int>(std::lround(kBackground[k] * 255.0f))) > 3) return false;
    return true;
  }

  static OrbitCamera front_camera(const Aabb& box) {
    OrbitCamera c;
    c.yaw = 0;
    c.pitch = 0;
    c.frame(box, 1.0f);
    return c;
  }

  static GlContext* context_;
  Renderer renderer_;
  RenderTarget target_;
  std::string asset_name_ = "synthetic";
};

GlContext* RenderGl::context_ = nullptr;

// A quad per joint (0.8 x 0.8 at the origin, bound to that joint only); joint j's palette
// moves it to cell (j % 16, j / 16) of a 16 x 16 board.
TEST_F(RenderGl, EveryJointOfA256JointPaletteMovesItsOwnQuad) {
  ASSERT_GE(max_palette_joints(), 256u);
  constexpr uint32_t kJoints = 256;
  CpuMesh mesh;
  for (uint32_t j = 0; j < kJoints; ++j) {
    const float corners[4][2] = {{0, 0}, {0.8f, 0}, {0.8f, 0.8f}, {0, 0.8f}};
    uint32_t base = mesh.num_vertices;
    for (const auto& c : corners) {
      mesh.positions.insert(mesh.positions.end(), {c[0], c[1], 0.0f});
      mesh.normals.insert(mesh.normals.end(), {0.0f, 0.0f, 1.0f});
      mesh.joints.insert(mesh.joints.end(), {static_cast<uint16_t>(j), 0, 0, 0});
      mesh.weights.insert(mesh.weights.end(), {1.0f, 0.0f, 0.0f, 0.0f});
      ++mesh.num_vertices;
    }
    mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  mesh.bounds.add({0, 0, 0});
  mesh.bounds.add({0.8f, 0.8f, 0});
  std::vector<float> palette;
  for (uint32_t j = 0; j < kJoints; ++j) {
    float x = static_cast<float>(j % 16) + 0.1f, y = static_cast<float>(j / 16) + 0.1f;
    palette.insert(palette.end(), {1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, 0});
  }
  Aabb board;
  board.add({0, 0, 0});
  board.add({16, 16, 0});
  OrbitCamera camera = front_camera(board);
  std::vector<uint8_t> pixels = render(mesh, kJoints, palette, camera);
  for (uint32_t j = 0; j < kJoints; ++j) {
    float x = static_cast<float>(j % 16), y = static_cast<float>(j / 16);
    EXPECT_FALSE(is_background(pixel_at(pixels, camera, {x + 0.5f, y + 0.5f, 0})))
        << "joint " << j << "'s quad is not at its cell";
    EXPECT_TRUE(is_background(pixel_at(pixels, camera, {x + 0.97f, y + 0.97f, 0})))
        << "something covers the gap beside joint " << j << "'s cell";
  }
}

// A bar along +X bound to one joint whose skin matrix turns 90 degrees about Z and moves
// by (5, 5, 0): rows [0 -1 0 5], [1 0 0 5], [0 0 1 0]. The bar must stand upright at x = 5.
TEST_F(RenderGl, PaletteRowsAreRowMajorRotationAndTranslation) {
  CpuMesh mesh;
  const float corners[4][2] = {{0, -0.2f}, {2, -0.2f}, {2, 0.2f}, {0, 0.2f}};
  for (const auto& c : corners) {
    mesh.positions.insert(mesh.positions.end(), {c[0], c[1], 0.0f});
    mesh.normals.insert(mesh.normals.end(), {0.0f, 0.0f, 1.0f});
    mesh.joints.insert(mesh.joints.end(), {0, 0, 0, 0});
    mesh.weights.insert(mesh.weights.end(), {1.0f, 0.0f, 0.0f, 0.0f});
    ++mesh.num_vertices;
  }
  mesh.indices = {0, 1, 2, 0, 2, 3};
  std::vector<float> palette = {0, -1, 0, 5, 1, 0, 0, 5, 0, 0, 1, 0};
  Aabb view;
  view.add({0, 0, 0});
  view.add({10, 10, 0});
  OrbitCamera camera = front_camera(view);
  std::vector<uint8_t> pixels = render(mesh, 1, palette, camera);
  EXPECT_FALSE(is_background(pixel_at(pixels, camera, {5.0f, 6.5f, 0})));  // upright bar
  EXPECT_FALSE(is_background(pixel_at(pixels, camera, {5.0f, 5.2f, 0})));
  EXPECT_TRUE(is_background(pixel_at(pixels, camera, {6.5f, 5.0f, 0})));  // not unrotated
  EXPECT_TRUE(is_background(pixel_at(pixels, camera, {1.0f, 0.0f, 0})));  // not unmoved
  // Lit from the front: brighter than ambient alone (0.3 of the albedo).
  glm::ivec3 c = pixel_at(pixels, camera, {5.0f, 6.0f, 0});
  glm::vec3 albedo = character_color(1) * 255.0f;
  EXPECT_GT(c.r, 0.5f * albedo.r);
}

// A unit quad on joint 0 with two morph targets: "stretch" moves its top edge up by 2 in bind
// space, "shade" turns every normal away from the viewer (0, 0, 1) -> (0, 0, -1) at weight 1.
// Defaults: stretch 1, shade 0. The skin matrix turns 90 degrees about Z and moves by
// (5, 5, 0), so a bind-space delta (0, 2, 0) lands as (-2, 0, 0): morphed before skinning, the
// quad reaches x = 2; morphed after, it would grow upwards instead.
TEST_F(RenderGl, MorphTargetsMoveVerticesBeforeSkinningWithTheCharactersWeights) {
  CpuMesh mesh;
  const float corners[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  for (const auto& c : corners) {
    mesh.positions.insert(mesh.positions.end(), {c[0], c[1], 0.0f});
    mesh.normals.insert(mesh.normals.end(), {0.0f, 0.0f, 1.0f});
    mesh.joints.insert(mesh.joints.end(), {0, 0, 0, 0});
    mesh.weights.insert(mesh.weights.end(), {1.0f, 0.0f, 0.0f, 0.0f});
    ++mesh.num_vertices;
  }
  mesh.indices = {0, 1, 2, 0, 2, 3};
  CpuMorphSet set;
  set.name = "quad";
  set.ranges = {{0, 4}};
  set.targets.resize(2);
  set.targets[0].name = "stretch";
  set.targets[0].vertices = {2, 3};
  set.targets[0].position_deltas = {0, 2, 0, 0, 2, 0};
  set.targets[1].name = "shade";
  set.targets[1].vertices = {0, 1, 2, 3};
  set.targets[1].position_deltas.assign(12, 0.0f);
  set.targets[1].normal_deltas = {0, 0, -2, 0, 0, -2, 0, 0, -2, 0, 0, -2};
  set.default_weights = {1.0f, 0.0f};
  mesh.morph_sets = {set};
  const std::vector<float> palette = {0, -1, 0, 5, 1, 0, 0, 5, 0, 0, 1, 0};
  Aabb view;
  view.add({0, 0, 0});
  view.add({10, 10, 0});
  const OrbitCamera camera = front_camera(view);
  const glm::vec3 stretched(3.0f, 5.5f, 0.0f);       // inside the quad only when stretched
  const glm::vec3 always(4.5f, 5.5f, 0.0f);          // inside the quad at any weight
  const glm::vec3 after_skinning(4.5f, 6.5f, 0.0f);  // where a scene-space delta would go

  const std::vector<float> none = {0.0f, 0.0f};
  std::vector<uint8_t> pixels = render(mesh, 1, palette, camera, &none);
  EXPECT_TRUE(is_background(pixel_at(pixels, camera, stretched)));
  const glm::ivec3 lit = pixel_at(pixels, camera, always);
  EXPECT_FALSE(is_background(lit));

  pixels = render(mesh, 1, palette, camera);  // no streamed weights: the defaults
  EXPECT_FALSE(is_background(pixel_at(pixels, camera, stretched)));
  EXPECT_TRUE(is_background(pixel_at(pixels, camera, after_skinning)));

  const std::vector<float> wrong_count = {0.0f, 0.0f, 0.0f};  // not one per target: defaults
  pixels = render(mesh, 1, palette, camera, &wrong_count);
  EXPECT_FALSE(is_background(pixel_at(pixels, camera, stretched)));

  const std::vector<float> shaded = {0.0f, 1.0f};
  pixels = render(mesh, 1, palette, camera, &shaded);
  EXPECT_TRUE(is_background(pixel_at(pixels, camera, stretched)));
  const glm::ivec3 dark = pixel_at(pixels, camera, always);
  // Facing away from the light: ambient only (0.3 of the albedo), well below the lit pixel.
  const glm::vec3 albedo = character_color(1) * 255.0f;
  EXPECT_LT(dark.r, lit.r - 20) << "lit " << lit.r << ", shaded " << dark.r;
  EXPECT_NEAR(dark.r, 0.3f * albedo.r, 0.05f * albedo.r + 2);
}

// A palette too short for the skeleton is not drawn (the shader would read past it).
TEST_F(RenderGl, ShortPaletteIsSkipped) {
  CpuMesh mesh;
  mesh.num_vertices = 3;
  mesh.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  mesh.normals = {0, 0, 1, 0, 0, 1, 0, 0, 1};
  mesh.joints = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
  mesh.weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  mesh.indices = {0, 1, 2};
  AssetMap assets;
  auto a = std::make_unique<DrawableAsset>();
  a->mesh.upload(mesh);
  a->joints = 2;
  assets["synthetic"] = std::move(a);
  std::vector<float> palette = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};  // one joint
  std::vector<CharacterSample> characters(1);
  characters[0].id = 1;
  characters[0].asset = &asset_name_;
  characters[0].palette = palette.data();
  characters[0].joints = 1;
  target_.bind();
  renderer_.draw(OrbitCamera{}, kSize, kSize, characters, assets);
  EXPECT_EQ(renderer_.skipped(), 1u);
}

TEST_F(RenderGl, MultisampledTargetResolvesAndPngRoundTrips) {
  std::string error;
  RenderTarget msaa;
  ASSERT_TRUE(msaa.create(64, 32, 4, error)) << error;
  msaa.bind();
  glClearColor(1.0f, 0.5f, 0.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  std::vector<uint8_t> pixels = msaa.read_pixels();
  ASSERT_EQ(pixels.size(), 64u * 32u * 4u);
  EXPECT_EQ(pixels[0], 255);
  EXPECT_NEAR(pixels[1], 128, 1);
  EXPECT_EQ(pixels[2], 0);
  // Mark the top-left pixel to check row order survives the round trip.
  pixels[0] = 10;
  pixels[1] = 20;
  pixels[2] = 30;
  std::string path = (animtest::process_tmp_dir() / "render_gl_roundtrip.png").string();
  ASSERT_TRUE(write_png(path, 64, 32, pixels, error)) << error;
  int w = 0, h = 0, n = 0;
  unsigned char* back = stbi_load(path.c_str(), &w, &h, &n, 3);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(w, 64);
  EXPECT_EQ(h, 32);
  EXPECT_EQ(back[0], 10);
  EXPECT_EQ(back[1], 20);
  EXPECT_EQ(back[2], 30);
  EXPECT_EQ(back[3], 255);  // second pixel: the clear colour
  stbi_image_free(back);

  EXPECT_FALSE(write_png("/nonexistent-dir/x.png", 64, 32, pixels, error));
  EXPECT_NE(error.find("/nonexistent-dir/x.png"), std::string::npos) << error;
  EXPECT_FALSE(write_png(path, 65, 32, pixels, error));
}

}  // namespace
}  // namespace animview

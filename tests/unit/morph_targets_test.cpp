// Morph targets on hand-built glTF files (gltf_rig.h): what loads (names, default weights,
// sparse deltas, sparse accessors, rigid meshes' deltas in bind space), the clips' weight
// channels and their sampling (morph_weights.h), and every refusal naming the accessor or
// mesh at fault.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/gltf_loader.h"
#include "anim/morph_weights.h"
#include "gltf_rig.h"
#include "gltf_test_files.h"

namespace anim {
namespace morph_targets_test {

using namespace gltf_rig;

// The rig's mesh (one triangle: (0,0,0), (1,0,0), (0,1,0)) with one target per entry of
// `targets` (9 floats: a POSITION delta per vertex). Its "Walk" animation already animates
// Body's weights from 0 to 1 over a second, which fits a mesh of one target.
Rig rig_with_targets(const std::vector<std::vector<float>>& targets) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  json& mesh = f.doc["meshes"][0];
  json names = json::array();
  for (size_t k = 0; k < targets.size(); ++k) {
    mesh["primitives"][0]["targets"].push_back({{"POSITION", f.add_floats(targets[k], "VEC3", 3)}});
    names.push_back("shape" + std::to_string(k));
  }
  mesh["extras"]["targetNames"] = names;
  return rig;
}

const std::vector<float> kMoveLast = {0, 0, 0, 0, 0, 0, 1, 0, 0};  // vertex 2 by +x

Expected<Asset> load_with(const Rig& rig, const std::string& stem, const GltfLimits& limits = {}) {
  GltfOptions options;
  options.limits = limits;
  return load_gltf(rig.file.write_embedded(stem), options);
}

void expect_refused(const Expected<Asset>& a, StatusCode code, const std::string& needle) {
  ASSERT_FALSE(a.has_value()) << "loaded, but should fail with: " << needle;
  EXPECT_EQ(a.error().code(), code) << a.error().message();
  EXPECT_NE(a.error().message().find(needle), std::string::npos)
      << "message does not say '" << needle << "': " << a.error().message();
}

bool any_morph_warning(const Asset& a) {
  for (const std::string& w : a.warnings)
    if (w.find("morph") != std::string::npos) return true;
  return false;
}

TEST(MorphTargets, LoadNamesDefaultsAndSparseDeltas) {
  Rig rig = rig_with_targets({kMoveLast, {0, 0, 0, 0, 2, 0, 0, 0, 0}});
  rig.file.doc["meshes"][0]["weights"] = {0.25, 0.5};
  // Walk's weights channel now needs two values per key.
  const int two = rig.file.add_floats({0, 0, 1, 0.5f}, "SCALAR", 1);
  rig.file.doc["animations"][1]["samplers"][1]["output"] = two;
  const Expected<Asset> a = load_with(rig, "morph_names");
  ASSERT_TRUE(a.has_value()) << a.error().message();
  EXPECT_FALSE(any_morph_warning(*a));
  ASSERT_EQ(a->mesh.morph_sets.size(), 1u);
  const MorphSet& set = a->mesh.morph_sets[0];
  EXPECT_EQ(set.name, "body");
  EXPECT_EQ(set.node, "Body");
  ASSERT_EQ(set.num_targets(), 2);
  EXPECT_EQ(set.targets[0].name, "shape0");
  EXPECT_EQ(set.targets[1].name, "shape1");
  EXPECT_EQ(set.find_target("shape1"), 1);
  EXPECT_EQ(a->mesh.find_morph_set("body"), 0);
  EXPECT_EQ(set.default_weights, (std::vector<float>{0.25f, 0.5f}));
  ASSERT_EQ(set.ranges.size(), 1u);
  EXPECT_EQ(set.ranges[0].first_vertex, 0u);
  EXPECT_EQ(set.ranges[0].vertex_count, 3u);
  // Only the vertices a target moves are kept.
  EXPECT_EQ(set.targets[0].vertices, (std::vector<uint32_t>{2}));
  expect_vec3_near(set.targets[0].position_deltas.at(0), {1, 0, 0});
  EXPECT_TRUE(set.targets[0].normal_deltas.empty());
  EXPECT_EQ(set.targets[1].vertices, (std::vector<uint32_t>{1}));
  expect_vec3_near(set.targets[1].position_deltas.at(0), {0, 2, 0});

  const Clip& walk = a->clips[a->find_clip("Walk")];
  ASSERT_EQ(walk.morph_channels.size(), 1u);
  std::vector<float> w(2);
  ASSERT_TRUE(sample_morph_weights(walk, a->mesh, 0, 0.5f, w));
  EXPECT_NEAR(w[0], 0.5f, 1e-6f);
  EXPECT_NEAR(w[1], 0.25f, 1e-6f);
  // The first animation has no weights channel: the defaults.
  ASSERT_TRUE(sample_morph_weights(a->clips[0], a->mesh, 0, 0.5f, w));
  EXPECT_EQ(w, set.default_weights);
  // Wrong set or size: refused, nothing written.
  EXPECT_FALSE(sample_morph_weights(walk, a->mesh, 1, 0.5f, w));
  std::vector<float> three(3, -1.0f);
  EXPECT_FALSE(sample_morph_weights(walk, a->mesh, 0, 0.5f, three));
  EXPECT_EQ(three, std::vector<float>(3, -1.0f));

  std::vector<glm::vec3> positions = a->mesh.positions;
  const std::vector<float> half_quarter = {0.5f, 0.25f};
  apply_morph_positions(set, half_quarter, positions);
  expect_vec3_near(positions[1], a->mesh.positions[1] + glm::vec3(0, 0.5f, 0));
  expect_vec3_near(positions[2], a->mesh.positions[2] + glm::vec3(0.5f, 0, 0));
}

TEST(MorphTargets, MissingTargetNamesAndWeightsGiveDefaults) {
  Rig rig = rig_with_targets({kMoveLast});
  rig.file.doc["meshes"][0].erase("extras");
  const Expected<Asset> a = load_with(rig, "morph_default_names");
  ASSERT_TRUE(a.has_value()) << a.error().message();
  ASSERT_EQ(a->mesh.morph_sets.size(), 1u);
  EXPECT_EQ(a->mesh.morph_sets[0].targets[0].name, "target0");
  EXPECT_EQ(a->mesh.morph_sets[0].default_weights, std::vector<float>{0.0f});
  // The node's weights override the mesh's.
  rig.file.doc["meshes"][0]["weights"] = {0.25};
  rig.file.doc["nodes"][rig.body]["weights"] = {0.75};
  const Expected<Asset> b = load_with(rig, "morph_node_weights");
  ASSERT_TRUE(b.has_value()) << b.error().message();
  EXPECT_EQ(b->mesh.morph_sets[0].default_weights, std::vector<float>{0.75f});
}

TEST(MorphTargets, SparseAccessorDeltasLoad) {
  Rig rig = rig_with_targets({});
  GltfFile& f = rig.file;
  const int idx_view = [&] {
    const std::vector<uint16_t> idx = {2, 0};  // padded to 4 bytes; count 1 reads the first
    return f.add_view(idx.data(), idx.size() * 2);
  }();
  const std::vector<float> vals = {0, 0, 3};
  const int val_view = f.add_view(vals.data(), vals.size() * 4);
  f.doc["accessors"].push_back(
      {{"componentType", animtest::kFloat},
       {"count", 3},
       {"type", "VEC3"},
       {"sparse",
        {{"count", 1},
         {"indices", {{"bufferView", idx_view}, {"componentType", animtest::kUnsignedShort}}},
         {"values", {{"bufferView", val_view}}}}}});
  const int sparse = static_cast<int>(f.doc["accessors"].size()) - 1;
  f.doc["meshes"][0]["primitives"][0]["targets"] = json::array({{{"POSITION", sparse}}});
  f.doc["meshes"][0]["extras"]["targetNames"] = {"poke"};
  const Expected<Asset> a = load_with(rig, "morph_sparse");
  ASSERT_TRUE(a.has_value()) << a.error().message();
  ASSERT_EQ(a->mesh.morph_sets.size(), 1u);
  const MorphTarget& t = a->mesh.morph_sets[0].targets[0];
  EXPECT_EQ(t.name, "poke");
  EXPECT_EQ(t.vertices, (std::vector<uint32_t>{2}));
  expect_vec3_near(t.position_deltas.at(0), {0, 0, 3});
}

// A rigid mesh under the joint Child, turned 90 degrees about Z: its deltas take the
// linear part of the move into bind space (Child's bind is T(1,8,3) S(2) relative to Body),
// its normal deltas the normal matrix scaled like the normals.
TEST(MorphTargets, RigidMeshDeltasMoveIntoBindSpace) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const float s45 = std::sin(kPi / 4);
  f.add_node({{"name", "Badge"}, {"rotation", {0, 0, s45, s45}}, {"mesh", 1}}, rig.child);
  const int pos = f.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3);
  const int dpos = f.add_floats({1, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC3", 3);
  const int dnrm = f.add_floats({1, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC3", 3);
  f.doc["meshes"].push_back({{"name", "badge"},
                             {"primitives",
                              {{{"attributes", {{"POSITION", pos}}},
                                {"targets", {{{"POSITION", dpos}, {"NORMAL", dnrm}}}}}}}});
  const Expected<Asset> a = load_with(rig, "morph_rigid");
  ASSERT_TRUE(a.has_value()) << a.error().message();
  ASSERT_EQ(a->mesh.morph_sets.size(), 1u);
  const MorphSet& set = a->mesh.morph_sets[0];
  EXPECT_EQ(set.name, "badge");
  ASSERT_EQ(set.ranges.size(), 1u);
  EXPECT_EQ(set.ranges[0].first_vertex, 3u);  // after the skinned triangle
  const MorphTarget& t = set.targets[0];
  EXPECT_EQ(t.vertices, (std::vector<uint32_t>{3}));
  expect_vec3_near(t.position_deltas.at(0), {0, 2, 0});
  ASSERT_EQ(t.normal_deltas.size(), 1u);
  expect_vec3_near(t.normal_deltas[0], {0, 1, 0});
  // The morphed bind-space normal points where the source's morphed normal, rotated, does.
  const glm::vec3 n = glm::normalize(a->mesh.normals[3] + t.normal_deltas[0]);
  expect_vec3_near(n, glm::normalize(glm::vec3(0, 1, 1)));
}

// The skinned body and a rigid badge both have targets: the merged mesh keeps a set for each
// (skinned parts first), and a clip animating both holds its channels in set order.
TEST(MorphTargets, MergedMeshesKeepOneSetEach) {
  Rig rig = rig_with_targets({kMoveLast});
  GltfFile& f = rig.file;
  const int badge = f.add_node({{"name", "Badge"}, {"mesh", 1}}, rig.child);
  const int pos = f.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3);
  const int d0 = f.add_floats({0, 0, 0, 0, 0, 0, 0, 0, 1}, "VEC3", 3);
  const int d1 = f.add_floats({0, 0, 1, 0, 0, 0, 0, 0, 0}, "VEC3", 3);
  f.doc["meshes"].push_back({{"name", "badge"},
                             {"primitives",
                              {{{"attributes", {{"POSITION", pos}}},
                                {"targets", {{{"POSITION", d0}}, {{"POSITION", d1}}}}}}}});
  const int times = f.add_floats({0, 1}, "SCALAR", 1);
  const int badge_w = f.add_floats({0, 0, 1, 1}, "SCALAR", 1);
  const int body_w = f.add_floats({0, 1}, "SCALAR", 1);
  json both;
  both["name"] = "Both";
  both["samplers"] =
      json::array({{{"input", times}, {"output", badge_w}},
                   {{"input", times}, {"output", body_w}, {"interpolation", "STEP"}}});
  both["channels"] =
      json::array({{{"sampler", 0}, {"target", {{"node", badge}, {"path", "weights"}}}},
                   {{"sampler", 1}, {"target", {{"node", rig.body}, {"path", "weights"}}}}});
  f.doc["animations"].push_back(both);
  const Expected<Asset> a = load_with(rig, "morph_two_sets");
  ASSERT_TRUE(a.has_value()) << a.error().message();
  EXPECT_FALSE(any_morph_warning(*a));
  ASSERT_EQ(a->mesh.morph_sets.size(), 2u);
  EXPECT_EQ(a->mesh.morph_sets[0].name, "body");
  EXPECT_EQ(a->mesh.morph_sets[1].name, "badge");
  EXPECT_EQ(a->mesh.morph_sets[1].targets[0].name, "target0");
  EXPECT_EQ(a->mesh.morph_sets[1].ranges.at(0).first_vertex, 3u);
  EXPECT_EQ(a->mesh.morph_sets[1].targets[0].vertices, (std::vector<uint32_t>{5}));
  EXPECT_EQ(a->mesh.morph_sets[1].targets[1].vertices, (std::vector<uint32_t>{3}));
  const Clip& clip = a->clips[a->find_clip("Both")];
  ASSERT_EQ(clip.morph_channels.size(), 2u);
  EXPECT_EQ(clip.morph_channels[0].set, 0);
  EXPECT_EQ(clip.morph_channels[1].set, 1);
  float body[1], pair[2];
  ASSERT_TRUE(sample_morph_weights(clip, a->mesh, 0, 0.5f, body));
  EXPECT_EQ(body[0], 0.0f);  // STEP
  ASSERT_TRUE(sample_morph_weights(clip, a->mesh, 1, 0.5f, pair));
  EXPECT_FLOAT_EQ(pair[0], 0.5f);
  EXPECT_FLOAT_EQ(pair[1], 0.5f);
}

TEST(MorphTargets, WeightsChannelOnANodeWithoutTargetsIsIgnoredWithAWarning) {
  const Expected<Asset> a = load_with(make_rig(), "morph_none");
  ASSERT_TRUE(a.has_value()) << a.error().message();
  EXPECT_TRUE(a->mesh.morph_sets.empty());
  EXPECT_TRUE(has_warning(*a, "weights channel(s) on nodes without morph targets"));
  for (const Clip& c : a->clips) EXPECT_TRUE(c.morph_channels.empty());
}

TEST(MorphTargets, TargetAccessorWithTheWrongCountIsRefused) {
  Rig rig = rig_with_targets({});
  const int two = rig.file.add_floats({0, 0, 0, 1, 0, 0}, "VEC3", 3);
  rig.file.doc["meshes"][0]["primitives"][0]["targets"] = json::array({{{"POSITION", two}}});
  rig.file.doc["meshes"][0].erase("extras");
  expect_refused(load_with(rig, "morph_count"), StatusCode::kDataLoss,
                 "mesh 0 'body' primitive 0 target 0 POSITION (accessor " + std::to_string(two) +
                     "): 2 elements, POSITION has 3");
}

TEST(MorphTargets, PrimitivesWithDifferentTargetCountsAreRefused) {
  Rig rig = rig_with_targets({kMoveLast});
  json second = rig.file.doc["meshes"][0]["primitives"][0];
  second.erase("targets");
  rig.file.doc["meshes"][0]["primitives"].push_back(second);
  expect_refused(load_with(rig, "morph_mismatch"), StatusCode::kInvalidArgument,
                 "mesh 0 'body': primitive 1 has 0 morph targets, primitive 0 has 1");
}

TEST(MorphTargets, TooManyTargetsAreRefusedAndTheLimitLoads) {
  const Rig rig = rig_with_targets({kMoveLast, kMoveLast, kMoveLast});
  GltfLimits limits;
  limits.max_morph_targets_per_mesh = 2;
  expect_refused(load_with(rig, "morph_many", limits), StatusCode::kResourceExhausted,
                 "mesh 0 'body': 3 morph targets, more than the limit of 2");
  Rig ok = rig_with_targets({kMoveLast, kMoveLast});
  ok.file.doc["animations"][1]["samplers"][1]["output"] =
      ok.file.add_floats({0, 0, 1, 1}, "SCALAR", 1);
  EXPECT_TRUE(load_with(ok, "morph_two", limits).has_value());
}

TEST(MorphTargets, TooManyDeltaBytesAreRefusedNamingTheAccessor) {
  Rig rig = rig_with_targets({kMoveLast, {1, 0, 0, 1, 0, 0, 1, 0, 0}});
  rig.file.doc["animations"][1]["samplers"][1]["output"] =
      rig.file.add_floats({0, 0, 1, 1}, "SCALAR", 1);
  GltfLimits limits;
  limits.max_morph_delta_bytes = 3 * 16;  // target 0 keeps 16 bytes, target 1 48 more
  const int second = rig.file.doc["meshes"][0]["primitives"][0]["targets"][1]["POSITION"];
  expect_refused(load_with(rig, "morph_bytes", limits), StatusCode::kResourceExhausted,
                 "target 1 POSITION (accessor " + std::to_string(second) + "): the morph targets");
}

TEST(MorphTargets, WeightsOutputOfTheWrongSizeIsRefusedNamingTheAccessor) {
  const Rig rig = rig_with_targets({kMoveLast, kMoveLast});  // Walk still gives 1 per key
  const int output = rig.file.doc["animations"][1]["samplers"][1]["output"];
  expect_refused(load_with(rig, "morph_output", {}), StatusCode::kDataLoss,
                 "key values (accessor " + std::to_string(output) +
                     "): 2 values for 2 key times of 2 morph targets (expected 4)");
}

// Sampling on channels written by hand: two targets, three keys at 0, 1, 3 s.
MorphWeightChannel channel(Interpolation interpolation, std::vector<float> values) {
  MorphWeightChannel c;
  c.set = 0;
  c.num_targets = 2;
  c.interpolation = interpolation;
  c.times = {0.0f, 1.0f, 3.0f};
  c.values = std::move(values);
  EXPECT_TRUE(c.finalize("test"));
  return c;
}

TEST(MorphWeights, LinearLerpsEachWeightAndClampsOutsideTheKeys) {
  const MorphWeightChannel c = channel(Interpolation::kLinear, {0, 1, 1, 0, 0, 2});
  float w[2];
  sample_morph_channel(c, 0.25f, w);
  EXPECT_FLOAT_EQ(w[0], 0.25f);
  EXPECT_FLOAT_EQ(w[1], 0.75f);
  sample_morph_channel(c, 2.0f, w);
  EXPECT_FLOAT_EQ(w[0], 0.5f);
  EXPECT_FLOAT_EQ(w[1], 1.0f);
  sample_morph_channel(c, -1.0f, w);
  EXPECT_FLOAT_EQ(w[0], 0.0f);
  EXPECT_FLOAT_EQ(w[1], 1.0f);
  sample_morph_channel(c, 7.0f, w);
  EXPECT_FLOAT_EQ(w[0], 0.0f);
  EXPECT_FLOAT_EQ(w[1], 2.0f);
  sample_morph_channel(c, NAN, w);
  EXPECT_FLOAT_EQ(w[0], 0.0f);
}

TEST(MorphWeights, StepHoldsTheLastKey) {
  const MorphWeightChannel c = channel(Interpolation::kStep, {0, 1, 1, 0, 0, 2});
  float w[2];
  sample_morph_channel(c, 0.99f, w);
  EXPECT_EQ(w[0], 0.0f);
  EXPECT_EQ(w[1], 1.0f);
  sample_morph_channel(c, 1.0f, w);
  EXPECT_EQ(w[0], 1.0f);
  EXPECT_EQ(w[1], 0.0f);
}

TEST(MorphWeights, CubicSplineIsTheGltfHermitePerWeight) {
  // Per key: in-tangents (2), values (2), out-tangents (2).
  const MorphWeightChannel c = channel(Interpolation::kCubicSpline, {0, 0, 0, 1, 2, -1,  //
                                                                     4, 0, 1, 0, 0, 0,   //
                                                                     0, 0, 0, 2, 0, 0});
  float w[2];
  // Key 1 -> 2: dt = 2, u = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125.
  //   w0 = 0.5*1 + 0.125*(0*2) + 0.5*0 - 0.125*(0*2) = 0.5
  //   w1 = 0.5*0 + 0.125*(0*2) + 0.5*2 - 0.125*(0*2) = 1
  sample_morph_channel(c, 2.0f, w);
  EXPECT_NEAR(w[0], 0.5f, 1e-6f);
  EXPECT_NEAR(w[1], 1.0f, 1e-6f);
  // Key 0 -> 1: dt = 1, u = 0.5: w0 = 0.5*0 + 0.125*2 + 0.5*1 - 0.125*4 = 0.25
  //   w1 = 0.5*1 + 0.125*(-1) + 0.5*0 - 0.125*0 = 0.375
  sample_morph_channel(c, 0.5f, w);
  EXPECT_NEAR(w[0], 0.25f, 1e-6f);
  EXPECT_NEAR(w[1], 0.375f, 1e-6f);
  sample_morph_channel(c, 3.5f, w);
  EXPECT_FLOAT_EQ(w[0], 0.0f);
  EXPECT_FLOAT_EQ(w[1], 2.0f);
}

TEST(MorphWeights, FinalizeRefusesBadChannels) {
  MorphWeightChannel c;
  c.set = 0;
  c.num_targets = 2;
  c.times = {0.0f, 1.0f};
  c.values = {0, 0, 1};
  EXPECT_FALSE(c.finalize("short"));
  c.values = {0, 0, 1, NAN};
  EXPECT_FALSE(c.finalize("nan"));
  c.values = {0, 0, 1, 1};
  c.times = {1.0f, 0.0f};
  EXPECT_FALSE(c.finalize("decreasing"));
  c.times = {0.0f, 2.0f};
  EXPECT_TRUE(c.finalize("ok"));

  Clip clip;
  clip.name = "two";
  clip.morph_channels = {c, c};  // the same set twice
  EXPECT_FALSE(clip.finalize(0));
  clip.morph_channels[1].set = 1;
  EXPECT_TRUE(clip.finalize(0));
  EXPECT_FLOAT_EQ(clip.duration, 2.0f);  // morph keys count
  EXPECT_EQ(find_morph_channel(clip, 1), 1);
  EXPECT_EQ(find_morph_channel(clip, 2), -1);
}

}  // namespace morph_targets_test
}  // namespace anim

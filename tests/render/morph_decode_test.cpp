// animview's morph target decoding (MeshData.morph_sets), its refusals, the layout the morph
// shader reads (morph_pack.h), and morph weights through the stream state. No GL.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mesh_decode.h"
#include "morph_decode.h"
#include "morph_pack.h"
#include "stream_state.h"

namespace animview {
namespace morph_decode_test {

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}

// Six vertices on joint 0 (two triangles). Set "face" covers vertices 0..1 and 3..5 with
// targets "open" (vertices 1 and 4, normal deltas) and "blink" (vertex 5, none); set "ear"
// covers vertex 2 with target "wiggle".
anim::v1::MeshData morph_mesh() {
  anim::v1::MeshData m;
  m.set_num_vertices(6);
  m.set_positions(
      bytes_of(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 3, 0, 0, 2, 1, 0}));
  std::vector<float> normals(18, 0.0f);
  for (int v = 0; v < 6; ++v) normals[3 * v + 2] = 1.0f;
  m.set_normals(bytes_of(normals));
  m.set_joints(bytes_of(std::vector<uint16_t>(24, 0)));
  std::vector<float> weights(24, 0.0f);
  for (int v = 0; v < 6; ++v) weights[4 * v] = 1.0f;
  m.set_weights(bytes_of(weights));
  m.set_indices(bytes_of(std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  auto* face = m.add_morph_sets();
  face->set_name("face");
  face->set_node("head");
  for (uint32_t r : {0u, 2u, 3u, 3u}) face->add_ranges(r);
  auto* open = face->add_targets();
  open->set_name("open");
  open->set_vertices(bytes_of(std::vector<uint32_t>{1, 4}));
  open->set_position_deltas(bytes_of(std::vector<float>{0, 1, 0, 0, 2, 0}));
  open->set_normal_deltas(bytes_of(std::vector<float>{1, 0, 0, 0, 1, 0}));
  auto* blink = face->add_targets();
  blink->set_name("blink");
  blink->set_vertices(bytes_of(std::vector<uint32_t>{5}));
  blink->set_position_deltas(bytes_of(std::vector<float>{0, 0, 4}));
  face->add_default_weights(0.0f);
  face->add_default_weights(0.5f);
  auto* ear = m.add_morph_sets();
  ear->set_name("ear");
  ear->set_node("ear");
  for (uint32_t r : {2u, 1u}) ear->add_ranges(r);
  auto* wiggle = ear->add_targets();
  wiggle->set_name("wiggle");
  wiggle->set_vertices(bytes_of(std::vector<uint32_t>{2}));
  wiggle->set_position_deltas(bytes_of(std::vector<float>{0, -8, 0}));
  ear->add_default_weights(1.0f);
  return m;
}

// Decodes `m` expecting a refusal whose message contains `part`.
void expect_refused(const anim::v1::MeshData& m, const std::string& part) {
  CpuMesh out;
  std::string error;
  EXPECT_FALSE(decode_mesh(m, 1, out, error)) << "accepted; expected: " << part;
  EXPECT_NE(error.find(part), std::string::npos) << error;
}

TEST(MorphDecode, DecodesSetsAsSentWithTheirFlatOrder) {
  CpuMesh out;
  std::string error;
  ASSERT_TRUE(decode_mesh(morph_mesh(), 1, out, error)) << error;
  ASSERT_EQ(out.morph_sets.size(), 2u);
  const CpuMorphSet& face = out.morph_sets[0];
  EXPECT_EQ(face.name, "face");
  EXPECT_EQ(face.node, "head");
  ASSERT_EQ(face.ranges.size(), 2u);
  EXPECT_EQ(face.ranges[1].first, 3u);
  EXPECT_EQ(face.ranges[1].count, 3u);
  ASSERT_EQ(face.targets.size(), 2u);
  EXPECT_EQ(face.targets[0].name, "open");
  EXPECT_EQ(face.targets[0].vertices, (std::vector<uint32_t>{1, 4}));
  EXPECT_EQ(face.targets[0].position_deltas, (std::vector<float>{0, 1, 0, 0, 2, 0}));
  EXPECT_EQ(face.targets[0].normal_deltas, (std::vector<float>{1, 0, 0, 0, 1, 0}));
  EXPECT_TRUE(face.targets[1].normal_deltas.empty());
  EXPECT_EQ(morph_weight_count(out.morph_sets), 3u);
  EXPECT_EQ(default_morph_weights(out.morph_sets), (std::vector<float>{0.0f, 0.5f, 1.0f}));
  // Framing covers every target at weight 1: "wiggle" moves vertex 2 to y = -7.
  EXPECT_FLOAT_EQ(out.bounds.min.y, -7.0f);
  EXPECT_FLOAT_EQ(out.bounds.max.z, 4.0f);
}

TEST(MorphDecode, AppliesWeightedPositionDeltas) {
  CpuMesh out;
  std::string error;
  ASSERT_TRUE(decode_mesh(morph_mesh(), 1, out, error)) << error;
  std::vector<float> p = out.positions;
  const float w[3] = {0.5f, 0.25f, 0.0f};
  apply_morph_positions(out.morph_sets, w, p);
  EXPECT_FLOAT_EQ(p[3 * 1 + 1], 0.5f);  // open x 0.5
  EXPECT_FLOAT_EQ(p[3 * 4 + 1], 1.0f);  // open x 0.5
  EXPECT_FLOAT_EQ(p[3 * 5 + 2], 1.0f);  // blink x 0.25
  EXPECT_FLOAT_EQ(p[3 * 2 + 1], 1.0f);  // wiggle at weight 0: unmoved
}

TEST(MorphDecode, AMeshWithoutSetsDecodesAsBefore) {
  anim::v1::MeshData m = morph_mesh();
  m.clear_morph_sets();
  CpuMesh out;
  std::string error;
  ASSERT_TRUE(decode_mesh(m, 1, out, error)) << error;
  EXPECT_TRUE(out.morph_sets.empty());
  EXPECT_EQ(morph_weight_count(out.morph_sets), 0u);
}

TEST(MorphDecode, RefusesTruncatedBytes) {
  anim::v1::MeshData m = morph_mesh();
  m.mutable_morph_sets(0)->mutable_targets(0)->mutable_vertices()->pop_back();
  expect_refused(m, "morph set 0 'face' target 0 'open': vertices is 7 bytes");
  m = morph_mesh();
  m.mutable_morph_sets(0)->mutable_targets(0)->mutable_position_deltas()->resize(20);
  expect_refused(m, "position_deltas is 20 bytes, expected 24");
  m = morph_mesh();
  m.mutable_morph_sets(1)->mutable_targets(0)->set_normal_deltas(std::string(11, '\0'));
  expect_refused(
      m, "morph set 1 'ear' target 0 'wiggle': normal_deltas is 11 bytes, expected 0 or 12");
}

TEST(MorphDecode, RefusesVerticesOutsideTheRangesOrTheMesh) {
  anim::v1::MeshData m = morph_mesh();
  // Vertex 2 is in the mesh but in no range of "face".
  m.mutable_morph_sets(0)->mutable_targets(1)->set_vertices(bytes_of(std::vector<uint32_t>{2}));
  expect_refused(m, "'blink': vertex 0 is 2, outside the set's ranges");
  m = morph_mesh();
  m.mutable_morph_sets(0)->mutable_targets(1)->set_vertices(
      bytes_of(std::vector<uint32_t>{4000000000u}));
  expect_refused(m, "vertex 0 is 4000000000, outside the set's ranges");
  m = morph_mesh();
  m.mutable_morph_sets(1)->set_ranges(1, 9);  // (2, 9) runs past the 6 vertices
  expect_refused(m, "morph set 1 'ear': range 0 (2, 9) ends past the mesh's 6 vertices");
  m = morph_mesh();
  m.mutable_morph_sets(1)->set_ranges(0, 0xffffffffu);  // first + count overflows 32 bits
  expect_refused(m, "ends past the mesh's 6 vertices");
  m = morph_mesh();
  m.mutable_morph_sets(0)->set_ranges(2, 1);  // (1, 3) overlaps (0, 2)
  expect_refused(m, "range 1 (1, 3) overlaps or precedes the range before it");
  m = morph_mesh();
  m.mutable_morph_sets(0)->add_ranges(5);  // an odd number of values
  expect_refused(m, "ranges has 5 values");
  m = morph_mesh();
  m.mutable_morph_sets(0)->set_ranges(1, 0);
  expect_refused(m, "range 0 (0, 0) is empty");
}

TEST(MorphDecode, RefusesVerticesThatDoNotIncrease) {
  anim::v1::MeshData m = morph_mesh();
  m.mutable_morph_sets(0)->mutable_targets(0)->set_vertices(bytes_of(std::vector<uint32_t>{4, 1}));
  expect_refused(m, "'open': vertices are not increasing (entry 1 is 1 after 4)");
  m = morph_mesh();
  m.mutable_morph_sets(0)->mutable_targets(0)->set_vertices(bytes_of(std::vector<uint32_t>{4, 4}));
  expect_refused(m, "vertices are not increasing (entry 1 is 4 after 4)");
}

TEST(MorphDecode, RefusesCountMismatchesAndBadValues) {
  anim::v1::MeshData m = morph_mesh();
  m.mutable_morph_sets(0)->add_default_weights(1.0f);
  expect_refused(m, "morph set 0 'face': 3 default weights for 2 targets");
  m = morph_mesh();
  m.mutable_morph_sets(1)->clear_targets();
  m.mutable_morph_sets(1)->clear_default_weights();
  expect_refused(m, "morph set 1 'ear': has no targets");
  m = morph_mesh();
  m.mutable_morph_sets(0)->set_default_weights(0, std::numeric_limits<float>::quiet_NaN());
  expect_refused(m, "a default weight is not finite");
  m = morph_mesh();
  m.mutable_morph_sets(1)->mutable_targets(0)->set_position_deltas(
      bytes_of(std::vector<float>{0, std::numeric_limits<float>::infinity(), 0}));
  expect_refused(m, "'wiggle': a delta is not finite");
}

TEST(MorphPack, EachMovedVertexOwnsARunOfEntriesInTargetOrder) {
  CpuMesh mesh;
  std::string error;
  anim::v1::MeshData m = morph_mesh();
  // "blink" also moves vertex 4: vertex 4 then has two entries, "open" first.
  m.mutable_morph_sets(0)->mutable_targets(1)->set_vertices(bytes_of(std::vector<uint32_t>{4, 5}));
  m.mutable_morph_sets(0)->mutable_targets(1)->set_position_deltas(
      bytes_of(std::vector<float>{7, 7, 7, 0, 0, 4}));
  ASSERT_TRUE(decode_mesh(m, 1, mesh, error)) << error;
  const PackedMorphs p = pack_morphs(mesh.morph_sets, mesh.num_vertices);
  EXPECT_EQ(p.entries, 5u);
  // (first, count) per vertex: 0 none, 1 one, 2 one (wiggle), 3 none, 4 two, 5 one.
  EXPECT_EQ(p.runs, (std::vector<uint32_t>{0, 0, 0, 1, 1, 1, 2, 0, 2, 2, 4, 1}));
  ASSERT_EQ(p.texels.size(), 5u * kTexelsPerMorphEntry * 4);
  auto entry = [&p](uint32_t e) { return &p.texels[e * kTexelsPerMorphEntry * 4]; };
  EXPECT_EQ(std::vector<float>(entry(0), entry(1)), (std::vector<float>{0, 1, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(std::vector<float>(entry(1), entry(2)), (std::vector<float>{0, -8, 0, 2, 0, 0, 0, 0}));
  EXPECT_EQ(std::vector<float>(entry(2), entry(3)), (std::vector<float>{0, 2, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(std::vector<float>(entry(3), entry(4)), (std::vector<float>{7, 7, 7, 1, 0, 0, 0, 0}));
  EXPECT_EQ(std::vector<float>(entry(4), entry(5)), (std::vector<float>{0, 0, 4, 1, 0, 0, 0, 0}));
}

TEST(MorphStream, WeightsAreKeptInterpolatedAndCheckedLikeThePalette) {
  auto frame = [](uint64_t tick, double time, std::vector<float> weights) {
    anim::v1::StreamFrame f;
    f.set_tick(tick);
    f.set_server_time(time);
    auto* c = f.add_characters();
    c->set_character_id(3);
    c->set_asset("face");
    for (float v : {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}) c->add_palette(v);
    for (float w : weights) c->add_morph_weights(w);
    return f;
  };
  StreamState s;
  s.on_frame(frame(1, 5.0, {0.0f, 1.0f}), 100.0);
  s.on_frame(frame(2, 5.1, {1.0f, 0.0f}), 100.1);
  std::vector<CharacterSample> out;
  s.sample(100.15, true, out);  // halfway (render_logic_test.cpp, InterpolatesBetween...)
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].morph_weight_count, 2u);
  EXPECT_NEAR(out[0].morph_weights[0], 0.5f, 1e-5);
  EXPECT_NEAR(out[0].morph_weights[1], 0.5f, 1e-5);
  s.sample(100.15, false, out);
  EXPECT_EQ(out[0].morph_weights[0], 1.0f);
  // A frame without weights: the sample has none (the renderer then uses the defaults).
  s.on_frame(frame(3, 5.2, {}), 100.2);
  s.sample(100.25, true, out);
  EXPECT_EQ(out[0].morph_weight_count, 0u);
  EXPECT_EQ(out[0].morph_weights, nullptr);
  // A non-finite weight: the entry is skipped with a reason.
  s.on_frame(frame(4, 5.3, {std::numeric_limits<float>::quiet_NaN(), 0.0f}), 100.3);
  EXPECT_EQ(s.rejected(), 1u);
  EXPECT_NE(s.last_error().find("morph weights"), std::string::npos) << s.last_error();
}

}  // namespace morph_decode_test
}  // namespace animview

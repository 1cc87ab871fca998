// get_asset_data and the asset summaries carry the morph sets as SkinnedMesh stores them:
// sparse targets as little-endian packed bytes, ranges as (first, count) pairs, default
// weights, and AssetInfo.morph_targets naming every weight in the flat order. An asset
// without targets puts nothing new on the wire.
#include "protocol/proto_convert.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/builtin_character.h"

namespace animd {
namespace asset_data_morph_test {

template <class T>
std::vector<T> unpack(const std::string& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(static_cast<void*>(out.data()), bytes.data(), out.size() * sizeof(T));
  return out;
}

// The built-in character with two sets: "face" (two targets, one without normal deltas)
// over two ranges, and "belt" (one target) over one.
anim::Asset asset_with_morphs() {
  anim::Asset a = anim::make_builtin_character();
  anim::MorphSet face;
  face.name = "face";
  face.node = "face_node";
  face.ranges = {{0, 10}, {20, 5}};
  face.targets.resize(2);
  face.targets[0].name = "smile";
  face.targets[0].vertices = {1, 4, 21};
  face.targets[0].position_deltas = {{0.1f, 0, 0}, {0, -0.2f, 0}, {0, 0, 0.3f}};
  face.targets[0].normal_deltas = {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}};
  face.targets[1].name = "blink";
  face.targets[1].vertices = {9};
  face.targets[1].position_deltas = {{0.5f, 0.25f, -0.125f}};
  face.default_weights = {0.0f, 0.75f};
  anim::MorphSet belt;
  belt.name = "belt";
  belt.node = "belt_node";
  belt.ranges = {{30, 8}};
  belt.targets.resize(1);
  belt.targets[0].name = "tight";
  belt.targets[0].vertices = {30, 37};
  belt.targets[0].position_deltas = {{1, 2, 3}, {4, 5, 6}};
  belt.targets[0].normal_deltas = {{0, 0, 0}, {0, 0, 1}};
  belt.default_weights = {1.0f};
  a.mesh.morph_sets = {face, belt};
  return a;
}

TEST(AssetDataMorphs, SetsGoOutSparseAsStored) {
  const anim::Asset a = asset_with_morphs();
  anim::v1::GetAssetDataReply reply;
  fill_asset_data(a, false, &reply);
  const auto& mesh = reply.mesh();
  ASSERT_EQ(mesh.morph_sets_size(), 2);
  for (int s = 0; s < 2; ++s) {
    const anim::MorphSet& want = a.mesh.morph_sets[s];
    const auto& got = mesh.morph_sets(s);
    EXPECT_EQ(got.name(), want.name);
    EXPECT_EQ(got.node(), want.node);
    ASSERT_EQ(got.ranges_size(), static_cast<int>(2 * want.ranges.size()));
    for (size_t r = 0; r < want.ranges.size(); ++r) {
      EXPECT_EQ(got.ranges(static_cast<int>(2 * r)), want.ranges[r].first_vertex);
      EXPECT_EQ(got.ranges(static_cast<int>(2 * r + 1)), want.ranges[r].vertex_count);
    }
    EXPECT_EQ(std::vector<float>(got.default_weights().begin(), got.default_weights().end()),
              want.default_weights);
    ASSERT_EQ(got.targets_size(), want.num_targets());
    for (int k = 0; k < want.num_targets(); ++k) {
      const anim::MorphTarget& t = want.targets[k];
      const auto& g = got.targets(k);
      EXPECT_EQ(g.name(), t.name);
      EXPECT_EQ(unpack<uint32_t>(g.vertices()), t.vertices);
      EXPECT_EQ(unpack<glm::vec3>(g.position_deltas()), t.position_deltas);
      EXPECT_EQ(unpack<glm::vec3>(g.normal_deltas()), t.normal_deltas);
      EXPECT_EQ(g.vertices().size(), 4 * t.vertices.size());
      EXPECT_EQ(g.position_deltas().size(), 12 * t.vertices.size());
    }
  }
  EXPECT_TRUE(mesh.morph_sets(0).targets(1).normal_deltas().empty());
  // Little-endian on the wire: the first vertex of "smile" is 1.
  EXPECT_EQ(mesh.morph_sets(0).targets(0).vertices().substr(0, 4), std::string("\1\0\0\0", 4));
}

TEST(AssetDataMorphs, InfoNamesEveryWeightInFlatOrder) {
  const anim::Asset a = asset_with_morphs();
  anim::v1::AssetInfo info;
  fill_asset_info(a, &info);
  EXPECT_EQ(std::vector<std::string>(info.morph_targets().begin(), info.morph_targets().end()),
            (std::vector<std::string>{"face/smile", "face/blink", "belt/tight"}));
  anim::v1::GetAssetDataReply reply;
  fill_asset_data(a, true, &reply);  // skip_mesh: the summary still names them
  EXPECT_EQ(reply.info().morph_targets_size(), 3);
  EXPECT_FALSE(reply.has_mesh());
}

TEST(AssetDataMorphs, AnAssetWithoutTargetsSendsNothingNew) {
  const anim::Asset a = anim::make_builtin_character();
  ASSERT_TRUE(a.mesh.morph_sets.empty());
  anim::v1::GetAssetDataReply reply;
  fill_asset_data(a, false, &reply);
  EXPECT_EQ(reply.mesh().morph_sets_size(), 0);
  EXPECT_EQ(reply.info().morph_targets_size(), 0);
}

}  // namespace asset_data_morph_test
}  // namespace animd

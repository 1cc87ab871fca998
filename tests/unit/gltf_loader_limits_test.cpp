// glTF loader bounds (GltfLimits): every hostile shape of document is refused with
// kResourceExhausted or kDataLoss naming the bound, before the memory it asks for is taken,
// and a file just inside a bound still loads. Files are the hand-built rig (gltf_rig.h) with
// the hostile part spliced into its JSON as text, so that no JSON library has to hold it.
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/loaders/gltf_loader.h"
#include "gltf_rig.h"
#include "gltf_test_files.h"

namespace anim {
namespace gltf_loader_limits_test {

using namespace gltf_rig;

Expected<Asset> load_bytes(const std::string& bytes, const GltfLimits& limits = {}) {
  GltfOptions options;
  options.limits = limits;
  return load_gltf_from_memory(
      std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "upload 'x'",
      options);
}

// The rig as embedded .gltf text, with `extras` (JSON text) as the value of asset.extras.
std::string rig_with_asset_extras(const std::string& extras) {
  GltfFile f = make_rig().file;
  f.doc["asset"]["extras"] = "@EXTRAS@";
  nlohmann::json d = f.doc;
  d["buffers"] = {{{"byteLength", f.bin.size()},
                   {"uri", "data:application/octet-stream;base64," + animtest::base64(f.bin)}}};
  std::string text = d.dump();
  const std::string marker = "\"@EXTRAS@\"";
  text.replace(text.find(marker), marker.size(), extras);
  return text;
}

std::string nested_arrays(size_t levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

void expect_refused(const Expected<Asset>& a, StatusCode code, const std::string& needle) {
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().code(), code) << a.error().message();
  EXPECT_NE(a.error().message().find(needle), std::string::npos) << a.error().message();
  EXPECT_NE(a.error().message().find("upload 'x'"), std::string::npos) << a.error().message();
}

TEST(GltfLoaderLimits, DeeplyNestedExtrasAreRefusedBeforeParsing) {
  // 30,000 levels crashed the parser's recursive conversion of extras.
  expect_refused(load_bytes(rig_with_asset_extras(nested_arrays(30000))),
                 StatusCode::kResourceExhausted, "nested deeper than 64 levels");
}

TEST(GltfLoaderLimits, NestingAtTheDepthLimitLoads) {
  // The root object is level 1 and "asset" level 2, so k arrays inside asset.extras reach 2 + k.
  GltfLimits limits;
  limits.max_json_depth = 10;
  EXPECT_TRUE(load_bytes(rig_with_asset_extras(nested_arrays(8)), limits).has_value());
  expect_refused(load_bytes(rig_with_asset_extras(nested_arrays(9)), limits),
                 StatusCode::kResourceExhausted, "nested deeper than 10 levels");
}

TEST(GltfLoaderLimits, DeepNestingInAGlbIsRefused) {
  GltfFile f = make_rig().file;
  std::string glb = f.glb_bytes();
  // Re-frame the .glb with the deep extras in its JSON chunk.
  nlohmann::json d = f.doc;
  d["buffers"] = {{{"byteLength", f.bin.size()}}};
  d["asset"]["extras"] = "@EXTRAS@";
  std::string json = d.dump();
  const std::string marker = "\"@EXTRAS@\"";
  json.replace(json.find(marker), marker.size(), nested_arrays(10000));
  while (json.size() % 4) json.push_back(' ');
  std::string bin = f.bin;
  while (bin.size() % 4) bin.push_back('\0');
  std::string out = "glTF";
  auto u32 = [&out](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  u32(2);
  u32(static_cast<uint32_t>(12 + 8 + json.size() + 8 + bin.size()));
  u32(static_cast<uint32_t>(json.size()));
  u32(0x4E4F534A);
  out += json;
  u32(static_cast<uint32_t>(bin.size()));
  u32(0x004E4942);
  out += bin;
  expect_refused(load_bytes(out), StatusCode::kResourceExhausted, "nested deeper than 64");
}

TEST(GltfLoaderLimits, TooManyJsonValuesAreRefused) {
  std::string zeros = "[0";
  for (int i = 0; i < 2000; ++i) zeros += ",0";
  zeros += "]";
  GltfLimits limits;
  limits.max_json_values = 1000;
  expect_refused(load_bytes(rig_with_asset_extras(zeros), limits), StatusCode::kResourceExhausted,
                 "more than 1000 JSON values");
  EXPECT_TRUE(load_bytes(rig_with_asset_extras(zeros)).has_value());
}

TEST(GltfLoaderLimits, TooManyNodesAreRefusedAndTheLimitItselfLoads) {
  GltfLimits limits;
  limits.max_collection_items = 20;
  Rig rig = make_rig();
  ASSERT_EQ(rig.file.doc["nodes"].size(), 4u);
  ASSERT_LT(rig.file.doc["accessors"].size(), 20u);
  for (int i = 0; i < 16; ++i) rig.file.add_node({{"name", "extra" + std::to_string(i)}});
  EXPECT_TRUE(load_bytes(rig.file.glb_bytes(), limits).has_value());
  rig.file.add_node({{"name", "one too many"}});
  expect_refused(load_bytes(rig.file.glb_bytes(), limits), StatusCode::kResourceExhausted,
                 "more than 20 nodes");
}

TEST(GltfLoaderLimits, EmptyNodesPastTheDefaultLimitAreRefused) {
  // 400,000 empty nodes took 650 bytes each once parsed.
  Rig rig = make_rig();
  nlohmann::json d = rig.file.doc;
  d["buffers"] = {
      {{"byteLength", rig.file.bin.size()},
       {"uri", "data:application/octet-stream;base64," + animtest::base64(rig.file.bin)}}};
  std::string text = d.dump();
  std::string empties;
  for (int i = 0; i < 70000; ++i) empties += ",{}";
  const std::string nodes = "\"nodes\":[";
  const size_t at = text.find(nodes);
  ASSERT_NE(at, std::string::npos);
  // Append the empties after the last node: find the end of the nodes array.
  int depth = 0;
  size_t end = at + nodes.size() - 1;
  for (; end < text.size(); ++end) {
    if (text[end] == '[' || text[end] == '{') ++depth;
    if (text[end] == ']' || text[end] == '}') --depth;
    if (depth == 0) break;
  }
  text.insert(end, empties);
  expect_refused(load_bytes(text), StatusCode::kResourceExhausted, "more than 65536 nodes");
}

// Child's STEP translation output as a sparse accessor of `count` elements with no buffer
// view (zeros under the sparse values).
GltfFile rig_with_unbacked_output(size_t count) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const std::vector<uint8_t> idx = {1, 0, 0, 0};
  const std::vector<float> val = {0, 0, 7};
  const int iv = f.add_view(idx.data(), 1);
  const int vv = f.add_view(val.data(), 12);
  nlohmann::json acc = {
      {"componentType", animtest::kFloat},
      {"count", count},
      {"type", "VEC3"},
      {"sparse",
       {{"count", 1},
        {"indices", {{"bufferView", iv}, {"componentType", animtest::kUnsignedByte}}},
        {"values", {{"bufferView", vv}}}}}};
  f.doc["accessors"].push_back(acc);
  f.doc["animations"][0]["samplers"][0]["output"] = f.doc["accessors"].size() - 1;
  return f;
}

TEST(GltfLoaderLimits, SparseAccessorIsSizedFromTheFilesRealData) {
  // 2^28 elements of zeros would be 6 GiB decoded; the file's data holds a few dozen.
  expect_refused(load_bytes(rig_with_unbacked_output(size_t{1} << 28).glb_bytes()),
                 StatusCode::kDataLoss, "elements without a buffer view");
}

TEST(GltfLoaderLimits, SparseAccessorWithinTheFilesDataLoads) {
  // Two keys, as the sampler's input: key 1 replaced by (0, 0, 7), key 0 stays zero.
  Expected<Asset> a = load_bytes(rig_with_unbacked_output(2).glb_bytes());
  ASSERT_TRUE(a.has_value()) << a.error().message();
  expect_vec3_near(a->clips[0].sample_joint(1, 1.0f, a->skeleton.rest_pose[1]).translation,
                   {0, 0, 7});
  expect_vec3_near(a->clips[0].sample_joint(1, 0.0f, a->skeleton.rest_pose[1]).translation,
                   {0, 0, 0});
}

TEST(GltfLoaderLimits, AccessorsAliasingOneBufferCountAgainstWorkingMemory) {
  // 40 animations each reading the same 1 MB of key values: 2 MB decoded each time.
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const size_t keys = 87381;  // 1 MiB of VEC3 floats
  std::vector<float> times(keys), values(keys * 3, 0.0f);
  for (size_t k = 0; k < keys; ++k) times[k] = static_cast<float>(k);
  const int in = f.add_floats(times, "SCALAR", 1);
  const int out = f.add_floats(values, "VEC3", 3);
  for (int a = 0; a < 40; ++a)
    f.doc["animations"].push_back(
        {{"name", "alias" + std::to_string(a)},
         {"samplers", {{{"input", in}, {"output", out}}}},
         {"channels",
          {{{"sampler", 0}, {"target", {{"node", rig.root}, {"path", "translation"}}}}}}});
  GltfLimits limits;
  limits.max_working_bytes = size_t{64} << 20;
  expect_refused(load_bytes(f.glb_bytes(), limits), StatusCode::kResourceExhausted,
                 "more than 64 MiB of working memory");
  limits.max_working_bytes = size_t{256} << 20;
  EXPECT_TRUE(load_bytes(f.glb_bytes(), limits).has_value());
}

TEST(GltfLoaderLimits, APassedDeadlineFailsTheLoad) {
  GltfLimits limits;
  limits.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  expect_refused(load_bytes(make_rig().file.glb_bytes(), limits), StatusCode::kResourceExhausted,
                 "time limit");
}

TEST(GltfLoaderLimits, ALongChainOfNonJointNodesFoldsIntoTheJointBelow) {
  // Root -> 50,000 non-joint nodes, each T(0, 0.001, 0) -> Child: Child's rest translation
  // is its own (0, 2, 0) plus the chain's (0, 50, 0). The chain loads in time linear in it.
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int n = 50000;
  int above = rig.root;
  nlohmann::json& nodes = f.doc["nodes"];
  nodes[rig.root].erase("children");
  for (int i = 0; i < n; ++i) above = f.add_node({{"translation", {0, 0.001, 0}}}, above);
  nodes[above]["children"] = {rig.child};
  Expected<Asset> a = load_bytes(f.glb_bytes());
  ASSERT_TRUE(a.has_value()) << a.error().message();
  ASSERT_EQ(a->skeleton.num_joints(), 2);
  expect_vec3_near(a->skeleton.rest_pose[1].translation, {0, 52, 0}, 1e-3f);
}

TEST(GltfLoaderLimits, ACycleWithoutARootIsFoundInLinearTime) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  // A ring of 20,000 nodes nobody roots, beside the rig.
  const int first = static_cast<int>(f.doc["nodes"].size());
  const int n = 20000;
  for (int i = 0; i < n; ++i) f.doc["nodes"].push_back({{"children", {first + (i + 1) % n}}});
  expect_refused(load_bytes(f.glb_bytes()), StatusCode::kInvalidArgument, "cyclic");
}

TEST(GltfLoaderLimits, ManyAnimationsOfOneNameGetDistinctNames) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  nlohmann::json anim = f.doc["animations"][1];  // "Walk"
  for (int i = 0; i < 2000; ++i) f.doc["animations"].push_back(anim);
  Expected<Asset> a = load_bytes(f.glb_bytes());
  ASSERT_TRUE(a.has_value()) << a.error().message();
  ASSERT_EQ(a->clips.size(), 2002u);
  EXPECT_EQ(a->clips[1].name, "Walk");
  EXPECT_EQ(a->clips[2].name, "Walk_1");
  EXPECT_EQ(a->clips[2001].name, "Walk_2000");
  // One warning per rename would be 2,000 lines: the list is capped, and says so.
  EXPECT_LE(a->warnings.size(), 65u);
  EXPECT_TRUE(has_warning(*a, "further warnings left out"));
}

}  // namespace gltf_loader_limits_test
}  // namespace anim

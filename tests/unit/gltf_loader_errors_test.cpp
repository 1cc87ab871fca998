// glTF loader: every bad-file case is refused with an error naming the problem (never a
// crash), on files built in code (gltf_rig.h, tests/support/gltf_test_files.h) and on
// truncated or corrupted ones; a good file still loads after bad ones.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "anim/loaders/gltf_loader.h"
#include "gltf_rig.h"
#include "gltf_test_files.h"

namespace anim {
namespace gltf_loader_errors_test {

using namespace gltf_rig;

TEST(GltfLoaderErrors, StripWithFewerThanThreeIndices) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  json strip = f.doc["meshes"][0]["primitives"][0];
  strip["mode"] = 5;
  strip["indices"] = f.add_data(std::vector<uint16_t>{0, 1}, animtest::kUnsignedShort, "SCALAR", 1);
  f.doc["meshes"][0]["primitives"].push_back(strip);
  const std::string path = f.write_embedded("short_strip");
  const Expected<Asset> a = load_gltf(path);
  ASSERT_FALSE(a.has_value());
  EXPECT_NE(a.error().message().find("triangle strip has 2 indices"), std::string::npos)
      << a.error().message();
  EXPECT_NE(a.error().message().find(path), std::string::npos) << a.error().message();
}

void expect_error(const std::string& path, const std::string& problem) {
  const Expected<Asset> a = load_gltf(path);
  ASSERT_FALSE(a.has_value()) << path << " loaded but should fail with: " << problem;
  const std::string& msg = a.error().message();
  EXPECT_NE(msg.find(std::filesystem::path(path).filename().string()), std::string::npos)
      << "message does not name the file: " << msg;
  EXPECT_NE(msg.find(problem), std::string::npos)
      << "message does not say '" << problem << "': " << msg;
}

TEST(GltfLoaderErrors, MissingFile) {
  expect_error((animtest::test_tmp_dir() / "no_such_file.glb").string(), "file not found");
}

TEST(GltfLoaderErrors, TruncatedBinFile) {
  const Rig rig = make_rig();
  const std::string half = rig.file.bin.substr(0, rig.file.bin.size() / 2);
  expect_error(rig.file.write_separate("truncated_bin", &half), "size mismatch");
}

TEST(GltfLoaderErrors, TruncatedGlb) {
  const std::string bytes = make_rig().file.glb_bytes();
  for (size_t keep : {size_t{0}, size_t{10}, size_t{40}, bytes.size() / 2, bytes.size() - 4}) {
    SCOPED_TRACE(keep);
    const std::string path = GltfFile::write_text("truncated.glb", bytes.substr(0, keep));
    const Expected<Asset> a = load_gltf(path);
    ASSERT_FALSE(a.has_value());
    EXPECT_NE(a.error().message().find("truncated.glb"), std::string::npos) << a.error().message();
    EXPECT_NE(a.error().message().find(keep == 0 ? "empty" : "glb"), std::string::npos)
        << a.error().message();
  }
}

TEST(GltfLoaderErrors, AccessorBeyondItsBufferView) {
  Rig rig = make_rig();
  // The inverse bind accessor claims 5 matrices; its view holds 2.
  rig.file.doc["accessors"][rig.file.doc["skins"][0]["inverseBindMatrices"].get<int>()]["count"] =
      5;
  expect_error(rig.file.write_embedded("accessor_range"), "accessor out of range");
}

TEST(GltfLoaderErrors, BufferViewBeyondItsBuffer) {
  Rig rig = make_rig();
  rig.file.doc["bufferViews"][0]["byteLength"] = 100000;
  expect_error(rig.file.write_embedded("view_range"), "exceeds buffer");
}

TEST(GltfLoaderErrors, VertexJointIndexOutOfRange) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int bad = f.add_data(std::vector<uint8_t>{0, 0, 0, 0, 5, 0, 0, 0, 0, 1, 0, 0},
                             animtest::kUnsignedByte, "VEC4", 4);
  f.doc["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = bad;
  expect_error(f.write_embedded("vertex_joint"), "joint index out of range");
}

TEST(GltfLoaderErrors, SkinJointNodeOutOfRange) {
  Rig rig = make_rig();
  rig.file.doc["skins"][0]["joints"] = {rig.child, 99};
  expect_error(rig.file.write_embedded("skin_joint"), "joint index out of range");
}

TEST(GltfLoaderErrors, NaNKeyTime) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int bad = f.add_floats({0, std::nanf("")}, "SCALAR", 1);
  f.doc["animations"][0]["samplers"][0]["input"] = bad;
  expect_error(f.write_embedded("nan_time"), "NaN");
}

TEST(GltfLoaderErrors, NaNKeyValue) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int bad = f.add_floats({0, 0, 0, 1, std::nanf(""), 0, 0, 1}, "VEC4", 4);
  f.doc["animations"][0]["samplers"][1]["output"] = bad;
  expect_error(f.write_embedded("nan_value"), "NaN");
}

TEST(GltfLoaderErrors, CyclicNodeHierarchy) {
  Rig rig = make_rig();
  // Child becomes the parent of Root, which is already Child's parent.
  rig.file.doc["nodes"][rig.child]["children"] = {rig.root};
  rig.file.doc["nodes"][rig.armature].erase("children");
  expect_error(rig.file.write_embedded("cycle"), "cyclic");
}

TEST(GltfLoaderErrors, NodeWithTwoParents) {
  Rig rig = make_rig();
  rig.file.doc["nodes"][rig.body]["children"] = {rig.child};  // Child is also Root's child
  expect_error(rig.file.write_embedded("two_parents"), "two parents");
}

TEST(GltfLoaderErrors, NonUniformScaleBetweenJoints) {
  Rig rig = make_rig();
  GltfFile& f = rig.file;
  const int socket = f.add_node({{"name", "Squash"}, {"scale", {1, 2, 1}}}, rig.root);
  f.doc["nodes"][rig.root]["children"] = {socket};
  f.doc["nodes"][socket]["children"] = {rig.child};
  expect_error(f.write_embedded("squash"), "non-uniform");
}

TEST(GltfLoaderErrors, NotGltfAtAll) {
  expect_error(GltfFile::write_text("garbage.gltf", "{ this is not json"), "garbage.gltf");
}

// Deterministic corruption: overwrite bytes of a valid .glb (header, JSON and binary chunk)
// and check each load either fails cleanly or yields an asset that keeps every invariant.
// Run under ASan this is where an unchecked offset would show up.
TEST(GltfLoaderErrors, CorruptedGlbNeverCrashes) {
  const std::string good = make_rig().file.glb_bytes();
  uint32_t rng = 12345;
  auto next = [&rng] { return rng = rng * 1664525u + 1013904223u; };
  int failed = 0, loaded = 0;
  for (int round = 0; round < 300; ++round) {
    std::string bytes = good;
    const int flips = 1 + static_cast<int>(next() % 4);
    for (int k = 0; k < flips; ++k) bytes[next() % bytes.size()] = static_cast<char>(next() >> 24);
    const std::string path = GltfFile::write_text("corrupt.glb", bytes);
    const Expected<Asset> a = load_gltf(path);
    if (!a) {
      ++failed;
      EXPECT_NE(a.error().message().find("corrupt.glb"), std::string::npos) << a.error().message();
      continue;
    }
    ++loaded;
    ASSERT_TRUE(a->skeleton.validate().is_ok()) << "round " << round;
    const SkinnedMesh& m = a->mesh;
    for (uint32_t i : m.indices) ASSERT_LT(i, static_cast<uint32_t>(m.num_vertices()));
    for (size_t v = 0; v < m.joints.size(); ++v) {
      float sum = 0;
      for (int k = 0; k < 4; ++k) {
        ASSERT_LT(m.joints[v][k], a->skeleton.num_joints());
        sum += m.weights[v][k];
      }
      ASSERT_NEAR(sum, 1.0f, 1e-5f);
    }
  }
  EXPECT_GT(failed, 0);  // the corruption does reach parts that are checked
  EXPECT_GT(loaded, 0);  // and some bytes (e.g. inside key values) are harmless
}

TEST(GltfLoaderErrors, AGoodFileStillLoadsAfterBadOnes) {
  // No state survives a failed load: the same process loads a good file normally.
  ASSERT_FALSE(load_gltf((animtest::test_tmp_dir() / "no_such_file.gltf").string()).has_value());
  const Asset a = load_ok(make_rig().file.write_glb("after_bad"));
  EXPECT_EQ(a.skeleton.num_joints(), 2);
}

}  // namespace gltf_loader_errors_test
}  // namespace anim

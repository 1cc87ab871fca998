// glTF buffer/image URIs never reach a file the loader was not given: from memory only data:
// URIs load; from a path every URI must resolve inside the URI root. Crafted files
// (tests/support/gltf_uri_cases.h) try relative, absolute, file:, percent-encoded and
// symlinked escapes, for buffers and images, from memory and by path. Messages must say
// what is wrong and must not contain host paths, the secret's bytes or its size.
#include <unistd.h>

#include <filesystem>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "anim/loaders/gltf_loader.h"
#include "gltf_test_files.h"
#include "gltf_uri_cases.h"

// The gate itself is internal to core; it is tested directly because it is the check that
// holds even when the pre-scan and tinygltf read a document differently.
#include "../../core/loaders/src/gltf_uri_policy.h"

namespace anim {
namespace gltf_uri_safety_test {

namespace fs = std::filesystem;
using animtest::ConfinementTree;
using nlohmann::json;

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class GltfUriSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = animtest::make_confinement_tree(animtest::test_tmp_dir() / "uri-safety");
  }

  // Writes root/models/<name> and loads it by path, confined to the asset root.
  Expected<Asset> load_by_path(const std::string& name, const std::string& bytes,
                               const std::string& uri_root = "<root>") {
    animtest::write_bytes(tree_.models / name, bytes);
    GltfOptions options;
    options.uri_root = uri_root == "<root>" ? tree_.root.string() : uri_root;
    options.label = "models/" + name;
    return load_gltf((tree_.models / name).string(), options);
  }

  void expect_clean(const std::string& message, const std::string& context) {
    for (const std::string& bad : animtest::forbidden_in_messages(tree_))
      EXPECT_EQ(message.find(bad), std::string::npos)
          << context << ": message contains '" << bad << "': " << message;
  }

  ConfinementTree tree_;
};

TEST_F(GltfUriSafety, BufferEscapesByPathAreRefusedWithoutLeaks) {
  for (const animtest::EscapeCase& c : animtest::escape_cases(tree_)) {
    const json doc = animtest::one_joint_document(animtest::buffer_with_uri(c.uri));
    for (const std::string ext : {".gltf", ".glb"}) {
      const std::string bytes = ext == ".gltf" ? doc.dump() : animtest::glb_of(doc);
      const std::string name = c.name + ext;
      Expected<Asset> a = load_by_path(name, bytes);
      ASSERT_FALSE(a) << name << " loaded";
      EXPECT_EQ(a.error().code(), StatusCode::kInvalidArgument) << name;
      const std::string& m = a.error().message();
      EXPECT_EQ(m.rfind("models/" + name + ": buffer 0 URI", 0), 0u) << m;
      EXPECT_NE(m.find(c.expected), std::string::npos) << name << ": " << m;
      expect_clean(m, name);
    }
  }
}

TEST_F(GltfUriSafety, ImageEscapesByPathAreRefusedWithoutLeaks) {
  for (const animtest::EscapeCase& c : animtest::escape_cases(tree_)) {
    const json doc =
        animtest::one_joint_document(animtest::embedded_buffer(), json::array({{{"uri", c.uri}}}));
    const std::string name = c.name + "_image.gltf";
    Expected<Asset> a = load_by_path(name, doc.dump());
    ASSERT_FALSE(a) << name << " loaded";
    EXPECT_EQ(a.error().code(), StatusCode::kInvalidArgument) << name;
    const std::string& m = a.error().message();
    EXPECT_NE(m.find("image 0 URI"), std::string::npos) << m;
    EXPECT_NE(m.find(c.expected), std::string::npos) << name << ": " << m;
    expect_clean(m, name);
  }
}

TEST_F(GltfUriSafety, FromMemoryEveryExternalUriIsRefused) {
  std::vector<animtest::EscapeCase> cases = animtest::escape_cases(tree_);
  cases.push_back({"plain_relative", "ok.bin", ""});  // even a harmless-looking name
  for (const animtest::EscapeCase& c : cases) {
    const json buffer_doc = animtest::one_joint_document(animtest::buffer_with_uri(c.uri));
    const json image_doc =
        animtest::one_joint_document(animtest::embedded_buffer(), json::array({{{"uri", c.uri}}}));
    const struct {
      std::string what, bytes, owner;
    } inputs[] = {{"glb buffer", animtest::glb_of(buffer_doc), "buffer 0"},
                  {"gltf buffer", buffer_doc.dump(), "buffer 0"},
                  {"glb image", animtest::glb_of(image_doc), "image 0"},
                  {"gltf image", image_doc.dump(), "image 0"}};
    for (const auto& in : inputs) {
      Expected<Asset> a = load_gltf_from_memory(as_bytes(in.bytes), "upload 'evil'");
      ASSERT_FALSE(a) << c.name << " " << in.what << " loaded";
      EXPECT_EQ(a.error().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(a.error().message(),
                "upload 'evil': " + in.owner +
                    ": external URI not allowed in an upload (only base64 data: URIs)")
          << c.name << " " << in.what;
      expect_clean(a.error().message(), c.name);
    }
  }
}

TEST_F(GltfUriSafety, FromMemoryNeverFallsBackToTheWorkingDirectory) {
  // tinygltf looks for a missing "x" in base_dir, then in "./x". From memory there is no
  // base_dir, so without the gate "ok.bin" would be read from the process's working folder.
  const fs::path before = fs::current_path();
  fs::current_path(tree_.models);
  const std::string bytes =
      animtest::glb_of(animtest::one_joint_document(animtest::buffer_with_uri("ok.bin", 64)));
  Expected<Asset> a = load_gltf_from_memory(as_bytes(bytes), "upload 'cwd'");
  fs::current_path(before);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message().find("external URI not allowed in an upload"), std::string::npos)
      << a.error().message();
}

TEST_F(GltfUriSafety, FromMemoryDataUrisAndBinChunkLoad) {
  const json with_image = animtest::one_joint_document(
      animtest::embedded_buffer(),
      json::array({{{"uri", "data:image/png;base64," + animtest::base64("not really png")}}}));
  Expected<Asset> text = load_gltf_from_memory(as_bytes(with_image.dump()), "upload 'text'");
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(text->skeleton.num_joints(), 1);
  EXPECT_EQ(text->source, "upload 'text'");

  const json bin_chunk = animtest::one_joint_document(json{{"byteLength", 64}});
  const std::string glb = animtest::glb_of(bin_chunk, animtest::identity_matrix_bytes());
  Expected<Asset> binary = load_gltf_from_memory(as_bytes(glb), "upload 'glb'");
  ASSERT_TRUE(binary) << binary.error().message();
  EXPECT_EQ(binary->skeleton.num_joints(), 1);
}

TEST_F(GltfUriSafety, FromMemoryParserErrorsNameTheLabelOnly) {
  const std::string glb = animtest::glb_of(animtest::one_joint_document(json{{"byteLength", 64}}));
  Expected<Asset> a = load_gltf_from_memory(as_bytes(glb), "upload 'nobin'");
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().message().rfind("upload 'nobin': ", 0), 0u) << a.error().message();
  expect_clean(a.error().message(), "nobin");
  Expected<Asset> empty = load_gltf_from_memory({}, "upload 'empty'");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message(), "upload 'empty': file is empty");
}

TEST_F(GltfUriSafety, LegitimateBuffersInsideTheRootLoad) {
  // Next to the file, percent-encoded, in a sibling folder of the root, and through a
  // symlink that stays inside the root.
  fs::create_symlink("../shared/shared.bin", tree_.models / "alias.bin");
  for (const std::string uri :
       {"ok.bin", "o%6B.bin", "../shared/shared.bin", "./ok.bin", "alias.bin"}) {
    const json doc = animtest::one_joint_document(animtest::buffer_with_uri(uri, 64));
    Expected<Asset> a = load_by_path("good.gltf", doc.dump());
    ASSERT_TRUE(a) << uri << ": " << a.error().message();
    EXPECT_EQ(a->skeleton.num_joints(), 1);
    EXPECT_EQ(a->skeleton.inverse_bind[0], glm::mat4(1.0f)) << uri;
  }
  // A missing texture inside the root does not matter: images are never read.
  const json doc = animtest::one_joint_document(animtest::buffer_with_uri("ok.bin", 64),
                                                json::array({{{"uri", "textures/missing.png"}}}));
  Expected<Asset> a = load_by_path("textured.gltf", doc.dump());
  ASSERT_TRUE(a) << a.error().message();
}

TEST_F(GltfUriSafety, DefaultRootIsTheFilesOwnFolder) {
  const json doc =
      animtest::one_joint_document(animtest::buffer_with_uri("../shared/shared.bin", 64));
  Expected<Asset> a = load_by_path("sibling.gltf", doc.dump(), /*uri_root=*/"");
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().message(), "models/sibling.gltf: buffer 0 URI escapes the asset root");
}

TEST_F(GltfUriSafety, FileOutsideItsRootIsRefused) {
  const json doc = animtest::one_joint_document(animtest::buffer_with_uri("ok.bin", 64));
  Expected<Asset> a = load_by_path("good.gltf", doc.dump(), (tree_.dir / "outside").string());
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().message(), "models/good.gltf: the file lies outside its URI root");
}

TEST_F(GltfUriSafety, MissingOrMisSizedBufferInsideTheRootNamesNoHostPath) {
  Expected<Asset> missing = load_by_path(
      "missing.gltf",
      animtest::one_joint_document(animtest::buffer_with_uri("nothere.bin", 64)).dump());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.error().message(),
            "models/missing.gltf: buffer 0 URI names a file that does not exist in the asset root");

  // A file inside the root may be reported with its size, but never with its host path.
  Expected<Asset> sized = load_by_path(
      "sized.gltf", animtest::one_joint_document(animtest::buffer_with_uri("ok.bin", 8)).dump());
  ASSERT_FALSE(sized);
  EXPECT_EQ(sized.error().code(), StatusCode::kDataLoss);
  EXPECT_NE(sized.error().message().find("ok.bin"), std::string::npos) << sized.error().message();
  EXPECT_EQ(sized.error().message().find(tree_.dir.string()), std::string::npos)
      << sized.error().message();
}

TEST_F(GltfUriSafety, MalformedPercentEscapeIsRefused) {
  Expected<Asset> a = load_by_path(
      "pct.gltf", animtest::one_joint_document(animtest::buffer_with_uri("ok%2.bin", 64)).dump());
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().message(), "models/pct.gltf: buffer 0 URI has a malformed percent escape");
  Expected<Asset> nul = load_by_path(
      "nul.gltf",
      animtest::one_joint_document(animtest::buffer_with_uri("ok.bin%00.x", 64)).dump());
  ASSERT_FALSE(nul);
  EXPECT_EQ(nul.error().message(), "models/nul.gltf: buffer 0 URI contains a NUL byte");
}

TEST(GltfUriDecode, DecodesLikeTinygltfAndRejectsMalformedEscapes) {
  EXPECT_EQ(gltf::decode_uri("%2e%2E%2f"), "../");
  EXPECT_EQ(gltf::decode_uri("a+b%20c"), "a b c");
  EXPECT_EQ(gltf::decode_uri("plain.bin"), "plain.bin");
  EXPECT_FALSE(gltf::decode_uri("%zz"));
  EXPECT_FALSE(gltf::decode_uri("x%2"));
  EXPECT_FALSE(gltf::decode_uri("x%"));
}

// The file callbacks given to tinygltf, called the way tinygltf calls them.
TEST_F(GltfUriSafety, GateRefusesEverythingFromMemory) {
  gltf::UriGate gate(gltf::UriPolicy{});
  tinygltf::FsCallbacks fs = gate.callbacks();
  std::vector<unsigned char> out;
  std::string err;
  EXPECT_FALSE(fs.FileExists((tree_.models / "ok.bin").string(), fs.user_data));
  EXPECT_FALSE(fs.ReadWholeFile(&out, &err, (tree_.models / "ok.bin").string(), fs.user_data));
  EXPECT_TRUE(out.empty());
  EXPECT_NE(gate.refusal().find("external URI not allowed in an upload"), std::string::npos);
  EXPECT_FALSE(fs.WriteWholeFile(&err, (tree_.dir / "written").string(), {1, 2}, fs.user_data));
  EXPECT_FALSE(fs::exists(tree_.dir / "written"));
}

TEST_F(GltfUriSafety, GateConfinesReadsToTheRoot) {
  Expected<gltf::UriPolicy> policy =
      gltf::file_policy(tree_.models / "x.gltf", tree_.root.string());
  ASSERT_TRUE(policy) << policy.error().message();
  std::vector<unsigned char> out;
  std::string err;
  {
    gltf::UriGate gate(*policy);
    tinygltf::FsCallbacks fs = gate.callbacks();
    const std::string ok = (tree_.models / "ok.bin").string();
    EXPECT_EQ(fs.ExpandFilePath("~/x", fs.user_data), "~/x");
    EXPECT_TRUE(fs.FileExists(ok, fs.user_data));
    ASSERT_TRUE(fs.ReadWholeFile(&out, &err, ok, fs.user_data)) << err;
    EXPECT_EQ(out.size(), 64u);
    // The working-directory fallback is never admitted, and is not a refusal by itself.
    EXPECT_FALSE(fs.FileExists("./ok.bin", fs.user_data));
    EXPECT_TRUE(gate.refusal().empty());
  }
  const struct {
    std::string path, why;
  } refused[] = {
      {(tree_.models / "../../outside/secret.bin").string(), "escapes the asset root"},
      {tree_.secret.string(), "escapes the asset root"},
      {(tree_.models / "link.bin").string(), "through a symlink"},
  };
  for (const auto& r : refused) {
    gltf::UriGate gate(*policy);
    tinygltf::FsCallbacks fs = gate.callbacks();
    out.clear();
    EXPECT_FALSE(fs.FileExists(r.path, fs.user_data)) << r.path;
    EXPECT_FALSE(fs.ReadWholeFile(&out, &err, r.path, fs.user_data)) << r.path;
    EXPECT_TRUE(out.empty()) << r.path;
    EXPECT_NE(gate.refusal().find(r.why), std::string::npos) << r.path << ": " << gate.refusal();
    expect_clean(gate.refusal(), r.path);
  }
}

}  // namespace gltf_uri_safety_test
}  // namespace anim

// The daemon never reads a file through a glTF URI that leaves its asset root, and its
// replies never carry host paths or the size or contents of a refused file. The crafted
// files of tests/support/gltf_uri_cases.h go through a real animd: uploaded as glb_data
// (only data: URIs allowed) and loaded with load_asset.path and --assets (confined to the
// asset root, symlinks followed).
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gltf_uri_cases.h"
#include "integration_support.h"

namespace animtest {
namespace asset_confinement_test {

using nlohmann::json;

void expect_clean(const std::string& message, const ConfinementTree& tree,
                  const std::string& context) {
  for (const std::string& bad : forbidden_in_messages(tree))
    EXPECT_EQ(message.find(bad), std::string::npos)
        << context << ": reply contains '" << bad << "': " << message;
}

void expect_identity_inverse_bind(animclient::Client& client, const std::string& asset) {
  auto data = client.get_asset_data(asset, /*skip_mesh=*/true);
  ASSERT_TRUE(data) << asset << ": " << data.error().to_string();
  const auto& ibm = data->skeleton().inverse_bind();
  ASSERT_EQ(ibm.size(), 16) << asset;
  for (int i = 0; i < 16; ++i) EXPECT_EQ(ibm[i], i % 5 == 0 ? 1.0f : 0.0f) << asset << " " << i;
}

class AssetConfinement : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = make_confinement_tree(dir_.path() / "tree");
    // Present at startup: two good files and one that escapes, for the --assets scan.
    write_bytes(tree_.models / "good.gltf",
                one_joint_document(buffer_with_uri("ok.bin", 64)).dump());
    write_bytes(tree_.models / "sibling.gltf",
                one_joint_document(buffer_with_uri("../shared/shared.bin", 64)).dump());
    write_bytes(tree_.models / "startup_escape.gltf",
                one_joint_document(buffer_with_uri("../../outside/secret.bin")).dump());
    // A folder the operator linked into the root from elsewhere: its files load, with their
    // URIs confined to their own folder.
    const std::filesystem::path elsewhere = dir_.path() / "elsewhere";
    std::filesystem::create_directories(elsewhere);
    write_bytes(elsewhere / "linked.gltf",
                one_joint_document(buffer_with_uri("linked.bin", 64)).dump());
    write_bytes(elsewhere / "linked.bin", identity_matrix_bytes());
    write_bytes(elsewhere / "linked_escape.gltf",
                one_joint_document(buffer_with_uri("../tree/outside/secret.bin")).dump());
    std::filesystem::create_directory_symlink(elsewhere, tree_.root / "operator_link");
  }

  TempDir dir_{"animd-confinement"};
  ConfinementTree tree_;
};

TEST_F(AssetConfinement, AssetsScanLoadsGoodFilesAndRefusesEscapes) {
  DaemonProcess daemon({"--assets", tree_.root.string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto list = client->list_assets();
  ASSERT_TRUE(list);
  std::vector<std::string> names;
  for (const auto& a : list->assets()) names.push_back(a.name());
  EXPECT_NE(std::find(names.begin(), names.end(), "good"), names.end()) << daemon.log_tail();
  EXPECT_NE(std::find(names.begin(), names.end(), "sibling"), names.end()) << daemon.log_tail();
  EXPECT_EQ(std::find(names.begin(), names.end(), "startup_escape"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "linked"), names.end()) << daemon.log_tail();
  EXPECT_EQ(std::find(names.begin(), names.end(), "linked_escape"), names.end());
  expect_identity_inverse_bind(*client, "linked");
  expect_identity_inverse_bind(*client, "good");
  expect_identity_inverse_bind(*client, "sibling");
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
  // The operator's log says why, by relative name, without the secret's size or bytes.
  const std::string log = daemon.log_tail(100000);
  EXPECT_NE(log.find("models/startup_escape.gltf: buffer 0 URI escapes the asset root"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("operator_link/linked_escape.gltf: buffer 0 URI escapes the asset root"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("TOPSECRET"), std::string::npos) << log;
  EXPECT_EQ(log.find("requestedBytes"), std::string::npos) << log;
}

TEST_F(AssetConfinement, LoadByPathRefusesEveryEscapeForBuffersAndImages) {
  DaemonProcess daemon({"--assets", tree_.root.string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  for (const EscapeCase& c : escape_cases(tree_)) {
    const struct {
      std::string file, owner;
      json doc;
    } files[] = {
        {c.name + ".gltf", "buffer 0", one_joint_document(buffer_with_uri(c.uri))},
        {c.name + "_image.gltf", "image 0",
         one_joint_document(embedded_buffer(), json::array({{{"uri", c.uri}}}))},
    };
    for (const auto& f : files) {
      write_bytes(tree_.models / f.file, f.doc.dump());
      anim::v1::LoadAssetRequest req;
      req.set_path("models/" + f.file);
      auto r = client->load_asset(req);
      ASSERT_FALSE(r) << f.file << " loaded";
      EXPECT_EQ(r.error().code, anim::v1::STATUS_INVALID_ARGUMENT) << r.error().to_string();
      const std::string& m = r.error().message;
      EXPECT_EQ(m.rfind("models/" + f.file + ": " + f.owner + " URI", 0), 0u) << m;
      EXPECT_NE(m.find(c.expected), std::string::npos) << f.file << ": " << m;
      expect_clean(m, tree_, f.file);
    }
  }
  // A good file loaded by path after all that: same connection, correct data.
  anim::v1::LoadAssetRequest good;
  good.set_path("models/good.gltf");
  good.set_name("good_again");
  auto r = client->load_asset(good);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->asset().source(), "models/good.gltf");
  expect_identity_inverse_bind(*client, "good_again");
  // A buffer missing inside the root: NOT_FOUND naming it by relative path only.
  write_bytes(tree_.models / "missing.gltf",
              one_joint_document(buffer_with_uri("nothere.bin", 64)).dump());
  anim::v1::LoadAssetRequest missing;
  missing.set_path("models/missing.gltf");
  auto m = client->load_asset(missing);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, anim::v1::STATUS_NOT_FOUND) << m.error().to_string();
  expect_clean(m.error().message, tree_, "missing");
  // The MD5 loader's messages are shown relative to the root too.
  write_bytes(tree_.models / "broken.md5mesh", "MD5Version 10\ncommandline \"\"\nnumJoints x\n");
  anim::v1::LoadAssetRequest md5;
  md5.set_path("models/broken.md5mesh");
  auto bad = client->load_asset(md5);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("models/broken.md5mesh:", 0), 0u) << bad.error().message;
  expect_clean(bad.error().message, tree_, "md5");
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(AssetConfinement, UploadRefusesEveryExternalUri) {
  DaemonProcess daemon({"--assets", tree_.root.string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  std::vector<EscapeCase> cases = escape_cases(tree_);
  cases.push_back({"plain_relative", "ok.bin", ""});
  for (const EscapeCase& c : cases) {
    const struct {
      std::string owner, bytes;
    } uploads[] = {
        {"buffer 0", glb_of(one_joint_document(buffer_with_uri(c.uri)))},
        {"image 0", glb_of(one_joint_document(embedded_buffer(), json::array({{{"uri", c.uri}}})))},
    };
    for (const auto& u : uploads) {
      anim::v1::LoadAssetRequest req;
      req.set_name("evil");
      req.set_glb_data(u.bytes);
      auto r = client->load_asset(req);
      ASSERT_FALSE(r) << c.name << " " << u.owner << " loaded";
      EXPECT_EQ(r.error().code, anim::v1::STATUS_INVALID_ARGUMENT) << r.error().to_string();
      EXPECT_EQ(r.error().message, "upload 'evil': " + u.owner +
                                       ": external URI not allowed in an upload (only base64 "
                                       "data: URIs)")
          << c.name;
      expect_clean(r.error().message, tree_, c.name);
    }
  }
  // Self-contained uploads still load: the BIN chunk, and a data: URI.
  anim::v1::LoadAssetRequest bin;
  bin.set_name("bin_chunk");
  bin.set_glb_data(glb_of(one_joint_document(json{{"byteLength", 64}}), identity_matrix_bytes()));
  auto b = client->load_asset(bin);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->asset().source(), "upload");
  expect_identity_inverse_bind(*client, "bin_chunk");
  anim::v1::LoadAssetRequest data;
  data.set_name("data_uri");
  data.set_glb_data(glb_of(one_joint_document(embedded_buffer())));
  auto d = client->load_asset(data);
  ASSERT_TRUE(d) << d.error().to_string();
  expect_identity_inverse_bind(*client, "data_uri");
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace asset_confinement_test
}  // namespace animtest

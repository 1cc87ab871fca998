// The daemon's asset files and symlinks (asset_loading.h): containment is decided before
// existence, files beside an asset are confined like a glTF's URIs, and a file that is not an
// asset is refused by its signature without any of its bytes in the message.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "assets/asset_loading.h"
#include "daemon_process.h"
#include "md5_chain_files.h"

namespace animd {
namespace asset_files_test {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

// root/ holds the assets; outside/ is a host folder next to it, reached through
// root/escape -> ../outside.
class AssetFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path() / "root";
    outside_ = dir_.path() / "outside";
    fs::create_directories(root_ / "models");
    write(outside_ / "present.glb", "glTF not really");
    write(outside_ / "secret.txt", "TOPSECRET host bytes\n");
    fs::create_directory_symlink("../outside", root_ / "escape");
  }

  animtest::TempDir dir_{"animd-asset-files"};
  fs::path root_, outside_;
};

TEST_F(AssetFiles, AnEscapingPathIsRefusedAlikeWhetherItsFileExistsOrNot) {
  auto present = resolve_asset_path(root_, "escape/present.glb");
  auto missing = resolve_asset_path(root_, "escape/missing.glb");
  ASSERT_FALSE(present);
  ASSERT_FALSE(missing);
  EXPECT_EQ(present.error().code(), anim::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.error().code(), present.error().code());
  EXPECT_EQ(present.error().message(),
            "load_asset.path 'escape/present.glb' resolves (through a symlink) outside the "
            "asset root");
  EXPECT_EQ(missing.error().message(),
            "load_asset.path 'escape/missing.glb' resolves (through a symlink) outside the "
            "asset root");
  // Inside the root, a missing file is simply missing.
  auto inside = resolve_asset_path(root_, "models/missing.glb");
  ASSERT_FALSE(inside);
  EXPECT_EQ(inside.error().code(), anim::StatusCode::kNotFound);
}

TEST_F(AssetFiles, AFileThatIsNotAnAssetIsRefusedWithoutItsBytes) {
  for (const char* name : {"secret.glb", "secret.gltf", "secret.md5mesh", "secret.bvh"}) {
    fs::create_symlink(outside_ / "secret.txt", root_ / "models" / name);
    auto loaded = load_asset_file(root_ / "models" / name, "", std::string("models/") + name,
                                  LoadRequest{}, root_);
    ASSERT_FALSE(loaded) << name;
    EXPECT_EQ(loaded.error().code(), anim::StatusCode::kInvalidArgument) << name;
    EXPECT_NE(loaded.error().message().find("does not start with"), std::string::npos)
        << loaded.error().message();
    EXPECT_EQ(loaded.error().message().find("TOPSECRET"), std::string::npos)
        << loaded.error().message();
  }
  // The signature allows white space and a BOM before text formats.
  write(root_ / "models" / "spaced.bvh", "\xef\xbb\xbf  \r\nHIERARCHY\n");
  EXPECT_TRUE(check_asset_signature(root_ / "models" / "spaced.bvh", "models/spaced.bvh"));
}

TEST_F(AssetFiles, AnMd5AnimBesideTheMeshIsReadOnlyInsideTheRoot) {
  write(root_ / "models" / "chain.md5mesh", animtest::kChainMesh);
  write(root_ / "models" / "walk.md5anim", animtest::kChainAnim);
  // A second, valid animation outside the root, linked in beside the mesh.
  write(outside_ / "stolen.md5anim", animtest::kChainAnim);
  fs::create_symlink(outside_ / "stolen.md5anim", root_ / "models" / "stolen.md5anim");
  auto loaded = load_asset_file(root_ / "models" / "chain.md5mesh", "", "models/chain.md5mesh",
                                LoadRequest{}, root_);
  ASSERT_TRUE(loaded) << loaded.error().message();
  ASSERT_EQ(loaded->clips.size(), 1u);
  EXPECT_EQ(loaded->clips[0].name, "walk");
}

TEST_F(AssetFiles, AFolderTheOperatorLinkedInKeepsItsFilesInsideItself) {
  // root/linked -> ../elsewhere: its files load, their siblings confined to elsewhere/.
  const fs::path elsewhere = dir_.path() / "elsewhere";
  write(elsewhere / "chain.md5mesh", animtest::kChainMesh);
  write(elsewhere / "walk.md5anim", animtest::kChainAnim);
  fs::create_symlink(outside_ / "secret.txt", elsewhere / "leak.md5anim");
  fs::create_directory_symlink("../elsewhere", root_ / "linked");
  EXPECT_EQ(confinement_root(root_ / "linked" / "chain.md5mesh", root_), fs::canonical(elsewhere));
  EXPECT_EQ(confinement_root(root_ / "models" / "x.glb", root_), fs::canonical(root_));
  auto loaded = load_asset_file(root_ / "linked" / "chain.md5mesh", "", "linked/chain.md5mesh",
                                LoadRequest{}, root_);
  ASSERT_TRUE(loaded) << loaded.error().message();
  ASSERT_EQ(loaded->clips.size(), 1u);
  EXPECT_EQ(loaded->clips[0].name, "walk");
}

}  // namespace asset_files_test
}  // namespace animd

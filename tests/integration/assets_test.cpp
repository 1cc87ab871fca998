// Assets: uploads (glb bytes larger than --max-frame-bytes but within --max-upload-bytes),
// their limits, MD5 folders under the asset root, the config file, the connection limit.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "integration_support.h"
#include "shared_assets.h"

namespace animtest {
namespace assets_test {

using anim::v1::Request;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Assets, UploadedGlbLoadsAboveFrameLimitAndSpawns) {
  ANIMD_REQUIRE_SHARED();
  const std::string fox = read_file(shared_path("assets/Fox/glTF-Binary/Fox.glb"));
  if (fox.empty()) GTEST_SKIP() << "skipped: Fox.glb not found";
  // Fox.glb is ~160 KB: above a 64 KiB frame limit, within the upload limit.
  DaemonProcess daemon({"--max-frame-bytes", "65536", "--max-upload-bytes", "1048576"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  // Frames above --max-preauth-frame-bytes (64 KiB) are accepted only once the connection has
  // sent a valid request.
  ASSERT_TRUE(client->list_assets());
  anim::v1::LoadAssetRequest up;
  up.set_glb_data(fox);
  // Without a name: INVALID_ARGUMENT.
  auto unnamed = client->load_asset(up);
  ASSERT_FALSE(unnamed);
  EXPECT_EQ(unnamed.error().code, anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(unnamed.error().message.find("name"), std::string::npos);
  up.set_name("uploaded_fox");
  auto loaded = client->load_asset(up);
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(loaded->asset().source(), "upload");
  EXPECT_GT(loaded->asset().num_joints(), 0u);
  auto sp = client->spawn("uploaded_fox", loaded->asset().clips(0).name());
  EXPECT_TRUE(sp) << sp.error().to_string();
  // Bytes that are not a glb: an error naming the problem; the connection stays usable.
  up.set_glb_data(std::string(1000, 'z'));
  up.set_name("junk");
  auto junk = client->load_asset(up);
  ASSERT_FALSE(junk);
  EXPECT_EQ(junk.error().code, anim::v1::STATUS_INVALID_ARGUMENT) << junk.error().to_string();
  EXPECT_TRUE(client->list_assets());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Assets, UploadLimits) {
  DaemonProcess daemon({"--max-upload-bytes", "1000"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  anim::v1::LoadAssetRequest up;
  up.set_name("big");
  up.set_glb_data(std::string(5000, 'g'));
  auto big = client->load_asset(up);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, anim::v1::STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(big.error().message.find("--max-upload-bytes"), std::string::npos);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();

  DaemonProcess no_uploads({"--max-upload-bytes", "0"});
  ANIMD_START(no_uploads);
  auto c2 = connect_client(no_uploads);
  ASSERT_TRUE(c2);
  auto refused = c2->load_asset(up);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, anim::v1::STATUS_FAILED_PRECONDITION);
  // No asset root configured: load by path is refused too.
  anim::v1::LoadAssetRequest by_path;
  by_path.set_path("x.glb");
  auto no_root = c2->load_asset(by_path);
  ASSERT_FALSE(no_root);
  EXPECT_EQ(no_root.error().code, anim::v1::STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(no_uploads.stop(), 0) << no_uploads.log_tail();
}

TEST(Assets, Md5FolderUnderAssetRoot) {
  ANIMD_REQUIRE_SHARED();
  const std::string bob = shared_path("assets/Bob_assimp");
  if (!std::filesystem::exists(bob + "/Bob.md5mesh")) GTEST_SKIP() << "skipped: no Bob.md5mesh";
  TempDir root("animd-md5");
  std::filesystem::create_directory_symlink(bob, root.path() / "bob");
  DaemonProcess daemon({"--assets", root.path().string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto list = client->list_assets();
  ASSERT_TRUE(list);
  const anim::v1::AssetInfo* info = nullptr;
  for (const auto& a : list->assets())
    if (a.name() == "Bob") info = &a;
  ASSERT_NE(info, nullptr) << daemon.log_tail();
  ASSERT_EQ(info->clips_size(), 1);
  EXPECT_EQ(info->clips(0).name(), "Bob");
  auto sp = client->spawn("Bob", "Bob");
  ASSERT_TRUE(sp) << sp.error().to_string();
  Request q;
  q.mutable_query_pose()->set_character_id(sp->character_id());
  while (current_tick(*client) <= sp->tick()) std::this_thread::sleep_for(10ms);
  auto pose = call_ok(*client, q).query_pose();
  EXPECT_EQ(pose.palette_size(), static_cast<int>(info->num_joints() * 12));
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Assets, ConfigFileSetsOptions) {
  TempDir dir("animd-config");
  const auto path = dir.path() / "animd.toml";
  {
    std::ofstream f(path);
    f << "# test config\ntick-rate = 30\nmax-subscriptions-per-connection = 1\n";
  }
  DaemonProcess daemon({"--config", path.string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto stats = client->stats();
  ASSERT_TRUE(stats);
  EXPECT_DOUBLE_EQ(stats->tick_rate_hz(), 30.0);
  anim::v1::SubscribeRequest all;
  all.set_all_characters(true);
  EXPECT_TRUE(client->subscribe(all));
  auto second = client->subscribe(all);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, anim::v1::STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Assets, ConnectionLimitRefusesExtraConnections) {
  DaemonProcess daemon({"--max-connections", "2"});
  ANIMD_START(daemon);
  auto a = connect_client(daemon);
  auto b = connect_client(daemon);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->list_assets());
  ASSERT_TRUE(b->list_assets());
  RawConnection extra(daemon.port());
  ASSERT_TRUE(extra.ok());  // the kernel accepts; the daemon closes it at once
  EXPECT_TRUE(extra.wait_closed());
  EXPECT_NE(daemon.log().find("--max-connections"), std::string::npos);
  EXPECT_TRUE(a->list_assets());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace assets_test
}  // namespace animtest

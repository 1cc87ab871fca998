// Joint LOD through the real daemon (docs/animation.md, "Joint detail"): load_asset chooses an
// asset's detail joints (derived, named or none) and refuses bad choices without loading
// anything; under a budget the characters nobody watches skip their detail joints
// (list_characters, stats), an asset loaded with keep_all_joints never does, and query_pose at
// each streamed tick of a skipping character gives the palette the stream carried, bit for
// bit. The budget is far below what 120 characters take on any machine, so the allocator is
// under pressure whatever the host's speed.
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "integration_support.h"
#include "shared_assets.h"

namespace animtest {
namespace joint_lod_test {

using anim::v1::Request;

std::string bench64_bytes() {
  std::ifstream f(shared_path("assets/Bench64/bench64.glb"), std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

anim::v1::LoadAssetRequest upload(const std::string& bytes, const std::string& name) {
  anim::v1::LoadAssetRequest r;
  r.set_glb_data(bytes);
  r.set_name(name);
  return r;
}

// Whether list_characters says `id` skips its detail joints.
bool detail_skipped(animclient::Client& c, uint32_t id) {
  const auto ch = listed_character(c, id);
  return ch && ch->detail_skipped();
}

TEST(JointLod, LoadAssetChoosesDetailJointsAndTheBudgetSkipsThem) {
  ANIMD_REQUIRE_SHARED();
  const std::string bytes = bench64_bytes();
  ASSERT_FALSE(bytes.empty());
  DaemonProcess daemon(
      {"--anim-budget-ms", "0.1", "--max-update-interval", "4", "--max-upload-bytes", "1048576"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->list_assets());

  // Refused: an unknown joint (named by its position), a root, both fields; nothing loads.
  auto unknown = upload(bytes, "bad");
  unknown.add_detail_joints("hand_l");
  unknown.add_detail_joints("tail");
  auto r1 = client->load_asset(unknown);
  ASSERT_FALSE(r1);
  EXPECT_EQ(r1.error().code, anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(r1.error().message.find("detail_joints[1]"), std::string::npos) << r1.error().message;
  EXPECT_NE(r1.error().message.find("tail"), std::string::npos) << r1.error().message;
  auto root = upload(bytes, "bad");
  root.add_detail_joints("root");
  auto r2 = client->load_asset(root);
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.error().code, anim::v1::STATUS_INVALID_ARGUMENT);
  auto both = upload(bytes, "bad");
  both.add_detail_joints("hand_l");
  both.set_keep_all_joints(true);
  auto r3 = client->load_asset(both);
  ASSERT_FALSE(r3);
  EXPECT_EQ(r3.error().code, anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(r3.error().message.find("keep_all_joints"), std::string::npos) << r3.error().message;
  auto assets = client->list_assets();
  ASSERT_TRUE(assets);
  for (const auto& a : assets->assets()) EXPECT_NE(a.name(), "bad");

  // Derived (bench64: fingers, toes, face), and none.
  ASSERT_TRUE(client->load_asset(upload(bytes, "derived")));
  auto all = upload(bytes, "all");
  all.set_keep_all_joints(true);
  ASSERT_TRUE(client->load_asset(all));
  auto named = upload(bytes, "hands");
  named.add_detail_joints("hand_l");
  named.add_detail_joints("hand_r");
  ASSERT_TRUE(client->load_asset(named));

  std::vector<uint32_t> derived, kept;
  for (int i = 0; i < 60; ++i) {
    auto a = client->spawn("derived", "A");
    ASSERT_TRUE(a) << a.error().to_string();
    derived.push_back(a->character_id());
    auto b = client->spawn("all", "A");
    ASSERT_TRUE(b) << b.error().to_string();
    kept.push_back(b->character_id());
  }
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!detail_skipped(*client, derived[5]) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(detail_skipped(*client, derived[5]))
      << "nobody watches character " << derived[5] << ", yet it keeps every joint";
  auto stats = client->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_GT(stats->anim_pressure(), 0.0f);
  EXPECT_GT(stats->detail_skipped_characters(), 0u);
  EXPECT_LE(stats->detail_skipped_characters(), 60u);  // only the derived asset's
  for (uint32_t id : kept) EXPECT_FALSE(detail_skipped(*client, id)) << "character " << id;

  // Streamed while skipping: the history answers the streamed palettes.
  const uint32_t watched = derived[9];
  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(watched);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  Request zero;
  zero.mutable_set_significance()->add_character_ids(watched);
  zero.mutable_set_significance()->set_significance(0.0f);
  call_ok(*client, zero);
  while (!detail_skipped(*client, watched) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(detail_skipped(*client, watched));
  const uint64_t from = current_tick(*client);
  auto frames = collect_frames(*client, s->subscription_id(), from + 16);
  ASSERT_GE(frames.size(), 8u);
  EXPECT_GE(expect_history_matches_stream(*client, watched, frames), 8);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace joint_lod_test
}  // namespace animtest

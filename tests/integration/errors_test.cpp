// Every bad input gets a clear error (or, for broken framing, a closed connection), changes
// nothing, and the daemon keeps serving another client that was connected all along.
#include <fstream>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace errors_test {

using anim::v1::Request;
using anim::v1::StatusCode;

class Errors : public ::testing::Test {
 protected:
  void start(std::vector<std::string> args = {}, const std::string& witness_token = {}) {
    daemon_ = std::make_unique<DaemonProcess>(std::move(args));
    ASSERT_TRUE(daemon_->start()) << daemon_->error() << "\n" << daemon_->log_tail();
    witness_ = connect_client(*daemon_, witness_token);
    ASSERT_TRUE(witness_);
    client_ = connect_client(*daemon_);
    ASSERT_TRUE(client_);
    auto sp = witness_->spawn("builtin", "idle");
    ASSERT_TRUE(sp) << sp.error().to_string();
    witness_character_ = sp->character_id();
  }
  void SetUp() override {
    if (!std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())
             .starts_with("Custom"))
      start();
  }
  void TearDown() override {
    if (!daemon_ || !daemon_->running()) return;
    // The witness still gets answers and a stream after whatever the test did.
    ASSERT_TRUE(witness_);
    auto list = witness_->list_assets();
    EXPECT_TRUE(list) << list.error().to_string();
    anim::v1::SubscribeRequest sub;
    sub.add_character_ids(witness_character_);
    auto s = witness_->subscribe(sub);
    ASSERT_TRUE(s) << s.error().to_string();
    const uint64_t until = current_tick(*witness_) + 3;
    auto frames = collect_frames(*witness_, s->subscription_id(), until);
    ASSERT_FALSE(frames.empty());
    EXPECT_GE(frames.rbegin()->first, until);
    client_.reset();
    witness_.reset();
    EXPECT_EQ(daemon_->stop(), 0) << daemon_->log_tail();
  }

  void expect_error(const Request& r, StatusCode code, const std::string& needle) {
    auto reply = call(*client_, r);
    EXPECT_EQ(reply.status().code(), code) << reply.status().message();
    EXPECT_NE(reply.status().message().find(needle), std::string::npos)
        << "'" << reply.status().message() << "' does not name '" << needle << "'";
    EXPECT_EQ(reply.result_case(), anim::v1::Reply::RESULT_NOT_SET);
  }

  uint32_t spawn_own() {
    auto sp = client_->spawn("builtin", "walk");
    EXPECT_TRUE(sp) << sp.error().to_string();
    return sp ? sp->character_id() : 0;
  }

  std::unique_ptr<DaemonProcess> daemon_;
  std::unique_ptr<animclient::Client> witness_, client_;
  uint32_t witness_character_ = 0;
};

TEST_F(Errors, UnknownCharacter) {
  Request r;
  r.mutable_play()->set_character_id(987654);
  r.mutable_play()->set_clip("walk");
  expect_error(r, anim::v1::STATUS_NOT_FOUND, "987654");
  Request d;
  d.mutable_despawn()->set_character_id(987654);
  expect_error(d, anim::v1::STATUS_NOT_FOUND, "987654");
  Request s;
  s.mutable_subscribe()->add_character_ids(987654);
  expect_error(s, anim::v1::STATUS_NOT_FOUND, "987654");
}

TEST_F(Errors, UnknownClip) {
  const uint32_t id = spawn_own();
  Request r;
  r.mutable_play()->set_character_id(id);
  r.mutable_play()->set_clip("moonwalk");
  expect_error(r, anim::v1::STATUS_NOT_FOUND, "moonwalk");
  Request c;
  c.mutable_crossfade()->set_character_id(id);
  c.mutable_crossfade()->set_clip("moonwalk");
  c.mutable_crossfade()->set_duration(0.2f);
  expect_error(c, anim::v1::STATUS_NOT_FOUND, "moonwalk");
  Request s;
  s.mutable_spawn()->set_asset("builtin");
  s.mutable_spawn()->set_clip("moonwalk");
  expect_error(s, anim::v1::STATUS_NOT_FOUND, "moonwalk");
  // Nothing changed: the character still plays walk.
  auto list = client_->list_characters();
  ASSERT_TRUE(list);
  for (const auto& ci : list->characters())
    if (ci.character_id() == id) {
      EXPECT_EQ(ci.clip(), "walk");
    }
}

TEST_F(Errors, UnknownJoint) {
  const uint32_t id = spawn_own();
  Request ik;
  ik.mutable_set_ik_goal()->set_character_id(id);
  ik.mutable_set_ik_goal()->set_root_joint("tail_99");
  ik.mutable_set_ik_goal()->set_effector_joint("hand_l");
  expect_error(ik, anim::v1::STATUS_NOT_FOUND, "tail_99");
  Request q;
  q.mutable_query_pose()->set_character_id(id);
  q.mutable_query_pose()->add_joint_names("tail_99");
  expect_error(q, anim::v1::STATUS_NOT_FOUND, "tail_99");
  Request l;
  l.mutable_add_layer()->set_character_id(id);
  l.mutable_add_layer()->set_clip("lean");
  l.mutable_add_layer()->mutable_mask()->set_blend_root("tail_99");
  expect_error(l, anim::v1::STATUS_NOT_FOUND, "tail_99");
}

TEST_F(Errors, UnknownAssetLayerGoalSubscription) {
  Request s;
  s.mutable_spawn()->set_asset("dragon");
  expect_error(s, anim::v1::STATUS_NOT_FOUND, "dragon");
  Request g;
  g.mutable_get_asset_data()->set_asset("dragon");
  expect_error(g, anim::v1::STATUS_NOT_FOUND, "dragon");
  const uint32_t id = spawn_own();
  Request ul;
  ul.mutable_update_layer()->set_character_id(id);
  ul.mutable_update_layer()->set_layer_id(77);
  expect_error(ul, anim::v1::STATUS_NOT_FOUND, "77");
  Request rl;
  rl.mutable_remove_layer()->set_character_id(id);
  rl.mutable_remove_layer()->set_layer_id(78);
  expect_error(rl, anim::v1::STATUS_NOT_FOUND, "78");
  Request cg;
  cg.mutable_clear_ik_goal()->set_character_id(id);
  cg.mutable_clear_ik_goal()->set_goal_id(79);
  expect_error(cg, anim::v1::STATUS_NOT_FOUND, "79");
  Request un;
  un.mutable_unsubscribe()->set_subscription_id(80);
  expect_error(un, anim::v1::STATUS_NOT_FOUND, "80");
}

TEST_F(Errors, NanAndInfinityAreRejectedAndChangeNothing) {
  const uint32_t id = spawn_own();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Request p;
  p.mutable_play()->set_character_id(id);
  p.mutable_play()->set_clip("run");
  p.mutable_play()->set_speed(nan);
  expect_error(p, anim::v1::STATUS_INVALID_ARGUMENT, "play.speed");
  Request c;
  c.mutable_crossfade()->set_character_id(id);
  c.mutable_crossfade()->set_clip("run");
  c.mutable_crossfade()->set_duration(inf);
  expect_error(c, anim::v1::STATUS_INVALID_ARGUMENT, "crossfade.duration");
  Request r;
  r.mutable_set_root()->set_character_id(id);
  r.mutable_set_root()->mutable_root()->mutable_translation()->set_y(nan);
  expect_error(r, anim::v1::STATUS_INVALID_ARGUMENT, "set_root.root.translation.y");
  Request r2;
  r2.mutable_set_root()->set_character_id(id);
  r2.mutable_set_root()->mutable_root()->mutable_rotation()->set_w(-inf);
  expect_error(r2, anim::v1::STATUS_INVALID_ARGUMENT, "set_root.root.rotation.w");
  Request sp;
  sp.mutable_spawn()->set_asset("builtin");
  sp.mutable_spawn()->mutable_root()->mutable_scale()->set_x(inf);
  expect_error(sp, anim::v1::STATUS_INVALID_ARGUMENT, "spawn.root.scale.x");
  Request ik;
  ik.mutable_set_ik_goal()->set_character_id(id);
  ik.mutable_set_ik_goal()->set_root_joint("upper_arm_l");
  ik.mutable_set_ik_goal()->set_effector_joint("hand_l");
  ik.mutable_set_ik_goal()->mutable_target()->set_z(nan);
  expect_error(ik, anim::v1::STATUS_INVALID_ARGUMENT, "set_ik_goal.target.z");
  Request sd;
  sd.mutable_set_speed()->set_character_id(id);
  sd.mutable_set_speed()->set_speed(inf);
  expect_error(sd, anim::v1::STATUS_INVALID_ARGUMENT, "set_speed.speed");
  Request l;
  l.mutable_add_layer()->set_character_id(id);
  l.mutable_add_layer()->set_clip("lean");
  l.mutable_add_layer()->set_weight(nan);
  expect_error(l, anim::v1::STATUS_INVALID_ARGUMENT, "add_layer.weight");

  // Nothing changed: still walking at the origin, finite palette, no layer.
  auto list = client_->list_characters();
  ASSERT_TRUE(list);
  for (const auto& ci : list->characters())
    if (ci.character_id() == id) {
      EXPECT_EQ(ci.clip(), "walk");
      EXPECT_EQ(ci.root().translation().y(), 0.0f);
      EXPECT_EQ(ci.root().rotation().w(), 1.0f);
    }
  Request q;
  q.mutable_query_pose()->set_character_id(id);
  auto pose = call_ok(*client_, q).query_pose();
  for (float v : pose.palette()) ASSERT_TRUE(std::isfinite(v));
}

TEST_F(Errors, CustomAssetPathOutsideRoot) {
  TempDir outside("animd-outside");
  TempDir root("animd-root");
  { std::ofstream(outside.path() / "secret.glb") << "not a glb"; }
  std::filesystem::create_symlink(outside.path() / "secret.glb", root.path() / "link.glb");
  start({"--assets", root.path().string()});
  Request r;
  r.mutable_load_asset()->set_path("../" + outside.path().filename().string() + "/secret.glb");
  expect_error(r, anim::v1::STATUS_INVALID_ARGUMENT, "..");
  r.mutable_load_asset()->set_path((outside.path() / "secret.glb").string());
  expect_error(r, anim::v1::STATUS_INVALID_ARGUMENT, "absolute");
  r.mutable_load_asset()->set_path("/etc/passwd");
  expect_error(r, anim::v1::STATUS_INVALID_ARGUMENT, "absolute");
  r.mutable_load_asset()->set_path("link.glb");
  expect_error(r, anim::v1::STATUS_INVALID_ARGUMENT, "outside the asset root");
  r.mutable_load_asset()->set_path("missing.glb");
  expect_error(r, anim::v1::STATUS_NOT_FOUND, "missing.glb");
  // Only the built-in asset is loaded (the bad file was skipped at start with a log line).
  auto list = client_->list_assets();
  ASSERT_TRUE(list);
  EXPECT_EQ(list->assets_size(), 1);
}

TEST_F(Errors, OversizedFrameClosesOnlyThatConnection) {
  RawConnection raw(daemon_->port());
  ASSERT_TRUE(raw.ok());
  // Announces 2 MiB (> the default 1 MiB --max-frame-bytes; uploads are only accepted up
  // to --max-upload-bytes, default 64 MiB, so use a length above both).
  ASSERT_TRUE(raw.send_bytes(RawConnection::header(100u << 20) + std::string(64, 'x')));
  EXPECT_TRUE(raw.wait_closed());
  // A non-upload request between the two limits is refused as well.
  RawConnection raw2(daemon_->port());
  Request big;
  big.mutable_spawn()->set_asset(std::string(2u << 20, 'a'));
  raw2.send_request(big);
  EXPECT_TRUE(raw2.wait_closed());
  EXPECT_NE(daemon_->log().find("exceeds"), std::string::npos);
}

TEST_F(Errors, RandomGarbageClosesOnlyThatConnection) {
  std::mt19937 rng(1234);
  std::string garbage(256, '\0');
  for (auto& ch : garbage) ch = static_cast<char>(rng());
  RawConnection raw(daemon_->port());
  ASSERT_TRUE(raw.ok());
  raw.send_bytes(garbage);
  raw.shutdown_write();  // whatever length the garbage announced, the frame ends here
  EXPECT_TRUE(raw.wait_closed());
}

TEST_F(Errors, ValidLengthUnparsableMessageClosesOnlyThatConnection) {
  RawConnection raw(daemon_->port());
  ASSERT_TRUE(raw.ok());
  // An 11-byte varint tag never ends: not a protobuf message.
  const std::string body(11, '\xff');
  ASSERT_TRUE(raw.send_bytes(RawConnection::header(static_cast<uint32_t>(body.size())) + body));
  EXPECT_TRUE(raw.wait_closed());
  EXPECT_NE(daemon_->log().find("unparsable"), std::string::npos);
}

TEST_F(Errors, EmptyRequestAndUnknownEncoding) {
  expect_error(Request{}, anim::v1::STATUS_INVALID_ARGUMENT, "no command");
  Request s;
  s.mutable_subscribe()->set_all_characters(true);
  s.mutable_subscribe()->set_encoding(static_cast<anim::v1::Encoding>(7));
  expect_error(s, anim::v1::STATUS_INVALID_ARGUMENT, "subscribe.encoding has an unknown value 7");
}

TEST_F(Errors, CustomAuthToken) {
  start({"--auth-token", "s3cret-token-0123456789"}, "s3cret-token-0123456789");
  Request sp;
  sp.mutable_spawn()->set_asset("builtin");
  auto no_token = call(*client_, sp);
  EXPECT_EQ(no_token.status().code(), anim::v1::STATUS_UNAUTHENTICATED);
  sp.set_auth_token("wrong");
  EXPECT_EQ(call(*client_, sp).status().code(), anim::v1::STATUS_UNAUTHENTICATED);
  sp.set_auth_token("s3cret-token-0123456789");
  EXPECT_EQ(call(*client_, sp).status().code(), anim::v1::STATUS_OK);
  // With a token configured every request needs one, read-only ones included.
  auto list = client_->list_assets();
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().code, anim::v1::STATUS_UNAUTHENTICATED);
  Request stats;
  stats.mutable_stats();
  stats.set_auth_token("wrong-token-but-long-enough");
  EXPECT_EQ(call(*client_, stats).status().code(), anim::v1::STATUS_UNAUTHENTICATED);
}

TEST_F(Errors, CustomLimits) {
  start({"--max-characters", "4", "--max-characters-per-connection", "2",
         "--max-subscriptions-per-connection", "2"});
  // The witness holds one character already.
  ASSERT_TRUE(client_->spawn("builtin"));
  ASSERT_TRUE(client_->spawn("builtin"));
  Request sp;
  sp.mutable_spawn()->set_asset("builtin");
  expect_error(sp, anim::v1::STATUS_RESOURCE_EXHAUSTED, "--max-characters-per-connection");
  auto third = connect_client(*daemon_);
  ASSERT_TRUE(third);
  ASSERT_TRUE(third->spawn("builtin"));
  auto over = third->spawn("builtin");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code, anim::v1::STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(over.error().message.find("--max-characters"), std::string::npos);
  Request sub;
  sub.mutable_subscribe()->set_all_characters(true);
  call_ok(*client_, sub);
  call_ok(*client_, sub);
  expect_error(sub, anim::v1::STATUS_RESOURCE_EXHAUSTED, "--max-subscriptions-per-connection");
}

TEST_F(Errors, CustomRequestRate) {
  start({"--max-requests-per-second", "5"});
  int refused = 0;
  for (int i = 0; i < 30; ++i) {
    Request r;
    r.mutable_list_assets();
    auto reply = call(*client_, r);
    if (reply.status().code() == anim::v1::STATUS_RESOURCE_EXHAUSTED) {
      ++refused;
      EXPECT_NE(reply.status().message().find("--max-requests-per-second"), std::string::npos);
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace errors_test
}  // namespace animtest

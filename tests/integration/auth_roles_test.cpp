// Roles on a real daemon: with tokens configured every command needs one; an observe token
// reads and streams but cannot drive; a control token does everything; repeated wrong
// tokens close the connection; a token file is re-read on SIGHUP.
#include <signal.h>

#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace auth_roles_test {

using anim::v1::Request;

const std::string kControl = "control-secret-0123456789";
const std::string kObserve = "observe-secret-0123456789";

// A request of every command kind (each empty but for what makes it reach the auth check).
std::vector<Request> every_command() {
  std::vector<Request> out;
  const auto* oneof = Request::descriptor()->FindOneofByName("command");
  for (int i = 0; i < oneof->field_count(); ++i) {
    Request r;
    r.GetReflection()->MutableMessage(&r, oneof->field(i));
    out.push_back(r);
  }
  return out;
}

std::string command_of(const Request& r) {
  const auto* oneof = Request::descriptor()->FindOneofByName("command");
  const auto* f = r.GetReflection()->GetOneofFieldDescriptor(r, oneof);
  return f ? f->name() : "none";
}

// A spawned builtin character with a pose (query_pose answers once it has ticked once).
uint32_t spawn_with_pose(animclient::Client& c) {
  auto sp = c.spawn("builtin", "walk");
  EXPECT_TRUE(sp) << sp.error().to_string();
  if (!sp) return 0;
  const uint32_t id = sp->character_id();
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    anim::v1::QueryPoseRequest q;
    q.set_character_id(id);
    if (c.query_pose(q)) break;
    std::this_thread::sleep_for(20ms);
  }
  return id;
}

class AuthRoles : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<DaemonProcess>(std::vector<std::string>{
        "--control-token", kControl, "--observe-token", kObserve, "--max-failed-auth", "3"});
    ANIMD_START(*daemon_);
  }
  void TearDown() override {
    if (daemon_) {
      EXPECT_EQ(daemon_->stop(), 0) << daemon_->log_tail();
    }
  }
  std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(AuthRoles, NoTokenIsUnauthenticatedForEveryCommand) {
  auto anon = connect_client(*daemon_);
  ASSERT_TRUE(anon);
  for (const Request& r : every_command()) {
    auto reply = call(*anon, r);
    EXPECT_EQ(reply.status().code(), anim::v1::STATUS_UNAUTHENTICATED)
        << command_of(r) << ": " << reply.status().message();
    EXPECT_NE(reply.status().message().find("token"), std::string::npos)
        << reply.status().message();
    EXPECT_EQ(reply.result_case(), anim::v1::Reply::RESULT_NOT_SET) << command_of(r);
  }
  // Requests without a token are not "wrong tokens": the connection is still open.
  EXPECT_TRUE(anon->connected());
  auto stats = anon->stats();
  ASSERT_FALSE(stats);
  EXPECT_EQ(stats.error().code, anim::v1::STATUS_UNAUTHENTICATED);
}

TEST_F(AuthRoles, ObserveTokenReadsAndStreamsButCannotDrive) {
  auto control = connect_client(*daemon_, kControl);
  auto observe = connect_client(*daemon_, kObserve);
  ASSERT_TRUE(control && observe);
  const uint32_t id = spawn_with_pose(*control);
  ASSERT_NE(id, 0u);

  auto assets = observe->list_assets();
  ASSERT_TRUE(assets) << assets.error().to_string();
  EXPECT_GE(assets->assets_size(), 1);
  EXPECT_TRUE(observe->get_asset_data("builtin", true)) << "get_asset_data";
  auto chars = observe->list_characters();
  ASSERT_TRUE(chars) << chars.error().to_string();
  EXPECT_EQ(chars->characters_size(), 1);
  EXPECT_TRUE(observe->stats());
  anim::v1::QueryPoseRequest q;
  q.set_character_id(id);
  auto pose = observe->query_pose(q);
  ASSERT_TRUE(pose) << pose.error().to_string();
  EXPECT_GT(pose->joints_size(), 0);

  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(id);
  auto s = observe->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  const uint64_t until = current_tick(*observe) + 3;
  auto frames = collect_frames(*observe, s->subscription_id(), until);
  ASSERT_FALSE(frames.empty());
  EXPECT_GE(frames.rbegin()->first, until);
  EXPECT_EQ(frames.rbegin()->second.characters_size(), 1);
  EXPECT_TRUE(observe->unsubscribe(s->subscription_id()));

  // Driving needs the control role.
  auto expect_denied = [&](Request r) {
    const std::string what = command_of(r);
    auto reply = call(*observe, std::move(r));
    EXPECT_EQ(reply.status().code(), anim::v1::STATUS_PERMISSION_DENIED)
        << what << ": " << reply.status().message();
    EXPECT_NE(reply.status().message().find("control role"), std::string::npos)
        << reply.status().message();
  };
  Request spawn;
  spawn.mutable_spawn()->set_asset("builtin");
  expect_denied(spawn);
  Request play;
  play.mutable_play()->set_character_id(id);
  play.mutable_play()->set_clip("idle");
  expect_denied(play);
  Request despawn;
  despawn.mutable_despawn()->set_character_id(id);
  expect_denied(despawn);
  Request load;
  load.mutable_load_asset()->set_path("anything.glb");
  expect_denied(load);
  Request unload;
  unload.mutable_unload_asset()->set_asset("builtin");
  expect_denied(unload);

  // Nothing changed: the character is still there, the asset still loaded.
  auto after = control->list_characters();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->characters_size(), 1);
  auto assets_after = control->list_assets();
  ASSERT_TRUE(assets_after);
  EXPECT_EQ(assets_after->assets_size(), assets->assets_size());
  // Permission errors are not failed logins: the observer is still connected.
  EXPECT_TRUE(observe->connected());
}

TEST_F(AuthRoles, ControlTokenDoesEverything) {
  auto control = connect_client(*daemon_, kControl);
  ASSERT_TRUE(control);
  const uint32_t id = spawn_with_pose(*control);
  ASSERT_NE(id, 0u);
  EXPECT_TRUE(control->play(id, "idle"));
  EXPECT_TRUE(control->set_speed(id, 0.5f));
  anim::v1::QueryPoseRequest q;
  q.set_character_id(id);
  EXPECT_TRUE(control->query_pose(q));
  anim::v1::SubscribeRequest sub;
  sub.set_all_characters(true);
  auto s = control->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_TRUE(control->unsubscribe(s->subscription_id()));
  EXPECT_TRUE(control->despawn(id));
  Request unload;
  unload.mutable_unload_asset()->set_asset("builtin");
  auto reply = call_ok(*control, unload);
  EXPECT_TRUE(control->stats());
}

TEST_F(AuthRoles, RepeatedWrongTokensCloseTheConnectionOnly) {
  auto bystander = connect_client(*daemon_, kObserve);
  ASSERT_TRUE(bystander);
  RawConnection raw(daemon_->port());
  ASSERT_TRUE(raw.ok());
  Request r;
  r.mutable_list_assets();
  r.set_auth_token("not-the-token-at-all-0123");
  // Two wrong tokens: answered, connection open.
  for (int i = 1; i <= 2; ++i) {
    r.set_request_id(i);
    ASSERT_TRUE(raw.send_request(r));
    auto m = raw.read_message();
    ASSERT_TRUE(m && m->has_reply()) << "wrong token " << i << "\n" << daemon_->log_tail();
    EXPECT_EQ(m->reply().status().code(), anim::v1::STATUS_UNAUTHENTICATED);
    EXPECT_NE(m->reply().status().message().find("not a valid token"), std::string::npos)
        << m->reply().status().message();
  }
  // The third closes it.
  r.set_request_id(3);
  ASSERT_TRUE(raw.send_request(r));
  EXPECT_TRUE(raw.wait_closed()) << daemon_->log_tail();
  EXPECT_NE(daemon_->log().find("--max-failed-auth"), std::string::npos) << daemon_->log_tail();
  // Another client is unaffected.
  auto list = bystander->list_assets();
  EXPECT_TRUE(list) << list.error().to_string();
  EXPECT_TRUE(bystander->connected());
}

TEST_F(AuthRoles, WrongTokensAfterAGoodOneStillCount) {
  // A connection that authenticated once cannot then guess tokens freely.
  auto c = connect_client(*daemon_, kObserve);
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->stats());
  Request r;
  r.mutable_stats();
  r.set_auth_token("guess-guess-guess-guess");
  for (int i = 0; i < 3; ++i) {
    auto reply = c->call(r, kWait);
    if (!reply) break;  // the third may be answered or cut off by the close
    EXPECT_EQ(reply->status().code(), anim::v1::STATUS_UNAUTHENTICATED);
  }
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (c->connected() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(c->connected()) << daemon_->log_tail();
}

// With tokens, a request without a valid one does not make the connection trusted: a big
// frame still closes it (memory stays bounded for whoever cannot authenticate).
TEST_F(AuthRoles, UnauthenticatedRequestsDoNotLiftThePreauthFrameLimit) {
  RawConnection raw(daemon_->port());
  ASSERT_TRUE(raw.ok());
  Request r;
  r.set_request_id(1);
  r.mutable_list_assets();
  ASSERT_TRUE(raw.send_request(r));
  auto m = raw.read_message();
  ASSERT_TRUE(m && m->has_reply());
  EXPECT_EQ(m->reply().status().code(), anim::v1::STATUS_UNAUTHENTICATED);
  ASSERT_TRUE(raw.send_bytes(RawConnection::header(100000)));
  EXPECT_TRUE(raw.wait_closed()) << daemon_->log_tail();
  EXPECT_NE(daemon_->log().find("--max-preauth-frame-bytes"), std::string::npos)
      << daemon_->log_tail();

  // With a valid token the same frame is read (an upload that is not glTF: an error reply).
  RawConnection ok(daemon_->port());
  ASSERT_TRUE(ok.ok());
  r.set_auth_token(kObserve);
  ASSERT_TRUE(ok.send_request(r));
  m = ok.read_message();
  ASSERT_TRUE(m && m->has_reply());
  EXPECT_EQ(m->reply().status().code(), anim::v1::STATUS_OK);
  Request load;
  load.set_request_id(2);
  load.set_auth_token(kControl);
  load.mutable_load_asset()->set_name("junk");
  load.mutable_load_asset()->set_glb_data(std::string(100000, 'j'));
  ASSERT_TRUE(ok.send_request(load));
  m = ok.read_message();
  ASSERT_TRUE(m && m->has_reply()) << daemon_->log_tail();
  EXPECT_EQ(m->reply().request_id(), 2u);
  EXPECT_NE(m->reply().status().code(), anim::v1::STATUS_OK);
}

// --token-file re-read on SIGHUP: the new token works, the removed one does not.
TEST(AuthTokenFile, ReloadOnSighup) {
  TempDir dir("animd-tokens");
  const auto file = dir.path() / "tokens";
  const std::string old_token = "old-control-token-0123456789";
  const std::string new_token = "new-control-token-9876543210";
  std::ofstream(file) << "# test tokens\ncontrol " << old_token << "\n";
  DaemonProcess daemon({"--token-file", file.string()});
  ANIMD_START(daemon);
  {
    auto c = connect_client(daemon, old_token);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->stats());
    auto n = connect_client(daemon, new_token);
    ASSERT_TRUE(n);
    auto s = n->stats();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, anim::v1::STATUS_UNAUTHENTICATED);
  }

  // A bad file keeps the old tokens in force.
  std::ofstream(file) << "control " << new_token << " trailing-word\n";
  ASSERT_EQ(::kill(daemon.pid(), SIGHUP), 0);
  {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (daemon.log().find("tokens not reloaded") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(50ms);
    EXPECT_NE(daemon.log().find("line 1"), std::string::npos) << daemon.log_tail();
    auto c = connect_client(daemon, old_token);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->stats());
  }

  // A good file replaces them.
  std::ofstream(file) << "control " << new_token << "\n";
  ASSERT_EQ(::kill(daemon.pid(), SIGHUP), 0);
  bool switched = false;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!switched && std::chrono::steady_clock::now() < deadline) {
    auto n = connect_client(daemon, new_token);
    ASSERT_TRUE(n);
    switched = n->stats().ok();
    if (!switched) std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(switched) << daemon.log_tail();
  auto old = connect_client(daemon, old_token);
  ASSERT_TRUE(old);
  auto s = old->stats();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, anim::v1::STATUS_UNAUTHENTICATED);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace auth_roles_test
}  // namespace animtest

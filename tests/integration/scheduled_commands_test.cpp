// Request.at_tick through the real daemon: commands scheduled for one tick take effect at
// that tick (their replies say so) and in the order they were sent; a past tick, one too far
// ahead, tick 0 and a command the tick does not answer are refused naming the reason; and a
// connection's later replies wait for its scheduled one (replies keep request order).
#include <signal.h>

#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "integration_support.h"
#include "send_async.h"

namespace animtest {
namespace scheduled_commands_test {

using anim::v1::Request;

Request at(Request r, uint64_t tick) {
  r.set_at_tick(tick);
  return r;
}

Request spawn_walker() {
  Request r;
  r.mutable_spawn()->set_asset("builtin");
  r.mutable_spawn()->set_clip("walk");
  return r;
}

Request play(uint32_t id, const std::string& clip) {
  Request r;
  r.mutable_play()->set_character_id(id);
  r.mutable_play()->set_clip(clip);
  return r;
}

TEST(ScheduledCommands, TakeEffectAtTheirTickInTheOrderSent) {
  DaemonProcess daemon({"--max-schedule-ahead-ticks", "300"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  const uint32_t id = call_ok(*client, spawn_walker()).spawn().character_id();

  const auto before = client->stats();
  ASSERT_TRUE(before.ok());
  const uint64_t target = before->tick() + 40;
  // Sent together: two plays for one tick (the second wins), then a list that is not
  // scheduled (its reply waits for theirs: request order).
  auto first = send_async(*client, at(play(id, "run"), target));
  auto second = send_async(*client, at(play(id, "idle"), target));
  Request list;
  list.mutable_list_characters();
  auto listed = send_async(*client, list);
  const auto r1 = first.get(), r2 = second.get(), r3 = listed.get();
  ASSERT_EQ(r1.status().code(), anim::v1::STATUS_OK) << r1.status().message();
  ASSERT_EQ(r2.status().code(), anim::v1::STATUS_OK) << r2.status().message();
  // At their tick; when the daemon was late and skipped its number, at the next tick it ran.
  const auto after = client->stats();
  ASSERT_TRUE(after.ok());
  if (after->ticks_skipped() == before->ticks_skipped())
    EXPECT_EQ(r1.tick(), target);
  else
    EXPECT_GE(r1.tick(), target);
  EXPECT_EQ(r2.tick(), r1.tick());
  EXPECT_LT(r3.tick(), target);  // applied at an earlier tick, answered after
  ASSERT_TRUE(r3.has_list_characters());
  // At the target tick the character plays idle (the second play, applied after the first).
  const auto now = call_ok(*client, list);
  for (const auto& c : now.list_characters().characters())
    if (c.character_id() == id) {
      EXPECT_EQ(c.clip(), "idle");
    }

  const uint64_t tick = current_tick(*client);
  auto past = call(*client, at(play(id, "walk"), tick - 5));
  EXPECT_EQ(past.status().code(), anim::v1::STATUS_FAILED_PRECONDITION);
  EXPECT_NE(past.status().message().find("at_tick " + std::to_string(tick - 5) + " is past"),
            std::string::npos)
      << past.status().message();
  auto far = call(*client, at(play(id, "walk"), tick + 100000));
  EXPECT_EQ(far.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(far.status().message().find("--max-schedule-ahead-ticks is 300"), std::string::npos)
      << far.status().message();
  auto zero = call(*client, at(play(id, "walk"), 0));
  EXPECT_EQ(zero.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(zero.status().message().find("at_tick: 0 is no tick"), std::string::npos);
  Request query;
  query.mutable_query_pose()->set_character_id(id);
  auto off_tick = call(*client, at(query, tick + 10));
  EXPECT_EQ(off_tick.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(off_tick.status().message().find("at_tick: query_pose is not answered by the tick"),
            std::string::npos)
      << off_tick.status().message();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(ScheduledCommands, ADaemonStoppingAnswersWhatWaits) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  const uint64_t later = current_tick(*client) + 550;
  auto waiting = send_async(*client, at(spawn_walker(), later));
  // Give the request time to reach the tick and be kept, then stop the daemon. (Watched on
  // another connection: this one's replies wait behind the scheduled one.)
  auto watcher = connect_client(daemon);
  ASSERT_TRUE(watcher);
  const uint64_t from = current_tick(*watcher);
  while (current_tick(*watcher) < from + 5)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(::kill(daemon.pid(), SIGTERM), 0);
  const auto reply = waiting.get();
  EXPECT_EQ(reply.status().code(), anim::v1::STATUS_UNAVAILABLE) << reply.status().message();
  EXPECT_EQ(reply.tick(), 0u);
  // The SIGTERM above stops it: a second one (stop()) could reach a process whose signal
  // handling is already gone and kill it.
  EXPECT_EQ(daemon.wait_exit(std::chrono::seconds(20)), 0) << daemon.log_tail();
}

}  // namespace scheduled_commands_test
}  // namespace animtest

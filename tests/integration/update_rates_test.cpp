// Update rates through the real daemon (docs/animation.md, "Update rates"): under a budget
// the characters nobody watches are updated less often (stats and list_characters say how
// often); a watched character whose significance is set to 0 is interpolated between its
// evaluations, and query_pose at every streamed tick gives the palette the stream carried, bit
// for bit; setting it back to 1 gives it every tick again; bad requests are refused and change
// nothing. The budget is far below what 200 characters take on any machine, so the allocator
// is under pressure whatever the host's speed (no timing decides the test's outcome).
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace update_rates_test {

using anim::v1::Request;

Request significance(uint32_t id, float value, bool clear = false) {
  Request r;
  r.mutable_set_significance()->add_character_ids(id);
  r.mutable_set_significance()->set_significance(value);
  r.mutable_set_significance()->set_clear(clear);
  return r;
}

uint32_t interval_of(animclient::Client& c, uint32_t id) {
  const auto ch = listed_character(c, id);
  return ch ? ch->update_interval() : 0;
}

// Waits (bounded) until `id`'s interval satisfies `ok`.
template <class Pred>
bool wait_interval(animclient::Client& c, uint32_t id, Pred ok) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ok(interval_of(c, id))) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(UpdateRates, ABudgetSlowsTheUnwatchedAndQueriesMatchTheInterpolatedStream) {
  DaemonProcess daemon({"--anim-budget-ms", "0.1", "--max-update-interval", "4"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 200; ++i) {
    auto sp = client->spawn("builtin", i % 2 ? "walk" : "run");
    ASSERT_TRUE(sp) << sp.error().to_string();
    ids.push_back(sp->character_id());
  }
  const uint32_t watched = ids[7];
  ASSERT_TRUE(wait_interval(*client, ids[3], [](uint32_t n) { return n > 1; }))
      << "nobody watches character " << ids[3] << ", yet it is evaluated every tick";
  auto stats = client->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_GT(stats->anim_pressure(), 0.0f);
  EXPECT_NEAR(stats->anim_budget_ms(), 0.1, 1e-9);
  ASSERT_EQ(stats->update_intervals_size(), 4);
  uint32_t counted = 0;
  for (uint32_t n : stats->update_intervals()) counted += n;
  EXPECT_EQ(counted, 200u);
  EXPECT_LT(stats->update_intervals(0), 200u);

  // Watched by id: significance 1, every tick.
  anim::v1::SubscribeRequest sub;
  sub.add_character_ids(watched);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_TRUE(wait_interval(*client, watched, [](uint32_t n) { return n == 1; }));
  // Set to 0: updated at the budget's rate although streamed, the ticks between interpolated.
  call_ok(*client, significance(watched, 0.0f));
  ASSERT_TRUE(wait_interval(*client, watched, [](uint32_t n) { return n > 1; }));
  const uint64_t from = current_tick(*client);
  auto frames = collect_frames(*client, s->subscription_id(), from + 24);
  ASSERT_GE(frames.size(), 12u);
  EXPECT_GE(expect_history_matches_stream(*client, watched, frames), 12);
  // It moves at every tick it is streamed, evaluated or not.
  int moved = 0, pairs = 0;
  for (auto it = std::next(frames.begin()); it != frames.end(); ++it) {
    const auto& a = std::prev(it)->second.characters(0).palette();
    const auto& b = it->second.characters(0).palette();
    if (a.size() != b.size()) continue;
    ++pairs;
    moved += std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size())) != 0;
  }
  EXPECT_EQ(moved, pairs);

  // Back to 1: every tick again.
  call_ok(*client, significance(watched, 1.0f));
  ASSERT_TRUE(wait_interval(*client, watched, [](uint32_t n) { return n == 1; }));

  // Refusals change nothing.
  auto bad = call(*client, significance(watched, 1.5f));
  EXPECT_EQ(bad.status().code(), anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(bad.status().message().find("set_significance.significance"), std::string::npos)
      << bad.status().message();
  Request unknown = significance(watched, 0.0f);
  unknown.mutable_set_significance()->add_character_ids(999999);
  auto refused = call(*client, unknown);
  EXPECT_EQ(refused.status().code(), anim::v1::STATUS_NOT_FOUND);
  EXPECT_NE(refused.status().message().find("set_significance.character_ids[1]"), std::string::npos)
      << refused.status().message();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(interval_of(*client, watched), 1u) << "a refused request changed the character";
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(UpdateRates, UnlimitedEvaluatesEveryCharacterEveryTick) {
  DaemonProcess daemon({"--anim-budget-ms", "unlimited"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(client->spawn("builtin", "walk"));
  std::this_thread::sleep_for(300ms);
  auto stats = client->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->anim_budget_ms(), 0.0);  // unlimited
  EXPECT_EQ(stats->anim_pressure(), 0.0f);
  ASSERT_GE(stats->update_intervals_size(), 1);
  EXPECT_EQ(stats->update_intervals(0), 50u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// With --anim-cost-us the allocator plans from that cost, not from how fast this host runs:
// unwatched characters (significance 0, priced at their bucket's 1/64) whose fixed cost
// exceeds the budget at intervals 1 and 2 (an interval-k character costs 1/k of an evaluation
// plus a tenth of the rest) but fits it at 3, which the pressure grid first gives at 2.25
// (1 + floor(p x 63/64) = 3). Their real updates cost a tiny fraction of the fixed cost, so a
// learnt cost would leave them at interval 1.
TEST(UpdateRates, AFixedCostGivesTheSamePressureOnAnyHost) {
  DaemonProcess daemon({"--anim-budget-ms", "10", "--anim-cost-us", "1000"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 20; ++i) {
    auto sp = client->spawn("builtin", "walk");
    ASSERT_TRUE(sp) << sp.error().to_string();
    ids.push_back(sp->character_id());
  }
  // The characters are alike: once one is at interval 3, all are.
  ASSERT_TRUE(wait_interval(*client, ids.back(), [](uint32_t n) { return n == 3; }))
      << "character " << ids.back() << " is at interval " << interval_of(*client, ids.back());
  for (uint32_t id : ids) EXPECT_EQ(interval_of(*client, id), 3u) << "character " << id;
  auto stats = client->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->anim_pressure(), 2.25f);
  EXPECT_EQ(stats->anim_budget_ms(), 10.0);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace update_rates_test
}  // namespace animtest

// Streaming: frames per tick, rate divisor, despawn notices; slow, vanishing and many
// clients never disturb the others; SIGTERM while streaming exits cleanly.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include "integration_support.h"

namespace animtest {
namespace streaming_test {

using anim::v1::Request;

TEST(Streaming, FramesListingStatsDivisorAndDespawn) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto assets = client->list_assets();
  ASSERT_TRUE(assets) << assets.error().to_string();
  ASSERT_EQ(assets->assets_size(), 1);
  EXPECT_EQ(assets->assets(0).name(), "builtin");
  EXPECT_EQ(assets->assets(0).num_joints(), 22u);

  auto a = client->spawn("builtin", "walk");
  auto b = client->spawn("builtin", "wave");
  ASSERT_TRUE(a && b);
  EXPECT_GT(b->character_id(), a->character_id());

  anim::v1::SubscribeRequest sub;
  sub.set_all_characters(true);
  sub.set_rate_divisor(2);
  auto s = client->subscribe(sub);
  ASSERT_TRUE(s) << s.error().to_string();
  auto frames = collect_frames(*client, s->subscription_id(), current_tick(*client) + 12);
  ASSERT_GE(frames.size(), 3u);
  uint64_t prev = 0;
  for (const auto& [tick, f] : frames) {
    if (prev) {
      // Every other tick (a frame may be dropped on an overloaded machine, never an odd one).
      EXPECT_EQ((tick - prev) % 2, 0u) << "rate_divisor 2 sends every other tick";
      EXPECT_GT(tick, prev);
    }
    prev = tick;
    ASSERT_EQ(f.characters_size(), 2);
    EXPECT_EQ(f.characters(0).character_id(), a->character_id());
    EXPECT_EQ(f.characters(0).asset(), "builtin");
    EXPECT_EQ(f.characters(0).palette_size(), 22 * 12);
    EXPECT_GT(f.server_time(), 0.0);
  }

  Request despawn;
  despawn.mutable_despawn()->set_character_id(a->character_id());
  const uint64_t gone = call_ok(*client, despawn).tick();
  bool reported = false;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!reported && std::chrono::steady_clock::now() < deadline) {
    auto f = client->next_frame(1000ms);
    if (!f || f->tick() < gone) continue;
    for (uint32_t id : f->despawned()) reported |= id == a->character_id();
    EXPECT_EQ(f->characters_size(), 1);
  }
  EXPECT_TRUE(reported);

  auto stats = client->stats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->characters(), 1u);
  EXPECT_EQ(stats->sessions(), 1u);
  EXPECT_EQ(stats->subscriptions(), 1u);
  EXPECT_EQ(stats->assets(), 1u);
  EXPECT_DOUBLE_EQ(stats->tick_rate_hz(), 60.0);
  EXPECT_GT(stats->stream_frames_sent(), 0u);
  EXPECT_GT(stats->bytes_in(), 0u);
  EXPECT_GT(stats->tick_time_max_us(), 0.0);
  EXPECT_GE(stats->tick_time_p99_us(), stats->tick_time_p50_us());
  EXPECT_GT(stats->worker_threads(), 0u);
  // Unsubscribe stops the stream.
  ASSERT_TRUE(client->unsubscribe(s->subscription_id()));
  EXPECT_EQ(client->stats()->subscriptions(), 0u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Streaming, ClientThatNeverReadsDoesNotStallOthers) {
  // 40 characters make ~45 KB frames, so the silent client's socket buffers and its
  // 64 KiB queue fill within seconds.
  DaemonProcess daemon({"--spawn-builtin", "40", "--max-queued-bytes", "65536"});
  ANIMD_START(daemon);
  RawConnection silent(daemon.port(), /*rcvbuf=*/4096);
  ASSERT_TRUE(silent.ok());
  Request sub_all;
  sub_all.set_request_id(1);
  sub_all.mutable_subscribe()->set_all_characters(true);
  ASSERT_TRUE(silent.send_request(sub_all));

  auto witness = connect_client(daemon);
  ASSERT_TRUE(witness);
  anim::v1::SubscribeRequest one;
  one.add_character_ids(1);
  auto s = witness->subscribe(one);
  ASSERT_TRUE(s) << s.error().to_string();
  const uint64_t from = current_tick(*witness);
  auto frames = collect_frames(*witness, s->subscription_id(), from + 120);
  EXPECT_GE(frames.rbegin()->first, from + 120);
  uint64_t prev = 0;
  for (const auto& [tick, f] : frames) {
    EXPECT_GT(tick, prev);
    prev = tick;
  }
  // The daemon drops the silent client's oldest frames instead of buffering without bound.
  uint64_t dropped = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (dropped == 0 && std::chrono::steady_clock::now() < deadline) {
    dropped = witness->stats()->stream_frames_dropped();
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_GT(dropped, 0u);
  // Still serving: the witness keeps getting fresh frames.
  const uint64_t now = current_tick(*witness);
  auto more = collect_frames(*witness, s->subscription_id(), now + 10);
  EXPECT_GE(more.rbegin()->first, now + 10);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Streaming, ClientThatIgnoresRepliesIsDisconnected) {
  DaemonProcess daemon({"--max-queued-bytes", "65536"});
  ANIMD_START(daemon);
  RawConnection greedy(daemon.port(), /*rcvbuf=*/4096);
  ASSERT_TRUE(greedy.ok());
  // get_asset_data replies (~100 KB each with the mesh) that are never read.
  Request r;
  r.mutable_get_asset_data()->set_asset("builtin");
  bool sent = true;
  for (int i = 0; i < 200 && sent; ++i) sent = greedy.send_request(r);
  EXPECT_TRUE(greedy.wait_closed());
  EXPECT_NE(daemon.log().find("does not read its replies"), std::string::npos) << daemon.log_tail();
  auto witness = connect_client(daemon);
  ASSERT_TRUE(witness);
  EXPECT_TRUE(witness->list_assets());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Streaming, ClientDisconnectingMidStreamDoesNotDisturbOthers) {
  DaemonProcess daemon({"--spawn-builtin", "5"});
  ANIMD_START(daemon);
  auto witness = connect_client(daemon);
  ASSERT_TRUE(witness);
  anim::v1::SubscribeRequest all;
  all.set_all_characters(true);
  auto ws = witness->subscribe(all);
  ASSERT_TRUE(ws);
  for (int round = 0; round < 3; ++round) {
    {
      auto leaver = connect_client(daemon);
      ASSERT_TRUE(leaver);
      auto ls = leaver->subscribe(all);
      ASSERT_TRUE(ls);
      auto got = collect_frames(*leaver, ls->subscription_id(), current_tick(*leaver) + 3);
      EXPECT_FALSE(got.empty());
    }  // closed while frames are flowing
    {
      // An abortive close (RST) with unread frames pending.
      RawConnection raw(daemon.port());
      Request r;
      r.set_request_id(5);
      r.mutable_subscribe()->set_all_characters(true);
      ASSERT_TRUE(raw.send_request(r));
      ASSERT_TRUE(raw.read_message());  // the reply: the stream starts
      raw.abort();
    }
  }
  const uint64_t now = current_tick(*witness);
  auto frames = collect_frames(*witness, ws->subscription_id(), now + 30);
  EXPECT_GE(frames.rbegin()->first, now + 30);
  // The departed sessions are gone.
  uint32_t sessions = 0;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  do {
    sessions = witness->stats()->sessions();
    if (sessions == 1) break;
    std::this_thread::sleep_for(50ms);
  } while (std::chrono::steady_clock::now() < deadline);
  EXPECT_EQ(sessions, 1u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Streaming, HundredConcurrentConnectionsAllGetFrames) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  constexpr int kClients = 100;
  std::vector<std::unique_ptr<animclient::Client>> clients;
  std::vector<uint32_t> subs;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(connect_client(daemon));
    ASSERT_TRUE(clients.back()) << "client " << i;
  }
  // Each spawns and subscribes from its own thread, all at once.
  std::vector<std::thread> threads;
  std::vector<int> ok(kClients, 0);
  subs.resize(kClients);
  for (int i = 0; i < kClients; ++i)
    threads.emplace_back([&, i] {
      auto sp = clients[i]->spawn("builtin", i % 2 ? "walk" : "run");
      if (!sp) return;
      anim::v1::SubscribeRequest s;
      s.add_character_ids(sp->character_id());
      auto r = clients[i]->subscribe(s);
      if (!r) return;
      subs[i] = r->subscription_id();
      int frames = 0;
      uint64_t prev = 0;
      const auto deadline = std::chrono::steady_clock::now() + kWait;
      while (frames < 5 && std::chrono::steady_clock::now() < deadline) {
        auto f = clients[i]->next_frame(1000ms);
        if (!f || f->tick() <= prev || f->characters_size() != 1 ||
            f->characters(0).character_id() != sp->character_id())
          continue;
        prev = f->tick();
        ++frames;
      }
      ok[i] = frames >= 5;
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kClients; ++i) EXPECT_TRUE(ok[i]) << "client " << i;
  auto stats = clients[0]->stats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->characters(), static_cast<uint32_t>(kClients));
  EXPECT_EQ(stats->sessions(), static_cast<uint32_t>(kClients));
  clients.clear();
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(Streaming, SigtermWhileStreamingExitsCleanly) {
  DaemonProcess daemon({"--spawn-builtin", "20"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  anim::v1::SubscribeRequest all;
  all.set_all_characters(true);
  auto s = client->subscribe(all);
  ASSERT_TRUE(s);
  auto frames = collect_frames(*client, s->subscription_id(), current_tick(*client) + 10);
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
  EXPECT_NE(daemon.log().find("animd stopped"), std::string::npos) << daemon.log_tail();
  // The client sees the connection end.
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (client->connected() && std::chrono::steady_clock::now() < deadline)
    client->next_frame(100ms);
  EXPECT_FALSE(client->connected());
}

}  // namespace streaming_test
}  // namespace animtest

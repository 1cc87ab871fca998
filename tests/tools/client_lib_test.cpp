// libanimclient against a scripted loopback peer: reply matching, timeouts, disconnects,
// protocol violations and stream frame delivery.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "animclient/client.h"
#include "scripted_peer.h"

namespace client_lib_test {

using animclient::Client;
using animclient::ClientOptions;
using animclient::Error;
using animtest::ScriptedPeer;
using namespace std::chrono_literals;

ClientOptions options_for(uint16_t port) {
  ClientOptions options;
  options.host = "127.0.0.1";
  options.port = port;
  options.request_timeout = 10s;  // generous: only the timeout test relies on expiry
  return options;
}

std::unique_ptr<Client> connect_or_fail(const ClientOptions& options) {
  auto client = Client::connect(options);
  EXPECT_TRUE(client.ok()) << (client.ok() ? "" : client.error().to_string());
  return client.ok() ? std::move(client.value()) : nullptr;
}

TEST(ClientLib, ConnectRefusedNamesHostAndPort) {
  // Take a free port, then close it so nothing listens there.
  uint16_t port = 0;
  {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    port = acceptor.local_endpoint().port();
  }
  auto client = Client::connect(options_for(port));
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().kind, Error::Kind::kConnect);
  EXPECT_EQ(client.error().to_string(),
            "connect 127.0.0.1:" + std::to_string(port) + ": Connection refused");
}

TEST(ClientLib, OutOfOrderRepliesReachTheirCallers) {
  constexpr int kCallers = 6;
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    std::vector<anim::v1::Request> requests;
    for (int i = 0; i < kCallers; ++i) {
      auto request = ScriptedPeer::read_request(socket);
      ASSERT_TRUE(request.has_value());
      requests.push_back(*request);
    }
    // Answer newest first, echoing the asked-for asset name so each caller can check.
    std::reverse(requests.begin(), requests.end());
    for (const auto& request : requests) {
      auto reply = ScriptedPeer::ok_reply(request.request_id());
      reply.mutable_reply()->mutable_get_asset_data()->mutable_info()->set_name(
          request.get_asset_data().asset());
      ASSERT_TRUE(ScriptedPeer::write_message(socket, reply));
    }
    ScriptedPeer::wait_for_close(socket);
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);

  std::vector<std::string> got(kCallers);
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] {
      auto reply = client->get_asset_data("asset" + std::to_string(i), true);
      got[i] = reply.ok() ? reply->info().name() : reply.error().to_string();
    });
  }
  for (auto& t : callers) t.join();
  for (int i = 0; i < kCallers; ++i) EXPECT_EQ(got[i], "asset" + std::to_string(i));
  EXPECT_EQ(client->counters().replies_received, static_cast<uint64_t>(kCallers));
}

TEST(ClientLib, RequestIdsAreDistinctAndTokenIsFilled) {
  std::vector<uint64_t> ids;
  std::vector<std::string> tokens;
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    for (int i = 0; i < 3; ++i) {
      auto request = ScriptedPeer::read_request(socket);
      ASSERT_TRUE(request.has_value());
      ids.push_back(request->request_id());
      tokens.push_back(request->auth_token());
      auto reply = ScriptedPeer::ok_reply(request->request_id());
      reply.mutable_reply()->mutable_stats()->set_tick(100 + i);
      ASSERT_TRUE(ScriptedPeer::write_message(socket, reply));
    }
    ScriptedPeer::wait_for_close(socket);
  });
  auto options = options_for(peer.port());
  options.auth_token = "secret";
  auto client = connect_or_fail(options);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->stats().ok());
  ASSERT_TRUE(client->stats().ok());
  anim::v1::Request own_token;
  own_token.set_auth_token("mine");
  own_token.mutable_stats();
  auto third = client->call(own_token);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->stats().tick(), 102u);
  client.reset();  // lets the peer's wait_for_close end before we read what it saw

  ASSERT_EQ(ids.size(), 3u);
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_NE(ids[1], ids[2]);
  EXPECT_NE(ids[0], 0u);
  EXPECT_EQ(tokens, (std::vector<std::string>{"secret", "secret", "mine"}));
}

TEST(ClientLib, ServerStatusIsAValueForCallAndAnErrorForTypedHelpers) {
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    for (int i = 0; i < 2; ++i) {
      auto request = ScriptedPeer::read_request(socket);
      ASSERT_TRUE(request.has_value());
      anim::v1::ServerMessage reply;
      reply.mutable_reply()->set_request_id(request->request_id());
      reply.mutable_reply()->mutable_status()->set_code(anim::v1::STATUS_NOT_FOUND);
      reply.mutable_reply()->mutable_status()->set_message("unknown character 42");
      ASSERT_TRUE(ScriptedPeer::write_message(socket, reply));
    }
    ScriptedPeer::wait_for_close(socket);
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);

  anim::v1::Request request;
  request.mutable_despawn()->set_character_id(42);
  auto raw = client->call(request);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->status().code(), anim::v1::STATUS_NOT_FOUND);

  auto typed = client->despawn(42);
  ASSERT_FALSE(typed.ok());
  EXPECT_EQ(typed.error().kind, Error::Kind::kServer);
  EXPECT_EQ(typed.error().code, anim::v1::STATUS_NOT_FOUND);
  EXPECT_EQ(typed.error().to_string(), "NOT_FOUND: unknown character 42");
}

TEST(ClientLib, OkReplyWithoutItsResultIsAProtocolError) {
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    auto request = ScriptedPeer::read_request(socket);
    ASSERT_TRUE(request.has_value());
    ASSERT_TRUE(ScriptedPeer::write_message(socket, ScriptedPeer::ok_reply(request->request_id())));
    ScriptedPeer::wait_for_close(socket);
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);
  auto spawned = client->spawn("builtin");
  ASSERT_FALSE(spawned.ok());
  EXPECT_EQ(spawned.error().kind, Error::Kind::kProtocol);
  EXPECT_NE(spawned.error().message.find("spawn"), std::string::npos);
  EXPECT_TRUE(client->connected());  // a missing result does not break the connection
}

TEST(ClientLib, TimeoutThenLateReplyIsIgnored) {
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    auto first = ScriptedPeer::read_request(socket);
    ASSERT_TRUE(first.has_value());
    // Stay silent until the second request shows the client gave up on the first.
    auto second = ScriptedPeer::read_request(socket);
    ASSERT_TRUE(second.has_value());
    auto late = ScriptedPeer::ok_reply(first->request_id());
    late.mutable_reply()->mutable_stats()->set_tick(1);
    ASSERT_TRUE(ScriptedPeer::write_message(socket, late));
    auto answer = ScriptedPeer::ok_reply(second->request_id());
    answer.mutable_reply()->mutable_stats()->set_tick(2);
    ASSERT_TRUE(ScriptedPeer::write_message(socket, answer));
    ScriptedPeer::wait_for_close(socket);
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);

  anim::v1::Request request;
  request.mutable_stats();
  auto timed_out = client->call(request, 50ms);
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(timed_out.error().kind, Error::Kind::kTimeout);
  EXPECT_EQ(timed_out.error().to_string(), "timeout: no reply to stats within 50 ms");

  auto stats = client->stats();
  ASSERT_TRUE(stats.ok()) << stats.error().to_string();
  EXPECT_EQ(stats->tick(), 2u);
  EXPECT_TRUE(client->connected());
}

TEST(ClientLib, ServerCloseFailsPendingAndLaterCalls) {
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    ASSERT_TRUE(ScriptedPeer::read_request(socket).has_value());
    // Return without answering: the connection closes under the waiting call.
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);

  auto pending = client->stats();
  ASSERT_FALSE(pending.ok());
  EXPECT_EQ(pending.error().kind, Error::Kind::kDisconnected);
  EXPECT_NE(pending.error().message.find("closed the connection"), std::string::npos)
      << pending.error().message;
  EXPECT_FALSE(client->connected());

  auto later = client->list_assets();
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().kind, Error::Kind::kDisconnected);
  EXPECT_FALSE(client->next_frame(0ms).has_value());
}

TEST(ClientLib, OversizedFrameIsAProtocolErrorAndCloses) {
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    ASSERT_TRUE(ScriptedPeer::read_request(socket).has_value());
    // Announce 2,000 bytes against a 1,000-byte limit; the client must not wait for them.
    ScriptedPeer::write_raw(socket, 2000, "");
    ScriptedPeer::wait_for_close(socket);
  });
  auto options = options_for(peer.port());
  options.max_incoming_frame_bytes = 1000;
  auto client = connect_or_fail(options);
  ASSERT_TRUE(client);

  auto result = client->stats();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, Error::Kind::kProtocol);
  EXPECT_EQ(result.error().to_string(),
            "protocol: server sent a frame of 2000 bytes, over the limit of 1000 bytes");
  EXPECT_FALSE(client->connected());
  auto after = client->stats();
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().kind, Error::Kind::kDisconnected);
  EXPECT_NE(after.error().message.find("over the limit"), std::string::npos);
}

TEST(ClientLib, GarbageFrameIsAProtocolErrorAndCloses) {
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    ASSERT_TRUE(ScriptedPeer::read_request(socket).has_value());
    // 0xff bytes: a field tag whose varint never ends, which no protobuf parser accepts.
    ScriptedPeer::write_raw(socket, 8, std::string(8, '\xff'));
    ScriptedPeer::wait_for_close(socket);
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);

  auto result = client->stats();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, Error::Kind::kProtocol);
  EXPECT_NE(result.error().message.find("does not parse"), std::string::npos);
  EXPECT_FALSE(client->connected());
}

// Sends `count` frames with ticks 1..count, then answers one stats request: frames and
// replies travel in order, so once the call returns every frame has been handled.
ScriptedPeer::Script frames_then_reply(int count) {
  return [count](ScriptedPeer::Socket& socket) {
    auto request = ScriptedPeer::read_request(socket);
    ASSERT_TRUE(request.has_value());
    for (int tick = 1; tick <= count; ++tick)
      ASSERT_TRUE(ScriptedPeer::write_message(socket, ScriptedPeer::frame(tick)));
    ASSERT_TRUE(ScriptedPeer::write_message(socket, [&] {
      auto reply = ScriptedPeer::ok_reply(request->request_id());
      reply.mutable_reply()->mutable_stats();
      return reply;
    }()));
    ScriptedPeer::wait_for_close(socket);
  };
}

TEST(ClientLib, FullQueueDropsOldestFrames) {
  ScriptedPeer peer(frames_then_reply(5));
  auto options = options_for(peer.port());
  options.frame_queue_capacity = 3;
  auto client = connect_or_fail(options);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->stats().ok());

  std::vector<uint64_t> ticks;
  while (auto frame = client->next_frame(0ms)) ticks.push_back(frame->tick());
  EXPECT_EQ(ticks, (std::vector<uint64_t>{3, 4, 5}));
  const auto counters = client->counters();
  EXPECT_EQ(counters.frames_received, 5u);
  EXPECT_EQ(counters.frames_dropped_locally, 2u);
  EXPECT_EQ(counters.replies_received, 1u);
}

TEST(ClientLib, QueuedFramesSurviveTheDisconnect) {
  ScriptedPeer peer([](ScriptedPeer::Socket& socket) {
    ASSERT_TRUE(ScriptedPeer::write_message(socket, ScriptedPeer::frame(7)));
    ASSERT_TRUE(ScriptedPeer::write_message(socket, ScriptedPeer::frame(8)));
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);
  auto first = client->next_frame(10s);
  auto second = client->next_frame(10s);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->tick(), 7u);
  EXPECT_EQ(second->tick(), 8u);
  // After the close, an empty queue answers at once instead of waiting out the timeout.
  EXPECT_FALSE(client->next_frame(60s).has_value());
}

TEST(ClientLib, CallbackReceivesFramesInOrderInsteadOfTheQueue) {
  ScriptedPeer peer(frames_then_reply(4));
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);
  std::mutex mutex;
  std::vector<uint64_t> ticks;
  client->set_frame_callback([&](const anim::v1::StreamFrame& frame) {
    std::lock_guard lock(mutex);
    ticks.push_back(frame.tick());
  });
  ASSERT_TRUE(client->stats().ok());
  {
    std::lock_guard lock(mutex);
    EXPECT_EQ(ticks, (std::vector<uint64_t>{1, 2, 3, 4}));
  }
  EXPECT_FALSE(client->next_frame(0ms).has_value());
  EXPECT_EQ(client->counters().frames_received, 4u);
  EXPECT_EQ(client->counters().frames_dropped_locally, 0u);
}

TEST(ClientLib, ByteCountersIncludeFrameHeaders) {
  ScriptedPeer peer(frames_then_reply(0));
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);
  anim::v1::Request request;
  request.mutable_stats();
  ASSERT_TRUE(client->call(request).ok());
  const auto counters = client->counters();
  // The request as sent carries request_id 1 (the first of this client).
  request.set_request_id(1);
  EXPECT_EQ(counters.bytes_sent, 4 + request.ByteSizeLong());
  auto reply = ScriptedPeer::ok_reply(1);
  reply.mutable_reply()->mutable_stats();
  EXPECT_EQ(counters.bytes_received, 4 + reply.ByteSizeLong());
}

TEST(ClientLib, ErrorTextPerKind) {
  EXPECT_EQ((Error{Error::Kind::kTimeout, anim::v1::STATUS_INTERNAL, "x"}.to_string()),
            "timeout: x");
  EXPECT_EQ((Error{Error::Kind::kDisconnected, anim::v1::STATUS_INTERNAL, "y"}.to_string()),
            "disconnected: y");
  EXPECT_EQ((Error{Error::Kind::kServer, anim::v1::STATUS_RESOURCE_EXHAUSTED, "z"}.to_string()),
            "RESOURCE_EXHAUSTED: z");
  EXPECT_EQ(animclient::status_code_name(static_cast<anim::v1::StatusCode>(77)), "CODE_77");
  anim::v1::Request request;
  EXPECT_EQ(animclient::command_name(request), "empty");
  request.mutable_set_ik_goal();
  EXPECT_EQ(animclient::command_name(request), "set_ik_goal");
}

}  // namespace client_lib_test

namespace client_lib_test {

// Collects async results; waits (bounded) until `n` arrived.
struct AsyncResults {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<animclient::Result<anim::v1::Reply>> results;

  animclient::Client::ReplyCallback callback() {
    return [this](animclient::Result<anim::v1::Reply> r) {
      std::lock_guard lock(mutex);
      results.push_back(std::move(r));
      cv.notify_all();
    };
  }
  bool wait_for(size_t n) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, 20s, [&] { return results.size() >= n; });
  }
};

TEST(ClientLibAsync, PipelinedCallsCompleteWithTheirOwnReplies) {
  constexpr int kCalls = 20;
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    std::vector<anim::v1::Request> requests;
    for (int i = 0; i < kCalls; ++i) {
      auto request = ScriptedPeer::read_request(socket);
      ASSERT_TRUE(request.has_value());
      requests.push_back(*request);
    }
    std::reverse(requests.begin(), requests.end());
    for (const auto& request : requests) {
      auto reply = ScriptedPeer::ok_reply(request.request_id());
      // Echo the character id in the tick so the client side can pair them up.
      reply.mutable_reply()->set_tick(request.despawn().character_id());
      ASSERT_TRUE(ScriptedPeer::write_message(socket, reply));
    }
    ScriptedPeer::wait_for_close(socket);
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);

  std::mutex mutex;
  std::vector<std::pair<uint32_t, uint64_t>> pairs;  // (asked id, echoed tick)
  std::atomic<int> done{0};
  for (uint32_t i = 1; i <= kCalls; ++i) {
    anim::v1::Request request;
    request.mutable_despawn()->set_character_id(i);
    client->call_async(request, [&, i](animclient::Result<anim::v1::Reply> r) {
      std::lock_guard lock(mutex);
      pairs.emplace_back(i, r.ok() ? r->tick() : 0);
      ++done;
    });
  }
  // All twenty are in flight at once: the peer answers only after reading every one.
  for (int spin = 0; spin < 2000 && done < kCalls; ++spin) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(done.load(), kCalls);
  std::lock_guard lock(mutex);
  EXPECT_EQ(pairs.front().first, static_cast<uint32_t>(kCalls));  // newest answered first
  for (const auto& [asked, echoed] : pairs) EXPECT_EQ(echoed, asked);
}

TEST(ClientLibAsync, TimeoutAndDisconnectCompleteEachCallOnce) {
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    ASSERT_TRUE(ScriptedPeer::read_request(socket).has_value());  // never answered: times out
    ASSERT_TRUE(ScriptedPeer::read_request(socket).has_value());  // pending when we close
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);
  AsyncResults results;
  anim::v1::Request request;
  request.mutable_stats();
  client->call_async(request, results.callback(), 30ms);
  ASSERT_TRUE(results.wait_for(1));
  client->call_async(request, results.callback(), 60s);
  ASSERT_TRUE(results.wait_for(2));
  // After the close, a call completes at once on the calling thread.
  client->call_async(request, results.callback());
  ASSERT_TRUE(results.wait_for(3));

  std::lock_guard lock(results.mutex);
  ASSERT_EQ(results.results.size(), 3u);
  ASSERT_FALSE(results.results[0].ok());
  EXPECT_EQ(results.results[0].error().to_string(), "timeout: no reply to stats within 30 ms");
  ASSERT_FALSE(results.results[1].ok());
  EXPECT_EQ(results.results[1].error().kind, Error::Kind::kDisconnected);
  ASSERT_FALSE(results.results[2].ok());
  EXPECT_EQ(results.results[2].error().kind, Error::Kind::kDisconnected);
}

// Messages that are neither replies nor frames reach the message callback, in order, before
// the reply that follows them: subscription_ended, and a kind this generated code does not
// know (field 4 of ServerMessage, as a newer daemon's characters_moved would be).
TEST(ClientLib, OtherServerMessagesReachTheMessageCallback) {
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    auto request = ScriptedPeer::read_request(socket);
    ASSERT_TRUE(request.has_value());
    anim::v1::ServerMessage ended;
    ended.mutable_subscription_ended()->set_subscription_id(7);
    ASSERT_TRUE(ScriptedPeer::write_message(socket, ended));
    const std::string unknown = std::string("\x22\x03") + std::string("\x0a\x01x", 3);
    ASSERT_TRUE(ScriptedPeer::write_raw(socket, static_cast<uint32_t>(unknown.size()), unknown));
    auto reply = ScriptedPeer::ok_reply(request->request_id());
    reply.mutable_reply()->mutable_stats()->set_tick(5);
    ASSERT_TRUE(ScriptedPeer::write_message(socket, reply));
    ScriptedPeer::wait_for_close(socket);
  });
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);
  std::mutex mutex;
  std::vector<std::string> seen;
  client->set_message_callback([&](const anim::v1::ServerMessage& m) {
    std::lock_guard lock(mutex);
    if (m.has_subscription_ended())
      seen.push_back("ended " + std::to_string(m.subscription_ended().subscription_id()));
    else
      seen.push_back("other, " + std::to_string(m.ByteSizeLong()) + " bytes");
  });
  auto stats = client->stats();
  ASSERT_TRUE(stats) << stats.error().to_string();
  EXPECT_EQ(stats->tick(), 5u);
  std::lock_guard lock(mutex);
  EXPECT_EQ(seen, (std::vector<std::string>{"ended 7", "other, 5 bytes"}));
  EXPECT_EQ(client->ended_subscriptions().size(), 1u);
}

// The peer's bytes cut anywhere (one byte at a time, across headers, across bodies) or run
// together (many frames in one segment), and a frame several times the client's read buffer:
// each arrives whole and in order.
TEST(ClientLib, FramesArriveWholeHoweverTheBytesAreCut) {
  // A frame of this many ids is several times the client's read buffer.
  constexpr uint32_t kBigIds = 150000;
  // The first kFineBytes (the small frames, and the large one's header and start) go in pieces
  // of 1 to kMaxFinePiece bytes, the rest in pieces of kCoarsePiece.
  constexpr size_t kFineBytes = 24000, kMaxFinePiece = 17, kCoarsePiece = 300000;
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    socket.set_option(boost::asio::ip::tcp::no_delay(true));
    auto request = ScriptedPeer::read_request(socket);
    ASSERT_TRUE(request.has_value());
    std::string bytes;
    auto append = [&](const anim::v1::ServerMessage& m) { bytes += ScriptedPeer::framed(m); };
    for (uint64_t tick = 1; tick <= 40; ++tick) {
      auto frame = ScriptedPeer::frame(tick);
      if (tick == 20)
        for (uint32_t id = 0; id < kBigIds; ++id) frame.mutable_frame()->add_despawned(id * 7);
      append(frame);
    }
    auto reply = ScriptedPeer::ok_reply(request->request_id());
    reply.mutable_reply()->mutable_stats();
    append(reply);
    // Pieces as above, with pauses so that the client reads many of them on their own.
    size_t at = 0;
    for (int k = 0; at < bytes.size(); ++k) {
      const size_t piece =
          at < kFineBytes ? 1 + static_cast<size_t>(k) % kMaxFinePiece : kCoarsePiece;
      const size_t n = std::min(piece, bytes.size() - at);
      boost::asio::write(socket, boost::asio::buffer(bytes.data() + at, n));
      at += n;
      if (k % 64 == 0) std::this_thread::sleep_for(1ms);
    }
    ScriptedPeer::wait_for_close(socket);
  });
  // Before the client: its callbacks may run until it is destroyed.
  std::mutex mutex;
  std::vector<uint64_t> ticks;
  size_t big_size = 0;
  bool big_ok = true;
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);
  client->set_frame_callback([&](const anim::v1::StreamFrame& frame) {
    std::lock_guard lock(mutex);
    ticks.push_back(frame.tick());
    if (frame.tick() != 20) return;
    big_size = static_cast<size_t>(frame.despawned_size());
    for (int i = 0; i < frame.despawned_size(); ++i)
      big_ok = big_ok && frame.despawned(i) == static_cast<uint32_t>(i) * 7;
  });
  ASSERT_TRUE(client->stats().ok());
  std::lock_guard lock(mutex);
  std::vector<uint64_t> expected(40);
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = i + 1;
  EXPECT_EQ(ticks, expected);
  EXPECT_EQ(big_size, kBigIds);
  EXPECT_TRUE(big_ok);
  EXPECT_EQ(client->counters().frames_received, 40u);
}

// More calls in flight than one write gathers: every request reaches the peer whole, in the
// order the calls were made.
TEST(ClientLibAsync, ManyQueuedRequestsReachThePeerInOrder) {
  constexpr uint32_t kCalls = 500;
  std::mutex seen_mutex;
  std::vector<uint32_t> seen;
  ScriptedPeer peer([&](ScriptedPeer::Socket& socket) {
    for (uint32_t i = 0; i < kCalls; ++i) {
      auto request = ScriptedPeer::read_request(socket);
      ASSERT_TRUE(request.has_value());
      {
        std::lock_guard lock(seen_mutex);
        seen.push_back(request->despawn().character_id());
      }
      ASSERT_TRUE(
          ScriptedPeer::write_message(socket, ScriptedPeer::ok_reply(request->request_id())));
    }
    ScriptedPeer::wait_for_close(socket);
  });
  std::atomic<uint32_t> done{0}, ok{0};  // before the client, whose callbacks write them
  auto client = connect_or_fail(options_for(peer.port()));
  ASSERT_TRUE(client);
  for (uint32_t i = 1; i <= kCalls; ++i) {
    anim::v1::Request request;
    request.mutable_despawn()->set_character_id(i);
    client->call_async(request, [&](animclient::Result<anim::v1::Reply> r) {
      ok += r.ok();
      ++done;
    });
  }
  for (int spin = 0; spin < 2000 && done < kCalls; ++spin) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(done.load(), kCalls);
  EXPECT_EQ(ok.load(), kCalls);
  std::lock_guard lock(seen_mutex);  // every request was seen before its reply was sent
  ASSERT_EQ(seen.size(), kCalls);
  for (uint32_t i = 0; i < kCalls; ++i) EXPECT_EQ(seen[i], i + 1);
}

}  // namespace client_lib_test

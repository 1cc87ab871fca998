// FrameInbox: libanimclient's inbound side without a socket. Serialized ServerMessages go in;
// replies reach the call waiting for their request_id, stream frame parts are joined into
// whole frames, ended subscriptions are kept, and the close fails every waiting call once.
#include "frame_inbox.h"

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "animcodec/bit_stream.h"

namespace frame_inbox_test {

using anim::v1::Reply;
using anim::v1::ServerMessage;
using anim::v1::StreamFrame;
using animclient::Error;
using animclient::Result;
using animclient::detail::FrameInbox;
using animclient::detail::PendingCall;
using namespace std::chrono_literals;

std::optional<Error> feed(FrameInbox& inbox, const ServerMessage& message) {
  const std::string body = message.SerializeAsString();
  return inbox.receive(reinterpret_cast<const uint8_t*>(body.data()), body.size());
}

ServerMessage reply(uint64_t request_id) {
  ServerMessage m;
  m.mutable_reply()->set_request_id(request_id);
  return m;
}

// Part `part` of `parts` of subscription `sub`'s frame for `tick`, carrying `characters`.
ServerMessage part(uint32_t sub, uint64_t tick, uint32_t part, uint32_t parts,
                   std::vector<uint32_t> characters) {
  ServerMessage m;
  StreamFrame* f = m.mutable_frame();
  f->set_subscription_id(sub);
  f->set_tick(tick);
  f->set_part(part);
  f->set_parts(parts);
  for (uint32_t id : characters) f->add_characters()->set_character_id(id);
  return m;
}

ServerMessage frame(uint64_t tick) {
  return part(1, tick, 0, 0, {});
}

std::vector<uint32_t> character_ids(const StreamFrame& f) {
  std::vector<uint32_t> ids;
  for (const auto& c : f.characters()) ids.push_back(c.character_id());
  return ids;
}

// A callback call that records what it was completed with.
struct Recorded {
  int calls = 0;
  std::optional<Result<Reply>> result;
  PendingCall call() {
    return PendingCall{nullptr,
                       [this](Result<Reply> r) {
                         ++calls;
                         result.emplace(std::move(r));
                       },
                       nullptr};
  }
};

TEST(FrameInbox, RepliesReachTheCallWaitingForTheirRequestId) {
  FrameInbox inbox(16);
  auto p1 = std::make_shared<std::promise<Result<Reply>>>();
  auto p2 = std::make_shared<std::promise<Result<Reply>>>();
  auto f1 = p1->get_future();
  auto f2 = p2->get_future();
  ASSERT_TRUE(inbox.expect(1, PendingCall{p1, nullptr, nullptr}));
  ASSERT_TRUE(inbox.expect(2, PendingCall{p2, nullptr, nullptr}));

  EXPECT_FALSE(feed(inbox, reply(2)).has_value());
  EXPECT_FALSE(feed(inbox, reply(1)).has_value());
  const auto r1 = f1.get();
  const auto r2 = f2.get();
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_EQ(r1->request_id(), 1u);
  EXPECT_EQ(r2->request_id(), 2u);
  EXPECT_EQ(inbox.replies_received(), 2u);
}

TEST(FrameInbox, ReplyNobodyWaitsForIsCountedAndDropped) {
  FrameInbox inbox(16);
  Recorded left;
  ASSERT_TRUE(inbox.expect(7, left.call()));
  ASSERT_TRUE(inbox.withdraw(7).has_value());  // its time was up
  EXPECT_FALSE(inbox.withdraw(7).has_value());
  EXPECT_FALSE(inbox.set_timer(7, nullptr));

  EXPECT_FALSE(feed(inbox, reply(7)).has_value());
  EXPECT_FALSE(feed(inbox, reply(99)).has_value());
  EXPECT_EQ(left.calls, 0);
  EXPECT_EQ(inbox.replies_received(), 2u);
}

TEST(FrameInbox, CallbackCallIsCompletedOnce) {
  FrameInbox inbox(16);
  Recorded call;
  ASSERT_TRUE(inbox.expect(3, call.call()));
  EXPECT_FALSE(feed(inbox, reply(3)).has_value());
  EXPECT_FALSE(feed(inbox, reply(3)).has_value());  // a duplicate finds nobody
  EXPECT_EQ(call.calls, 1);
  ASSERT_TRUE(call.result && call.result->ok());
  EXPECT_EQ(call.result->value().request_id(), 3u);
}

TEST(FrameInbox, UnparsableBodyIsAProtocolError) {
  FrameInbox inbox(16);
  const uint8_t garbage[] = {0xff, 0xff, 0xff};  // a varint that never ends
  const auto error = inbox.receive(garbage, sizeof garbage);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind, Error::Kind::kProtocol);
  EXPECT_EQ(error->message,
            "server sent a frame of 3 bytes that does not parse as anim.v1.ServerMessage");
}

TEST(FrameInbox, UnknownKindIsSkipped) {
  FrameInbox inbox(16);
  EXPECT_FALSE(feed(inbox, ServerMessage()).has_value());  // no kind set
  EXPECT_EQ(inbox.replies_received(), 0u);
  EXPECT_EQ(inbox.frames_received(), 0u);
  EXPECT_FALSE(inbox.next_frame(0ms).has_value());
}

TEST(FrameInbox, PartsAreJoinedIntoOneWholeFrame) {
  FrameInbox inbox(16);
  EXPECT_FALSE(feed(inbox, part(4, 10, 0, 3, {1, 2})).has_value());
  EXPECT_FALSE(feed(inbox, part(4, 10, 1, 3, {3})).has_value());
  EXPECT_FALSE(inbox.next_frame(0ms).has_value());  // not whole yet
  EXPECT_FALSE(feed(inbox, part(4, 10, 2, 3, {4, 5})).has_value());

  const auto f = inbox.next_frame(0ms);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->subscription_id(), 4u);
  EXPECT_EQ(f->tick(), 10u);
  EXPECT_EQ(character_ids(*f), (std::vector<uint32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(f->part(), 0u);  // delivered as a whole frame
  EXPECT_EQ(f->parts(), 0u);
  EXPECT_EQ(inbox.frames_received(), 1u);
  EXPECT_EQ(inbox.frames_dropped_locally(), 0u);
}

TEST(FrameInbox, PartsOfTwoSubscriptionsJoinSeparately) {
  FrameInbox inbox(16);
  EXPECT_FALSE(feed(inbox, part(1, 10, 0, 2, {1})).has_value());
  EXPECT_FALSE(feed(inbox, part(2, 10, 0, 2, {7})).has_value());
  EXPECT_FALSE(feed(inbox, part(2, 10, 1, 2, {8})).has_value());
  EXPECT_FALSE(feed(inbox, part(1, 10, 1, 2, {2})).has_value());
  const auto first = inbox.next_frame(0ms);
  const auto second = inbox.next_frame(0ms);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->subscription_id(), 2u);
  EXPECT_EQ(character_ids(*first), (std::vector<uint32_t>{7, 8}));
  EXPECT_EQ(second->subscription_id(), 1u);
  EXPECT_EQ(character_ids(*second), (std::vector<uint32_t>{1, 2}));
}

TEST(FrameInbox, AMissingPartDropsTheFrame) {
  FrameInbox inbox(16);
  EXPECT_FALSE(feed(inbox, part(1, 10, 0, 3, {1})).has_value());
  EXPECT_FALSE(feed(inbox, part(1, 10, 2, 3, {3})).has_value());  // part 1 never came
  EXPECT_EQ(inbox.frames_dropped_locally(), 1u);
  // A later part of the abandoned frame has nothing to join.
  EXPECT_FALSE(feed(inbox, part(1, 10, 1, 3, {2})).has_value());
  EXPECT_EQ(inbox.frames_dropped_locally(), 2u);
  EXPECT_FALSE(inbox.next_frame(0ms).has_value());
  EXPECT_EQ(inbox.frames_received(), 0u);
}

TEST(FrameInbox, APartOfAnotherTickDropsTheFrame) {
  FrameInbox inbox(16);
  EXPECT_FALSE(feed(inbox, part(1, 10, 0, 2, {1})).has_value());
  EXPECT_FALSE(feed(inbox, part(1, 11, 1, 2, {2})).has_value());
  EXPECT_EQ(inbox.frames_dropped_locally(), 1u);
  EXPECT_FALSE(inbox.next_frame(0ms).has_value());
}

TEST(FrameInbox, ANewFirstPartReplacesAnUnfinishedFrame) {
  FrameInbox inbox(16);
  EXPECT_FALSE(feed(inbox, part(1, 10, 0, 2, {1})).has_value());
  EXPECT_FALSE(feed(inbox, part(1, 11, 0, 2, {5})).has_value());  // tick 10 lost its part 1
  EXPECT_EQ(inbox.frames_dropped_locally(), 1u);
  EXPECT_FALSE(feed(inbox, part(1, 11, 1, 2, {6})).has_value());
  const auto f = inbox.next_frame(0ms);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->tick(), 11u);
  EXPECT_EQ(character_ids(*f), (std::vector<uint32_t>{5, 6}));
}

TEST(FrameInbox, FullQueueDropsTheOldestFrames) {
  FrameInbox inbox(2);
  for (uint64_t tick = 1; tick <= 5; ++tick) EXPECT_FALSE(feed(inbox, frame(tick)).has_value());
  EXPECT_EQ(inbox.frames_received(), 5u);
  EXPECT_EQ(inbox.frames_dropped_locally(), 3u);
  EXPECT_EQ(inbox.next_frame(0ms)->tick(), 4u);
  EXPECT_EQ(inbox.next_frame(0ms)->tick(), 5u);
  EXPECT_FALSE(inbox.next_frame(0ms).has_value());
}

TEST(FrameInbox, NoQueueDropsEveryFrameWithoutACallback) {
  FrameInbox inbox(0);
  EXPECT_FALSE(feed(inbox, frame(1)).has_value());
  EXPECT_EQ(inbox.frames_dropped_locally(), 1u);
  EXPECT_FALSE(inbox.next_frame(0ms).has_value());
}

TEST(FrameInbox, CallbackReceivesFramesInsteadOfTheQueue) {
  FrameInbox inbox(0);
  std::vector<uint64_t> ticks;
  inbox.set_frame_callback([&](const StreamFrame& f) { ticks.push_back(f.tick()); });
  EXPECT_FALSE(feed(inbox, frame(1)).has_value());
  EXPECT_FALSE(feed(inbox, frame(2)).has_value());
  EXPECT_EQ(ticks, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(inbox.frames_dropped_locally(), 0u);

  inbox.set_frame_callback(nullptr);  // back to the queue (of 0: dropped)
  EXPECT_FALSE(feed(inbox, frame(3)).has_value());
  EXPECT_EQ(ticks.size(), 2u);
  EXPECT_EQ(inbox.frames_dropped_locally(), 1u);
}

// A frame holding one character's compact key frame header for an asset nobody fetched yet.
ServerMessage compact_key_frame(uint64_t tick, const std::string& asset) {
  uint8_t bytes[16] = {};
  animcodec::BitWriter w(bytes, sizeof bytes);
  w.put(0, 2);        // FrameKind::kKey
  w.put(0x1234, 32);  // skeleton id
  w.put(64, 16);      // joints
  const size_t size = w.finish();
  ServerMessage m = part(1, tick, 0, 0, {7});
  auto* c = m.mutable_frame()->mutable_characters(0);
  c->set_asset(asset);
  c->set_compact(std::string(reinterpret_cast<const char*>(bytes), size));
  return m;
}

TEST(FrameInbox, CompactFramesWaitForTheirSkeletonWhenDecoding) {
  FrameInbox inbox(16);
  std::vector<std::string> fetched;
  inbox.set_skeleton_fetcher([&](const std::string& asset) { fetched.push_back(asset); });
  EXPECT_FALSE(feed(inbox, compact_key_frame(5, "bench64")).has_value());
  EXPECT_EQ(fetched, std::vector<std::string>{"bench64"});
  EXPECT_FALSE(inbox.next_frame(0ms).has_value());  // held until the skeleton arrives
}

TEST(FrameInbox, WithoutDecodingCompactFramesArriveAsSentAndNothingIsFetched) {
  FrameInbox inbox(16, /*decode_compact=*/false);
  std::vector<std::string> fetched;
  inbox.set_skeleton_fetcher([&](const std::string& asset) { fetched.push_back(asset); });
  const ServerMessage sent = compact_key_frame(5, "bench64");
  EXPECT_FALSE(feed(inbox, sent).has_value());
  EXPECT_TRUE(fetched.empty());
  const auto f = inbox.next_frame(0ms);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->characters_size(), 1);
  EXPECT_EQ(f->characters(0).compact(), sent.frame().characters(0).compact());
  EXPECT_EQ(f->characters(0).palette_size(), 0);
  EXPECT_EQ(inbox.compact_errors(), 0u);
}

TEST(FrameInbox, EndedSubscriptionsKeepTheNewest) {
  FrameInbox inbox(16);
  for (uint32_t id = 1; id <= FrameInbox::kMaxEnded + 6; ++id) {
    ServerMessage m;
    m.mutable_subscription_ended()->set_subscription_id(id);
    m.mutable_subscription_ended()->set_reason("slow reader");
    EXPECT_FALSE(feed(inbox, m).has_value());
  }
  const auto ended = inbox.ended_subscriptions();
  ASSERT_EQ(ended.size(), FrameInbox::kMaxEnded);
  EXPECT_EQ(ended.front().subscription_id(), 7u);
  EXPECT_EQ(ended.back().subscription_id(), FrameInbox::kMaxEnded + 6);
  EXPECT_EQ(ended.back().reason(), "slow reader");
}

TEST(FrameInbox, CloseFailsEveryWaitingCallOnceAndLaterCallsAtOnce) {
  FrameInbox inbox(16);
  auto promise = std::make_shared<std::promise<Result<Reply>>>();
  auto future = promise->get_future();
  Recorded async;
  ASSERT_TRUE(inbox.expect(1, PendingCall{promise, nullptr, nullptr}));
  ASSERT_TRUE(inbox.expect(2, async.call()));
  EXPECT_FALSE(inbox.closed());

  const Error why{Error::Kind::kDisconnected, anim::v1::STATUS_INTERNAL, "server went away"};
  inbox.close(why);
  EXPECT_TRUE(inbox.closed());
  const auto blocked = future.get();
  ASSERT_FALSE(blocked.ok());
  EXPECT_EQ(blocked.error().message, "server went away");
  EXPECT_EQ(async.calls, 1);
  ASSERT_TRUE(async.result && !async.result->ok());
  EXPECT_EQ(async.result->error().message, "server went away");

  inbox.close(Error{Error::Kind::kProtocol, anim::v1::STATUS_INTERNAL, "again"});
  EXPECT_EQ(async.calls, 1);  // closing twice completes nothing twice

  Recorded late;
  EXPECT_FALSE(inbox.expect(3, late.call()));
  EXPECT_EQ(late.calls, 1);
  ASSERT_TRUE(late.result && !late.result->ok());
  EXPECT_EQ(late.result->error().kind, Error::Kind::kDisconnected);
  EXPECT_EQ(late.result->error().message, "connection closed (disconnected: server went away)");
}

TEST(FrameInbox, QueuedFramesStayReadableAfterTheClose) {
  FrameInbox inbox(16);
  EXPECT_FALSE(feed(inbox, frame(8)).has_value());
  inbox.close(Error{Error::Kind::kDisconnected, anim::v1::STATUS_INTERNAL, "gone"});
  EXPECT_EQ(inbox.next_frame(0ms)->tick(), 8u);
  // Closed and empty: answers at once instead of waiting out the timeout.
  EXPECT_FALSE(inbox.next_frame(1h).has_value());
}

}  // namespace frame_inbox_test

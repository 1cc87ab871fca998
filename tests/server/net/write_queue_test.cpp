// WriteQueue: a connection's outbound frames. Replies leave in request order and are never
// dropped; stream frames are dropped oldest-first when the queue or the daemon-wide budget is
// full; every byte drawn on the budget comes back once (written, dropped, or destroyed).
#include "net/write_queue.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace animd {
namespace write_queue_test {

constexpr size_t kKiB = 1024;

std::unique_ptr<std::string> bytes(size_t n, char fill = 'x') {
  return std::make_unique<std::string>(n, fill);
}

// Bytes drawn on the budget for frames: all drawn but the spare buffers.
size_t frames_drawn(const ByteBudget& budget) {
  return budget.used() - budget.spares();
}

// What one write would send, frame by frame.
std::vector<std::string> batch_of(WriteQueue& q) {
  std::vector<std::string> out;
  for (const auto& b : q.start_write())
    out.emplace_back(static_cast<const char*>(b.data()), b.size());
  return out;
}

TEST(WriteQueue, RepliesAreTakenInRequestOrderWhateverOrderTheyArrive) {
  ByteBudget budget(1 << 20);
  WriteQueue q(budget, 1 << 20, 64);
  q.hold_reply(2, std::make_unique<std::string>("two"), 0);
  q.hold_reply(1, std::make_unique<std::string>("one"), 0);
  EXPECT_FALSE(q.next_in_order().has_value());  // 0 has not arrived
  EXPECT_EQ(q.held_replies(), 2u);

  q.hold_reply(0, std::make_unique<std::string>("zero"), 0);
  std::vector<std::string> order;
  while (auto r = q.next_in_order()) order.push_back(*r->bytes);
  EXPECT_EQ(order, (std::vector<std::string>{"zero", "one", "two"}));
  EXPECT_EQ(q.held_replies(), 0u);

  q.hold_reply(4, std::make_unique<std::string>("four"), 0);
  EXPECT_FALSE(q.next_in_order().has_value());  // 3 is still to come
  q.hold_reply(3, std::make_unique<std::string>("three"), 0);
  EXPECT_EQ(*q.next_in_order()->bytes, "three");
  EXPECT_EQ(*q.next_in_order()->bytes, "four");
}

TEST(WriteQueue, DroppingHeldRepliesGivesTheirDrawBack) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 1 << 20, 64);
  ASSERT_TRUE(budget.try_acquire(30));  // drawn by the World for reply 1
  q.hold_reply(1, bytes(30), 30);
  q.drop_held_replies();
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(q.held_replies(), 0u);
}

TEST(WriteQueue, ReplyDrawsItsSizeUntilItsWriteCompletes) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 1 << 20, 64);
  EXPECT_EQ(q.push_reply(bytes(100)), "");
  EXPECT_EQ(budget.used(), 100u);
  EXPECT_EQ(q.drawn_bytes(), 100u);
  EXPECT_EQ(q.queued_bytes(), 100u);

  EXPECT_EQ(batch_of(q), (std::vector<std::string>{std::string(100, 'x')}));
  EXPECT_TRUE(q.writing());
  EXPECT_EQ(budget.used(), 100u);  // still held while the write runs

  EXPECT_EQ(q.finish_write(), 0u);  // no stream frame among them
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(q.drawn_bytes(), 0u);
  EXPECT_EQ(q.queued_bytes(), 0u);
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.writing());
}

TEST(WriteQueue, ReplyDrawnByItsProducerIsNotDrawnTwice) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 1 << 20, 64);
  ASSERT_TRUE(budget.try_acquire(200));  // the World charges replies more than their size
  EXPECT_EQ(q.push_reply(bytes(50), 200), "");
  EXPECT_EQ(budget.used(), 200u);
  EXPECT_EQ(q.drawn_bytes(), 200u);
  q.start_write();
  q.finish_write();
  EXPECT_EQ(budget.used(), 0u);
}

TEST(WriteQueue, StreamFrameDropsTheOldestQueuedStreamFrameButNotTheOneInFlight) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 300, 64);
  EXPECT_EQ(q.push_stream(bytes(100, 'a')), 0u);
  EXPECT_EQ(batch_of(q).size(), 1u);  // a is in flight
  EXPECT_EQ(q.push_stream(bytes(100, 'b')), 0u);
  EXPECT_EQ(q.push_stream(bytes(100, 'c')), 0u);
  EXPECT_EQ(q.queued_bytes(), 300u);
  EXPECT_EQ(frames_drawn(budget), 300u);

  // d needs 100 bytes: b (the oldest not being written) goes.
  EXPECT_EQ(q.push_stream(bytes(100, 'd')), 1u);
  EXPECT_EQ(q.queued_bytes(), 300u);
  EXPECT_EQ(frames_drawn(budget), 300u);

  EXPECT_EQ(q.finish_write(), 1u);  // a, a stream frame
  EXPECT_EQ(frames_drawn(budget), 200u);
  EXPECT_EQ(batch_of(q), (std::vector<std::string>{std::string(100, 'c'), std::string(100, 'd')}));
  EXPECT_EQ(q.finish_write(), 2u);
  EXPECT_EQ(frames_drawn(budget), 0u);
}

TEST(WriteQueue, StreamFrameIsDroppedWhenRepliesFillTheQueue) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 300, 64);
  EXPECT_EQ(q.push_reply(bytes(250)), "");
  EXPECT_EQ(q.push_stream(bytes(100)), 1u);  // replies are never dropped to make room
  EXPECT_EQ(q.queued_bytes(), 250u);
  EXPECT_EQ(frames_drawn(budget), 250u);
}

TEST(WriteQueue, StreamFrameIsDroppedWhenTheBudgetIsSpent) {
  ByteBudget budget(150);
  WriteQueue q(budget, 1000, 64);
  EXPECT_EQ(q.push_stream(bytes(100)), 0u);
  EXPECT_EQ(q.push_stream(bytes(100)), 1u);  // 200 > 150
  EXPECT_EQ(q.queued_bytes(), 100u);
  EXPECT_EQ(budget.used(), 100u);
}

TEST(WriteQueue, StreamFrameFitsCountsTheQueueAndTheBudget) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 300, 64);
  EXPECT_TRUE(q.stream_frame_fits(300));
  EXPECT_FALSE(q.stream_frame_fits(301));
  EXPECT_EQ(q.push_reply(bytes(100)), "");
  EXPECT_TRUE(q.stream_frame_fits(200));
  EXPECT_FALSE(q.stream_frame_fits(201));

  ASSERT_TRUE(budget.try_acquire(850));  // other connections: 950 of 1000 used
  EXPECT_TRUE(q.stream_frame_fits(50));
  EXPECT_FALSE(q.stream_frame_fits(51));
  budget.release(850);
}

TEST(WriteQueue, DroppingQueuedStreamFramesKeepsRepliesAndTheWriteInFlight) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 1000, 64);
  EXPECT_EQ(q.push_stream(bytes(100, 'a')), 0u);
  q.start_write();  // a in flight
  EXPECT_EQ(q.push_reply(bytes(10, 'r')), "");
  EXPECT_EQ(q.push_stream(bytes(100, 'b')), 0u);
  EXPECT_EQ(q.push_stream(bytes(100, 'c')), 0u);
  EXPECT_EQ(frames_drawn(budget), 310u);

  q.drop_queued_stream_frames();
  EXPECT_EQ(frames_drawn(budget), 110u);
  EXPECT_EQ(q.queued_bytes(), 110u);
  EXPECT_EQ(q.finish_write(), 1u);
  EXPECT_EQ(batch_of(q), (std::vector<std::string>{std::string(10, 'r')}));
  EXPECT_EQ(q.finish_write(), 0u);
  EXPECT_EQ(frames_drawn(budget), 0u);
}

TEST(WriteQueue, UnreadRepliesAboveTheBoundAreRefusedAndTheirDrawGivenBack) {
  ByteBudget budget(10000);
  WriteQueue q(budget, 300, 64);
  EXPECT_EQ(q.push_reply(bytes(200)), "");
  ASSERT_TRUE(budget.try_acquire(200));  // the World drew for the next reply
  const std::string refused = q.push_reply(bytes(200), 200);
  EXPECT_NE(refused.find("client does not read its replies"), std::string::npos) << refused;
  EXPECT_NE(refused.find("400 bytes"), std::string::npos) << refused;
  EXPECT_NE(refused.find("--max-queued-bytes 300"), std::string::npos) << refused;
  EXPECT_EQ(budget.used(), 200u);  // only the queued reply's
  EXPECT_EQ(q.queued_bytes(), 200u);
  EXPECT_EQ(q.unsent_reply_bytes(), 200u);
}

TEST(WriteQueue, OneReplyAloneMayExceedTheBound) {
  ByteBudget budget(10000);
  WriteQueue q(budget, 300, 64);
  EXPECT_EQ(q.push_reply(bytes(1000)), "");
  EXPECT_EQ(q.unsent_reply_bytes(), 1000u);
}

TEST(WriteQueue, RepliesInFlightDoNotCountAsUnread) {
  ByteBudget budget(10000);
  WriteQueue q(budget, 300, 64);
  EXPECT_EQ(q.push_reply(bytes(200)), "");
  q.start_write();
  EXPECT_EQ(q.unsent_reply_bytes(), 0u);
  EXPECT_EQ(q.push_reply(bytes(200)), "");
  EXPECT_EQ(q.unsent_reply_bytes(), 200u);
}

TEST(WriteQueue, SpentBudgetLeavesRepliesAnUndrawnAllowance) {
  ByteBudget budget(1 << 20);
  ASSERT_TRUE(budget.try_acquire(1 << 20));  // readers that do not read hold it all
  WriteQueue q(budget, 1 << 20, 64);
  EXPECT_EQ(q.push_reply(bytes(40 * kKiB)), "");
  EXPECT_EQ(q.push_reply(bytes(24 * kKiB)), "");  // 64 KiB unsent: the allowance exactly
  EXPECT_EQ(q.drawn_bytes(), 0u);
  const std::string refused = q.push_reply(bytes(1));
  EXPECT_NE(refused.find("outbound budget is spent"), std::string::npos) << refused;
  EXPECT_NE(refused.find("--max-stream-bytes-total 1048576"), std::string::npos) << refused;
  EXPECT_EQ(q.unsent_reply_bytes(), 64 * kKiB);
  budget.release(1 << 20);
}

TEST(WriteQueue, SpentBudgetStillTakesOneReplyAboveTheAllowance) {
  ByteBudget budget(1000);
  ASSERT_TRUE(budget.try_acquire(1000));
  WriteQueue q(budget, 1 << 20, 64);
  EXPECT_EQ(q.push_reply(bytes(100 * kKiB)), "");
  EXPECT_EQ(q.drawn_bytes(), 0u);
  budget.release(1000);
}

TEST(WriteQueue, BackloggedByHeldReplies) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 1 << 20, 2);
  q.hold_reply(1, bytes(1), 0);
  EXPECT_FALSE(q.backlogged());
  q.hold_reply(2, bytes(1), 0);
  EXPECT_TRUE(q.backlogged());  // 2 held, the limit
  q.hold_reply(0, bytes(1), 0);
  while (auto r = q.next_in_order()) EXPECT_EQ(q.push_reply(std::move(r->bytes)), "");
  EXPECT_FALSE(q.backlogged());
}

TEST(WriteQueue, BackloggedByUnsentReplyBytesUntilTheyAreInFlight) {
  ByteBudget budget(1 << 20);
  WriteQueue q(budget, 1 << 20, 64);
  EXPECT_EQ(q.push_reply(bytes(WriteQueue::kReplyBacklogBytes)), "");
  EXPECT_FALSE(q.backlogged());  // 256 KiB is not above 256 KiB
  EXPECT_EQ(q.push_reply(bytes(1)), "");
  EXPECT_TRUE(q.backlogged());
  q.start_write();
  EXPECT_FALSE(q.backlogged());
}

TEST(WriteQueue, StreamBytesDoNotMakeItBacklogged) {
  ByteBudget budget(1 << 20);
  WriteQueue q(budget, 1 << 20, 64);
  EXPECT_EQ(q.push_stream(bytes(300 * kKiB)), 0u);
  EXPECT_FALSE(q.backlogged());
}

TEST(WriteQueue, OneWriteAtATimeGatheringAboutABatch) {
  ByteBudget budget(4 << 20);  // uncontended
  WriteQueue q(budget, 1 << 20, 64);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(q.push_stream(bytes(200 * kKiB)), 0u);
  // 200 KiB is under the 256 KiB batch: a second frame joins; 400 KiB is not.
  EXPECT_EQ(q.start_write().size(), 2u);
  EXPECT_TRUE(q.start_write().empty());  // a write is in flight
  EXPECT_EQ(q.finish_write(), 2u);
  EXPECT_EQ(q.start_write().size(), 1u);
  EXPECT_EQ(q.finish_write(), 1u);
  EXPECT_TRUE(q.start_write().empty());  // nothing queued
}

TEST(WriteQueue, DestructionGivesEverythingBack) {
  ByteBudget budget(10000);
  {
    WriteQueue q(budget, 10000, 64);
    EXPECT_EQ(q.push_reply(bytes(100)), "");
    EXPECT_EQ(q.push_stream(bytes(200)), 0u);
    q.start_write();  // an aborted write: its frames are still held
    EXPECT_EQ(q.push_stream(bytes(300)), 0u);
    ASSERT_TRUE(budget.try_acquire(40));
    q.hold_reply(5, bytes(10), 40);
    EXPECT_EQ(budget.used(), 640u);
  }
  EXPECT_EQ(budget.used(), 0u);
}

TEST(ByteBudget, AFairShareLeavesRoomForOneMoreHolder) {
  ByteBudget budget(1000);
  EXPECT_EQ(budget.fair_share(), 1000u);  // nobody holds anything
  budget.add_holder();
  EXPECT_EQ(budget.fair_share(), 500u);
  budget.add_holder();
  budget.add_holder();
  EXPECT_EQ(budget.fair_share(), 250u);
  // Up to half used, nobody is held to a share.
  EXPECT_TRUE(budget.try_acquire_fair(400, 0));
  EXPECT_EQ(budget.holder_bound(100), 1000u);
  // Beyond half, a holder above its share is refused; one under it is not.
  EXPECT_FALSE(budget.try_acquire_fair(200, 400));
  EXPECT_TRUE(budget.try_acquire_fair(200, 50));
  EXPECT_EQ(budget.used(), 600u);
  EXPECT_EQ(budget.holder_bound(1), 250u);
  // Never beyond the limit, share or not.
  EXPECT_FALSE(budget.try_acquire_fair(401, 0));
}

TEST(WriteQueue, AReaderThatDoesNotReadHoldsAtMostItsFairShareOfAContendedBudget) {
  ByteBudget budget(1000);
  WriteQueue hog(budget, 1000, 64);
  // Alone, the hog may fill half the budget, then its fair share (1000 / (1 + 1)): each new
  // frame drops its oldest.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(hog.push_stream(bytes(100)), 0u);
  EXPECT_EQ(hog.push_stream(bytes(100)), 1u);
  EXPECT_EQ(hog.drawn_bytes(), 500u);
  EXPECT_EQ(budget.holders(), 1u);

  // A second connection still finds room...
  WriteQueue reader(budget, 1000, 64);
  EXPECT_EQ(reader.push_stream(bytes(100)), 0u);
  EXPECT_EQ(budget.holders(), 2u);
  // ... and the hog's share shrank to 1000 / 3 = 333 while the budget is more than half used:
  // it sheds its oldest frame (600 -> 500 used: no longer contended).
  EXPECT_EQ(hog.shed_above_fair_share(), 1u);
  EXPECT_EQ(hog.drawn_bytes(), 400u);
  EXPECT_EQ(hog.shed_above_fair_share(), 0u);
  // A new frame would make it contended again (400 + 100 > 333): its oldest make room.
  EXPECT_FALSE(hog.stream_frame_fits(100));
  EXPECT_EQ(hog.push_stream(bytes(100)), 2u);
  EXPECT_EQ(hog.drawn_bytes(), 300u);
  EXPECT_TRUE(reader.stream_frame_fits(100));

  // The reader reads: it stops being a holder, and the hog's share grows back.
  reader.start_write();
  reader.finish_write();
  EXPECT_EQ(budget.holders(), 1u);
  EXPECT_EQ(frames_drawn(budget), 300u);
  EXPECT_EQ(budget.spares(), hog.spent_bytes() + reader.spent_bytes());
  EXPECT_EQ(budget.holder_bound(100), 1000u);  // no longer contended: spares do not count
  EXPECT_TRUE(hog.stream_frame_fits(100));
}

TEST(WriteQueue, SheddingKeepsRepliesAndTheWriteInFlight) {
  ByteBudget budget(1000);
  WriteQueue q(budget, 1000, 64);
  EXPECT_EQ(q.push_stream(bytes(300, 'a')), 0u);
  q.start_write();  // a in flight
  EXPECT_EQ(q.push_reply(bytes(100, 'r')), "");
  EXPECT_EQ(q.push_stream(bytes(100, 'b')), 0u);
  ASSERT_TRUE(budget.try_acquire(400));      // others: 900 of 1000 used
  budget.add_holder();                       // share: 1000 / 3 = 333
  EXPECT_EQ(q.shed_above_fair_share(), 1u);  // b goes; a (in flight) and r stay
  EXPECT_EQ(q.drawn_bytes(), 400u);
  EXPECT_EQ(q.shed_above_fair_share(), 0u);  // nothing left it may drop
  budget.remove_holder();
  budget.release(400);
}

// The buffers of stream frames written or dropped come back emptied for the next frames
// (at most kSpentBuffers, none above kMaxSpentCapacity); replies' buffers do not.
TEST(WriteQueue, BuffersOfWrittenAndDroppedStreamFramesAreKeptForTheNextFrames) {
  ByteBudget budget(4 << 20);
  WriteQueue q(budget, 4 << 20, 64);
  EXPECT_EQ(q.take_spent(), nullptr);
  auto reply = bytes(5 * kKiB, 'r');
  auto a = bytes(3 * kKiB, 'a');
  const std::string* a_buffer = a.get();
  const size_t a_capacity = a->capacity();
  EXPECT_EQ(q.push_reply(std::move(reply)), "");
  q.push_stream(std::move(a));
  EXPECT_EQ(batch_of(q).size(), 2u);
  EXPECT_EQ(q.finish_write(), 1u);
  std::unique_ptr<std::string> spent = q.take_spent();
  ASSERT_NE(spent, nullptr);
  EXPECT_EQ(spent.get(), a_buffer);  // the stream frame's, not the reply's
  EXPECT_TRUE(spent->empty());
  EXPECT_EQ(spent->capacity(), a_capacity);
  EXPECT_EQ(q.take_spent(), nullptr);

  // Three written: two kept, the third freed.
  for (char c : {'b', 'c', 'd'}) q.push_stream(bytes(kKiB, c));
  EXPECT_EQ(batch_of(q).size(), 3u);
  EXPECT_EQ(q.finish_write(), 3u);
  EXPECT_NE(q.take_spent(), nullptr);
  EXPECT_NE(q.take_spent(), nullptr);
  EXPECT_EQ(q.take_spent(), nullptr);
  // One dropped (queued, not in flight) is kept.
  auto e = bytes(kKiB, 'e');
  const std::string* e_buffer = e.get();
  q.push_stream(std::move(e));
  q.drop_queued_stream_frames();
  EXPECT_EQ(q.take_spent().get(), e_buffer);

  // A buffer larger than kMaxSpentCapacity is freed, not kept; so is one far larger than its
  // frame.
  q.push_stream(bytes(WriteQueue::kMaxSpentCapacity + 1));
  EXPECT_EQ(batch_of(q).size(), 1u);
  EXPECT_EQ(q.finish_write(), 1u);
  EXPECT_EQ(q.take_spent(), nullptr);
  auto slack = bytes(kKiB);
  slack->reserve((WriteQueue::kMaxSpentSlack + 1) * kKiB);
  q.push_stream(std::move(slack));
  EXPECT_EQ(batch_of(q).size(), 1u);
  EXPECT_EQ(q.finish_write(), 1u);
  EXPECT_EQ(q.take_spent(), nullptr);

  // The owner streams no more: none kept.
  q.push_stream(bytes(kKiB));
  q.drop_queued_stream_frames();
  q.release_spent();
  EXPECT_EQ(q.take_spent(), nullptr);
  EXPECT_EQ(budget.used(), 0u);
}

// A frame being written is never handed out, whatever is dropped meanwhile; a frame refused
// for lack of room leaves its buffer.
TEST(WriteQueue, AFrameInFlightIsNotHandedOutAndARefusedOnesBufferIsKept) {
  ByteBudget budget(4000);  // room for 500 bytes of spares
  WriteQueue q(budget, 300, 64);
  EXPECT_EQ(q.push_stream(bytes(200, 'a')), 0u);
  EXPECT_EQ(batch_of(q).size(), 1u);  // a in flight
  q.drop_queued_stream_frames();
  EXPECT_EQ(q.shed_above_fair_share(), 0u);
  EXPECT_EQ(q.take_spent(), nullptr);
  auto big = bytes(200, 'b');  // 200 + the 200 in flight > 300: refused
  const std::string* big_buffer = big.get();
  EXPECT_EQ(q.push_stream(std::move(big)), 1u);
  EXPECT_EQ(q.take_spent().get(), big_buffer);
  EXPECT_EQ(q.finish_write(), 1u);
  EXPECT_NE(q.take_spent(), nullptr);  // a, once written
}

// Kept buffers count on the daemon's outbound budget as spares: their capacity is drawn while
// kept, all spares together hold at most limit / ByteBudget::kSpareDivisor, they do not count
// as contention, and a dropped frame's buffer is kept only after the new frame drew its bytes.
TEST(WriteQueue, KeptBuffersHoldTheirCapacityOnTheBudgetAsSpares) {
  ByteBudget budget(64 * kKiB);  // spares: at most 8 KiB
  {
    WriteQueue q(budget, 8 * kKiB, 64);
    auto a = bytes(4 * kKiB, 'a');
    const size_t a_capacity = a->capacity();
    q.push_stream(std::move(a));
    EXPECT_EQ(batch_of(q).size(), 1u);
    EXPECT_EQ(q.finish_write(), 1u);
    EXPECT_EQ(q.spent_bytes(), a_capacity);
    EXPECT_EQ(budget.used(), a_capacity);
    EXPECT_EQ(budget.spares(), a_capacity);

    // Taken: its draw comes back; returned unused: drawn again.
    std::unique_ptr<std::string> taken = q.take_spent();
    ASSERT_NE(taken, nullptr);
    EXPECT_EQ(budget.used(), 0u);
    q.return_spent(std::move(taken));
    EXPECT_EQ(q.spent_bytes(), a_capacity);
    EXPECT_EQ(budget.used(), a_capacity);

    // Spares are not contention: with two holders (share 64 / 3 KiB), 30 KiB more leaves the
    // frames at most half the budget.
    budget.add_holder();
    budget.add_holder();
    EXPECT_EQ(budget.holder_bound(30 * kKiB), 64 * kKiB);
    EXPECT_EQ(budget.holder_bound(33 * kKiB), budget.fair_share());
    budget.remove_holder();
    budget.remove_holder();

    // The spares' bound holds across queues: a second queue keeps nothing beyond 8 KiB.
    q.push_stream(bytes(4 * kKiB, 'b'));
    EXPECT_EQ(batch_of(q).size(), 1u);
    EXPECT_EQ(q.finish_write(), 1u);
    EXPECT_EQ(budget.spares(), 8 * kKiB);
    {
      WriteQueue other(budget, 8 * kKiB, 64);
      other.push_stream(bytes(kKiB, 'o'));
      EXPECT_EQ(batch_of(other).size(), 1u);
      EXPECT_EQ(other.finish_write(), 1u);
      EXPECT_EQ(other.spent_bytes(), 0u);
    }
    q.release_spent();
    EXPECT_EQ(budget.used(), 0u);
    EXPECT_EQ(budget.spares(), 0u);

    // Near the limit a dropped frame's buffer never takes the new frame's room: c replaces b
    // (the queue holds 8 KiB), and b's buffer, which no longer fits, is freed.
    ASSERT_TRUE(budget.try_acquire(53 * kKiB));  // other connections
    EXPECT_EQ(q.push_stream(bytes(6 * kKiB, 'b')), 0u);
    EXPECT_EQ(q.push_stream(bytes(6 * kKiB, 'c')), 1u);  // b dropped, c queued
    EXPECT_EQ(q.queued_bytes(), 6 * kKiB);
    EXPECT_EQ(q.spent_bytes(), 0u);
    EXPECT_EQ(budget.used(), 59 * kKiB);
    budget.release(53 * kKiB);

    // With room, the buffer of a dropped frame is kept; destroying the queue gives it back.
    EXPECT_EQ(q.push_stream(bytes(6 * kKiB, 'd')), 1u);  // c dropped
    EXPECT_GT(q.spent_bytes(), 0u);
    EXPECT_EQ(budget.used(), 6 * kKiB + q.spent_bytes());
  }
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(budget.spares(), 0u);
}

}  // namespace write_queue_test
}  // namespace animd

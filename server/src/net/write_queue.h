#pragma once
// WriteQueue: one connection's outbound frames on their way to the socket, and what they hold
// of the daemon-wide outbound ByteBudget. Pure: no socket, no timer, no log; the Session hands
// it encoded frames, asks it what to write next, and tells it when a write finished.
//
// Two kinds of frame:
//   - replies (and anything else that must arrive, like SubscriptionEnded): never dropped. A
//     client that lets them pile up is refused (the Session closes it).
//   - stream frames: dropped (the oldest queued first) when the queue or the budget is full,
//     so a slow reader loses frames instead of growing the daemon. When the budget is
//     contended a queue holds at most its fair share of it (ByteBudget::fair_share), so
//     readers that do not read cannot starve the ones that do.
//
// Replies may be produced out of request order (the tick, the loader, the network thread);
// hold_reply() keeps each one until all earlier sequence numbers were taken, so they are
// queued in request order.
//
// Budget: every byte a frame draws on the budget is given back exactly once: when its write
// completes, when it is dropped, or when the queue is destroyed. A reply may arrive with bytes
// already drawn by its producer (the World); the queue then owns that draw. The emptied
// buffers kept for the next stream frames (take_spent) draw their capacity too, as spares
// (ByteBudget::try_acquire_spare: all connections' spares within a bound, never counted as
// contention), and none are kept once the owner calls release_spent().
//
// Threads: none of its own; every call on the connection's strand.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <boost/asio/buffer.hpp>

#include "base/byte_budget.h"

namespace animd {

class WriteQueue {
 public:
  // Unsent replies up to this many bytes may be queued without drawing on the budget (so
  // answers keep flowing to everybody while the budget is spent by readers that do not read).
  static constexpr size_t kReplyAllowance = 64u << 10;
  // Unsent replies above this many bytes make backlogged() true (the Session stops reading).
  static constexpr size_t kReplyBacklogBytes = 256u << 10;
  // A write gathers frames until it holds at least this many bytes (or the queue ends).
  static constexpr size_t kWriteBatchBytes = 256u << 10;
  // Buffers of written, dropped or refused stream frames kept for the next frames' encoding
  // (take_spent): at most kSpentBuffers, each of at most kMaxSpentCapacity bytes of capacity
  // and at most kMaxSpentSlack times its frame's size (a buffer one large frame grew is not
  // kept for small ones).
  static constexpr size_t kSpentBuffers = 2;
  static constexpr size_t kMaxSpentCapacity = 1u << 20;
  static constexpr size_t kMaxSpentSlack = 4;

  // `budget` outlives the queue. `max_queued_bytes` (--max-queued-bytes): the bound on queued
  // stream bytes (in-flight and reply bytes count against it) and on unsent reply bytes.
  // `max_held_replies` (--max-pending-commands-per-connection): held replies at which the
  // connection is backlogged().
  WriteQueue(ByteBudget& budget, size_t max_queued_bytes, size_t max_held_replies);
  // Gives back everything still drawn (queued frames, held replies).
  ~WriteQueue();
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  // ---- Request order ----

  struct HeldReply {
    std::unique_ptr<std::string> bytes;  // 4-byte length + ServerMessage
    size_t drawn = 0;                    // bytes its producer drew on the budget
  };
  // Keeps the reply to request `seq` (each seq given once, counting from 0) until every
  // earlier one was taken by next_in_order().
  void hold_reply(uint64_t seq, std::unique_ptr<std::string> bytes, size_t drawn);
  // The held reply with the next sequence number, or nullopt while it has not arrived. The
  // caller owns its draw (push_reply() takes it over).
  std::optional<HeldReply> next_in_order();
  // Gives back the draw of every held reply and forgets them (the connection closed).
  void drop_held_replies();

  // ---- Queuing ----

  // Queues a frame that is never dropped. `drawn`: bytes already drawn on the budget for it
  // (0: the queue draws its size itself, or queues it undrawn within kReplyAllowance).
  // Returns empty when queued; otherwise why the connection must close (the client does not
  // read its replies), with nothing queued and `drawn` given back.
  std::string push_reply(std::unique_ptr<std::string> bytes, size_t drawn = 0);
  // Queues a stream frame, first dropping the oldest queued (not in-flight) stream frames until
  // it fits max_queued_bytes, and drawing its size on the budget. Returns how many frames were
  // dropped: the older ones, plus this one when it still does not fit or the budget is spent.
  uint32_t push_stream(std::unique_ptr<std::string> bytes);
  // Whether a stream frame of `bytes` fits now, without dropping anything: the queue's bound
  // and the budget's (lets the Session skip encoding a frame that would be dropped).
  bool stream_frame_fits(size_t bytes) const;
  // While the daemon's budget is contended: drops this queue's oldest queued (not in-flight)
  // stream frames until it holds no more than its fair share. Returns how many were dropped.
  // (A reader that does not read queues nothing new, so it would otherwise keep its bytes.)
  uint32_t shed_above_fair_share();
  // Drops every queued, not in-flight stream frame (giving their draw back); replies stay.
  void drop_queued_stream_frames();

  // ---- Writing ----

  // Puts the next frames in flight (at least one, until kWriteBatchBytes) and returns their
  // buffers for one write; empty while a write is in flight or when nothing is queued. The
  // buffers stay valid until finish_write().
  std::span<const boost::asio::const_buffer> start_write();
  // The write of the in-flight frames completed: removes them and gives their draw back.
  // Returns how many of them were stream frames.
  uint32_t finish_write();

  // An emptied buffer of a stream frame written or dropped, with the capacity it had, for the
  // caller to encode its next frame into (a frame's bytes are not mapped and page-faulted
  // afresh each time); null when none is kept. Its draw on the budget is given back.
  std::unique_ptr<std::string> take_spent();
  // Takes back a buffer from take_spent() the caller did not use (emptied, kept as before
  // while there is room and the budget allows, else freed).
  void return_spent(std::unique_ptr<std::string> buffer);
  // Frees the kept buffers (the owner streams no more); frames written later keep theirs again.
  void release_spent() { spent_.clear(); }
  // Bytes of capacity the kept buffers hold on the budget.
  size_t spent_bytes() const;

  // ---- State ----

  bool writing() const { return in_flight_ > 0; }
  // Nothing queued or in flight (held replies aside).
  bool empty() const { return frames_.empty(); }
  // Too many answers are waiting (held replies, or unsent reply bytes): stop reading until
  // they drain, so a client that floods requests or does not read is held back by TCP.
  bool backlogged() const {
    return held_.size() >= max_held_replies_ || unsent_reply_bytes_ > kReplyBacklogBytes;
  }
  size_t queued_bytes() const { return queued_bytes_; }
  size_t unsent_reply_bytes() const { return unsent_reply_bytes_; }
  size_t held_replies() const { return held_.size(); }
  // Bytes this queue holds on the budget for queued frames (held replies not included).
  size_t drawn_bytes() const { return drawn_bytes_; }

 private:
  struct Frame {
    std::unique_ptr<std::string> bytes;  // heap-stable: a write names it while frames_ moves
    bool stream = false;                 // may be dropped
    size_t drawn = 0;                    // its bytes on the budget (0 for an undrawn reply)
  };
  // Removes frames_[i] (not in flight) and gives its draw back; returns its buffer when it
  // was a stream frame (null for a reply).
  std::unique_ptr<std::string> erase_queued(size_t i);
  // A stream frame's buffer leaves the queue: kept for take_spent() while there is room.
  void keep_spent(std::unique_ptr<std::string> bytes);
  // Keeps an emptied buffer (within kSpentBuffers and kMaxSpentCapacity) when the budget
  // grants its capacity as a spare; frees it otherwise.
  void keep_buffer(std::unique_ptr<std::string> bytes);
  // drawn_bytes_ bookkeeping, registering this queue as a budget holder while it holds bytes.
  void add_drawn(size_t n);
  void give_back(size_t n);  // also releases n on the budget

  ByteBudget& budget_;
  const size_t max_queued_bytes_;
  const size_t max_held_replies_;

  std::map<uint64_t, HeldReply> held_;  // by seq; every key >= next_seq_
  uint64_t next_seq_ = 0;               // the seq next_in_order() gives next

  std::deque<Frame> frames_;       // in write order; the first in_flight_ are being written
  size_t in_flight_ = 0;           // never dropped nor moved while the write runs
  size_t queued_bytes_ = 0;        // all of frames_ (in flight included)
  size_t drawn_bytes_ = 0;         // sum of frames_[i].drawn
  size_t unsent_reply_bytes_ = 0;  // replies in frames_ not yet in flight
  size_t unsent_reply_frames_ = 0;
  std::vector<boost::asio::const_buffer> buffers_;  // the in-flight frames, for the write
  struct Spent {
    std::unique_ptr<std::string> bytes;  // emptied
    BudgetHold hold;                     // its capacity, on budget_
  };
  // At most kSpentBuffers, each of at most kMaxSpentCapacity capacity.
  std::vector<Spent> spent_;
};

}  // namespace animd

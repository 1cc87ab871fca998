#pragma once
// StreamSender: one connection's stream. The tick's snapshots wait in its SnapshotInbox for
// the session's strand, are encoded for each of its subscriptions (SubscriptionSet;
// stream_encoder.h; compact frames as compact_frame_choice.h decides) and queued on the
// Connection. Frames the connection cannot take are counted as dropped and reported in the
// next frame; after --stream-stall-seconds of losing every frame, or when one frame could
// never fit --max-queued-bytes, subscriptions end with a SubscriptionEnded.
//
// Threads: offer() and nudge() from any thread; everything else on the session's strand.

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "net/connection.h"
#include "session/session_host.h"
#include "session/snapshot_inbox.h"
#include "session/subscription_set.h"
#include "snapshot/snapshot.h"
#include "stream/stream_encoder.h"

namespace animd {

class StreamSender {
 public:
  using Clock = std::chrono::steady_clock;

  // `host` and `connection` outlive the sender.
  StreamSender(SessionHost& host, Connection& connection, uint64_t session_id);
  StreamSender(const StreamSender&) = delete;
  StreamSender& operator=(const StreamSender&) = delete;

  SubscriptionSet& subscriptions() { return subs_; }
  const SubscriptionSet& subscriptions() const { return subs_; }

  // Any thread: the tick's newest snapshot (a snapshot the encode stage prepared, for
  // nudge()). True when the caller is to post encode_waiting() on the strand.
  bool offer(const SnapshotPtr& snapshot);
  bool nudge();
  // Strand: encodes what waits in the inbox for every subscription.
  void encode_waiting();

  // The World answered request `seq` (subscription_set.h).
  void settle(uint64_t seq, bool ok, uint64_t tick);
  // A write took `stream_frames` stream frames: the reader reads.
  void frames_written(uint32_t stream_frames);
  // Once a second: ends every subscription after --stream-stall-seconds of dropping all.
  void check_stall(Clock::time_point now);
  // The connection is closing: nothing streams any more.
  void close();

 private:
  // Lets go of the snapshots kept for compact subscriptions that are gone, and of the frame
  // buffers kept for encoding once no subscription is left.
  void release_unwanted_snapshots();
  // Frees the buffers kept for encoding frames (the connection's spent ones, and the last
  // frame's messages): a connection that no longer streams holds none.
  void release_buffers();
  // The compact subscriptions' frames, from the snapshots in compact_waiting_.
  void encode_compact();
  // Encodes and queues `sub`'s frame of `snap` (counted as dropped if the queue is full).
  void send_frame(StreamSubscription& sub, const Snapshot& snap);
  // Counts `n` stream frames lost; `encoded`: they were encoded (and queued), so what the
  // client holds is no longer what the subscriptions think (StreamSubscription::baselines_lost).
  void count_drops(uint32_t n, bool encoded);
  // Ends the subscriptions `ids` (all when empty) with a SubscriptionEnded each.
  void end_subscriptions(const std::string& reason, std::vector<uint32_t> ids = {});
  bool stopped() const { return connection_.closed() || connection_.draining(); }

  // Frames lost since the last frame sent, in all, and since when every frame was lost.
  struct Drops {
    uint32_t since_last = 0;
    uint64_t total = 0;
    std::optional<Clock::time_point> all_since;
  };
  // Subscriptions whose frame can never fit the queue, ended after the batch.
  struct Ending {
    std::vector<uint32_t> ids;
    std::string reason;
  };

  SessionHost& host_;
  Connection& connection_;
  const uint64_t session_id_;
  SubscriptionSet subs_;
  SnapshotInbox inbox_;
  std::deque<SnapshotPtr> batch_;  // the snapshots being encoded
  // Snapshots a compact subscription may still encode (newer than its compact_through and
  // due), waiting for the encode stage; and the newest tick taken.
  std::deque<SnapshotPtr> compact_waiting_;
  uint64_t newest_seen_ = 0;
  Drops drops_;
  Ending ending_;
  EncodedFrame encoded_;  // reused by every frame
};

}  // namespace animd

#pragma once
// Session: one client connection, on its own strand (its state needs no lock). The steps:
//
//   handshake (TLS, or nothing) -> read -> FrameReader (limits, budget) -> parse ->
//   Admission (admission.h: rate, command, token, role) -> the command's handler
//   (command_table.h): answer here, load on the loader threads, or queue for the tick ->
//   replies in request order -> WriteQueue (write_queue.h: ordering, budget, drops,
//   flow-control thresholds) -> socket
//
// and, on the tick's side, offer_snapshot -> SnapshotInbox (snapshot_inbox.h) -> encode for
// each of its subscriptions (subscription_set.h; stream_encoder) -> WriteQueue.
//
// Memory it can be made to hold is bounded before trust: until its first valid request a
// connection may send frames of --max-preauth-frame-bytes at most and must send that request
// within --auth-timeout; a frame in progress must keep arriving (--read-timeout per 64 KiB);
// buffered request bytes and queued stream bytes draw on daemon-wide budgets. A slow reader
// loses stream frames (counted and reported in the next frame), then, after
// --stream-stall-seconds of losing all of them, its subscriptions (SubscriptionEnded);
// replies are never dropped (a client letting replies pile up past the limit is closed).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <utility>  // before Asio: boost 1.74's awaitable.hpp needs std::exchange in C++20

#include <boost/asio.hpp>

#include "net/frame_reader.h"
#include "net/transport.h"
#include "net/write_queue.h"
#include "protocol/reply_sink.h"
#include "session/admission.h"
#include "session/auth.h"
#include "session/command_table.h"
#include "session/session_host.h"
#include "session/snapshot_inbox.h"
#include "session/subscription_set.h"
#include "snapshot/snapshot.h"
#include "stream/stream_encoder.h"
#include "world/command.h"

namespace animd {

class Session : public ReplySink, public std::enable_shared_from_this<Session> {
 public:
  Session(SessionHost& server, Transport transport, uint64_t id, std::string peer_address);

  uint64_t id() const { return id_; }
  const std::string& peer() const { return peer_; }
  const std::string& peer_address() const { return peer_address_; }

  void start();
  // Any thread. Posts the reply to the session's strand.
  void deliver(uint64_t seq, anim::v1::Reply reply, size_t drawn = 0) override;
  // Tick thread. Hands over the newest snapshot (snapshot_inbox.h: a few wait for the strand;
  // one discarded beyond that counts as a dropped frame of every subscription).
  void offer_snapshot(const SnapshotPtr& snapshot);
  // Any thread: the encode stage prepared a snapshot (encode_stage.h); compact frames that
  // waited for it are encoded on the strand.
  void snapshot_prepared();
  // Any thread. Stops reading, writes what is queued, then closes (or closes at `deadline`).
  void drain(std::chrono::steady_clock::time_point deadline);

 private:
  using Clock = std::chrono::steady_clock;

  // Reading.
  void on_handshake(boost::system::error_code ec);
  void do_read();
  void on_read(boost::system::error_code ec, size_t n);
  void process_input();
  bool backlogged() const;
  void resume_if_drained();
  void on_frame(std::string_view body);
  void watchdog();

  // Admission and routing: the command table (command_table.h) names each command's handler.
  friend std::span<const CommandSpec> command_table();
  void handle(anim::v1::Request& request, uint64_t seq);
  const CommandSpec* admit(const anim::v1::Request& request, uint64_t seq);
  // The handlers (one per command in the table; all on the strand, after admission).
  void answer_list_assets(anim::v1::Request& request, uint64_t seq);
  void answer_asset_data(anim::v1::Request& request, uint64_t seq);
  void handle_load(anim::v1::Request& request, uint64_t seq);
  // query_pose answered here from the pose history, without waiting for the tick; passed on
  // to the tick when the history does not have the character (the World says why).
  void handle_query_pose(anim::v1::Request& request, uint64_t seq);
  // raycast and overlap_sphere answered here from the pose history (hit_query.h), always.
  void handle_hit_query(anim::v1::Request& request, uint64_t seq);
  void handle_subscribe(anim::v1::Request& request, uint64_t seq);
  void handle_unsubscribe(anim::v1::Request& request, uint64_t seq);
  void queue_for_tick(anim::v1::Request& request, uint64_t seq);
  // The World tracks which owner keys have a live connection (orphaned characters); a
  // request answered here tells it with a reply-less command, once per owner key.
  void note_owner(uint64_t owner);
  void push_command(anim::v1::Request& request, uint64_t seq, uint32_t subscription_id = 0);

  // Replies.
  void on_reply(uint64_t seq, anim::v1::Reply reply, size_t drawn);
  // `drawn`: bytes already drawn on the outbound budget for this reply (by the World).
  void complete(uint64_t seq, anim::v1::Reply reply, size_t drawn = 0);
  void reply_error(uint64_t seq, const anim::v1::Request& request, anim::v1::StatusCode code,
                   std::string message);

  // Streaming.
  void on_snapshot();
  // The compact subscriptions' frames, from the snapshots waiting in compact_waiting_.
  void encode_compact();
  // Encodes and queues `sub`'s frame of `snap` (counted as dropped if the queue is full).
  void send_frame(StreamSubscription& sub, const Snapshot& snap);
  // After subscriptions ended or the connection closed: lets go of the snapshots kept for
  // compact subscriptions that are gone.
  void release_unwanted_snapshots();
  // Counts `n` stream frames lost; `encoded`: they were encoded (and queued), so what the
  // client holds is no longer what the subscriptions think (StreamSubscription::baselines_lost).
  void count_drops(uint32_t n, bool encoded);
  // Ends the subscriptions `ids` (all when empty) with a SubscriptionEnded each.
  void end_subscriptions(const std::string& reason, std::vector<uint32_t> ids = {});

  // Writing.
  // Queue a frame that must arrive (`drawn`: bytes its producer drew on the outbound budget);
  // closes the connection when the client does not read its replies.
  void enqueue_reply(std::unique_ptr<std::string> bytes, size_t drawn = 0);
  // Queue a stream frame (frames dropped on the way are counted).
  void enqueue_stream(std::unique_ptr<std::string> bytes);
  // False (after answering RESOURCE_EXHAUSTED) when the outbound budget is spent: large
  // answers made here would only pile up behind readers that do not read.
  bool outbound_room(uint64_t seq, const anim::v1::Request& request);
  void write_more();
  void write_next_message();  // WebSocket: the in-flight frames one message at a time
  void on_write(boost::system::error_code ec, size_t n);
  // `ws_code`: the WebSocket close code sent with the reason (1008 policy violation by
  // default; ignored for TCP and TLS).
  void close(const std::string& reason,
             uint16_t ws_code = boost::beast::websocket::close_code::policy_error);
  // The one way into draining: stops reading, writes what is queued, then closes with
  // `reason`; at `deadline` it closes anyway, abandoning what is left. Called again while
  // draining (the daemon stopping during a close-after-flush), only the deadline moves.
  void close_after_flush(std::string reason, Clock::time_point deadline,
                         uint16_t ws_code = boost::beast::websocket::close_code::policy_error);

  SessionHost& server_;
  Transport transport_;
  boost::asio::steady_timer drain_timer_;
  boost::asio::steady_timer watchdog_timer_;
  const uint64_t id_;
  std::string peer_;          // "address:port"
  std::string peer_address_;  // the address alone (per-address connection count)
  bool closed_ = false;
  bool draining_ = false;     // in close_after_flush: no more reading, closes once flushed
  std::string drain_reason_;  // why it is draining: logged when the drain ends
  uint16_t drain_code_ = 0;   // and the WebSocket close code it ends with
  bool paused_ = false;       // reading paused while an asset load is in progress
  bool held_back_ = false;    // reading paused until outstanding answers drain (backlogged())
  const Clock::time_point connected_at_;
  Clock::time_point last_input_;

  // Reading: bytes from the socket go through the frame reader.
  std::vector<uint8_t> read_buf_;
  size_t read_pos_ = 0, read_end_ = 0;  // unprocessed bytes of read_buf_
  FrameReader reader_;
  Clock::time_point read_deadline_;  // while a frame is in progress
  size_t progress_mark_ = 0;         // body bytes at the last deadline extension
  // WebSocket: the last read ended its message (the reader still has to be told).
  bool message_end_pending_ = false;
  bool ws_open_ = false;  // WebSocket handshake done: a close frame can be sent

  // Admission and the commands in flight.
  Admission admission_;
  uint32_t pending_commands_ = 0;       // requests handed to the tick or loader, not answered yet
  std::vector<uint64_t> noted_owners_;  // owner keys the World has seen this connection use

  // Replies in request order (write_queue_ holds the early ones).
  uint64_t next_seq_in_ = 0;

  // Streaming.
  SubscriptionSet subs_;
  SnapshotInbox inbox_;
  std::deque<SnapshotPtr> encoding_;  // the batch being encoded
  // Strand only: snapshots a compact subscription may still encode (newer than its
  // compact_through and due), waiting for the encode stage; the newest tick taken.
  std::deque<SnapshotPtr> compact_waiting_;
  uint64_t newest_seen_ = 0;
  uint32_t dropped_since_last_ = 0;
  uint64_t dropped_total_ = 0;
  std::optional<Clock::time_point> dropping_since_;  // every frame dropped since then
  EncodedFrame encoded_;
  std::vector<uint32_t> ended_;  // subscriptions to end after this batch (frames too large)
  std::string end_reason_;

  // Writing. Stays until the session is destroyed: an aborted write may still name its
  // buffers after close().
  WriteQueue write_queue_;
  std::span<const boost::asio::const_buffer> write_messages_;  // WebSocket: frames left to send
  size_t written_ = 0;                                         // bytes of the batch sent so far
  uint64_t bytes_in_ = 0, bytes_out_ = 0;
};

}  // namespace animd

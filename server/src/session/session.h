#pragma once
// Session: one client connection, on its own strand (its state needs no lock). It composes
// four parts with one job each and routes between them:
//
//   Connection (net/connection.h): handshake, reading and framing with their limits and
//     deadlines, the write queue, closing;
//   Admission (admission.h): rate, command, token and role of each request;
//   CommandPipeline (command_pipeline.h): requests in flight to the tick or the loader,
//     within the connection's share;
//   StreamSender (stream_sender.h): the subscriptions and their frames.
//
// A frame from the Connection is parsed, admitted and given to its command's handler
// (command_table.h): answered here (asset catalog, pose history, hit queries), posted to the
// loader threads, or queued for the tick. Replies, from any thread, come back through
// deliver() and leave in request order.
//
// Lifetime: held by the Server (and by every pending operation) through a shared_ptr, until
// the connection closes and its last handler returns.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "net/connection.h"
#include "net/transport.h"
#include "protocol/reply_sink.h"
#include "session/admission.h"
#include "session/command_pipeline.h"
#include "session/command_table.h"
#include "session/session_host.h"
#include "session/stream_sender.h"
#include "snapshot/snapshot.h"

namespace animd {

class Session : public ReplySink,
                private ConnectionEvents,
                public std::enable_shared_from_this<Session> {
 public:
  Session(SessionHost& server, Transport transport, uint64_t id, std::string peer_address);

  uint64_t id() const { return id_; }
  const std::string& peer() const { return connection_.peer(); }
  // The peer's address alone (the per-address connection count).
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
  // Any thread: sends `message` (a CharactersMoved) on the strand, outside request order.
  void send_notice(std::shared_ptr<const anim::v1::ServerMessage> message);
  // Any thread. Stops reading, writes what is queued, then closes (or closes at `deadline`).
  void drain(std::chrono::steady_clock::time_point deadline) { connection_.drain(deadline); }

 private:
  using Clock = std::chrono::steady_clock;
  using Request = anim::v1::Request;

  // ConnectionEvents.
  void on_frame(std::string_view body) override;
  bool backlogged() const override { return pipeline_.full(); }
  void on_written(uint32_t stream_frames) override { stream_.frames_written(stream_frames); }
  void on_second(Clock::time_point now) override;
  void on_closing(const std::string& reason) override;
  void on_closed() override;

  // Admission and routing: the command table (command_table.h) names each command's handler.
  friend std::span<const CommandSpec> command_table();
  void handle(Request& request, uint64_t seq);
  const CommandSpec* admit(const Request& request, uint64_t seq);
  // The handlers (one per command in the table; all on the strand, after admission).
  void answer_list_assets(Request& request, uint64_t seq);
  void answer_asset_data(Request& request, uint64_t seq);
  void handle_load(Request& request, uint64_t seq);
  // migrate: to the tick with a MigrationSink (fleet/migrator.h), which hands the begun
  // migration to the daemon's Migrator; its answer comes back when the migration ends.
  void handle_migrate(Request& request, uint64_t seq);
  // query_pose answered here from the pose history, without waiting for the tick; passed on
  // to the tick when the history does not have the character (the World says why).
  void handle_query_pose(Request& request, uint64_t seq);
  // raycast and overlap_sphere answered here from the pose history (hit_query.h), always.
  void handle_hit_query(Request& request, uint64_t seq);
  void handle_subscribe(Request& request, uint64_t seq);
  void handle_unsubscribe(Request& request, uint64_t seq);
  void queue_for_tick(Request& request, uint64_t seq);
  // Converts `request` and hands it to the tick (`subscription_id`: the id a subscribe takes);
  // answers it here when it is malformed or refused.
  // `sink`: where the World's answer goes (null: this session).
  void push_command(Request& request, uint64_t seq, uint32_t subscription_id = 0,
                    std::shared_ptr<ResultSink> sink = nullptr);
  uint64_t owner_of(const Request& request) const;

  // Replies.
  void on_reply(uint64_t seq, anim::v1::Reply reply, size_t drawn);
  // `drawn`: bytes already drawn on the outbound budget for this reply (by the World).
  void complete(uint64_t seq, anim::v1::Reply reply, size_t drawn = 0);
  void reply_error(uint64_t seq, const Request& request, anim::v1::StatusCode code,
                   std::string message);
  // False (after answering RESOURCE_EXHAUSTED) when the outbound budget is spent: large
  // answers made here would only pile up behind readers that do not read.
  bool outbound_room(uint64_t seq, const Request& request);

  SessionHost& server_;
  const uint64_t id_;
  const std::string peer_address_;
  Connection connection_;
  Admission admission_;
  CommandPipeline pipeline_;
  StreamSender stream_;
  uint64_t next_seq_in_ = 0;  // the sequence number of the next request read
};

}  // namespace animd

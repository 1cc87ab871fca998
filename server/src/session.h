#pragma once
// Session: one client connection. Runs on its own strand (so its state needs no lock):
// reads frames, parses and validates requests, answers the ones that need no World
// (list_assets, get_asset_data, errors) itself, hands the rest to the tick through the
// CommandQueue, and writes replies (in request order) and stream frames through a bounded
// write queue. A slow reader loses its oldest queued stream frames; replies are never
// dropped (a client letting replies pile up past the limit is disconnected).

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <utility>  // before Asio: boost 1.74's awaitable.hpp needs std::exchange in C++20

#include <boost/asio.hpp>

#include "command.h"
#include "snapshot.h"

namespace animd {

class Server;

class Session : public ReplySink, public std::enable_shared_from_this<Session> {
 public:
  Session(Server& server, boost::asio::ip::tcp::socket socket, uint64_t id);
  ~Session() override;

  uint64_t id() const { return id_; }
  const std::string& peer() const { return peer_; }

  void start();
  // Any thread. Posts the reply to the session's strand.
  void deliver(uint64_t seq, anim::v1::Reply reply) override;
  // Tick thread. Hands over the newest snapshot. Up to kMaxPendingSnapshots wait for the
  // session's strand (absorbs scheduling jitter); beyond that the oldest waiting one is
  // discarded (its frames count as dropped), so a stalled session costs the tick nothing.
  void offer_snapshot(const SnapshotPtr& snapshot);
  // Any thread. Stops reading, writes what is queued, then closes (or closes at `deadline`).
  void drain(std::chrono::steady_clock::time_point deadline);

 private:
  struct Subscription {
    uint32_t id = 0;
    bool all = false;
    std::vector<uint32_t> ids;       // explicit ids, sorted; despawned ones are removed
    std::vector<uint32_t> last_ids;  // all_characters: ids in the previous frame sent
    uint32_t divisor = 1;
    uint64_t start_tick = 0;
  };
  struct OutFrame {
    std::unique_ptr<std::string> bytes;  // 4-byte length + ServerMessage; heap-stable
    bool stream = false;
  };

  void read_header();
  void read_body(uint32_t length);
  void on_frame(size_t length);
  void handle(anim::v1::Request& request, uint64_t seq);
  void handle_load(anim::v1::Request& request, uint64_t seq);
  void push_command(anim::v1::Request& request, uint64_t seq, uint32_t subscription_id = 0);
  void on_reply(uint64_t seq, anim::v1::Reply reply);
  void complete(uint64_t seq, anim::v1::Reply reply);
  void reply_error(uint64_t seq, const anim::v1::Request& request, anim::v1::StatusCode code,
                   std::string message);
  bool take_token();

  void on_snapshot();
  void encode_frame(Subscription& sub, const Snapshot& snapshot);

  void enqueue(std::unique_ptr<std::string> bytes, bool stream);
  void write_more();
  void close(const std::string& reason);

  Server& server_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer drain_timer_;
  const uint64_t id_;
  std::string peer_;
  bool closed_ = false;
  bool draining_ = false;
  bool paused_ = false;  // reading paused while an asset load is in progress

  // Reading.
  uint8_t header_[4] = {};
  std::string body_;

  // Replies in request order.
  uint64_t next_seq_in_ = 0;
  uint64_t next_seq_out_ = 0;
  std::map<uint64_t, std::unique_ptr<std::string>> ready_replies_;
  std::map<uint64_t, Subscription> pending_subscribes_;  // by seq
  std::map<uint64_t, uint32_t> pending_unsubscribes_;    // by seq

  // Rate limit (token bucket).
  double tokens_;
  std::chrono::steady_clock::time_point last_refill_;

  // Streaming.
  std::vector<Subscription> subscriptions_;
  uint32_t next_subscription_id_ = 1;
  std::atomic<bool> streaming_{false};  // any subscription: offer_snapshot cares
  std::mutex snapshot_mutex_;
  static constexpr size_t kMaxPendingSnapshots = 4;
  std::deque<SnapshotPtr> pending_snapshots_;  // guarded by snapshot_mutex_
  std::deque<SnapshotPtr> encoding_;           // strand only: the batch being encoded
  bool snapshot_posted_ = false;               // guarded by snapshot_mutex_
  std::atomic<uint32_t> coalesced_drops_{0};
  uint32_t dropped_since_last_ = 0;
  anim::v1::ServerMessage scratch_;  // reused for encoding stream frames

  // Writing.
  std::deque<OutFrame> out_;
  size_t in_flight_ = 0;     // frames at the front of out_ being written
  size_t queued_bytes_ = 0;  // all of out_
  size_t reply_bytes_ = 0;   // replies in out_ not yet in flight
  size_t reply_frames_ = 0;
  std::vector<boost::asio::const_buffer> write_buffers_;
  uint64_t bytes_in_ = 0, bytes_out_ = 0;
};

// Serializes a ServerMessage with its 4-byte little-endian length prefix.
std::unique_ptr<std::string> frame_message(const anim::v1::ServerMessage& message);

}  // namespace animd

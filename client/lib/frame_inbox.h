#pragma once
// FrameInbox: libanimclient's inbound side, after the framing. Each frame body read from the
// socket is parsed here as a ServerMessage and goes where it belongs:
//   - a Reply to the call waiting for its request_id (a blocked caller's promise, or an async
//     caller's callback); a reply nobody waits for any more (timed out) is dropped;
//   - a StreamFrame, once whole (parts joined), to the frame callback or the bounded queue;
//   - a SubscriptionEnded to the list of ended subscriptions;
//   - every message but replies and frames (kinds this code does not know included) also to
//     the message callback, if one is set.
// It also closes once: every waiting call fails with the reason, frame readers wake up.
// No socket: the Client's I/O thread feeds it bodies; tests feed it serialized messages.
// Private to client/lib.
//
// Threads: receive() and close() run on the I/O thread only (so does every callback they
// call). The rest may be called from any thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/steady_timer.hpp>

#include "animclient/client.h"
#include "compact_decoder.h"

namespace animclient::detail {

// A call waiting for its reply: a blocked caller (promise) or an async one (callback, with
// its deadline timer, created and cancelled on the I/O thread).
struct PendingCall {
  std::shared_ptr<std::promise<Result<anim::v1::Reply>>> promise;
  Client::ReplyCallback callback;
  std::shared_ptr<boost::asio::steady_timer> timer;  // null until the I/O thread armed it

  // Cancels the timer (I/O thread) and hands `result` to the caller.
  void complete(Result<anim::v1::Reply> result);
};

class FrameInbox {
 public:
  // Subscriptions the server ended that ended_subscriptions() remembers (the newest).
  static constexpr size_t kMaxEnded = 64;

  // `frame_queue_capacity` (ClientOptions): frames next_frame() can have waiting; the oldest
  // is dropped for a new one beyond it (0: every frame without a callback is dropped).
  // decode_compact: ClientOptions::decode_compact.
  explicit FrameInbox(size_t frame_queue_capacity, bool decode_compact = true)
      : capacity_(frame_queue_capacity), decode_compact_(decode_compact) {}
  FrameInbox(const FrameInbox&) = delete;
  FrameInbox& operator=(const FrameInbox&) = delete;

  // ---- Calls ----

  // Registers `call` as the one waiting for the reply to request `id`, before the request is
  // sent (so the reply never arrives first). On a closed connection it is completed at once,
  // on the calling thread, with kDisconnected "connection closed (<why>)", and false returned.
  bool expect(uint64_t id, PendingCall call);
  // Gives the call waiting for `id` its deadline timer; false when it no longer waits (the
  // close failed it).
  bool set_timer(uint64_t id, std::shared_ptr<boost::asio::steady_timer> timer);
  // Takes the call waiting for `id` back (its time is up); nullopt when its reply or the close
  // came first and completed it.
  std::optional<PendingCall> withdraw(uint64_t id);

  // ---- Incoming (I/O thread) ----

  // One frame body from the server. Returns a kProtocol error, and delivers nothing, when it
  // is not a ServerMessage (the caller closes the connection). Kinds this client does not
  // know (a newer server) are skipped.
  std::optional<Error> receive(const uint8_t* data, size_t size);

  // ---- Closing (I/O thread) ----

  // The first call records why, fails every waiting call with `reason` and wakes next_frame()
  // waiters (frames already queued stay readable); later calls do nothing.
  void close(const Error& reason);
  bool closed() const;

  // ---- Stream frames (any thread) ----

  // With a callback set, whole frames go to it (on the I/O thread) instead of the queue.
  void set_frame_callback(Client::FrameCallback callback);
  // Messages that are neither replies nor frames go to it (on the I/O thread) once handled.
  void set_message_callback(Client::MessageCallback callback);
  // The oldest queued frame, waiting up to `timeout`; nullopt on timeout, or at once when the
  // queue is empty and the connection closed.
  std::optional<anim::v1::StreamFrame> next_frame(std::chrono::milliseconds timeout);
  // Subscriptions the server ended, oldest first (the last kMaxEnded).
  std::vector<anim::v1::SubscriptionEnded> ended_subscriptions() const;

  // ---- Counters (any thread) ----

  uint64_t replies_received() const { return replies_received_.load(); }  // matched or not
  uint64_t frames_received() const { return frames_received_.load(); }    // whole frames
  // Bytes of the StreamFrame messages received (length prefix included), as they came.
  uint64_t stream_bytes_received() const { return stream_bytes_received_.load(); }
  // Frames lost here: queue overflow, or parts that did not join (a part missing).
  uint64_t frames_dropped_locally() const { return frames_dropped_locally_.load(); }
  // Compact characters that could not be decoded (and were left out of their frame).
  uint64_t compact_errors() const { return decoder_.errors(); }
  std::string last_compact_error() const { return decoder_.last_error(); }

  // ---- ENCODING_COMPACT skeletons (I/O thread) ----

  // How the inbox asks for an asset's skeleton (get_asset_data with skip_mesh) when a compact
  // key frame names one it does not hold; the answer comes back through skeleton_reply().
  // Until then that frame and every later one wait (in order). Unset: such characters are
  // left out of their frames.
  void set_skeleton_fetcher(std::function<void(const std::string& asset)> fetch);
  void skeleton_reply(const std::string& asset, const Result<anim::v1::Reply>& reply);

 private:
  void deliver_reply();
  bool join_parts();
  // A whole frame: decoded (or held back for a skeleton), then delivered.
  void on_frame(anim::v1::StreamFrame frame);
  // Decodes and delivers waiting frames until one needs a skeleton not fetched yet.
  void drain_waiting();
  void deliver_frame(anim::v1::StreamFrame frame);
  void add_ended();
  // Hands incoming_ to the message callback, if any.
  void deliver_message();

  const size_t capacity_;

  // Calls waiting for their reply, and whether the connection is closed (and why).
  mutable std::mutex pending_mutex_;
  std::unordered_map<uint64_t, PendingCall> pending_;
  bool closed_ = false;
  Error close_error_;  // set once, before closed_

  // I/O thread only.
  anim::v1::ServerMessage incoming_;  // reused so repeated fields keep their capacity
  std::map<uint32_t, anim::v1::StreamFrame> partial_;  // frames missing later parts, by sub
  CompactDecoder decoder_;
  std::function<void(const std::string&)> fetch_skeleton_;
  bool decode_compact_ = true;
  std::deque<anim::v1::StreamFrame> waiting_;  // whole frames held back for a skeleton
  std::string fetching_;                       // the asset asked for, or empty

  // Stream delivery: either the callback or the bounded queue.
  mutable std::mutex frame_mutex_;
  std::condition_variable frame_cv_;
  std::deque<anim::v1::StreamFrame> frame_queue_;
  std::shared_ptr<const Client::FrameCallback> frame_callback_;
  std::shared_ptr<const Client::MessageCallback> message_callback_;  // under frame_mutex_
  std::vector<anim::v1::SubscriptionEnded> ended_;                   // oldest first
  bool frames_closed_ = false;

  std::atomic<uint64_t> replies_received_{0};
  std::atomic<uint64_t> frames_received_{0};
  std::atomic<uint64_t> stream_bytes_received_{0};
  std::atomic<uint64_t> frames_dropped_locally_{0};
};

}  // namespace animclient::detail

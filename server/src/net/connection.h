#pragma once
// Connection: one client's bytes, from the handshake to the close. It reads the transport
// through a FrameReader (limits, deadlines, the daemon's inbound budget), hands each complete
// frame to its owner, writes what the owner queues through a WriteQueue, and closes: at once,
// or after flushing what is queued. It knows nothing of requests, replies or streams: those
// are its owner's (ConnectionEvents), which it calls on its executor only.
//
// Defences it applies on its own, before any request is understood:
//   - until trust() (the first valid request) frames are at most --max-preauth-frame-bytes,
//     and trust() must come within --auth-timeout;
//   - a frame in progress must keep arriving: --read-timeout per 64 KiB;
//   - buffered request bytes draw on the daemon-wide inbound budget, queued outbound bytes on
//     the outbound one (WriteQueue);
//   - reading pauses while the owner or the write queue is backlogged, so a client that
//     floods requests or does not read its replies is held back by TCP.
//
// Lifetime: a member of its owner, which is held by a shared_ptr; start() takes a weak
// reference to the owner and every pending operation keeps the owner alive. Threads: every
// call on the connection's executor (a strand), except drain() and executor().

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <utility>  // before Asio: boost 1.74's awaitable.hpp needs std::exchange in C++20

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "base/byte_budget.h"
#include "base/config.h"
#include "base/metrics.h"
#include "net/frame_reader.h"
#include "net/transport.h"
#include "net/write_queue.h"

namespace animd {

// What a Connection tells its owner, on the connection's executor.
class ConnectionEvents {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~ConnectionEvents() = default;

  // A complete frame's body (no length prefix); valid until the call returns.
  virtual void on_frame(std::string_view body) = 0;
  // True while the owner has too many answers outstanding to read another request.
  virtual bool backlogged() const = 0;
  // A write completed; `stream_frames` of its frames were stream frames.
  virtual void on_written(uint32_t stream_frames) = 0;
  // Once a second while open, after the connection's own deadlines were checked.
  virtual void on_second(Clock::time_point now) = 0;
  // The connection is closing for `reason` (called once, before the socket closes, so that
  // what the owner logs precedes what the peer sees).
  virtual void on_closing(const std::string& reason) = 0;
  // The socket is closed and queued frames are abandoned (called once, last).
  virtual void on_closed() = 0;
};

class Connection {
 public:
  using Clock = std::chrono::steady_clock;
  // The WebSocket close code sent when none is named (ignored for TCP and TLS).
  static constexpr uint16_t kPolicyClose = boost::beast::websocket::close_code::policy_error;

  // `config`, `metrics`, the budgets and `events` outlive the connection.
  Connection(Transport transport, const Config& config, Metrics& metrics, ByteBudget& inbound,
             ByteBudget& outbound, ConnectionEvents& events);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs the handshake, then reads; `owner` is kept alive by every pending operation.
  void start(std::weak_ptr<void> owner);
  Transport::executor_type executor() { return transport_.get_executor(); }

  // "address:port" of the peer ("?" when unknown), and how it is connected (" (TLS)",
  // " (WebSocket)", " (WebSocket, TLS)" or empty).
  const std::string& peer() const { return peer_; }
  std::string kind() const;
  bool is_websocket() const { return transport_.is_websocket(); }

  // ---- Reading ----

  // The first valid request arrived: frames up to the full limit, no --auth-timeout.
  void trust();
  bool trusted() const { return trusted_; }
  // Reading stops until resume_reading() (a load in progress keeps request order).
  void pause_reading() { paused_ = true; }
  void resume_reading();
  // The owner's backlog shrank: reading resumes if it was held back for it.
  void resume_if_drained();
  // Hands the current frame's budget draw to the caller (FrameReader::take_draw).
  BudgetHold take_frame_draw() { return reader_.take_draw(); }
  Clock::time_point last_input() const { return last_input_; }

  // ---- Writing ----

  // The reply to request `seq`: queued once every earlier one was (request order). `drawn`:
  // bytes its producer drew on the outbound budget (given back if closed). Closes the
  // connection when the client does not read its replies.
  void send_reply(uint64_t seq, std::unique_ptr<std::string> bytes, size_t drawn);
  // A frame that must arrive, outside request order (a SubscriptionEnded).
  void send_now(std::unique_ptr<std::string> bytes);
  // A stream frame; returns how many stream frames were dropped to queue it (or it itself).
  uint32_t send_stream(std::unique_ptr<std::string> bytes);
  // WriteQueue::stream_frame_fits, shed_above_fair_share, drop_queued_stream_frames.
  bool stream_frame_fits(size_t bytes) const { return write_queue_.stream_frame_fits(bytes); }
  uint32_t shed_above_fair_share() { return write_queue_.shed_above_fair_share(); }
  void drop_queued_stream_frames() { write_queue_.drop_queued_stream_frames(); }
  bool write_backlogged() const { return write_queue_.backlogged(); }
  // WriteQueue::take_spent: an emptied buffer of a stream frame sent or dropped, or null.
  std::unique_ptr<std::string> spent_buffer() { return write_queue_.take_spent(); }
  // WriteQueue::return_spent: a buffer from spent_buffer() that was not used.
  void return_spent_buffer(std::unique_ptr<std::string> buffer) {
    write_queue_.return_spent(std::move(buffer));
  }
  void release_spent_buffers() { write_queue_.release_spent(); }

  // ---- Closing ----

  bool closed() const { return closing_.closed; }
  bool draining() const { return closing_.draining; }
  // Closes now with `reason` (sent as the WebSocket close reason with `ws_code`).
  void close(const std::string& reason, uint16_t ws_code = kPolicyClose);
  // Stops reading, writes what is queued, then closes with `reason`; at `deadline` it closes
  // anyway. Called again while draining, only the deadline moves.
  void close_after_flush(std::string reason, Clock::time_point deadline,
                         uint16_t ws_code = kPolicyClose);
  // Any thread: close_after_flush("daemon shutting down", deadline), going-away code.
  void drain(Clock::time_point deadline);

  uint64_t bytes_in() const { return bytes_in_; }
  uint64_t bytes_out() const { return bytes_out_; }

 private:
  // The bytes of the last read not yet given to the reader.
  struct Input {
    std::vector<uint8_t> buffer;
    size_t pos = 0, end = 0;
    bool message_end = false;  // WebSocket: the read ended its message (not yet told)
  };
  // While a frame is in progress: when it must have progressed by, and from which size.
  struct ReadDeadline {
    Clock::time_point at;
    size_t mark = 0;
  };
  struct Closing {
    bool closed = false;
    bool draining = false;  // no more reading; closes once the queue is empty
    std::string reason;     // why it drains (the close reason once flushed)
    uint16_t ws_code = 0;
  };
  // WebSocket: the frames of the write in flight still to send, one message each.
  struct MessageBatch {
    std::span<const boost::asio::const_buffer> left;
    size_t written = 0;
  };

  std::shared_ptr<void> keep_alive() const { return owner_.lock(); }
  void on_handshake(boost::system::error_code ec);
  void do_read();
  void on_read(boost::system::error_code ec, size_t n);
  void process_input();
  bool holding_back() const;
  void too_large();
  void watchdog();
  void queue_reply(std::unique_ptr<std::string> bytes, size_t drawn);
  void write_more();
  void write_next_message();
  void on_write(boost::system::error_code ec, size_t n);

  ConnectionEvents& events_;
  const Config& config_;
  Metrics& metrics_;
  ByteBudget& outbound_;
  std::weak_ptr<void> owner_;
  Transport transport_;
  std::string peer_;
  boost::asio::steady_timer drain_timer_;
  boost::asio::steady_timer watchdog_timer_;
  const Clock::time_point connected_at_;
  Clock::time_point last_input_;
  bool trusted_ = false;
  bool ws_open_ = false;    // WebSocket handshake done: a close frame can be sent
  bool paused_ = false;     // by the owner (pause_reading)
  bool held_back_ = false;  // until the backlog drains (holding_back())
  Input input_;
  FrameReader reader_;
  ReadDeadline read_deadline_;
  Closing closing_;
  // Stays until the connection is destroyed: an aborted write may still name its buffers.
  WriteQueue write_queue_;
  MessageBatch batch_;
  uint64_t bytes_in_ = 0, bytes_out_ = 0;
};

}  // namespace animd

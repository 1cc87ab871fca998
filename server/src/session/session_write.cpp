// Session (session.h): the write queue and closing. Replies and stream frames go through
// the WriteQueue to the socket (one WebSocket message per frame); closing either waits for
// what is queued (close_after_flush, drain) or happens at once (close).
#include "session/session.h"

#include <spdlog/spdlog.h>

namespace animd {

namespace asio = boost::asio;

namespace {
// How long a WebSocket close frame may take to go out before the connection is cut anyway.
constexpr std::chrono::seconds kWebSocketCloseWait{1};
}  // namespace

void Session::enqueue_reply(std::unique_ptr<std::string> bytes, size_t drawn) {
  if (closed_) {
    server_.stream_budget().release(drawn);
    return;
  }
  if (std::string refused = write_queue_.push_reply(std::move(bytes), drawn); !refused.empty())
    return close(refused);
  write_more();
}

void Session::enqueue_stream(std::unique_ptr<std::string> bytes) {
  if (closed_) return;
  count_drops(write_queue_.push_stream(std::move(bytes)), true);
  write_more();
}

void Session::write_more() {
  if (closed_) return;
  const auto buffers = write_queue_.start_write();
  if (buffers.empty()) return;
  if (transport_.is_websocket()) {
    write_messages_ = buffers;
    written_ = 0;
    return write_next_message();
  }
  asio::async_write(transport_, buffers,
                    [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                      self->on_write(ec, n);
                    });
}

// Each queued frame (4-byte length + ServerMessage) goes out as one binary WebSocket message
// without its length; on_write() runs once the batch is written, as for a byte stream.
void Session::write_next_message() {
  if (closed_) return;
  if (write_messages_.empty()) return on_write({}, written_);
  const asio::const_buffer frame = write_messages_.front();
  write_messages_ = write_messages_.subspan(1);
  written_ += frame.size() - 4;  // what goes out is the message, not its length
  transport_.async_write_message(frame + 4,
                                 [self = shared_from_this()](boost::system::error_code ec, size_t) {
                                   if (ec) return self->on_write(ec, 0);
                                   self->write_next_message();
                                 });
}

void Session::on_write(boost::system::error_code ec, size_t n) {
  if (closed_) return;
  if (ec) return close("write error: " + ec.message());
  Metrics& m = server_.metrics();
  m.bytes_out.fetch_add(n, std::memory_order_relaxed);
  bytes_out_ += n;
  const uint32_t frames = write_queue_.finish_write();
  if (frames > 0) dropping_since_.reset();
  m.stream_frames_sent.fetch_add(frames, std::memory_order_relaxed);
  if (write_queue_.empty() && draining_) return close(drain_reason_, drain_code_);
  write_more();
  resume_if_drained();
}

void Session::close_after_flush(std::string reason, Clock::time_point deadline, uint16_t ws_code) {
  if (closed_) return;
  if (!draining_) {
    draining_ = true;
    drain_reason_ = std::move(reason);
    drain_code_ = ws_code;
    boost::system::error_code ec;
    // A WebSocket's closing handshake still reads (the peer's close frame); reading requests
    // stopped with draining_ anyway.
    if (!transport_.is_websocket())
      transport_.socket().shutdown(asio::ip::tcp::socket::shutdown_receive, ec);
    if (write_queue_.empty()) return close(drain_reason_, drain_code_);
  }
  drain_timer_.expires_at(deadline);
  drain_timer_.async_wait([self = shared_from_this()](boost::system::error_code e) {
    if (!e && !self->closed_) self->close(self->drain_reason_ + " (pending writes abandoned)");
  });
}

void Session::drain(std::chrono::steady_clock::time_point deadline) {
  asio::post(transport_.get_executor(), [self = shared_from_this(), deadline] {
    self->close_after_flush("daemon shutting down", deadline,
                            boost::beast::websocket::close_code::going_away);
  });
}

void Session::close(const std::string& reason, uint16_t ws_code) {
  if (closed_) return;
  closed_ = true;
  subs_.close();
  release_unwanted_snapshots();
  // The reason is logged before the socket closes, so that by the time the peer sees the
  // close the log already says why (operators and tests read it in that order). Abnormal
  // closes are what an attacker can cause at will: rate-limited per kind.
  const bool normal = reason == "client closed the connection" || reason == "daemon shutting down";
  const std::string line = "session " + std::to_string(id_) + " (" + peer_ + ") closed: " + reason +
                           " (" + std::to_string(bytes_in_) + " bytes in, " +
                           std::to_string(bytes_out_) + " out)";
  server_.log(normal ? spdlog::level::info : spdlog::level::warn,
              normal ? "session closed" : "session closed: " + reason, line);
  drain_timer_.cancel();
  watchdog_timer_.cancel();
  // The inbound budget comes back before the peer can see the close (others may be waiting
  // for it).
  reader_.release();
  if (transport_.is_websocket() && ws_open_ && reason != "client closed the connection") {
    // Tell the browser why (its close event shows code and reason), then cut the connection:
    // at once when the close exchange ends, or after a short wait for a peer that is not
    // reading (its own data may still sit in a write that never finishes).
    auto self = shared_from_this();
    transport_.async_close_message(ws_code, reason,
                                   [self](boost::system::error_code) { self->transport_.close(); });
    drain_timer_.expires_after(kWebSocketCloseWait);
    drain_timer_.async_wait([self](boost::system::error_code) { self->transport_.close(); });
  } else {
    transport_.close();
  }
  // Queued frames stay until the session is destroyed: an aborted write may still name their
  // buffers.
  write_queue_.drop_held_replies();
  server_.remove_session(id_);
}

}  // namespace animd

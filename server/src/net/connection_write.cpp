// Connection (connection.h): writing. Replies and stream frames go through the WriteQueue to
// the socket, one WebSocket message per frame; a draining connection closes once it is empty.
#include "net/connection.h"

#include <boost/asio/write.hpp>

namespace animd {

namespace asio = boost::asio;

void Connection::send_reply(uint64_t seq, std::unique_ptr<std::string> bytes, size_t drawn) {
  if (closing_.closed) {
    outbound_.release(drawn);
    return;
  }
  write_queue_.hold_reply(seq, std::move(bytes), drawn);
  // Replies leave in request order, whichever thread produced them.
  while (auto ready = write_queue_.next_in_order()) {
    queue_reply(std::move(ready->bytes), ready->drawn);
    if (closing_.closed) return;
  }
}

void Connection::send_now(std::unique_ptr<std::string> bytes) {
  queue_reply(std::move(bytes), 0);
}

void Connection::queue_reply(std::unique_ptr<std::string> bytes, size_t drawn) {
  if (closing_.closed) {
    outbound_.release(drawn);
    return;
  }
  if (std::string refused = write_queue_.push_reply(std::move(bytes), drawn); !refused.empty())
    return close(refused);
  write_more();
}

uint32_t Connection::send_stream(std::unique_ptr<std::string> bytes) {
  if (closing_.closed) return 0;
  const uint32_t dropped = write_queue_.push_stream(std::move(bytes));
  write_more();
  return dropped;
}

void Connection::write_more() {
  if (closing_.closed) return;
  const auto buffers = write_queue_.start_write();
  if (buffers.empty()) return;
  if (transport_.is_websocket()) {
    batch_ = MessageBatch{buffers, 0};
    return write_next_message();
  }
  asio::async_write(
      transport_, buffers,
      [this, life = keep_alive()](boost::system::error_code ec, size_t n) { on_write(ec, n); });
}

// Each queued frame (4-byte length + message) goes out as one binary WebSocket message
// without its length; on_write() runs once the batch is written, as for a byte stream.
void Connection::write_next_message() {
  if (closing_.closed) return;
  if (batch_.left.empty()) return on_write({}, batch_.written);
  const asio::const_buffer frame = batch_.left.front();
  batch_.left = batch_.left.subspan(1);
  batch_.written += frame.size() - 4;  // what goes out is the message, not its length
  transport_.async_write_message(frame + 4,
                                 [this, life = keep_alive()](boost::system::error_code ec, size_t) {
                                   if (ec) return on_write(ec, 0);
                                   write_next_message();
                                 });
}

void Connection::on_write(boost::system::error_code ec, size_t n) {
  if (closing_.closed) return;
  if (ec) return close("write error: " + ec.message());
  metrics_.bytes_out.fetch_add(n, std::memory_order_relaxed);
  bytes_out_ += n;
  const uint32_t frames = write_queue_.finish_write();
  metrics_.stream_frames_sent.fetch_add(frames, std::memory_order_relaxed);
  events_.on_written(frames);
  if (closing_.closed) return;
  if (write_queue_.empty() && closing_.draining) return close(closing_.reason, closing_.ws_code);
  write_more();
  resume_if_drained();
}

}  // namespace animd

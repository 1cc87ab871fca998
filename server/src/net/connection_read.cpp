// Connection (connection.h): reading. Socket reads go through the FrameReader (limits,
// deadlines, the inbound budget); each complete frame goes to the owner; reading is held back
// while the owner or the write queue is backlogged, never in the middle of a frame (its read
// deadline keeps running).
#include "net/connection.h"

namespace animd {

namespace asio = boost::asio;

namespace {
constexpr size_t kReadChunk = 16u << 10;
constexpr size_t kProgressBytes = 64u << 10;  // a slow sender must deliver this per --read-timeout

std::chrono::steady_clock::duration read_seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}
}  // namespace

void Connection::on_handshake(boost::system::error_code ec) {
  if (closing_.closed) return;
  ws_open_ = !ec && transport_.is_websocket();
  if (ec)
    return close(
        (transport_.is_websocket() ? "WebSocket handshake failed: " : "TLS handshake failed: ") +
        ec.message());
  do_read();
}

void Connection::do_read() {
  if (closing_.closed || closing_.draining || paused_) return;
  if (input_.buffer.size() != kReadChunk) input_.buffer.resize(kReadChunk);
  auto handler = [this, life = keep_alive()](boost::system::error_code ec, size_t n) {
    on_read(ec, n);
  };
  if (transport_.is_websocket())
    transport_.async_read_message_part(asio::buffer(input_.buffer), std::move(handler));
  else
    transport_.async_read_some(asio::buffer(input_.buffer), std::move(handler));
}

void Connection::on_read(boost::system::error_code ec, size_t n) {
  if (closing_.closed || closing_.draining) return;
  if (ec) {
    const bool normal = ec == asio::error::eof || ec == boost::beast::websocket::error::closed;
    close(normal ? "client closed the connection" : "read error: " + ec.message(),
          boost::beast::websocket::close_code::protocol_error);
    return;
  }
  if (transport_.is_websocket()) {
    if (transport_.message_is_text())
      return close(
          "a WebSocket text message: send each Request serialized as one binary message "
          "(docs/web-viewer.md)",
          boost::beast::websocket::close_code::unknown_data);
    input_.message_end = transport_.message_done();
  }
  bytes_in_ += n;
  metrics_.bytes_in.fetch_add(n, std::memory_order_relaxed);
  last_input_ = Clock::now();
  input_.pos = 0;
  input_.end = n;
  process_input();
}

bool Connection::holding_back() const {
  return events_.backlogged() || write_queue_.backlogged();
}

void Connection::resume_reading() {
  if (!paused_) return;
  paused_ = false;
  process_input();
}

void Connection::resume_if_drained() {
  if (!held_back_ || holding_back() || closing_.closed) return;
  held_back_ = false;
  process_input();
}

void Connection::process_input() {
  const bool ws = transport_.is_websocket();
  auto stopped = [&] { return paused_ || closing_.closed || closing_.draining; };
  while ((input_.pos < input_.end || input_.message_end) && !stopped()) {
    if (!reader_.mid_frame() && holding_back()) {
      held_back_ = true;
      return;
    }
    const bool was_mid = reader_.mid_frame();
    const uint8_t* data = input_.buffer.data() + input_.pos;
    const size_t size = input_.end - input_.pos;
    // A WebSocket read ends at a message's end at the latest: all its bytes go in one step.
    const auto step =
        ws ? reader_.feed_message(data, size, input_.message_end) : reader_.feed(data, size);
    input_.pos += step.consumed;
    if (step.event == FrameReader::Event::kFrame && ws) input_.message_end = false;
    const bool began = !was_mid && reader_.mid_frame();
    if (began ||
        (reader_.mid_frame() && reader_.body_received() >= read_deadline_.mark + kProgressBytes)) {
      read_deadline_.at = Clock::now() + read_seconds(config_.read_timeout_s);
      read_deadline_.mark = began ? 0 : reader_.body_received();
    }
    switch (step.event) {
      case FrameReader::Event::kNeedMore:
        break;
      case FrameReader::Event::kTooLarge:
        return too_large();
      case FrameReader::Event::kNoBudget:
        return close(
            "the daemon's budget for request bytes in flight is used up "
            "(--max-inbound-bytes-total " +
                std::to_string(config_.max_inbound_bytes_total) + ")",
            boost::beast::websocket::close_code::try_again_later);
      case FrameReader::Event::kFrame:
        events_.on_frame(reader_.frame());
        reader_.consume_frame();
        break;
    }
  }
  if (input_.pos == input_.end && !input_.message_end && !paused_) {
    if (!reader_.mid_frame() && holding_back()) {
      held_back_ = true;
      return;
    }
    do_read();
  }
}

void Connection::too_large() {
  const std::string limits =
      trusted_ ? "--max-frame-bytes " + std::to_string(config_.max_frame_bytes) +
                     ", --max-upload-bytes " + std::to_string(config_.max_upload_bytes)
               : "--max-preauth-frame-bytes " + std::to_string(config_.max_preauth_frame_bytes) +
                     " before the first valid request";
  if (transport_.is_websocket())
    return close("message of at least " + std::to_string(reader_.announced()) +
                     " bytes exceeds the limit (" + limits + ")",
                 boost::beast::websocket::close_code::too_big);
  close("frame of " + std::to_string(reader_.announced()) + " bytes exceeds the limit (" + limits +
        ")");
}

}  // namespace animd

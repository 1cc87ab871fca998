// Connection (connection.h): construction, start, the once-a-second deadlines, and closing.
// Reading is in connection_read.cpp, writing in connection_write.cpp.
#include "net/connection.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

namespace animd {

namespace asio = boost::asio;

namespace {
// How long a WebSocket close frame may take to go out before the connection is cut anyway.
constexpr std::chrono::seconds kWebSocketCloseWait{1};

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}
}  // namespace

Connection::Connection(Transport transport, const Config& config, Metrics& metrics,
                       ByteBudget& inbound, ByteBudget& outbound, ConnectionEvents& events)
    : events_(events),
      config_(config),
      metrics_(metrics),
      outbound_(outbound),
      transport_(std::move(transport)),
      drain_timer_(transport_.get_executor()),
      watchdog_timer_(transport_.get_executor()),
      connected_at_(Clock::now()),
      last_input_(connected_at_),
      reader_(inbound, config.max_preauth_frame_bytes),
      write_queue_(outbound, config.max_queued_bytes, config.max_pending_commands_per_connection) {
  boost::system::error_code ec;
  auto ep = transport_.socket().remote_endpoint(ec);
  peer_ = ec ? "?" : ep.address().to_string() + ":" + std::to_string(ep.port());
  transport_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  // No bound of Beast's own on a message: it buffers only what each read asks for, and the
  // reader refuses a message above its current limit (smaller before trust) with the reason,
  // as it arrives. (Beast's check would come first, on the frame header, with no reason.)
  if (transport_.is_websocket()) transport_.set_message_limit(0);
}

std::string Connection::kind() const {
  if (transport_.is_websocket()) return transport_.is_tls() ? " (WebSocket, TLS)" : " (WebSocket)";
  return transport_.is_tls() ? " (TLS)" : "";
}

void Connection::start(std::weak_ptr<void> owner) {
  owner_ = std::move(owner);
  asio::dispatch(transport_.get_executor(), [this, life = keep_alive()] {
    watchdog();
    transport_.async_handshake([this, life](boost::system::error_code ec) { on_handshake(ec); });
  });
}

void Connection::trust() {
  if (trusted_) return;
  trusted_ = true;
  reader_.set_limit(config_.max_accepted_frame());
}

// Once a second while the connection lives: the deadlines that need no byte to arrive.
void Connection::watchdog() {
  if (closing_.closed) return;
  const auto now = Clock::now();
  if (!trusted_ && !closing_.draining && now - connected_at_ > seconds(config_.auth_timeout_s))
    return close("no valid request within --auth-timeout (" +
                 std::to_string(config_.auth_timeout_s) + " s)");
  if (reader_.mid_frame() && now > read_deadline_.at)
    return close("slow sender: a frame of " + std::to_string(reader_.announced()) +
                 " bytes stalled at " + std::to_string(reader_.body_received()) +
                 " bytes (--read-timeout " + std::to_string(config_.read_timeout_s) +
                 " s per 64 KiB)");
  events_.on_second(now);
  if (closing_.closed) return;
  watchdog_timer_.expires_after(std::chrono::seconds(1));
  watchdog_timer_.async_wait([this, life = keep_alive()](boost::system::error_code ec) {
    if (!ec) watchdog();
  });
}

void Connection::close_after_flush(std::string reason, Clock::time_point deadline,
                                   uint16_t ws_code) {
  if (closing_.closed) return;
  if (!closing_.draining) {
    closing_.draining = true;
    closing_.reason = std::move(reason);
    closing_.ws_code = ws_code;
    boost::system::error_code ec;
    // A WebSocket's closing handshake still reads (the peer's close frame); reading requests
    // stopped with draining anyway.
    if (!transport_.is_websocket())
      transport_.socket().shutdown(asio::ip::tcp::socket::shutdown_receive, ec);
    if (write_queue_.empty()) return close(closing_.reason, closing_.ws_code);
  }
  drain_timer_.expires_at(deadline);
  drain_timer_.async_wait([this, life = keep_alive()](boost::system::error_code e) {
    if (!e && !closing_.closed) close(closing_.reason + " (pending writes abandoned)");
  });
}

void Connection::drain(Clock::time_point deadline) {
  asio::post(transport_.get_executor(), [this, life = keep_alive(), deadline] {
    close_after_flush("daemon shutting down", deadline,
                      boost::beast::websocket::close_code::going_away);
  });
}

void Connection::close(const std::string& reason, uint16_t ws_code) {
  if (closing_.closed) return;
  closing_.closed = true;
  events_.on_closing(reason);
  drain_timer_.cancel();
  watchdog_timer_.cancel();
  // The inbound budget comes back before the peer can see the close (others may be waiting
  // for it).
  reader_.release();
  if (transport_.is_websocket() && ws_open_ && reason != "client closed the connection") {
    // Tell the browser why (its close event shows code and reason), then cut the connection:
    // at once when the close exchange ends, or after a short wait for a peer that is not
    // reading (its own data may still sit in a write that never finishes).
    auto life = keep_alive();
    transport_.async_close_message(ws_code, reason,
                                   [this, life](boost::system::error_code) { transport_.close(); });
    drain_timer_.expires_after(kWebSocketCloseWait);
    drain_timer_.async_wait([this, life](boost::system::error_code) { transport_.close(); });
  } else {
    transport_.close();
  }
  // Queued frames stay until the connection is destroyed: an aborted write may still name
  // their buffers.
  write_queue_.drop_held_replies();
  events_.on_closed();
}

}  // namespace animd

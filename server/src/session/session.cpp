// Session (session.h): construction, start, and the reading side: handshake, socket reads
// through the FrameReader (limits, deadlines, flow control), parsing each frame into a
// Request, and the once-a-second watchdog. The rest: session_dispatch.cpp (admission and
// routing), session_reply.cpp, session_stream.cpp, session_write.cpp (write queue, closing).
#include "session/session.h"

#include <spdlog/spdlog.h>

namespace animd {

namespace asio = boost::asio;
using anim::v1::Request;

namespace {
constexpr size_t kReadChunk = 16u << 10;
constexpr size_t kProgressBytes = 64u << 10;  // a slow sender must deliver this per --read-timeout

std::chrono::steady_clock::duration to_duration(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}
}  // namespace

Session::Session(SessionHost& server, Transport transport, uint64_t id, std::string peer_address)
    : ReplySink(&server.stream_budget()),
      server_(server),
      transport_(std::move(transport)),
      drain_timer_(transport_.get_executor()),
      watchdog_timer_(transport_.get_executor()),
      id_(id),
      peer_address_(std::move(peer_address)),
      connected_at_(Clock::now()),
      last_input_(connected_at_),
      reader_(server.inbound_budget(), server.config().max_preauth_frame_bytes),
      admission_(server.config(), server.auth()),
      subs_(server.metrics()),
      write_queue_(server.stream_budget(), server.config().max_queued_bytes,
                   server.config().max_pending_commands_per_connection) {
  boost::system::error_code ec;
  auto ep = transport_.socket().remote_endpoint(ec);
  peer_ = ec ? "?" : ep.address().to_string() + ":" + std::to_string(ep.port());
  transport_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  // No bound of Beast's own on a message: it buffers only what each read asks for, and the
  // reader refuses a message above its current limit (smaller before trust) with the reason,
  // as it arrives. (Beast's check would come first, on the frame header, with no reason.)
  if (transport_.is_websocket()) transport_.set_message_limit(0);
}

void Session::start() {
  spdlog::debug("session {} connected from {}{}", id_, peer_,
                transport_.is_websocket()
                    ? (transport_.is_tls() ? " (WebSocket, TLS)" : " (WebSocket)")
                : transport_.is_tls() ? " (TLS)"
                                      : "");
  asio::dispatch(transport_.get_executor(), [self = shared_from_this()] {
    self->watchdog();
    self->transport_.async_handshake(
        [self](boost::system::error_code ec) { self->on_handshake(ec); });
  });
}

// ---------------------------------------------------------------------------------------------
// Reading

void Session::on_handshake(boost::system::error_code ec) {
  if (closed_) return;
  ws_open_ = !ec && transport_.is_websocket();
  if (ec)
    return close(
        (transport_.is_websocket() ? "WebSocket handshake failed: " : "TLS handshake failed: ") +
        ec.message());
  do_read();
}

void Session::do_read() {
  if (closed_ || draining_ || paused_) return;
  if (read_buf_.size() != kReadChunk) read_buf_.resize(kReadChunk);
  auto handler = [self = shared_from_this()](boost::system::error_code ec, size_t n) {
    self->on_read(ec, n);
  };
  if (transport_.is_websocket())
    transport_.async_read_message_part(asio::buffer(read_buf_), std::move(handler));
  else
    transport_.async_read_some(asio::buffer(read_buf_), std::move(handler));
}

void Session::on_read(boost::system::error_code ec, size_t n) {
  if (closed_ || draining_) return;
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
    message_end_pending_ = transport_.message_done();
  }
  bytes_in_ += n;
  server_.metrics().bytes_in.fetch_add(n, std::memory_order_relaxed);
  last_input_ = Clock::now();
  read_pos_ = 0;
  read_end_ = n;
  process_input();
}

// Flow control: a connection with many answers outstanding (waiting for the tick, waiting
// for an earlier reply, or written but unread) is not read until they drain, so a client
// that floods requests or does not read replies is held back by TCP instead of growing the
// daemon. Never in the middle of a frame (its read deadline keeps running).
bool Session::backlogged() const {
  return pending_commands_ >= server_.config().max_pending_commands_per_connection ||
         write_queue_.backlogged();
}

void Session::resume_if_drained() {
  if (!held_back_ || backlogged() || closed_) return;
  held_back_ = false;
  process_input();
}

void Session::process_input() {
  const bool ws = transport_.is_websocket();
  while ((read_pos_ < read_end_ || message_end_pending_) && !paused_ && !closed_ && !draining_) {
    if (!reader_.mid_frame() && backlogged()) {
      held_back_ = true;
      return;
    }
    const bool was_mid = reader_.mid_frame();
    // A WebSocket read ends at a message's end at the latest: all its bytes go in one step.
    const auto step = ws ? reader_.feed_message(read_buf_.data() + read_pos_, read_end_ - read_pos_,
                                                message_end_pending_)
                         : reader_.feed(read_buf_.data() + read_pos_, read_end_ - read_pos_);
    read_pos_ += step.consumed;
    if (step.event == FrameReader::Event::kFrame && ws) message_end_pending_ = false;
    if (!was_mid && reader_.mid_frame()) {
      read_deadline_ = Clock::now() + to_duration(server_.config().read_timeout_s);
      progress_mark_ = 0;
    } else if (reader_.mid_frame() && reader_.body_received() >= progress_mark_ + kProgressBytes) {
      read_deadline_ = Clock::now() + to_duration(server_.config().read_timeout_s);
      progress_mark_ = reader_.body_received();
    }
    switch (step.event) {
      case FrameReader::Event::kNeedMore:
        break;
      case FrameReader::Event::kTooLarge: {
        const Config& cfg = server_.config();
        std::string limits =
            admission_.trusted()
                ? "--max-frame-bytes " + std::to_string(cfg.max_frame_bytes) +
                      ", --max-upload-bytes " + std::to_string(cfg.max_upload_bytes)
                : "--max-preauth-frame-bytes " + std::to_string(cfg.max_preauth_frame_bytes) +
                      " before the first valid request";
        if (ws)
          return close("message of at least " + std::to_string(reader_.announced()) +
                           " bytes exceeds the limit (" + limits + ")",
                       boost::beast::websocket::close_code::too_big);
        return close("frame of " + std::to_string(reader_.announced()) +
                     " bytes exceeds the limit (" + limits + ")");
      }
      case FrameReader::Event::kNoBudget:
        return close(
            "the daemon's budget for request bytes in flight is used up "
            "(--max-inbound-bytes-total " +
                std::to_string(server_.config().max_inbound_bytes_total) + ")",
            boost::beast::websocket::close_code::try_again_later);
      case FrameReader::Event::kFrame:
        on_frame(reader_.frame());
        reader_.consume_frame();
        break;
    }
  }
  if (read_pos_ == read_end_ && !message_end_pending_ && !paused_) {
    if (!reader_.mid_frame() && backlogged()) {
      held_back_ = true;
      return;
    }
    do_read();
  }
}

void Session::on_frame(std::string_view body) {
  server_.metrics().requests.fetch_add(1, std::memory_order_relaxed);
  Request request;
  if (!request.ParseFromArray(body.data(), static_cast<int>(body.size())))
    return close("unparsable request (a " + std::to_string(body.size()) + "-byte " +
                     (transport_.is_websocket() ? "message" : "frame") + " is not a Request)",
                 boost::beast::websocket::close_code::bad_payload);
  const bool upload = request.has_load_asset() &&
                      (request.load_asset().source_case() == anim::v1::LoadAssetRequest::kGlbData ||
                       request.load_asset().source_case() == anim::v1::LoadAssetRequest::kBvhData);
  if (body.size() > server_.config().max_frame_bytes && !upload)
    return close("request frame of " + std::to_string(body.size()) +
                     " bytes exceeds --max-frame-bytes " +
                     std::to_string(server_.config().max_frame_bytes),
                 boost::beast::websocket::close_code::too_big);
  handle(request, next_seq_in_++);
}

// Once a second while the connection lives: the deadlines that need no byte to arrive.
void Session::watchdog() {
  if (closed_) return;
  const Config& cfg = server_.config();
  const auto now = Clock::now();
  if (!admission_.trusted() && !draining_ && now - connected_at_ > to_duration(cfg.auth_timeout_s))
    return close("no valid request within --auth-timeout (" + std::to_string(cfg.auth_timeout_s) +
                 " s)");
  if (reader_.mid_frame() && now > read_deadline_)
    return close("slow sender: a frame of " + std::to_string(reader_.announced()) +
                 " bytes stalled at " + std::to_string(reader_.body_received()) +
                 " bytes (--read-timeout " + std::to_string(cfg.read_timeout_s) + " s per 64 KiB)");
  if (cfg.idle_timeout_s > 0 && subs_.empty() && !draining_ &&
      now - last_input_ > to_duration(cfg.idle_timeout_s))
    return close("idle for --idle-timeout (" + std::to_string(cfg.idle_timeout_s) + " s)");
  if (dropping_since_ && now - *dropping_since_ > to_duration(cfg.stream_stall_s))
    end_subscriptions("the connection reads too slowly: every frame was dropped for " +
                      std::to_string(cfg.stream_stall_s) + " s (--stream-stall-seconds)");
  watchdog_timer_.expires_after(std::chrono::seconds(1));
  watchdog_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->watchdog();
  });
}

}  // namespace animd

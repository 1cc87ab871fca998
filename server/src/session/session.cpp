// Session (session.h): construction, start, what the Connection tells it (frames, the
// once-a-second checks, closing), and the snapshots the tick hands over. Admission and
// routing are in session_dispatch.cpp, replies in session_reply.cpp.
#include "session/session.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "stream/stream_encoder.h"

namespace animd {

namespace asio = boost::asio;

Session::Session(SessionHost& server, Transport transport, uint64_t id, std::string peer_address)
    : ReplySink(&server.stream_budget()),
      server_(server),
      id_(id),
      peer_address_(std::move(peer_address)),
      connection_(std::move(transport), server.config(), server.metrics(), server.inbound_budget(),
                  server.stream_budget(), *this),
      admission_(server.config(), server.auth()),
      pipeline_(server, id),
      stream_(server, connection_, id) {}

void Session::start() {
  spdlog::debug("session {} connected from {}{}", id_, connection_.peer(), connection_.kind());
  connection_.start(weak_from_this());
}

void Session::on_frame(std::string_view body) {
  server_.metrics().requests.fetch_add(1, std::memory_order_relaxed);
  Request request;
  if (!request.ParseFromArray(body.data(), static_cast<int>(body.size())))
    return connection_.close("unparsable request (a " + std::to_string(body.size()) + "-byte " +
                                 (connection_.is_websocket() ? "message" : "frame") +
                                 " is not a Request)",
                             boost::beast::websocket::close_code::bad_payload);
  const bool upload = request.has_load_asset() &&
                      (request.load_asset().source_case() == anim::v1::LoadAssetRequest::kGlbData ||
                       request.load_asset().source_case() == anim::v1::LoadAssetRequest::kBvhData);
  if (body.size() > server_.config().max_frame_bytes && !upload)
    return connection_.close("request frame of " + std::to_string(body.size()) +
                                 " bytes exceeds --max-frame-bytes " +
                                 std::to_string(server_.config().max_frame_bytes),
                             boost::beast::websocket::close_code::too_big);
  handle(request, next_seq_in_++);
}

void Session::on_second(Clock::time_point now) {
  const Config& cfg = server_.config();
  const auto idle = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(cfg.idle_timeout_s));
  if (cfg.idle_timeout_s > 0 && stream_.subscriptions().empty() && !connection_.draining() &&
      now - connection_.last_input() > idle)
    return connection_.close("idle for --idle-timeout (" + std::to_string(cfg.idle_timeout_s) +
                             " s)");
  stream_.check_stall(now);
}

void Session::on_closing(const std::string& reason) {
  stream_.close();
  // The reason is logged before the socket closes, so that by the time the peer sees the
  // close the log already says why (operators and tests read it in that order). Abnormal
  // closes are what an attacker can cause at will: rate-limited per kind.
  const bool normal = reason == "client closed the connection" || reason == "daemon shutting down";
  const std::string line = "session " + std::to_string(id_) + " (" + connection_.peer() +
                           ") closed: " + reason + " (" + std::to_string(connection_.bytes_in()) +
                           " bytes in, " + std::to_string(connection_.bytes_out()) + " out)";
  server_.log(normal ? spdlog::level::info : spdlog::level::warn,
              normal ? "session closed" : "session closed: " + reason, line);
}

void Session::on_closed() {
  server_.remove_session(id_);
}

void Session::offer_snapshot(const SnapshotPtr& snapshot) {
  if (stream_.offer(snapshot))
    asio::post(connection_.executor(),
               [self = shared_from_this()] { self->stream_.encode_waiting(); });
}

void Session::send_notice(std::shared_ptr<const anim::v1::ServerMessage> message) {
  asio::post(connection_.executor(), [self = shared_from_this(), message = std::move(message)] {
    if (!self->connection_.closed()) self->connection_.send_now(frame_message(*message));
  });
}

void Session::snapshot_prepared() {
  if (stream_.nudge())
    asio::post(connection_.executor(),
               [self = shared_from_this()] { self->stream_.encode_waiting(); });
}

}  // namespace animd

#include "session.h"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "asset_loading.h"
#include "hit_query.h"
#include "pose_query.h"
#include "proto_convert.h"
#include "reply_budget.h"
#include "request_convert.h"
#include "server.h"

namespace animd {

namespace asio = boost::asio;
using anim::v1::Request;

namespace {
constexpr size_t kReadChunk = 16u << 10;
constexpr size_t kProgressBytes = 64u << 10;  // a slow sender must deliver this per --read-timeout
// How long a connection closed for misbehaving has to take the reply saying why.
constexpr std::chrono::seconds kFlushBeforeClose{2};
// How long a WebSocket close frame may take to go out before the connection is cut anyway.
constexpr std::chrono::seconds kWebSocketCloseWait{1};

std::chrono::steady_clock::duration to_duration(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}
}  // namespace

Session::Session(Server& server, Transport transport, uint64_t id, std::string peer_address)
    : server_(server),
      transport_(std::move(transport)),
      drain_timer_(transport_.get_executor()),
      watchdog_timer_(transport_.get_executor()),
      id_(id),
      peer_address_(std::move(peer_address)),
      connected_at_(Clock::now()),
      last_input_(connected_at_),
      reader_(server.inbound_budget(), server.config().max_preauth_frame_bytes),
      rate_(server.config().max_requests_per_second),
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
            trusted_ ? "--max-frame-bytes " + std::to_string(cfg.max_frame_bytes) +
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
  if (!trusted_ && !draining_ && now - connected_at_ > to_duration(cfg.auth_timeout_s))
    return close("no valid request within --auth-timeout (" + std::to_string(cfg.auth_timeout_s) +
                 " s)");
  if (reader_.mid_frame() && now > read_deadline_)
    return close("slow sender: a frame of " + std::to_string(reader_.announced()) +
                 " bytes stalled at " + std::to_string(reader_.body_received()) +
                 " bytes (--read-timeout " + std::to_string(cfg.read_timeout_s) + " s per 64 KiB)");
  if (cfg.idle_timeout_s > 0 && subscriptions_.empty() && !draining_ &&
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

// ---------------------------------------------------------------------------------------------
// Policy and routing

void Session::reply_error(uint64_t seq, const Request& request, anim::v1::StatusCode code,
                          std::string message) {
  anim::v1::Reply reply;
  reply.set_request_id(request.request_id());
  set_status(reply, code, std::move(message));
  complete(seq, std::move(reply));
}

// Rate, command, token and role checks. Answers and returns false when the request may not
// go further.
bool Session::admit(const Request& r, uint64_t seq) {
  const Config& cfg = server_.config();
  if (!rate_.take(Clock::now())) {
    reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
                "--max-requests-per-second (" + std::to_string(cfg.max_requests_per_second) +
                    ") exceeded on this connection");
    return false;
  }
  if (r.command_case() == Request::COMMAND_NOT_SET) {
    reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                "request has no command (or one this daemon does not know)");
    return false;
  }
  const Authenticator& auth = server_.auth();
  const auto who = auth.check(r.auth_token());
  if (who.role == Role::kNone) {
    const bool empty = r.auth_token().empty();
    reply_error(seq, r, anim::v1::STATUS_UNAUTHENTICATED,
                empty ? "this daemon requires a token in every request (request.auth_token)"
                      : "request.auth_token is not a valid token");
    if (!empty && ++failed_auth_ >= cfg.max_failed_auth)
      close_after_flush("too many requests with a wrong token (--max-failed-auth " +
                            std::to_string(cfg.max_failed_auth) + ")",
                        Clock::now() + kFlushBeforeClose);
    return false;
  }
  const Role needed = required_role(r);
  if (who.role < needed) {
    reply_error(seq, r, anim::v1::STATUS_PERMISSION_DENIED,
                "this command needs the " + std::string(role_name(needed)) +
                    " role; the token given has the " + role_name(who.role) + " role");
    return false;
  }
  if (!trusted_) {
    trusted_ = true;
    reader_.set_limit(cfg.max_accepted_frame());
  }
  return true;
}

void Session::handle(Request& r, uint64_t seq) {
  if (!admit(r, seq)) return;
  if (server_.shutting_down())
    return reply_error(seq, r, anim::v1::STATUS_UNAVAILABLE, "the daemon is shutting down");

  switch (r.command_case()) {
    case Request::kListAssets: {
      if (!outbound_room(seq, r)) return;
      anim::v1::Reply reply;
      reply.set_request_id(r.request_id());
      set_status(reply, anim::Status::ok());
      auto assets = server_.catalog().get();
      // Set even with no asset (all unloaded): an empty list is still a list_assets result.
      auto* out = reply.mutable_list_assets();
      for (const auto& [name, a] : *assets) fill_asset_info(*a, out->add_assets());
      return complete(seq, std::move(reply));
    }
    case Request::kGetAssetData: {
      if (!outbound_room(seq, r)) return;
      auto assets = server_.catalog().get();
      auto it = assets->find(r.get_asset_data().asset());
      if (it == assets->end())
        return reply_error(
            seq, r, anim::v1::STATUS_NOT_FOUND,
            "get_asset_data.asset: unknown asset '" + r.get_asset_data().asset() + "'");
      anim::v1::Reply reply;
      reply.set_request_id(r.request_id());
      set_status(reply, anim::Status::ok());
      fill_asset_data(*it->second, r.get_asset_data().skip_mesh(), reply.mutable_get_asset_data());
      return complete(seq, std::move(reply));
    }
    case Request::kLoadAsset:
      return handle_load(r, seq);
    case Request::kQueryPose:
      return handle_query_pose(r, seq);
    case Request::kRaycast:
    case Request::kOverlapSphere:
      return handle_hit_query(r, seq);
    case Request::kSubscribe:
      return handle_subscribe(r, seq);
    case Request::kUnsubscribe:
      pending_unsubscribes_.emplace(seq, r.unsubscribe().subscription_id());
      return push_command(r, seq);
    case Request::kUpdateSubscription:
      // The World keeps its own copy of the region (it decides which characters are watched
      // when ticks degrade) and answers; the encoder's copy moves when that answer comes back
      // (pending_region_moves_, noted by push_command), so both change at the same tick.
      return push_command(r, seq);
    default:
      return push_command(r, seq);
  }
}

bool Session::outbound_room(uint64_t seq, const Request& r) {
  const ByteBudget& budget = server_.stream_budget();
  if (budget.used() < budget.limit()) return true;
  reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
              "the daemon's outbound budget is spent (--max-stream-bytes-total; clients are not "
              "reading what was sent to them): retry later");
  return false;
}

void Session::handle_subscribe(Request& r, uint64_t seq) {
  const Config& cfg = server_.config();
  const auto& s = r.subscribe();
  if (s.encoding() != anim::v1::ENCODING_FLOAT_3X4 && s.encoding() != anim::v1::ENCODING_COMPACT)
    return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                       "subscribe.encoding has an unknown value " + std::to_string(s.encoding()) +
                           " (ENCODING_FLOAT_3X4 = 0, ENCODING_COMPACT = 1)");
  if (subscriptions_.size() + pending_subscribes_.size() >= cfg.max_subscriptions_per_connection)
    return reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
                       "--max-subscriptions-per-connection (" +
                           std::to_string(cfg.max_subscriptions_per_connection) + ") reached");
  StreamSubscription sub;
  sub.id = next_subscription_id_++;
  sub.all = s.all_characters();
  // A bad region is refused with the request (push_command -> to_world_request).
  if (s.has_region())
    if (auto region = region_from_proto(s.region(), "subscribe.region")) sub.region = *region;
  sub.ids.assign(s.character_ids().begin(), s.character_ids().end());
  std::sort(sub.ids.begin(), sub.ids.end());
  sub.ids.erase(std::unique(sub.ids.begin(), sub.ids.end()), sub.ids.end());
  sub.divisor = std::max<uint32_t>(1, s.rate_divisor());
  sub.encoding = s.encoding();
  sub.events = s.events().enabled();  // min_weight checked with the request (to_world_request)
  sub.event_min_weight = s.events().min_weight();
  const uint32_t id = sub.id;
  pending_subscribes_.emplace(seq, std::move(sub));
  recount_compact();
  push_command(r, seq, id);
}

void Session::push_command(Request& r, uint64_t seq, uint32_t subscription_id) {
  const Config& cfg = server_.config();
  auto refuse = [&](std::string why) {
    pending_subscribes_.erase(seq);
    pending_unsubscribes_.erase(seq);
    pending_region_moves_.erase(seq);
    recount_compact();
    reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED, std::move(why));
  };
  if (pending_commands_ >= cfg.max_pending_commands_per_connection)
    return refuse("--max-pending-commands-per-connection (" +
                  std::to_string(cfg.max_pending_commands_per_connection) +
                  ") requests of this connection are already waiting for the tick");
  // Converted (and checked) here, so a malformed request is answered without the tick.
  auto request = to_world_request(r);
  if (!request) {
    pending_subscribes_.erase(seq);
    pending_unsubscribes_.erase(seq);
    pending_region_moves_.erase(seq);
    recount_compact();
    return reply_error(seq, r, to_proto(request.error().code()), request.error().message());
  }
  if (auto* sub = std::get_if<Subscribe>(&*request)) sub->subscription_id = subscription_id;
  if (const auto* move = std::get_if<UpdateSubscription>(&*request))
    pending_region_moves_.emplace(seq, std::make_pair(move->subscription_id, move->region));
  Command c;
  c.kind = Command::Kind::kRequest;
  c.session_id = id_;
  c.owner = server_.auth().check(r.auth_token()).owner_key;
  c.seq = seq;
  c.request_id = r.request_id();
  c.sink = shared_from_this();
  c.request = std::move(*request);
  const uint64_t owner = c.owner;
  if (!server_.commands().push(std::move(c), cfg.max_queued_commands))
    return refuse("the daemon's command queue is full (--max-queued-commands " +
                  std::to_string(cfg.max_queued_commands) + "); retry later");
  ++pending_commands_;
  if (std::find(noted_owners_.begin(), noted_owners_.end(), owner) == noted_owners_.end())
    noted_owners_.push_back(owner);
}

void Session::handle_query_pose(Request& r, uint64_t seq) {
  auto request = to_world_request(r);
  if (!request)
    return reply_error(seq, r, to_proto(request.error().code()), request.error().message());
  uint64_t newest = 0;
  auto answer = query_history(server_.history(), std::get<QueryPose>(*request), &newest);
  if (!answer) return push_command(r, seq);
  note_owner(server_.auth().check(r.auth_token()).owner_key);
  anim::v1::Reply reply =
      to_reply(*answer ? anim::Expected<WorldResult>(WorldResult(std::move(**answer)))
                       : anim::Expected<WorldResult>(answer->error()));
  reply.set_request_id(r.request_id());
  reply.set_tick(newest);  // the newest published tick: the state the answer comes from
  const size_t drawn = charge_reply(&server_.stream_budget(), reply);
  complete(seq, std::move(reply), drawn);
}

void Session::handle_hit_query(Request& r, uint64_t seq) {
  auto request = to_world_request(r);
  if (!request)
    return reply_error(seq, r, to_proto(request.error().code()), request.error().message());
  note_owner(server_.auth().check(r.auth_token()).owner_key);
  const uint32_t max_poses = server_.config().max_hit_query_poses;
  uint64_t newest = 0;
  anim::Expected<WorldResult> answer = anim::invalid_argument("not a hit query");
  if (const auto* ray = std::get_if<Raycast>(&*request)) {
    auto hit = raycast_history(server_.history(), server_.hit_volumes(), *ray, max_poses, &newest);
    answer = hit ? anim::Expected<WorldResult>(WorldResult(std::move(*hit)))
                 : anim::Expected<WorldResult>(hit.error());
  } else if (const auto* sphere = std::get_if<OverlapSphere>(&*request)) {
    auto overlap =
        overlap_history(server_.history(), server_.hit_volumes(), *sphere, max_poses, &newest);
    answer = overlap ? anim::Expected<WorldResult>(WorldResult(std::move(*overlap)))
                     : anim::Expected<WorldResult>(overlap.error());
  }
  anim::v1::Reply reply = to_reply(answer);
  reply.set_request_id(r.request_id());
  reply.set_tick(newest);  // the newest published tick: the state the answer comes from
  const size_t drawn = charge_reply(&server_.stream_budget(), reply);
  complete(seq, std::move(reply), drawn);
}

void Session::note_owner(uint64_t owner) {
  if (std::find(noted_owners_.begin(), noted_owners_.end(), owner) != noted_owners_.end()) return;
  Command c;  // its request (GetStats) changes nothing, and without a sink it has no reply
  c.kind = Command::Kind::kRequest;
  c.session_id = id_;
  c.owner = owner;
  if (server_.commands().push(std::move(c), server_.config().max_queued_commands))
    noted_owners_.push_back(owner);
}

void Session::handle_load(Request& r, uint64_t seq) {
  const Config& cfg = server_.config();
  const auto& req = r.load_asset();
  if (req.source_case() == anim::v1::LoadAssetRequest::SOURCE_NOT_SET)
    return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                       "load_asset needs a source: path, glb_data or bvh_data");
  if (req.has_glb_data() || req.has_bvh_data()) {
    const char* field = req.has_glb_data() ? "glb_data" : "bvh_data";
    const size_t size = req.has_glb_data() ? req.glb_data().size() : req.bvh_data().size();
    if (cfg.max_upload_bytes == 0)
      return reply_error(seq, r, anim::v1::STATUS_FAILED_PRECONDITION,
                         "uploads are disabled on this daemon (--max-upload-bytes 0)");
    if (size > cfg.max_upload_bytes)
      return reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
                         "load_asset." + std::string(field) + " of " + std::to_string(size) +
                             " bytes exceeds --max-upload-bytes " +
                             std::to_string(cfg.max_upload_bytes));
  }
  // Loading runs on the loader thread. Reading pauses meanwhile so that later commands of
  // this connection reach the tick after the asset does (request order is kept).
  paused_ = true;
  ++pending_commands_;
  const uint64_t owner = server_.auth().check(r.auth_token()).owner_key;
  auto self = shared_from_this();
  asio::post(server_.loader(), [self, seq, owner, request = std::move(r)]() mutable {
    // attach_to reads the asset as published now; the tick swaps the new version in only if
    // it is still the current one (World::replace_asset).
    auto loaded = load_requested_asset(request.load_asset(), self->server_.asset_root(),
                                       *self->server_.catalog().get());
    if (!loaded) {
      anim::v1::Reply reply;
      reply.set_request_id(request.request_id());
      set_status(reply, loaded.error());
      server_log(self->server_, spdlog::level::warn, "load_asset failed",
                 "session " + std::to_string(self->id_) +
                     ": load_asset failed: " + loaded.error().message());
      self->deliver(seq, std::move(reply));
    } else {
      const anim::Asset& a = *loaded->asset;
      if (loaded->replaces)
        spdlog::info("session {}: retargeted clip '{}' for asset '{}' ({} clips)", self->id_,
                     a.clips.back().name, a.name, a.clips.size());
      else
        spdlog::info("session {}: loaded asset '{}' ({} joints, {} clips)", self->id_, a.name,
                     a.skeleton.num_joints(), a.clips.size());
      Command c;
      c.kind = loaded->replaces ? Command::Kind::kReplaceAsset : Command::Kind::kInsertAsset;
      c.session_id = self->id_;
      c.owner = owner;
      c.seq = seq;
      c.request_id = request.request_id();
      c.sink = self;
      c.asset = std::move(loaded->asset);
      c.replaces = std::move(loaded->replaces);
      request.clear_load_asset();                   // the upload bytes are not needed any more
      self->server_.commands().push(std::move(c));  // already counted as pending
    }
    asio::post(self->transport_.get_executor(), [self] {
      self->paused_ = false;
      self->process_input();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Replies

void Session::deliver(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  asio::post(transport_.get_executor(),
             [self = shared_from_this(), seq, drawn, reply = std::move(reply)]() mutable {
               self->on_reply(seq, std::move(reply), drawn);
             });
}

void Session::on_reply(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  if (pending_commands_ > 0) --pending_commands_;
  if (closed_) {
    server_.stream_budget().release(drawn);
    return;
  }
  const bool ok = reply.status().code() == anim::v1::STATUS_OK;
  if (auto it = pending_subscribes_.find(seq); it != pending_subscribes_.end()) {
    if (ok) {
      it->second.start_tick = reply.tick();
      subscriptions_.push_back(std::move(it->second));
      streaming_.store(true);
    }
    pending_subscribes_.erase(it);
  }
  if (auto it = pending_region_moves_.find(seq); it != pending_region_moves_.end()) {
    if (ok)
      for (auto& sub : subscriptions_)
        if (sub.id == it->second.first && sub.region) sub.region = it->second.second;
    pending_region_moves_.erase(it);
  }
  if (auto it = pending_unsubscribes_.find(seq); it != pending_unsubscribes_.end()) {
    if (ok) {
      const uint32_t id = it->second;
      std::erase_if(subscriptions_,
                    [id](const StreamSubscription& s) { return id == 0 || s.id == id; });
      streaming_.store(!subscriptions_.empty());
      if (subscriptions_.empty()) dropping_since_.reset();
    }
    pending_unsubscribes_.erase(it);
  }
  recount_compact();
  complete(seq, std::move(reply), drawn);
  resume_if_drained();
}

void Session::complete(uint64_t seq, anim::v1::Reply reply, size_t drawn) {
  if (closed_) {
    server_.stream_budget().release(drawn);
    return;
  }
  if (const int code = reply.status().code(); code != anim::v1::STATUS_OK) {
    Metrics& m = server_.metrics();
    m.request_errors.fetch_add(1, std::memory_order_relaxed);
    const size_t slot = code > 0 && code < static_cast<int>(m.request_errors_by_code.size())
                            ? static_cast<size_t>(code)
                            : static_cast<size_t>(anim::v1::STATUS_INTERNAL);
    m.request_errors_by_code[slot].fetch_add(1, std::memory_order_relaxed);
  }
  anim::v1::ServerMessage msg;
  *msg.mutable_reply() = std::move(reply);
  write_queue_.hold_reply(seq, frame_message(msg), drawn);
  // Replies leave in request order, whichever thread produced them.
  while (auto ready = write_queue_.next_in_order()) {
    enqueue_reply(std::move(ready->bytes), ready->drawn);
    if (closed_) return;
  }
}

// ---------------------------------------------------------------------------------------------
// Streaming

void Session::offer_snapshot(const SnapshotPtr& snapshot) {
  if (!streaming_.load(std::memory_order_relaxed)) return;
  bool post = false;
  {
    std::lock_guard lock(snapshot_mutex_);
    if (pending_snapshots_.size() >= kMaxPendingSnapshots) {
      pending_snapshots_.pop_front();
      coalesced_drops_.fetch_add(1, std::memory_order_relaxed);
    }
    pending_snapshots_.push_back(snapshot);
    if (!snapshot_posted_) post = snapshot_posted_ = true;
  }
  if (post)
    asio::post(transport_.get_executor(), [self = shared_from_this()] { self->on_snapshot(); });
}

void Session::recount_compact() {
  int64_t n = 0;
  if (!closed_) {
    for (const auto& sub : subscriptions_) n += sub.encoding == anim::v1::ENCODING_COMPACT;
    for (const auto& [seq, sub] : pending_subscribes_)
      n += sub.encoding == anim::v1::ENCODING_COMPACT;
  }
  if (n != compact_counted_)
    server_.metrics().compact_subscriptions.fetch_add(n - compact_counted_,
                                                      std::memory_order_relaxed);
  compact_counted_ = n;
}

void Session::count_drops(uint32_t n) {
  if (n == 0) return;
  // A lost frame may have carried compact frames that later deltas refer to: every
  // subscription starts over with key frames (the client discards deltas that arrive before
  // them against frames it never got).
  for (auto& sub : subscriptions_) sub.baselines_lost();
  dropped_since_last_ += n;
  dropped_total_ += n;
  server_.metrics().stream_frames_dropped.fetch_add(n, std::memory_order_relaxed);
  if (!dropping_since_) dropping_since_ = Clock::now();
}

void Session::on_snapshot() {
  encoding_.clear();
  {
    std::lock_guard lock(snapshot_mutex_);
    std::swap(encoding_, pending_snapshots_);
    snapshot_posted_ = false;
  }
  if (const uint32_t c = coalesced_drops_.exchange(0))
    // The session was too busy to encode a tick: each subscription missed a frame.
    count_drops(c * static_cast<uint32_t>(subscriptions_.size()));
  const Config& cfg = server_.config();
  // A part is at most a quarter of the write queue, so a frame always fits in pieces.
  const size_t part_bytes = std::max<size_t>(cfg.max_queued_bytes / 4, 4096);
  for (const SnapshotPtr& snap : encoding_) {
    if (closed_ || draining_) break;
    for (auto& sub : subscriptions_) {
      if (snap->tick < sub.start_tick) continue;
      // Every tick's events, also of ticks whose frame is skipped or dropped below.
      if (sub.events)
        if (const uint64_t lost = collect_events(sub, *snap))
          server_.metrics().events_dropped.fetch_add(lost, std::memory_order_relaxed);
      if ((snap->tick - sub.start_tick) % sub.divisor != 0) continue;
      // Nothing to gain from encoding what the queue or the daemon's budget cannot take
      // (a crowd of readers that do not read must not cost the network threads either).
      if (!write_queue_.stream_frame_fits(sub.last_bytes)) {
        count_drops(1 + write_queue_.shed_above_fair_share());
        continue;
      }
      const auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      encode_stream_frame(sub, *snap, dropped_since_last_, now_us, part_bytes, encoded_);
      if (encoded_.bytes > cfg.max_queued_bytes) {
        // Even in parts it would never fit the queue: say so instead of going dark.
        ended_.push_back(sub.id);
        end_reason_ = "a frame of this subscription is " + std::to_string(encoded_.bytes) +
                      " bytes, more than --max-queued-bytes " +
                      std::to_string(cfg.max_queued_bytes) +
                      " can hold; subscribe to fewer characters";
        continue;
      }
      const uint32_t dropped_before = dropped_since_last_;
      dropped_since_last_ = 0;
      if (encoded_.events)
        server_.metrics().events_sent.fetch_add(encoded_.events, std::memory_order_relaxed);
      for (auto& m : encoded_.messages) enqueue_stream(std::move(m));
      // A part that did not fit was counted; the frame as a whole is one drop, and the count
      // the client was told about must be told again.
      if (dropped_since_last_ > 0) dropped_since_last_ += dropped_before;
      if (closed_) break;
    }
  }
  encoding_.clear();  // release the snapshots now, not at the next tick
  if (!ended_.empty()) {
    std::vector<uint32_t> ids;
    std::swap(ids, ended_);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    end_subscriptions(end_reason_, ids);
  }
}

void Session::end_subscriptions(const std::string& reason, std::vector<uint32_t> ids) {
  if (subscriptions_.empty()) return;
  if (ids.empty())
    for (const auto& sub : subscriptions_) ids.push_back(sub.id);
  server_log(server_, spdlog::level::warn, "subscriptions ended",
             "session " + std::to_string(id_) + " (" + peer_ + "): " + std::to_string(ids.size()) +
                 " subscription(s) ended: " + reason);
  for (const auto& sub : subscriptions_) {
    if (std::find(ids.begin(), ids.end(), sub.id) == ids.end()) continue;
    anim::v1::ServerMessage msg;
    auto* e = msg.mutable_subscription_ended();
    e->set_subscription_id(sub.id);
    e->set_code(anim::v1::STATUS_RESOURCE_EXHAUSTED);
    e->set_reason(reason);
    e->set_frames_dropped(static_cast<uint32_t>(std::min<uint64_t>(dropped_total_, UINT32_MAX)));
    enqueue_reply(frame_message(msg));
    if (closed_) return;
  }
  std::erase_if(subscriptions_, [&](const StreamSubscription& sub) {
    return std::find(ids.begin(), ids.end(), sub.id) != ids.end();
  });
  recount_compact();
  streaming_.store(!subscriptions_.empty());
  if (subscriptions_.empty()) {
    dropping_since_.reset();
    dropped_since_last_ = 0;
    // Frames queued behind a reader that does not read would hold the daemon's outbound
    // budget for good: drop them (the ones being written stay).
    write_queue_.drop_queued_stream_frames();
  }
  // The World stops counting this connection as a watcher (no reply wanted).
  for (uint32_t id : ids) {
    Command c;
    c.kind = Command::Kind::kRequest;
    c.session_id = id_;
    c.request = Unsubscribe{id};
    server_.commands().push(std::move(c));
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

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
  count_drops(write_queue_.push_stream(std::move(bytes)));
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
  streaming_.store(false);
  recount_compact();
  // The reason is logged before the socket closes, so that by the time the peer sees the
  // close the log already says why (operators and tests read it in that order). Abnormal
  // closes are what an attacker can cause at will: rate-limited per kind.
  const bool normal = reason == "client closed the connection" || reason == "daemon shutting down";
  const std::string line = "session " + std::to_string(id_) + " (" + peer_ + ") closed: " + reason +
                           " (" + std::to_string(bytes_in_) + " bytes in, " +
                           std::to_string(bytes_out_) + " out)";
  server_log(server_, normal ? spdlog::level::info : spdlog::level::warn,
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

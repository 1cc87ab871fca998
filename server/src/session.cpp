#include "session.h"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "asset_loading.h"
#include "proto_convert.h"
#include "server.h"

namespace animd {

namespace asio = boost::asio;
using anim::v1::Request;

std::unique_ptr<std::string> frame_message(const anim::v1::ServerMessage& message) {
  const size_t size = message.ByteSizeLong();
  auto out = std::make_unique<std::string>(4 + size, '\0');
  auto* p = reinterpret_cast<uint8_t*>(out->data());
  p[0] = static_cast<uint8_t>(size);
  p[1] = static_cast<uint8_t>(size >> 8);
  p[2] = static_cast<uint8_t>(size >> 16);
  p[3] = static_cast<uint8_t>(size >> 24);
  message.SerializeWithCachedSizesToArray(p + 4);
  return out;
}

namespace {
// Commands that change state; with --auth-token they need the token.
bool is_control(const Request& r) {
  switch (r.command_case()) {
    case Request::kListAssets:
    case Request::kListCharacters:
    case Request::kStats:
    case Request::kGetAssetData:
    case Request::kQueryPose:
    case Request::kSubscribe:
    case Request::kUnsubscribe:
      return false;
    default:
      return true;
  }
}

bool tokens_equal(const std::string& a, const std::string& b) {
  // Constant time in the content, so the token cannot be guessed byte by byte.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}
}  // namespace

Session::Session(Server& server, asio::ip::tcp::socket socket, uint64_t id)
    : server_(server),
      socket_(std::move(socket)),
      drain_timer_(socket_.get_executor()),
      id_(id),
      tokens_(server.config().max_requests_per_second),
      last_refill_(std::chrono::steady_clock::now()) {
  boost::system::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  peer_ = ec ? "?" : ep.address().to_string() + ":" + std::to_string(ep.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

Session::~Session() = default;

void Session::start() {
  spdlog::info("session {} connected from {}", id_, peer_);
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->read_header(); });
}

// ---------------------------------------------------------------------------------------------
// Reading

void Session::read_header() {
  if (closed_ || draining_ || paused_) return;
  asio::async_read(socket_, asio::buffer(header_, 4),
                   [self = shared_from_this()](boost::system::error_code ec, size_t) {
                     if (self->closed_ || self->draining_) return;
                     if (ec) {
                       self->close(ec == asio::error::eof ? "client closed the connection"
                                                          : "read error: " + ec.message());
                       return;
                     }
                     const uint32_t len =
                         uint32_t(self->header_[0]) | uint32_t(self->header_[1]) << 8 |
                         uint32_t(self->header_[2]) << 16 | uint32_t(self->header_[3]) << 24;
                     self->read_body(len);
                   });
}

void Session::read_body(uint32_t length) {
  const Config& cfg = server_.config();
  // Checked on the header, before buffering anything: only uploads may exceed
  // --max-frame-bytes (up to --max-upload-bytes), and that is verified once parsed.
  if (length > cfg.max_accepted_frame()) {
    close("frame of " + std::to_string(length) + " bytes exceeds the limit (--max-frame-bytes " +
          std::to_string(cfg.max_frame_bytes) + ", --max-upload-bytes " +
          std::to_string(cfg.max_upload_bytes) + ")");
    return;
  }
  body_.resize(length);
  if (length == 0) {
    on_frame(0);
    return;
  }
  asio::async_read(socket_, asio::buffer(body_.data(), length),
                   [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                     if (self->closed_) return;
                     if (ec) {
                       self->close("read error in a frame body: " + ec.message());
                       return;
                     }
                     self->on_frame(n);
                   });
}

void Session::on_frame(size_t length) {
  Metrics& m = server_.metrics();
  m.bytes_in.fetch_add(4 + length, std::memory_order_relaxed);
  bytes_in_ += 4 + length;
  Request request;
  if (!request.ParseFromArray(body_.data(), static_cast<int>(length))) {
    close("unparsable request (" + std::to_string(length) + "-byte frame is not a Request)");
    return;
  }
  const bool upload = request.has_load_asset() &&
                      request.load_asset().source_case() == anim::v1::LoadAssetRequest::kGlbData;
  if (length > server_.config().max_frame_bytes && !upload) {
    close("request frame of " + std::to_string(length) + " bytes exceeds --max-frame-bytes " +
          std::to_string(server_.config().max_frame_bytes));
    return;
  }
  if (body_.capacity() > (64u << 10)) std::string().swap(body_);  // do not keep big buffers
  m.requests.fetch_add(1, std::memory_order_relaxed);
  handle(request, next_seq_in_++);
  read_header();
}

bool Session::take_token() {
  const auto now = std::chrono::steady_clock::now();
  const double rate = server_.config().max_requests_per_second;
  tokens_ =
      std::min(rate, tokens_ + std::chrono::duration<double>(now - last_refill_).count() * rate);
  last_refill_ = now;
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

void Session::reply_error(uint64_t seq, const Request& request, anim::v1::StatusCode code,
                          std::string message) {
  anim::v1::Reply reply;
  reply.set_request_id(request.request_id());
  set_status(reply, code, std::move(message));
  complete(seq, std::move(reply));
}

void Session::handle(Request& r, uint64_t seq) {
  const Config& cfg = server_.config();
  if (!take_token())
    return reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
                       "--max-requests-per-second (" + std::to_string(cfg.max_requests_per_second) +
                           ") exceeded on this connection");
  if (r.command_case() == Request::COMMAND_NOT_SET)
    return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                       "request has no command (or one this daemon does not know)");
  if (!cfg.auth_token.empty() && is_control(r) && !tokens_equal(r.auth_token(), cfg.auth_token))
    return reply_error(seq, r, anim::v1::STATUS_UNAUTHENTICATED,
                       "this command needs the daemon's auth token (request.auth_token)");
  if (server_.shutting_down())
    return reply_error(seq, r, anim::v1::STATUS_UNAVAILABLE, "the daemon is shutting down");

  switch (r.command_case()) {
    case Request::kListAssets: {
      anim::v1::Reply reply;
      reply.set_request_id(r.request_id());
      set_status(reply, anim::Status::ok());
      auto assets = server_.catalog().get();
      for (const auto& [name, a] : *assets)
        fill_asset_info(*a, reply.mutable_list_assets()->add_assets());
      return complete(seq, std::move(reply));
    }
    case Request::kGetAssetData: {
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
    case Request::kSubscribe: {
      const auto& s = r.subscribe();
      if (s.encoding() == anim::v1::ENCODING_QUANTIZED)
        return reply_error(seq, r, anim::v1::STATUS_UNIMPLEMENTED,
                           "subscribe.encoding ENCODING_QUANTIZED is not served yet; use "
                           "ENCODING_FLOAT_3X4");
      if (s.encoding() != anim::v1::ENCODING_FLOAT_3X4)
        return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                           "subscribe.encoding has an unknown value");
      if (subscriptions_.size() + pending_subscribes_.size() >=
          cfg.max_subscriptions_per_connection)
        return reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
                           "--max-subscriptions-per-connection (" +
                               std::to_string(cfg.max_subscriptions_per_connection) + ") reached");
      Subscription sub;
      sub.id = next_subscription_id_++;
      sub.all = s.all_characters();
      sub.ids.assign(s.character_ids().begin(), s.character_ids().end());
      std::sort(sub.ids.begin(), sub.ids.end());
      sub.ids.erase(std::unique(sub.ids.begin(), sub.ids.end()), sub.ids.end());
      sub.divisor = std::max<uint32_t>(1, s.rate_divisor());
      const uint32_t id = sub.id;
      pending_subscribes_.emplace(seq, std::move(sub));
      return push_command(r, seq, id);
    }
    case Request::kUnsubscribe:
      pending_unsubscribes_.emplace(seq, r.unsubscribe().subscription_id());
      return push_command(r, seq);
    default:
      return push_command(r, seq);
  }
}

void Session::push_command(Request& r, uint64_t seq, uint32_t subscription_id) {
  Command c;
  c.kind = Command::Kind::kRequest;
  c.session_id = id_;
  c.seq = seq;
  c.sink = shared_from_this();
  c.subscription_id = subscription_id;
  c.request = std::move(r);
  server_.commands().push(std::move(c));
}

void Session::handle_load(Request& r, uint64_t seq) {
  const Config& cfg = server_.config();
  const auto& req = r.load_asset();
  if (req.source_case() == anim::v1::LoadAssetRequest::SOURCE_NOT_SET)
    return reply_error(seq, r, anim::v1::STATUS_INVALID_ARGUMENT,
                       "load_asset needs a source: path or glb_data");
  if (req.has_glb_data()) {
    if (cfg.max_upload_bytes == 0)
      return reply_error(seq, r, anim::v1::STATUS_FAILED_PRECONDITION,
                         "uploads are disabled on this daemon (--max-upload-bytes 0)");
    if (req.glb_data().size() > cfg.max_upload_bytes)
      return reply_error(seq, r, anim::v1::STATUS_RESOURCE_EXHAUSTED,
                         "load_asset.glb_data of " + std::to_string(req.glb_data().size()) +
                             " bytes exceeds --max-upload-bytes " +
                             std::to_string(cfg.max_upload_bytes));
  }
  // Loading runs on the loader thread. Reading pauses meanwhile so that later commands of
  // this connection reach the tick after the asset does (request order is kept).
  paused_ = true;
  auto self = shared_from_this();
  asio::post(server_.loader(), [self, seq, request = std::move(r)]() mutable {
    const auto& req = request.load_asset();
    anim::Expected<anim::Asset> loaded = anim::invalid_argument("no source");
    if (req.has_glb_data()) {
      loaded = load_uploaded_glb(req.glb_data(), req.name(), req);
    } else {
      auto path = resolve_asset_path(self->server_.asset_root(), req.path());
      if (!path)
        loaded = path.error();
      else
        loaded = load_asset_file(*path, req.name(), req.path(), req);
    }
    if (!loaded) {
      anim::v1::Reply reply;
      reply.set_request_id(request.request_id());
      set_status(reply, loaded.error());
      spdlog::warn("session {}: load_asset failed: {}", self->id_, loaded.error().message());
      self->deliver(seq, std::move(reply));
    } else {
      spdlog::info("session {}: loaded asset '{}' ({} joints, {} clips)", self->id_, loaded->name,
                   loaded->skeleton.num_joints(), loaded->clips.size());
      Command c;
      c.kind = Command::Kind::kInsertAsset;
      c.session_id = self->id_;
      c.seq = seq;
      c.sink = self;
      c.asset = std::make_shared<anim::Asset>(std::move(*loaded));
      request.clear_load_asset();  // the upload bytes are not needed any more
      c.request = std::move(request);
      self->server_.commands().push(std::move(c));
    }
    asio::post(self->socket_.get_executor(), [self] {
      self->paused_ = false;
      self->read_header();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Replies

void Session::deliver(uint64_t seq, anim::v1::Reply reply) {
  asio::post(socket_.get_executor(),
             [self = shared_from_this(), seq, reply = std::move(reply)]() mutable {
               self->on_reply(seq, std::move(reply));
             });
}

void Session::on_reply(uint64_t seq, anim::v1::Reply reply) {
  if (closed_) return;
  const bool ok = reply.status().code() == anim::v1::STATUS_OK;
  if (auto it = pending_subscribes_.find(seq); it != pending_subscribes_.end()) {
    if (ok) {
      it->second.start_tick = reply.tick();
      subscriptions_.push_back(std::move(it->second));
      streaming_.store(true);
    }
    pending_subscribes_.erase(it);
  }
  if (auto it = pending_unsubscribes_.find(seq); it != pending_unsubscribes_.end()) {
    if (ok) {
      const uint32_t id = it->second;
      std::erase_if(subscriptions_, [id](const Subscription& s) { return id == 0 || s.id == id; });
      streaming_.store(!subscriptions_.empty());
    }
    pending_unsubscribes_.erase(it);
  }
  complete(seq, std::move(reply));
}

void Session::complete(uint64_t seq, anim::v1::Reply reply) {
  if (closed_) return;
  if (const int code = reply.status().code(); code != anim::v1::STATUS_OK) {
    Metrics& m = server_.metrics();
    m.request_errors.fetch_add(1, std::memory_order_relaxed);
    const size_t slot = code > 0 && code < 10 ? static_cast<size_t>(code)
                                              : static_cast<size_t>(anim::v1::STATUS_INTERNAL);
    m.request_errors_by_code[slot].fetch_add(1, std::memory_order_relaxed);
  }
  anim::v1::ServerMessage msg;
  *msg.mutable_reply() = std::move(reply);
  ready_replies_.emplace(seq, frame_message(msg));
  // Replies leave in request order, whichever thread produced them.
  for (auto it = ready_replies_.find(next_seq_out_); it != ready_replies_.end();
       it = ready_replies_.find(next_seq_out_)) {
    auto bytes = std::move(it->second);
    ready_replies_.erase(it);
    ++next_seq_out_;
    enqueue(std::move(bytes), false);
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
    asio::post(socket_.get_executor(), [self = shared_from_this()] { self->on_snapshot(); });
}

void Session::on_snapshot() {
  encoding_.clear();
  {
    std::lock_guard lock(snapshot_mutex_);
    std::swap(encoding_, pending_snapshots_);
    snapshot_posted_ = false;
  }
  if (const uint32_t c = coalesced_drops_.exchange(0)) {
    // The session was too busy to encode a tick: each subscription missed a frame.
    const uint32_t n = c * static_cast<uint32_t>(subscriptions_.size());
    dropped_since_last_ += n;
    server_.metrics().stream_frames_dropped.fetch_add(n, std::memory_order_relaxed);
  }
  for (const SnapshotPtr& snap : encoding_) {
    if (closed_ || draining_) break;
    for (auto& sub : subscriptions_) {
      if (snap->tick < sub.start_tick || (snap->tick - sub.start_tick) % sub.divisor != 0) continue;
      encode_frame(sub, *snap);
      if (closed_) break;
    }
  }
  encoding_.clear();  // release the snapshots now, not at the next tick
}

void Session::encode_frame(Subscription& sub, const Snapshot& snap) {
  scratch_.Clear();
  auto* f = scratch_.mutable_frame();
  f->set_subscription_id(sub.id);
  f->set_tick(snap.tick);
  f->set_server_time(snap.server_time);
  f->set_server_unix_time_us(std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count());
  auto add = [&](const SnapshotCharacter& c) {
    auto* cf = f->add_characters();
    cf->set_character_id(c.id);
    cf->set_asset(c.asset->name);
    to_proto(c.root, cf->mutable_root());
    append_palette(snap.palettes.data() + c.palette_offset, c.num_joints, cf->mutable_palette());
  };
  if (sub.all) {
    for (uint32_t id : sub.last_ids)
      if (!snap.find(id)) f->add_despawned(id);
    sub.last_ids.clear();
    for (const auto& c : snap.characters) {
      add(c);
      sub.last_ids.push_back(c.id);
    }
  } else {
    std::erase_if(sub.ids, [&](uint32_t id) {
      const SnapshotCharacter* c = snap.find(id);
      if (c) {
        add(*c);
        return false;
      }
      f->add_despawned(id);
      return true;
    });
  }
  f->set_dropped_since_last(dropped_since_last_);
  dropped_since_last_ = 0;
  enqueue(frame_message(scratch_), true);
}

// ---------------------------------------------------------------------------------------------
// Writing

void Session::enqueue(std::unique_ptr<std::string> bytes, bool stream) {
  if (closed_) return;
  const size_t limit = server_.config().max_queued_bytes;
  const size_t size = bytes->size();
  if (stream) {
    // Make room by dropping the oldest queued (not in-flight) stream frames.
    for (size_t i = in_flight_; queued_bytes_ + size > limit && i < out_.size();) {
      if (!out_[i].stream) {
        ++i;
        continue;
      }
      queued_bytes_ -= out_[i].bytes->size();
      out_.erase(out_.begin() + static_cast<std::ptrdiff_t>(i));
      ++dropped_since_last_;
      server_.metrics().stream_frames_dropped.fetch_add(1, std::memory_order_relaxed);
    }
    if (queued_bytes_ + size > limit) {  // replies and in-flight bytes fill the queue
      ++dropped_since_last_;
      server_.metrics().stream_frames_dropped.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  } else {
    reply_bytes_ += size;
    ++reply_frames_;
    if (reply_bytes_ > limit && reply_frames_ > 1) {
      close("client does not read its replies: " + std::to_string(reply_bytes_) +
            " bytes of replies queued, above --max-queued-bytes " + std::to_string(limit));
      return;
    }
  }
  queued_bytes_ += size;
  out_.push_back(OutFrame{std::move(bytes), stream});
  write_more();
}

void Session::write_more() {
  if (in_flight_ > 0 || out_.empty() || closed_) return;
  // Gather up to ~256 KiB of frames into one write.
  write_buffers_.clear();
  size_t bytes = 0;
  while (in_flight_ < out_.size() && (bytes == 0 || bytes < (256u << 10))) {
    OutFrame& f = out_[in_flight_];
    if (!f.stream) {
      reply_bytes_ -= f.bytes->size();
      --reply_frames_;
    }
    write_buffers_.emplace_back(f.bytes->data(), f.bytes->size());
    bytes += f.bytes->size();
    ++in_flight_;
  }
  asio::async_write(socket_, write_buffers_,
                    [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                      if (self->closed_) return;
                      if (ec) {
                        self->close("write error: " + ec.message());
                        return;
                      }
                      Metrics& m = self->server_.metrics();
                      m.bytes_out.fetch_add(n, std::memory_order_relaxed);
                      self->bytes_out_ += n;
                      uint64_t frames = 0;
                      for (size_t i = 0; i < self->in_flight_; ++i) {
                        frames += self->out_.front().stream;
                        self->queued_bytes_ -= self->out_.front().bytes->size();
                        self->out_.pop_front();
                      }
                      m.stream_frames_sent.fetch_add(frames, std::memory_order_relaxed);
                      self->in_flight_ = 0;
                      if (self->out_.empty() && self->draining_) {
                        self->close("daemon shutting down");
                        return;
                      }
                      self->write_more();
                    });
}

void Session::drain(std::chrono::steady_clock::time_point deadline) {
  asio::post(socket_.get_executor(), [self = shared_from_this(), deadline] {
    if (self->closed_) return;
    self->draining_ = true;
    boost::system::error_code ec;
    self->socket_.shutdown(asio::ip::tcp::socket::shutdown_receive, ec);
    if (self->out_.empty()) {
      self->close("daemon shutting down");
      return;
    }
    self->drain_timer_.expires_at(deadline);
    self->drain_timer_.async_wait([self](boost::system::error_code e) {
      if (!e && !self->closed_) self->close("daemon shutting down (pending writes abandoned)");
    });
  });
}

void Session::close(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  streaming_.store(false);
  // The reason is logged before the socket closes, so that by the time the peer sees the
  // close the log already says why (operators and tests read it in that order).
  const bool normal = reason == "client closed the connection" || reason == "daemon shutting down";
  if (normal)
    spdlog::info("session {} ({}) closed: {} ({} bytes in, {} out)", id_, peer_, reason, bytes_in_,
                 bytes_out_);
  else
    spdlog::warn("session {} ({}) closed: {} ({} bytes in, {} out)", id_, peer_, reason, bytes_in_,
                 bytes_out_);
  boost::system::error_code ec;
  drain_timer_.cancel();
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  // out_ stays until the session is destroyed: an aborted write may still name its buffers.
  ready_replies_.clear();
  server_.remove_session(id_);
}

}  // namespace animd

// libanimclient: one TCP (or TLS over TCP) connection to animd on its own Boost.Asio I/O
// thread.
//
// Threads: the I/O thread owns the socket (reads, writes, close). Callers never touch the
// socket: they post their serialized request to the I/O thread and wait on a promise that the
// read loop fulfils when the reply with their request_id arrives (the FrameInbox matches
// them). Closing (server EOF, read or write error, protocol violation, destructor) happens
// once, on the I/O thread, and fails every pending call with the reason.
#include <atomic>
#include <cstring>
#include <deque>
#include <future>
#include <limits>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "animclient/client.h"
#include "client_stream.h"
#include "frame_codec.h"
#include "frame_inbox.h"

namespace animclient {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using namespace anim::v1;

namespace {

Error make_error(Error::Kind kind, std::string message) {
  return Error{kind, STATUS_INTERNAL, std::move(message)};
}

// Turns a reply with a non-OK status into an Error; OK replies pass through.
Result<Reply> require_ok(Result<Reply> result) {
  if (!result) return result;
  const Status& status = result.value().status();
  if (status.code() != STATUS_OK)
    return Error{Error::Kind::kServer, status.code(), status.message()};
  return result;
}

// The typed result of an OK reply, or an error when the reply lacks the result its command
// promises (a server bug, reported as a protocol error rather than a default-valued result).
template <class Get>
auto extract(Result<Reply> result, Reply::ResultCase want, const char* what, Get get)
    -> Result<std::decay_t<decltype(get(result.value()))>> {
  result = require_ok(std::move(result));
  if (!result) return result.error();
  if (result.value().result_case() != want)
    return make_error(Error::Kind::kProtocol,
                      std::string("OK reply to ") + what + " carries no " + what + " result");
  return get(result.value());
}

Result<Empty> to_empty(Result<Reply> result) {
  result = require_ok(std::move(result));
  if (!result) return result.error();
  return Empty{};
}

}  // namespace

struct Client::Impl {
  explicit Impl(ClientOptions o)
      : options(std::move(o)), inbox(options.frame_queue_capacity, options.decode_compact) {}

  ClientOptions options;
  std::string where;  // "host:port", for messages
  asio::io_context io;
  detail::ClientStream stream{io};  // plain TCP, or TLS once connect_blocking started it
  std::thread thread;

  // Read state: I/O thread only. The socket is read in chunks of up to the buffer's free
  // space; rx[rx_begin, rx_end) are the bytes received and not yet handed on. Whole frames go
  // to the inbox straight from the buffer, as many as a read brought in.
  static constexpr size_t kReadChunk = 64u << 10;
  std::vector<uint8_t> rx = std::vector<uint8_t>(kReadChunk);
  size_t rx_begin = 0, rx_end = 0;
  detail::FrameInbox inbox;  // replies to their calls, stream frames, ended subscriptions

  // Write state: I/O thread only. The requests queued while a write is in flight go out
  // together in the next one (at most kMaxGather of them), in one async_write.
  static constexpr size_t kMaxGather = 64;
  std::deque<std::string> write_queue;
  std::vector<asio::const_buffer> write_batch;  // the write in flight: write_queue's first ones
  bool writing = false;

  std::atomic<uint64_t> next_request_id{1};
  std::atomic<uint64_t> bytes_sent{0};
  std::atomic<uint64_t> bytes_received{0};

  // Runs the resolve + connect (+ TLS handshake) on the calling thread with one deadline;
  // nullopt on success.
  std::optional<Error> connect_blocking() {
    where = options.host + ":" + std::to_string(options.port);
    std::shared_ptr<asio::ssl::context> tls_context;
    if (options.tls) {
      // File problems (CA, client certificate) are reported before any connection is made.
      auto made = detail::make_client_tls_context(options);
      if (!made) return made.error();
      tls_context = std::move(made.value());
    }
    tcp::resolver resolver(io);
    asio::steady_timer timer(io);
    error_code result = asio::error::would_block;
    std::string tls_failure;   // set when the TCP connect worked and TLS did not
    bool handshaking = false;  // the deadline, if it fires, interrupts the TLS handshake
    bool timed_out = false;

    resolver.async_resolve(options.host, std::to_string(options.port),
                           [&](const error_code& ec, const tcp::resolver::results_type& endpoints) {
                             if (ec) {
                               result = ec;
                               timer.cancel();
                               return;
                             }
                             asio::async_connect(stream.socket(), endpoints,
                                                 [&](const error_code& cec, const tcp::endpoint&) {
                                                   if (cec || !tls_context) {
                                                     result = cec;
                                                     timer.cancel();
                                                     return;
                                                   }
                                                   handshaking = true;
                                                   start_tls(tls_context, result, tls_failure,
                                                             timer);
                                                 });
                           });
    timer.expires_after(options.connect_timeout);
    timer.async_wait([&](const error_code& ec) {
      // Cancelled, or resolve/connect finished in the same instant: not a timeout.
      if (ec || result != asio::error::would_block) return;
      timed_out = true;
      resolver.cancel();
      stream.close();
    });
    io.run();
    io.restart();

    if (timed_out)
      return make_error(Error::Kind::kConnect,
                        (handshaking ? "TLS handshake with " + where : "connect " + where) +
                            ": timed out after " + std::to_string(options.connect_timeout.count()) +
                            " ms");
    if (!tls_failure.empty())
      return make_error(Error::Kind::kConnect,
                        "TLS handshake with " + where + " failed: " + tls_failure);
    if (result)
      return make_error(Error::Kind::kConnect, "connect " + where + ": " + result.message());
    error_code ignored;
    // Requests are small; don't batch them.
    stream.socket().set_option(tcp::no_delay(true), ignored);
    return std::nullopt;
  }

  // After the TCP connect: wraps the socket in TLS and runs the handshake, verifying the
  // server as options.server_name (default: the host). Sets `result` and `failure` (words)
  // and cancels `timer` when done.
  void start_tls(std::shared_ptr<asio::ssl::context> context, error_code& result,
                 std::string& failure, asio::steady_timer& timer) {
    const std::string& name = options.server_name.empty() ? options.host : options.server_name;
    failure = stream.start_tls(std::move(context), name);
    if (!failure.empty()) {
      result = asio::error::invalid_argument;
      timer.cancel();
      return;
    }
    stream.async_handshake([this, &result, &failure, &timer](const error_code& ec) {
      result = ec;
      if (ec) failure = stream.tls_failure(ec);
      timer.cancel();
    });
  }

  void start() {
    // ENCODING_COMPACT: a key frame naming a skeleton this client does not hold holds the
    // stream back while the skeleton is fetched (on the I/O thread, without blocking it).
    inbox.set_skeleton_fetcher([this](const std::string& asset) {
      Request r;
      r.mutable_get_asset_data()->set_asset(asset);
      r.mutable_get_asset_data()->set_skip_mesh(true);
      call_async(
          std::move(r), [this, asset](Result<Reply> reply) { inbox.skeleton_reply(asset, reply); },
          std::chrono::milliseconds{0});
    });
    read_more();
    thread = std::thread([this] { io.run(); });
  }

  // ---- reading (I/O thread) ----

  void read_more() {
    // The bytes kept move to the front when little room is left behind them.
    if (rx_begin == rx_end) {
      rx_begin = rx_end = 0;
    } else if (rx_begin > 0 && rx.size() - rx_end < kReadChunk / 4) {
      move_kept_to_front();
    }
    stream.async_read_some(asio::buffer(rx.data() + rx_end, rx.size() - rx_end),
                           [this](const error_code& ec, size_t n) {
                             if (ec) return close(read_error(ec));
                             // A close posted while this read was in flight: nothing more is
                             // handed on.
                             if (inbox.closed()) return;
                             bytes_received += n;
                             rx_end += n;
                             if (hand_on_frames()) read_more();
                           });
  }

  // The bytes not yet handed on, moved to the start of the buffer.
  void move_kept_to_front() {
    std::memmove(rx.data(), rx.data() + rx_begin, rx_end - rx_begin);
    rx_end -= rx_begin;
    rx_begin = 0;
  }

  // Hands every whole frame buffered to the inbox, and makes room for the next one when it is
  // larger than the buffer; false when the connection closed (a protocol violation).
  bool hand_on_frames() {
    while (rx_end - rx_begin >= detail::kFrameHeaderBytes && !inbox.closed()) {
      const uint32_t length = detail::decode_frame_length(rx.data() + rx_begin);
      if (length > options.max_incoming_frame_bytes) {
        close(make_error(Error::Kind::kProtocol,
                         "server sent a frame of " + std::to_string(length) +
                             " bytes, over the limit of " +
                             std::to_string(options.max_incoming_frame_bytes) + " bytes"));
        return false;
      }
      // Where size_t is 32 bits wide the sum below could wrap: such a frame is refused.
      if constexpr (sizeof(size_t) < sizeof(uint64_t)) {
        if (uint64_t{length} + detail::kFrameHeaderBytes > std::numeric_limits<size_t>::max()) {
          close(make_error(Error::Kind::kProtocol, "server sent a frame of " +
                                                       std::to_string(length) +
                                                       " bytes, more than this machine addresses"));
          return false;
        }
      }
      const size_t whole = detail::kFrameHeaderBytes + length;
      if (rx_end - rx_begin < whole) {
        if (rx.size() - rx_begin < whole) {
          move_kept_to_front();
          if (rx.size() < whole) rx.resize(whole);
        }
        return true;
      }
      if (auto error = inbox.receive(rx.data() + rx_begin + detail::kFrameHeaderBytes, length)) {
        close(std::move(*error));
        return false;
      }
      rx_begin += whole;
    }
    // One huge reply (get_asset_data) should not pin its buffer for the connection's life.
    if (rx.size() > (8u << 20) && rx_end - rx_begin <= kReadChunk) {
      std::vector<uint8_t> smaller(kReadChunk);
      std::memcpy(smaller.data(), rx.data() + rx_begin, rx_end - rx_begin);
      rx_end -= rx_begin;
      rx_begin = 0;
      rx.swap(smaller);
    }
    return !inbox.closed();
  }

  Error read_error(const error_code& ec) const {
    // A TLS peer that closes without close_notify (animd never waits to send one) ends the
    // stream "truncated": for this protocol that is the same orderly close as a TCP EOF.
    if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated)
      return make_error(Error::Kind::kDisconnected, "server " + where + " closed the connection");
    if (ec == asio::error::operation_aborted)
      return make_error(Error::Kind::kDisconnected,
                        "connection to " + where + " closed by the client");
    return make_error(Error::Kind::kDisconnected, "read from " + where + ": " + ec.message());
  }

  // ---- writing (I/O thread) ----

  void enqueue_write(std::string bytes) {
    asio::post(io, [this, bytes = std::move(bytes)]() mutable {
      if (!stream.socket().is_open())
        return;  // closed meanwhile; close() already failed the caller
      write_queue.push_back(std::move(bytes));
      if (!writing) write_next();
    });
  }

  void write_next() {
    writing = true;
    write_batch.clear();
    for (size_t i = 0; i < write_queue.size() && i < kMaxGather; ++i)
      write_batch.push_back(asio::buffer(write_queue[i]));
    asio::async_write(stream, write_batch, [this](const error_code& ec, size_t n) {
      if (ec) {
        writing = false;
        write_queue.clear();
        write_batch.clear();
        return close(
            make_error(Error::Kind::kDisconnected, "write to " + where + ": " + ec.message()));
      }
      bytes_sent += n;
      write_queue.erase(write_queue.begin(),
                        write_queue.begin() + static_cast<std::ptrdiff_t>(write_batch.size()));
      write_batch.clear();
      if (write_queue.empty())
        writing = false;
      else
        write_next();
    });
  }

  // ---- closing (I/O thread) ----

  // Closes once: closes the socket, then fails every waiting call and wakes frame readers.
  void close(Error reason) {
    if (inbox.closed()) return;  // only this thread closes
    stream.close();
    inbox.close(reason);
  }

  // ---- calls (any thread) ----

  // Gives `request` a fresh request_id (returned in `id`) and the options' token when it has
  // none, and frames it into `bytes`; an error when it is too large to send.
  std::optional<Error> prepare(Request& request, uint64_t& id, std::string& bytes) {
    id = next_request_id.fetch_add(1);
    request.set_request_id(id);
    if (request.auth_token().empty() && !options.auth_token.empty())
      request.set_auth_token(options.auth_token);
    if (!detail::encode_frame(request, bytes))
      return make_error(Error::Kind::kProtocol,
                        command_name(request) + " request is too large to send");
    return std::nullopt;
  }

  Error timeout_error(const std::string& command, std::chrono::milliseconds timeout) const {
    return make_error(Error::Kind::kTimeout, "no reply to " + command + " within " +
                                                 std::to_string(timeout.count()) + " ms");
  }

  Result<Reply> call(Request request, std::chrono::milliseconds timeout) {
    if (timeout.count() <= 0) timeout = options.request_timeout;
    uint64_t id = 0;
    std::string bytes;
    if (auto error = prepare(request, id, bytes)) return *error;

    auto promise = std::make_shared<std::promise<Result<Reply>>>();
    auto future = promise->get_future();
    // Registered before sending, so the reply can never arrive before its waiter. Closed: the
    // future already holds the error.
    if (!inbox.expect(id, detail::PendingCall{std::move(promise), nullptr, nullptr}))
      return future.get();
    enqueue_write(std::move(bytes));

    if (future.wait_for(timeout) == std::future_status::timeout) {
      if (inbox.withdraw(id)) return timeout_error(command_name(request), timeout);
      // Otherwise the reply (or the close) won the race and the value is set: take it.
    }
    return future.get();
  }

  void call_async(Request request, ReplyCallback done, std::chrono::milliseconds timeout) {
    if (timeout.count() <= 0) timeout = options.request_timeout;
    uint64_t id = 0;
    std::string bytes;
    if (auto error = prepare(request, id, bytes)) return done(*error);
    // On a closed connection `done` runs here, on the calling thread.
    if (!inbox.expect(id, detail::PendingCall{nullptr, std::move(done), nullptr})) return;
    // The deadline timer lives on the I/O thread, like everything that completes the call.
    asio::post(
        io, [this, id, timeout, name = command_name(request), bytes = std::move(bytes)]() mutable {
          auto timer = std::make_shared<asio::steady_timer>(io, timeout);
          if (!inbox.set_timer(id, timer)) return;  // already failed by a close
          timer->async_wait([this, id, timeout, name](const error_code& ec) {
            if (ec) return;  // cancelled: the reply or the close came first
            if (auto call = inbox.withdraw(id)) call->complete(timeout_error(name, timeout));
          });
          if (!stream.socket().is_open()) return;
          write_queue.push_back(std::move(bytes));
          if (!writing) write_next();
        });
  }
};

Result<std::unique_ptr<Client>> Client::connect(const ClientOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  if (auto error = impl->connect_blocking()) return *error;
  impl->start();
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Client::~Client() {
  Impl* impl = impl_.get();
  // Closing on the I/O thread ends the read loop; io.run() then returns by itself. If the
  // loop already ended (server closed), nothing runs the post and the thread has finished.
  asio::post(impl->io, [impl] {
    impl->close(make_error(Error::Kind::kDisconnected,
                           "connection to " + impl->where + " closed by the client"));
  });
  if (impl->thread.joinable()) impl->thread.join();
}

Result<Reply> Client::call(Request request, std::chrono::milliseconds timeout) {
  // The daemon accepts large frames (an upload) only from a connection that has already sent
  // a valid request (--max-preauth-frame-bytes, 64 KiB by default): open with a small one
  // when nothing was answered yet. Its failure (e.g. a wrong token) is the answer.
  if (impl_->inbox.replies_received() == 0 && request.ByteSizeLong() > (32u << 10)) {
    Request hello;
    hello.set_auth_token(request.auth_token());
    hello.mutable_list_assets();
    auto reply = impl_->call(std::move(hello), timeout);
    if (!reply || reply->status().code() != anim::v1::STATUS_OK) {
      if (reply) reply->set_request_id(request.request_id());
      return reply;
    }
  }
  return impl_->call(std::move(request), timeout);
}

void Client::call_async(Request request, ReplyCallback done, std::chrono::milliseconds timeout) {
  impl_->call_async(std::move(request), std::move(done), timeout);
}

Result<ListAssetsReply> Client::list_assets() {
  Request request;
  request.mutable_list_assets();
  return extract(call(std::move(request)), Reply::kListAssets, "list_assets",
                 [](Reply& r) { return std::move(*r.mutable_list_assets()); });
}

Result<LoadAssetReply> Client::load_asset(const LoadAssetRequest& load) {
  Request request;
  *request.mutable_load_asset() = load;
  return extract(call(std::move(request)), Reply::kLoadAsset, "load_asset",
                 [](Reply& r) { return std::move(*r.mutable_load_asset()); });
}

Result<GetAssetDataReply> Client::get_asset_data(const std::string& asset, bool skip_mesh) {
  Request request;
  request.mutable_get_asset_data()->set_asset(asset);
  request.mutable_get_asset_data()->set_skip_mesh(skip_mesh);
  return extract(call(std::move(request)), Reply::kGetAssetData, "get_asset_data",
                 [](Reply& r) { return std::move(*r.mutable_get_asset_data()); });
}

Result<SpawnReply> Client::spawn(const SpawnRequest& spawn) {
  Request request;
  *request.mutable_spawn() = spawn;
  return extract(call(std::move(request)), Reply::kSpawn, "spawn",
                 [](Reply& r) { return std::move(*r.mutable_spawn()); });
}

Result<SpawnReply> Client::spawn(const std::string& asset, const std::string& clip) {
  SpawnRequest spawn_request;
  spawn_request.set_asset(asset);
  spawn_request.set_clip(clip);
  return spawn(spawn_request);
}

Result<Empty> Client::despawn(uint32_t character_id) {
  Request request;
  request.mutable_despawn()->set_character_id(character_id);
  return to_empty(call(std::move(request)));
}

Result<Empty> Client::set_root(const SetRootTransformRequest& set_root) {
  Request request;
  *request.mutable_set_root() = set_root;
  return to_empty(call(std::move(request)));
}

Result<Empty> Client::set_root_motion(const SetRootMotionRequest& set_root_motion) {
  Request request;
  *request.mutable_set_root_motion() = set_root_motion;
  return to_empty(call(std::move(request)));
}

Result<Empty> Client::play(const PlayRequest& play) {
  Request request;
  *request.mutable_play() = play;
  return to_empty(call(std::move(request)));
}

Result<Empty> Client::play(uint32_t character_id, const std::string& clip) {
  PlayRequest play_request;
  play_request.set_character_id(character_id);
  play_request.set_clip(clip);
  return play(play_request);
}

Result<Empty> Client::crossfade(const CrossfadeRequest& crossfade) {
  Request request;
  *request.mutable_crossfade() = crossfade;
  return to_empty(call(std::move(request)));
}

Result<Empty> Client::crossfade(uint32_t character_id, const std::string& clip, float duration) {
  CrossfadeRequest crossfade_request;
  crossfade_request.set_character_id(character_id);
  crossfade_request.set_clip(clip);
  crossfade_request.set_duration(duration);
  return crossfade(crossfade_request);
}

Result<Empty> Client::set_speed(uint32_t character_id, float speed) {
  Request request;
  request.mutable_set_speed()->set_character_id(character_id);
  request.mutable_set_speed()->set_speed(speed);
  return to_empty(call(std::move(request)));
}

Result<AddLayerReply> Client::add_layer(const AddLayerRequest& add_layer) {
  Request request;
  *request.mutable_add_layer() = add_layer;
  return extract(call(std::move(request)), Reply::kAddLayer, "add_layer",
                 [](Reply& r) { return std::move(*r.mutable_add_layer()); });
}

Result<Empty> Client::update_layer(const UpdateLayerRequest& update_layer) {
  Request request;
  *request.mutable_update_layer() = update_layer;
  return to_empty(call(std::move(request)));
}

Result<Empty> Client::remove_layer(uint32_t character_id, uint32_t layer_id) {
  Request request;
  request.mutable_remove_layer()->set_character_id(character_id);
  request.mutable_remove_layer()->set_layer_id(layer_id);
  return to_empty(call(std::move(request)));
}

Result<SetIkGoalReply> Client::set_ik_goal(const SetIkGoalRequest& set_ik_goal) {
  Request request;
  *request.mutable_set_ik_goal() = set_ik_goal;
  return extract(call(std::move(request)), Reply::kSetIkGoal, "set_ik_goal",
                 [](Reply& r) { return std::move(*r.mutable_set_ik_goal()); });
}

Result<Empty> Client::clear_ik_goal(uint32_t character_id, uint32_t goal_id) {
  Request request;
  request.mutable_clear_ik_goal()->set_character_id(character_id);
  request.mutable_clear_ik_goal()->set_goal_id(goal_id);
  return to_empty(call(std::move(request)));
}

Result<QueryPoseReply> Client::query_pose(const QueryPoseRequest& query_pose) {
  Request request;
  *request.mutable_query_pose() = query_pose;
  return extract(call(std::move(request)), Reply::kQueryPose, "query_pose",
                 [](Reply& r) { return std::move(*r.mutable_query_pose()); });
}

Result<ListCharactersReply> Client::list_characters() {
  Request request;
  request.mutable_list_characters();
  return extract(call(std::move(request)), Reply::kListCharacters, "list_characters",
                 [](Reply& r) { return std::move(*r.mutable_list_characters()); });
}

Result<SubscribeReply> Client::subscribe(const SubscribeRequest& subscribe) {
  Request request;
  *request.mutable_subscribe() = subscribe;
  return extract(call(std::move(request)), Reply::kSubscribe, "subscribe",
                 [](Reply& r) { return std::move(*r.mutable_subscribe()); });
}

Result<Empty> Client::unsubscribe(uint32_t subscription_id) {
  Request request;
  request.mutable_unsubscribe()->set_subscription_id(subscription_id);
  return to_empty(call(std::move(request)));
}

Result<Empty> Client::update_subscription(uint32_t subscription_id,
                                          const anim::v1::Region& region) {
  Request request;
  request.mutable_update_subscription()->set_subscription_id(subscription_id);
  *request.mutable_update_subscription()->mutable_region() = region;
  return to_empty(call(std::move(request)));
}

Result<Empty> Client::update_subscription(const anim::v1::UpdateSubscriptionRequest& update) {
  Request request;
  *request.mutable_update_subscription() = update;
  return to_empty(call(std::move(request)));
}

Result<AddClipEventsReply> Client::add_clip_events(const AddClipEventsRequest& add) {
  Request request;
  *request.mutable_add_clip_events() = add;
  return extract(call(std::move(request)), Reply::kAddClipEvents, "add_clip_events",
                 [](Reply& r) { return std::move(*r.mutable_add_clip_events()); });
}

Result<StatsReply> Client::stats() {
  Request request;
  request.mutable_stats();
  return extract(call(std::move(request)), Reply::kStats, "stats",
                 [](Reply& r) { return std::move(*r.mutable_stats()); });
}

Result<RaycastReply> Client::raycast(const RaycastRequest& raycast) {
  Request request;
  *request.mutable_raycast() = raycast;
  return extract(call(std::move(request)), Reply::kRaycast, "raycast",
                 [](Reply& r) { return std::move(*r.mutable_raycast()); });
}

Result<OverlapSphereReply> Client::overlap_sphere(const OverlapSphereRequest& overlap) {
  Request request;
  *request.mutable_overlap_sphere() = overlap;
  return extract(call(std::move(request)), Reply::kOverlapSphere, "overlap_sphere",
                 [](Reply& r) { return std::move(*r.mutable_overlap_sphere()); });
}

Result<Empty> Client::set_hit_volumes(const SetHitVolumesRequest& volumes) {
  Request request;
  *request.mutable_set_hit_volumes() = volumes;
  return to_empty(call(std::move(request)));
}

Result<HitVolumesReply> Client::get_hit_volumes(const std::string& asset) {
  Request request;
  request.mutable_get_hit_volumes()->set_asset(asset);
  return extract(call(std::move(request)), Reply::kHitVolumes, "get_hit_volumes",
                 [](Reply& r) { return std::move(*r.mutable_hit_volumes()); });
}

void Client::set_frame_callback(FrameCallback callback) {
  impl_->inbox.set_frame_callback(std::move(callback));
}

void Client::set_message_callback(MessageCallback callback) {
  impl_->inbox.set_message_callback(std::move(callback));
}

std::optional<StreamFrame> Client::next_frame(std::chrono::milliseconds timeout) {
  return impl_->inbox.next_frame(timeout);
}

std::vector<anim::v1::SubscriptionEnded> Client::ended_subscriptions() const {
  return impl_->inbox.ended_subscriptions();
}

bool Client::connected() const {
  return !impl_->inbox.closed();
}

std::string Client::last_compact_error() const {
  return impl_->inbox.last_compact_error();
}

ClientCounters Client::counters() const {
  ClientCounters c;
  c.bytes_sent = impl_->bytes_sent.load();
  c.bytes_received = impl_->bytes_received.load();
  c.replies_received = impl_->inbox.replies_received();
  c.frames_received = impl_->inbox.frames_received();
  c.stream_bytes_received = impl_->inbox.stream_bytes_received();
  c.frames_dropped_locally = impl_->inbox.frames_dropped_locally();
  c.compact_errors = impl_->inbox.compact_errors();
  return c;
}

const ClientOptions& Client::options() const {
  return impl_->options;
}

}  // namespace animclient

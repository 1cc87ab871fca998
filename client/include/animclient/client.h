#pragma once
// libanimclient: a connection to animd.
//
// One Client is one TCP connection, optionally TLS (ClientOptions::tls). Requests are sent with a
// fresh request_id and the calling thread waits for the matching Reply (with a timeout). Stream
// frames pushed after subscribe() are read by the client's own I/O thread and delivered either to a
// callback (on that thread) or to a bounded queue read with next_frame().
//
// Thread safety: every method may be called from any thread; requests from several threads
// are sent in turn and each waits for its own reply.
//
// Depends on the generated protocol (proto/anim/v1) only; no animation code.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "anim/v1/envelope.pb.h"

namespace animclient {

// The daemon's default port (animd --port).
inline constexpr uint16_t kDefaultPort = 7450;
inline constexpr std::chrono::milliseconds kDefaultTimeout{5000};

// Why a call produced no result.
struct Error {
  enum class Kind {
    kConnect,       // could not connect (message says host:port and the OS error)
    kTimeout,       // no reply within the timeout
    kDisconnected,  // the connection closed (by the server or the network)
    kProtocol,      // the server sent something that does not parse, or a frame too large
    kServer,        // the server answered with a non-OK status (code and message from it)
  };
  Kind kind = Kind::kServer;
  anim::v1::StatusCode code = anim::v1::STATUS_INTERNAL;  // meaningful for kServer
  std::string message;

  // "NOT_FOUND: unknown character 42" / "timeout: no reply to spawn within 5000 ms" ...
  std::string to_string() const;
};

// "connect", "timeout", "disconnected", "protocol", "server".
const char* kind_name(Error::Kind kind);
// "NOT_FOUND" for STATUS_NOT_FOUND (the enum name without its prefix); "CODE_42" if unknown.
std::string status_code_name(anim::v1::StatusCode code);
// The name of the command a request carries ("spawn", "play", ...); "empty" when unset.
std::string command_name(const anim::v1::Request& request);

// A value or an Error.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Empty {};  // result of commands that return nothing but a status

struct ClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = kDefaultPort;
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds request_timeout = kDefaultTimeout;
  std::string auth_token;                        // sent with every request when non-empty
  size_t max_incoming_frame_bytes = 256u << 20;  // larger frames from the server: kProtocol
  size_t frame_queue_capacity = 1024;            // next_frame() queue; oldest dropped when full
  // ENCODING_COMPACT frames are decoded to palettes before delivery (see set_frame_callback).
  // Off: they are delivered as received (each character's `compact` bytes, no palette) and no
  // skeleton is fetched: for load tools that measure the daemon, not this decoder.
  bool decode_compact = true;

  // TLS (1.2 or 1.3 only). When `tls` is set the connection is encrypted and the server's
  // certificate must chain to ca_file (PEM; the system's CA store when empty) and name
  // server_name: an IP address is matched against the certificate's IP subjectAltNames, a
  // host name against its DNS names (and sent as SNI). A failure is Error{kConnect,
  // "TLS handshake with host:port failed: <reason>"}; connect_timeout covers the handshake.
  bool tls = false;
  std::string ca_file;
  std::string server_name;  // empty = host
  // A client certificate + its private key (PEM), for daemons that verify clients
  // (animd --tls-client-ca). Both or neither.
  std::string cert_file;
  std::string key_file;
};

// Counters of what this connection received (for load tools).
struct ClientCounters {
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  uint64_t replies_received = 0;
  uint64_t frames_received = 0;
  // Wire bytes of the stream frames received (4-byte length prefix included), before
  // decoding: what the stream costs, whatever the encoding.
  uint64_t stream_bytes_received = 0;
  uint64_t frames_dropped_locally = 0;  // next_frame() queue overflow
  // ENCODING_COMPACT characters left out of their frame because they could not be decoded
  // (see Client::last_compact_error); each comes back with its next key frame.
  uint64_t compact_errors = 0;
};

class Client {
 public:
  // Connects (TCP, with the connect timeout) and starts the I/O thread.
  static Result<std::unique_ptr<Client>> connect(const ClientOptions& options);

  ~Client();  // closes the connection and joins the I/O thread
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends `request` (its request_id is overwritten; auth_token filled from the options when
  // empty) and waits for the reply. Any reply, OK or not, is returned as a value: only
  // transport failures are Errors. timeout 0 = the options' request_timeout.
  // A request above 32 KiB sent before any reply on this connection is preceded by a
  // list_assets (the daemon accepts big frames only after a valid request); call_async does
  // not do this.
  Result<anim::v1::Reply> call(anim::v1::Request request,
                               std::chrono::milliseconds timeout = std::chrono::milliseconds{0});

  // Like call(), without waiting: `done` runs exactly once with the reply or the transport
  // error (kTimeout after `timeout`, kDisconnected, kProtocol). It runs on the I/O thread (keep
  // it short and never call a blocking method of this Client from it), or on the calling thread
  // when the connection is already closed. Lets one thread keep many requests in flight.
  using ReplyCallback = std::function<void(Result<anim::v1::Reply>)>;
  void call_async(anim::v1::Request request, ReplyCallback done,
                  std::chrono::milliseconds timeout = std::chrono::milliseconds{0});

  // Typed helpers: like call(), but a non-OK status becomes Error{kServer, code, message}.
  Result<anim::v1::ListAssetsReply> list_assets();
  Result<anim::v1::LoadAssetReply> load_asset(const anim::v1::LoadAssetRequest& request);
  Result<anim::v1::GetAssetDataReply> get_asset_data(const std::string& asset,
                                                     bool skip_mesh = false);
  Result<anim::v1::SpawnReply> spawn(const anim::v1::SpawnRequest& request);
  Result<anim::v1::SpawnReply> spawn(const std::string& asset, const std::string& clip = {});
  Result<Empty> despawn(uint32_t character_id);
  Result<Empty> set_root(const anim::v1::SetRootTransformRequest& request);
  // Root motion on (ROOT_MOTION_EXTRACT, from `joint`, empty = the skeleton's root joint) or
  // off: the character's root moves by what its clips travel (docs/animation.md).
  Result<Empty> set_root_motion(const anim::v1::SetRootMotionRequest& request);
  Result<Empty> play(const anim::v1::PlayRequest& request);
  Result<Empty> play(uint32_t character_id, const std::string& clip);
  Result<Empty> crossfade(const anim::v1::CrossfadeRequest& request);
  Result<Empty> crossfade(uint32_t character_id, const std::string& clip, float duration);
  Result<Empty> set_speed(uint32_t character_id, float speed);
  Result<anim::v1::AddLayerReply> add_layer(const anim::v1::AddLayerRequest& request);
  Result<Empty> update_layer(const anim::v1::UpdateLayerRequest& request);
  Result<Empty> remove_layer(uint32_t character_id, uint32_t layer_id);
  Result<anim::v1::SetIkGoalReply> set_ik_goal(const anim::v1::SetIkGoalRequest& request);
  Result<Empty> clear_ik_goal(uint32_t character_id, uint32_t goal_id);
  Result<anim::v1::QueryPoseReply> query_pose(const anim::v1::QueryPoseRequest& request);
  Result<anim::v1::ListCharactersReply> list_characters();
  Result<anim::v1::SubscribeReply> subscribe(const anim::v1::SubscribeRequest& request);
  Result<Empty> unsubscribe(uint32_t subscription_id);
  // Moves a region subscription's region (the camera moved); answered at the daemon's next
  // tick (the World and the stream move the region together). Frames after the reply use the
  // new region.
  Result<Empty> update_subscription(uint32_t subscription_id, const anim::v1::Region& region);
  // Changes what the request gives of a subscription, keeping the rest: its region, its camera
  // (SubscribeRequest.camera: significance only, never what is streamed) or clear_camera.
  // A camera alone needs no region: `update.set_subscription_id(id);
  // *update.mutable_camera() = camera;`.
  Result<Empty> update_subscription(const anim::v1::UpdateSubscriptionRequest& update);
  Result<anim::v1::StatsReply> stats();
  // Adds animation events to a clip of an asset (replace: sets them); returns the clip's
  // events now. Subscribe with SubscribeRequest.events to receive them as they fire.
  Result<anim::v1::AddClipEventsReply> add_clip_events(
      const anim::v1::AddClipEventsRequest& request);
  // Hit queries at a tick of the pose history (hits.proto); a miss is an OK reply with
  // hit = false.
  Result<anim::v1::RaycastReply> raycast(const anim::v1::RaycastRequest& request);
  Result<anim::v1::OverlapSphereReply> overlap_sphere(
      const anim::v1::OverlapSphereRequest& request);
  Result<Empty> set_hit_volumes(const anim::v1::SetHitVolumesRequest& request);
  Result<anim::v1::HitVolumesReply> get_hit_volumes(const std::string& asset);

  // Stream delivery. With a callback set, every frame goes to it on the I/O thread (keep it
  // short) and not to the queue. Without one, frames go to a bounded queue.
  //
  // ENCODING_COMPACT frames are decoded before delivery: each character arrives with its
  // asset, root and palette filled in exactly as the float stream carries them (and
  // `compact` cleared), so code written for the float stream works unchanged. The library
  // fetches each asset's skeleton itself (get_asset_data, skip_mesh) the first time a key
  // frame names it, holding the stream back until it arrives; a character it cannot decode
  // is left out of its frame and counted (ClientCounters::compact_errors).
  using FrameCallback = std::function<void(const anim::v1::StreamFrame&)>;
  void set_frame_callback(FrameCallback callback);
  // The oldest queued frame, waiting up to `timeout`; nullopt on timeout or disconnect.
  std::optional<anim::v1::StreamFrame> next_frame(std::chrono::milliseconds timeout);

  // Every server message that is neither a reply nor a stream frame (subscription_ended, and
  // kinds newer than this library's switch, e.g. characters_moved) goes to this callback on the
  // I/O thread (keep it short; never call a blocking method of this Client from it), after
  // the library's own handling. Empty: they are not delivered.
  using MessageCallback = std::function<void(const anim::v1::ServerMessage&)>;
  void set_message_callback(MessageCallback callback);

  // Subscriptions the server ended on its own (a reader too slow to keep up, the daemon's
  // stream budget), oldest first (the last 64). No frames of those follow.
  std::vector<anim::v1::SubscriptionEnded> ended_subscriptions() const;

  // Why the last compact character could not be decoded; empty if none failed.
  std::string last_compact_error() const;

  bool connected() const;
  ClientCounters counters() const;
  const ClientOptions& options() const;

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace animclient

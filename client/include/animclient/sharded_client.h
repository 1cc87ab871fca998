#pragma once
// libanimclient: characters spread over several daemons by a consistent-hash ring.
//
// A ShardedClient holds one Client per daemon ("shard", named by its address "host:port" as
// given). Characters are placed by a key the caller chooses (an entity name or number):
// spawn(key, ...) goes to the daemon the ring names for the key and returns a CharacterRef
// {shard, character_id}; per-character commands take the key and go to the daemon holding
// that character (the routing table, not the ring: a character stays where it was spawned
// when the ring changes, until it is moved).
//
// The ring (the Python client's animd_shards.HashRing is the same, bit for bit):
//   ring_hash(bytes) = fmix64(fnv1a64(bytes)): 64-bit FNV-1a, then MurmurHash3's 64-bit
//   finalizer; each daemon owns `vnodes` points (default 160), ring_hash("<name>#<i>") for
//   i in [0, vnodes); a key belongs to the first point at or after ring_hash(key), wrapping
//   around; equal points are ordered by name. A numeric key is hashed as its decimal digits.
// Adding or removing one daemon of N moves only the keys of its arcs (about 1/N of them).
//
// Fan-out queries: raycast and overlap_sphere go to every shard at ONE tick number. Daemons
// of a fleet share a clock (animd --tick-epoch): tick T is the same instant on all of them.
// Without a tick in the request, the fleet tick is used: the smallest of the shards' newest
// published ticks (stats), which every shard still holds in its pose history; when a shard
// answers NOT_FOUND (it skipped that tick number), the query is asked again one tick earlier,
// up to 3 times. raycast merges to the nearest hit (ties: lower shard name, then lower id),
// overlap_sphere to the union; each hit names its shard and key.
//
// Merged stream: subscribe() subscribes on every shard; frames of all shards come through one
// callback or one bounded queue as ShardFrame {shard, frame}.
//
// characters_moved: when the generated protocol has ServerMessage.characters_moved (a daemon
// handing characters to another: target "host:port", tick, from_ids[i] -> to_ids[i]), the
// routing table follows it: the keys of the moved characters route to {target, new id}; a
// connection to an unknown target is opened by the next call that needs it. Without the
// field in the generated code such messages are ignored.
//
// Thread safety: every method may be called from any thread.

#include <chrono>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "animclient/client.h"

namespace animclient {

// 64-bit FNV-1a of `data`.
uint64_t fnv1a64(std::string_view data);
// MurmurHash3's 64-bit finalizer (a bijection).
uint64_t fmix64(uint64_t h);
// The ring's hash of a key: fmix64(fnv1a64(key)).
uint64_t ring_hash(std::string_view key);

class HashRing {
 public:
  static constexpr int kDefaultVnodes = 160;
  // vnodes < 1 is taken as 1.
  explicit HashRing(int vnodes = kDefaultVnodes);

  // Adds a node (no-op when present); names are non-empty.
  void add(const std::string& node);
  // False when the node was not there.
  bool remove(const std::string& node);
  // The node owning `key`; empty string on an empty ring.
  std::string node_for(std::string_view key) const;
  std::string node_for(uint64_t key) const { return node_for(std::to_string(key)); }

  std::vector<std::string> nodes() const;  // sorted
  size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  int vnodes() const { return vnodes_; }

 private:
  struct Point {
    uint64_t hash;
    std::string node;
    auto operator<=>(const Point&) const = default;
  };
  int vnodes_;
  std::vector<std::string> nodes_;  // sorted
  std::vector<Point> points_;       // sorted
};

// A character of a sharded fleet: the daemon holding it and its id there.
struct CharacterRef {
  std::string shard;
  uint32_t character_id = 0;
  auto operator<=>(const CharacterRef&) const = default;
};

// A merged raycast: the one tick every shard was asked at; for a hit, where it is (ref), the
// key routed to it (empty if it was not spawned through this client) and that shard's reply.
struct ShardedRaycast {
  uint64_t tick = 0;
  bool hit = false;
  CharacterRef ref;
  std::string key;
  anim::v1::RaycastReply reply;
};

struct ShardedOverlap {
  CharacterRef ref;
  std::string key;  // empty if not spawned through this client
  anim::v1::CharacterOverlap character;
};

// A merged overlap_sphere: every shard's overlapped characters at one tick, by shard then id.
struct ShardedOverlapResult {
  uint64_t tick = 0;
  std::vector<ShardedOverlap> characters;
};

// A StreamFrame of one shard of the merged stream; CharacterRef{shard, c.character_id()}
// names each of its characters.
struct ShardFrame {
  std::string shard;
  anim::v1::StreamFrame frame;
};

struct ShardedClientOptions {
  ClientOptions client;  // host and port are ignored: each shard's address replaces them
  int vnodes = HashRing::kDefaultVnodes;
  size_t frame_queue_capacity = 4096;  // merged next_frame() queue; oldest dropped when full
};

// "host:port" -> {host, port}; nullopt when it is not that.
std::optional<std::pair<std::string, uint16_t>> parse_address(std::string_view address);

class ShardedClient {
 public:
  // Connects to every address ("host:port"; at least one) and puts them on the ring.
  static Result<std::unique_ptr<ShardedClient>> connect(const std::vector<std::string>& addresses,
                                                        const ShardedClientOptions& options = {});
  ~ShardedClient();
  ShardedClient(const ShardedClient&) = delete;
  ShardedClient& operator=(const ShardedClient&) = delete;

  // ---- shards and the ring ----

  // Connects (if needed) and adds the daemon to the ring; returns its shard name. With a
  // merged subscription active, it is subscribed too.
  Result<std::string> add_daemon(const std::string& address);
  // Takes a shard out of the ring: new keys no longer go there; its characters keep their
  // routes (see misplaced()). False when it was not on the ring.
  bool remove_daemon(const std::string& address);
  HashRing ring() const;  // a copy
  std::string shard_for(std::string_view key) const;
  // Shards with a connection (ring members and move targets), sorted.
  std::vector<std::string> shards() const;
  // The Client of a shard, connecting when there is none yet (a move target).
  Result<Client*> client(const std::string& shard);

  // ---- characters ----

  // Spawns the character of `key` on its ring shard. A key already routed: Error{kServer,
  // STATUS_INVALID_ARGUMENT}, nothing sent.
  Result<CharacterRef> spawn(const std::string& key, const anim::v1::SpawnRequest& request);
  Result<CharacterRef> spawn(const std::string& key, const std::string& asset,
                             const std::string& clip = {});
  // Despawns and forgets the key's route.
  Result<Empty> despawn(const std::string& key);
  std::optional<CharacterRef> ref(const std::string& key) const;
  std::optional<std::string> key_of(const CharacterRef& ref) const;
  std::map<std::string, CharacterRef> routes() const;
  // Routes `key` to a character this client did not spawn.
  void adopt(const std::string& key, const CharacterRef& ref);
  // {key: {shard holding it, shard the ring names now}} for keys not on their ring shard.
  std::map<std::string, std::pair<std::string, std::string>> misplaced() const;

  // Sends a per-character request to the key's shard: its command's `character_id` field is
  // set to the key's id there (any command message with a uint32 character_id field). A
  // request without such a command: kProtocol error, nothing sent. The reply is returned
  // whatever its status (like Client::call).
  Result<anim::v1::Reply> call(const std::string& key, anim::v1::Request request);
  // Typed helpers (a non-OK status becomes Error{kServer}).
  Result<Empty> play(const std::string& key, const std::string& clip);
  Result<Empty> crossfade(const std::string& key, const std::string& clip, float duration);
  Result<Empty> set_speed(const std::string& key, float speed);
  Result<Empty> set_root(const std::string& key, anim::v1::SetRootTransformRequest request);
  Result<anim::v1::QueryPoseReply> query_pose(const std::string& key,
                                              anim::v1::QueryPoseRequest request);

  // ---- fan-out at one tick ----

  // The newest tick every shard has published (min of their stats().tick).
  Result<uint64_t> fleet_tick();
  // request.tick set: that tick on every shard; unset: the fleet tick (see the top).
  // ignore_keys: characters left out, by key (added to the ignore_character_ids of the shard
  // holding each); ids already in the request are sent to every shard as they are.
  Result<ShardedRaycast> raycast(const anim::v1::RaycastRequest& request,
                                 const std::vector<std::string>& ignore_keys = {});
  Result<ShardedOverlapResult> overlap_sphere(const anim::v1::OverlapSphereRequest& request,
                                              const std::vector<std::string>& ignore_keys = {});

  // ---- merged stream ----

  // Subscribes with `request` on every shard (all_characters or a region; character_ids are
  // ignored). Returns {shard: subscription id}.
  Result<std::map<std::string, uint32_t>> subscribe(const anim::v1::SubscribeRequest& request);
  // Ends the merged stream's subscriptions.
  Result<Empty> unsubscribe();
  // With a callback, frames of every shard go to it (on that shard's I/O thread: keep it
  // short) instead of the queue.
  using FrameCallback = std::function<void(const ShardFrame&)>;
  void set_frame_callback(FrameCallback callback);
  std::optional<ShardFrame> next_frame(std::chrono::milliseconds timeout);
  uint64_t frames_dropped_locally() const;

  // ---- moves ----

  // Routes the keys of characters {source, from_ids[i]} to {target, to_ids[i]} (what a
  // characters_moved message says); ids with no key are skipped. Returns the rerouted pairs.
  std::vector<std::pair<CharacterRef, CharacterRef>> apply_move(
      const std::string& source, const std::string& target, const std::vector<uint32_t>& from_ids,
      const std::vector<uint32_t>& to_ids);
  // Handles one ServerMessage of `shard` (what each Client's message callback does): a
  // characters_moved, when the generated code has it, goes to apply_move. True if it did.
  bool handle_message(const std::string& shard, const anim::v1::ServerMessage& message);

 private:
  struct Impl;
  explicit ShardedClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace animclient

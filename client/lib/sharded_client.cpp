#include "animclient/sharded_client.h"

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <future>
#include <set>
#include <utility>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

namespace animclient {

using anim::v1::Reply;
using anim::v1::Request;
using anim::v1::ServerMessage;

// ---------------------------------------------------------------------------------------------
// Hash and ring

uint64_t fnv1a64(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : data) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t fmix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

uint64_t ring_hash(std::string_view key) {
  return fmix64(fnv1a64(key));
}

HashRing::HashRing(int vnodes) : vnodes_(std::max(vnodes, 1)) {}

void HashRing::add(const std::string& node) {
  auto at = std::lower_bound(nodes_.begin(), nodes_.end(), node);
  if (node.empty() || (at != nodes_.end() && *at == node)) return;
  nodes_.insert(at, node);
  for (int i = 0; i < vnodes_; ++i)
    points_.push_back(Point{ring_hash(node + "#" + std::to_string(i)), node});
  std::sort(points_.begin(), points_.end());
}

bool HashRing::remove(const std::string& node) {
  auto at = std::lower_bound(nodes_.begin(), nodes_.end(), node);
  if (at == nodes_.end() || *at != node) return false;
  nodes_.erase(at);
  std::erase_if(points_, [&](const Point& p) { return p.node == node; });
  return true;
}

std::string HashRing::node_for(std::string_view key) const {
  if (points_.empty()) return {};
  const uint64_t h = ring_hash(key);
  auto it = std::lower_bound(points_.begin(), points_.end(), h,
                             [](const Point& p, uint64_t v) { return p.hash < v; });
  return it == points_.end() ? points_.front().node : it->node;
}

std::vector<std::string> HashRing::nodes() const {
  return nodes_;
}

std::optional<std::pair<std::string, uint16_t>> parse_address(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == address.size())
    return std::nullopt;
  unsigned port = 0;
  const char* first = address.data() + colon + 1;
  const char* last = address.data() + address.size();
  auto [end, ec] = std::from_chars(first, last, port);
  if (ec != std::errc() || end != last || port > 65535) return std::nullopt;
  return std::pair{std::string(address.substr(0, colon)), static_cast<uint16_t>(port)};
}

// ---------------------------------------------------------------------------------------------
// characters_moved, when the generated code has it

namespace {

struct Moved {
  std::string target;
  std::vector<uint32_t> from_ids, to_ids;
};

template <class Message>
std::optional<Moved> characters_moved_of(const Message& m) {
  if constexpr (requires {
                  m.has_characters_moved();
                  m.characters_moved().target();
                  m.characters_moved().from_ids();
                  m.characters_moved().to_ids();
                }) {
    if (!m.has_characters_moved()) return std::nullopt;
    const auto& c = m.characters_moved();
    return Moved{c.target(),
                 {c.from_ids().begin(), c.from_ids().end()},
                 {c.to_ids().begin(), c.to_ids().end()}};
  } else {
    return std::nullopt;
  }
}

Error server_error(anim::v1::StatusCode code, std::string message) {
  return Error{Error::Kind::kServer, code, std::move(message)};
}

template <class T, class Pick>
Result<T> typed(Result<Reply> r, Pick pick) {
  if (!r) return r.error();
  if (r->status().code() != anim::v1::STATUS_OK)
    return server_error(r->status().code(), r->status().message());
  return pick(*r);
}

// Retries of a fan-out query one tick earlier when a shard skipped the fleet tick.
constexpr int kSkippedTickRetries = 3;

}  // namespace

// ---------------------------------------------------------------------------------------------
// ShardedClient

struct ShardedClient::Impl {
  ShardedClientOptions options;

  mutable std::mutex mutex;
  HashRing ring;
  // Clients are only added while the ShardedClient lives, so a Client* stays valid.
  std::map<std::string, std::unique_ptr<Client>> clients;
  std::map<std::string, CharacterRef> routes;  // key -> ref
  std::map<CharacterRef, std::string> keys;    // ref -> key
  std::optional<anim::v1::SubscribeRequest> subscription;
  std::map<std::string, uint32_t> subscriptions;  // shard -> id of the merged stream's

  std::mutex frame_mutex;
  std::condition_variable frame_cv;
  std::deque<ShardFrame> frames;
  std::shared_ptr<const FrameCallback> frame_callback;
  uint64_t frames_dropped = 0;

  ShardedClient* self = nullptr;

  explicit Impl(const ShardedClientOptions& o) : options(o), ring(o.vnodes) {}

  Result<Client*> client(const std::string& shard) {
    {
      std::lock_guard lock(mutex);
      if (auto it = clients.find(shard); it != clients.end()) return it->second.get();
    }
    const auto address = parse_address(shard);
    if (!address)
      return Error{Error::Kind::kConnect, anim::v1::STATUS_INTERNAL,
                   "not a host:port address: '" + shard + "'"};
    ClientOptions o = options.client;
    o.host = address->first;
    o.port = address->second;
    auto connected = Client::connect(o);
    if (!connected) return connected.error();
    std::unique_ptr<Client> made = std::move(*connected);
    made->set_frame_callback(
        [this, shard](const anim::v1::StreamFrame& frame) { on_frame(shard, frame); });
    made->set_message_callback(
        [this, shard](const ServerMessage& message) { self->handle_message(shard, message); });
    Client* out = nullptr;
    {
      std::lock_guard lock(mutex);
      auto [it, inserted] = clients.emplace(shard, std::move(made));
      out = it->second.get();  // another thread's when it won the race (ours is dropped)
    }
    ensure_subscribed(shard, out);
    return out;
  }

  // With a merged subscription active and none on `shard` yet, subscribes there. A failure
  // leaves that shard out of the stream (commands still route).
  Result<Empty> ensure_subscribed(const std::string& shard, Client* c) {
    std::optional<anim::v1::SubscribeRequest> request;
    {
      std::lock_guard lock(mutex);
      if (!subscription || subscriptions.contains(shard)) return Empty{};
      request = subscription;
      subscriptions[shard] = 0;  // claimed: no second subscription from a racing thread
    }
    auto id = c->subscribe(*request);
    std::lock_guard lock(mutex);
    if (!id) {
      subscriptions.erase(shard);
      return id.error();
    }
    subscriptions[shard] = id->subscription_id();
    return Empty{};
  }

  void on_frame(const std::string& shard, const anim::v1::StreamFrame& frame) {
    std::shared_ptr<const FrameCallback> callback;
    {
      std::lock_guard lock(frame_mutex);
      callback = frame_callback;
      if (!callback) {
        if (options.frame_queue_capacity == 0) {
          ++frames_dropped;
          return;
        }
        while (frames.size() >= options.frame_queue_capacity) {
          frames.pop_front();
          ++frames_dropped;
        }
        frames.push_back(ShardFrame{shard, frame});
      }
    }
    if (callback)
      (*callback)(ShardFrame{shard, frame});
    else
      frame_cv.notify_one();
  }

  std::vector<std::pair<std::string, Client*>> all_clients() {
    std::lock_guard lock(mutex);
    std::vector<std::pair<std::string, Client*>> out;
    for (auto& [shard, c] : clients) out.emplace_back(shard, c.get());
    return out;
  }

  // Sends build(shard) to every shard at once; the replies (or transport errors) by shard.
  template <class Build>
  std::map<std::string, Result<Reply>> fan_out(Build build) {
    std::vector<std::pair<std::string, std::future<Result<Reply>>>> waiting;
    for (auto& [shard, c] : all_clients()) {
      auto promise = std::make_shared<std::promise<Result<Reply>>>();
      waiting.emplace_back(shard, promise->get_future());
      c->call_async(build(shard), [promise](Result<Reply> r) { promise->set_value(std::move(r)); });
    }
    std::map<std::string, Result<Reply>> out;
    for (auto& [shard, f] : waiting) out.emplace(shard, f.get());
    return out;
  }

  // ignore_keys -> {shard: ids}; an unknown key is an error.
  Result<std::map<std::string, std::vector<uint32_t>>> ignored(
      const std::vector<std::string>& ignore_keys) {
    std::map<std::string, std::vector<uint32_t>> out;
    std::lock_guard lock(mutex);
    for (const auto& key : ignore_keys) {
      auto it = routes.find(key);
      if (it == routes.end())
        return server_error(anim::v1::STATUS_NOT_FOUND, "no character with key '" + key + "'");
      out[it->second.shard].push_back(it->second.character_id);
    }
    return out;
  }

  std::string key_of(const CharacterRef& ref) {
    std::lock_guard lock(mutex);
    auto it = keys.find(ref);
    return it == keys.end() ? std::string() : it->second;
  }

  // Runs a hit query on every shard at one tick: `explicit_tick` or the fleet tick (one
  // earlier on NOT_FOUND, up to kSkippedTickRetries times). build(shard, tick) -> Request.
  template <class Build>
  Result<std::pair<uint64_t, std::map<std::string, Reply>>> at_one_tick(
      std::optional<uint64_t> explicit_tick, Build build) {
    uint64_t tick = 0;
    if (explicit_tick) {
      tick = *explicit_tick;
    } else {
      auto t = self->fleet_tick();
      if (!t) return t.error();
      tick = *t;
    }
    for (int attempt = 0;; ++attempt) {
      auto results = fan_out([&](const std::string& shard) { return build(shard, tick); });
      std::map<std::string, Reply> replies;
      std::optional<Error> failure;
      bool all_not_found = true;
      for (auto& [shard, r] : results) {
        if (!r) {
          failure = r.error();
          all_not_found = false;
        } else if (r->status().code() != anim::v1::STATUS_OK) {
          if (!failure)
            failure = server_error(r->status().code(), shard + ": " + r->status().message());
          all_not_found = all_not_found && r->status().code() == anim::v1::STATUS_NOT_FOUND;
        } else {
          replies.emplace(shard, std::move(*r));
        }
      }
      if (!failure) return std::pair{tick, std::move(replies)};
      if (explicit_tick || !all_not_found || attempt == kSkippedTickRetries || tick == 0)
        return *failure;
      --tick;
    }
  }
};

ShardedClient::ShardedClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  impl_->self = this;
}

ShardedClient::~ShardedClient() {
  // Stop the I/O threads' callbacks before the state they use goes away.
  std::map<std::string, std::unique_ptr<Client>> clients;
  {
    std::lock_guard lock(impl_->mutex);
    clients.swap(impl_->clients);
  }
  clients.clear();
}

Result<std::unique_ptr<ShardedClient>> ShardedClient::connect(
    const std::vector<std::string>& addresses, const ShardedClientOptions& options) {
  if (addresses.empty())
    return Error{Error::Kind::kConnect, anim::v1::STATUS_INTERNAL,
                 "a sharded client needs at least one daemon address"};
  std::unique_ptr<ShardedClient> out(new ShardedClient(std::make_unique<Impl>(options)));
  for (const auto& address : addresses) {
    auto added = out->add_daemon(address);
    if (!added) return added.error();
  }
  return out;
}

Result<std::string> ShardedClient::add_daemon(const std::string& address) {
  const auto parsed = parse_address(address);
  if (!parsed)
    return Error{Error::Kind::kConnect, anim::v1::STATUS_INTERNAL,
                 "not a host:port address: '" + address + "'"};
  const std::string shard = parsed->first + ":" + std::to_string(parsed->second);
  auto c = impl_->client(shard);
  if (!c) return c.error();
  {
    std::lock_guard lock(impl_->mutex);
    impl_->ring.add(shard);
  }
  if (auto s = impl_->ensure_subscribed(shard, *c); !s) return s.error();
  return shard;
}

bool ShardedClient::remove_daemon(const std::string& address) {
  const auto parsed = parse_address(address);
  if (!parsed) return false;
  std::lock_guard lock(impl_->mutex);
  return impl_->ring.remove(parsed->first + ":" + std::to_string(parsed->second));
}

HashRing ShardedClient::ring() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->ring;
}

std::string ShardedClient::shard_for(std::string_view key) const {
  std::lock_guard lock(impl_->mutex);
  return impl_->ring.node_for(key);
}

std::vector<std::string> ShardedClient::shards() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<std::string> out;
  for (const auto& [shard, c] : impl_->clients) out.push_back(shard);
  return out;
}

Result<Client*> ShardedClient::client(const std::string& shard) {
  return impl_->client(shard);
}

Result<CharacterRef> ShardedClient::spawn(const std::string& key,
                                          const anim::v1::SpawnRequest& request) {
  std::string shard;
  {
    std::lock_guard lock(impl_->mutex);
    if (auto it = impl_->routes.find(key); it != impl_->routes.end())
      return server_error(anim::v1::STATUS_INVALID_ARGUMENT,
                          "key '" + key + "' is already spawned on " + it->second.shard);
    shard = impl_->ring.node_for(key);
  }
  if (shard.empty())
    return server_error(anim::v1::STATUS_FAILED_PRECONDITION, "the ring has no daemons");
  auto c = impl_->client(shard);
  if (!c) return c.error();
  auto spawned = (*c)->spawn(request);
  if (!spawned) return spawned.error();
  CharacterRef ref{shard, spawned->character_id()};
  std::lock_guard lock(impl_->mutex);
  impl_->routes[key] = ref;
  impl_->keys[ref] = key;
  return ref;
}

Result<CharacterRef> ShardedClient::spawn(const std::string& key, const std::string& asset,
                                          const std::string& clip) {
  anim::v1::SpawnRequest request;
  request.set_asset(asset);
  request.set_clip(clip);
  return spawn(key, request);
}

Result<Empty> ShardedClient::despawn(const std::string& key) {
  Request request;
  request.mutable_despawn();
  auto r = typed<Empty>(call(key, std::move(request)), [](const Reply&) { return Empty{}; });
  if (!r) return r;
  std::lock_guard lock(impl_->mutex);
  if (auto it = impl_->routes.find(key); it != impl_->routes.end()) {
    impl_->keys.erase(it->second);
    impl_->routes.erase(it);
  }
  return r;
}

std::optional<CharacterRef> ShardedClient::ref(const std::string& key) const {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->routes.find(key);
  if (it == impl_->routes.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> ShardedClient::key_of(const CharacterRef& ref) const {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->keys.find(ref);
  if (it == impl_->keys.end()) return std::nullopt;
  return it->second;
}

std::map<std::string, CharacterRef> ShardedClient::routes() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->routes;
}

void ShardedClient::adopt(const std::string& key, const CharacterRef& ref) {
  std::lock_guard lock(impl_->mutex);
  if (auto it = impl_->routes.find(key); it != impl_->routes.end()) impl_->keys.erase(it->second);
  impl_->routes[key] = ref;
  impl_->keys[ref] = key;
}

std::map<std::string, std::pair<std::string, std::string>> ShardedClient::misplaced() const {
  std::lock_guard lock(impl_->mutex);
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const auto& [key, ref] : impl_->routes) {
    std::string want = impl_->ring.node_for(key);
    if (want != ref.shard) out.emplace(key, std::pair{ref.shard, std::move(want)});
  }
  return out;
}

Result<Reply> ShardedClient::call(const std::string& key, Request request) {
  const auto where = ref(key);
  if (!where)
    return server_error(anim::v1::STATUS_NOT_FOUND, "no character with key '" + key + "'");
  namespace pb = google::protobuf;
  const pb::Reflection* reflection = request.GetReflection();
  const pb::OneofDescriptor* oneof = request.GetDescriptor()->FindOneofByName("command");
  const pb::FieldDescriptor* command =
      oneof ? reflection->GetOneofFieldDescriptor(request, oneof) : nullptr;
  if (!command || command->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE)
    return Error{Error::Kind::kProtocol, anim::v1::STATUS_INTERNAL,
                 "a routed request needs a command"};
  pb::Message* message = reflection->MutableMessage(&request, command);
  const pb::FieldDescriptor* id = message->GetDescriptor()->FindFieldByName("character_id");
  if (!id || id->is_repeated() || id->cpp_type() != pb::FieldDescriptor::CPPTYPE_UINT32)
    return Error{Error::Kind::kProtocol, anim::v1::STATUS_INTERNAL,
                 command->name() + " is not a per-character command"};
  message->GetReflection()->SetUInt32(message, id, where->character_id);
  auto c = impl_->client(where->shard);
  if (!c) return c.error();
  return (*c)->call(std::move(request));
}

Result<Empty> ShardedClient::play(const std::string& key, const std::string& clip) {
  Request request;
  request.mutable_play()->set_clip(clip);
  return typed<Empty>(call(key, std::move(request)), [](const Reply&) { return Empty{}; });
}

Result<Empty> ShardedClient::crossfade(const std::string& key, const std::string& clip,
                                       float duration) {
  Request request;
  request.mutable_crossfade()->set_clip(clip);
  request.mutable_crossfade()->set_duration(duration);
  return typed<Empty>(call(key, std::move(request)), [](const Reply&) { return Empty{}; });
}

Result<Empty> ShardedClient::set_speed(const std::string& key, float speed) {
  Request request;
  request.mutable_set_speed()->set_speed(speed);
  return typed<Empty>(call(key, std::move(request)), [](const Reply&) { return Empty{}; });
}

Result<Empty> ShardedClient::set_root(const std::string& key,
                                      anim::v1::SetRootTransformRequest set_root) {
  Request request;
  *request.mutable_set_root() = std::move(set_root);
  return typed<Empty>(call(key, std::move(request)), [](const Reply&) { return Empty{}; });
}

Result<anim::v1::QueryPoseReply> ShardedClient::query_pose(const std::string& key,
                                                           anim::v1::QueryPoseRequest query) {
  Request request;
  *request.mutable_query_pose() = std::move(query);
  return typed<anim::v1::QueryPoseReply>(call(key, std::move(request)),
                                         [](const Reply& r) { return r.query_pose(); });
}

Result<uint64_t> ShardedClient::fleet_tick() {
  auto results = impl_->fan_out([](const std::string&) {
    Request r;
    r.mutable_stats();
    return r;
  });
  std::optional<uint64_t> tick;
  for (auto& [shard, r] : results) {
    auto stats =
        typed<anim::v1::StatsReply>(std::move(r), [](const Reply& x) { return x.stats(); });
    if (!stats) return stats.error();
    tick = std::min(tick.value_or(stats->tick()), stats->tick());
  }
  if (!tick) return server_error(anim::v1::STATUS_FAILED_PRECONDITION, "no shards");
  return *tick;
}

Result<ShardedRaycast> ShardedClient::raycast(const anim::v1::RaycastRequest& request,
                                              const std::vector<std::string>& ignore_keys) {
  auto ignored = impl_->ignored(ignore_keys);
  if (!ignored) return ignored.error();
  const std::optional<uint64_t> asked =
      request.has_tick() ? std::optional<uint64_t>(request.tick()) : std::nullopt;
  auto answered = impl_->at_one_tick(asked, [&](const std::string& shard, uint64_t tick) {
    Request r;
    auto* q = r.mutable_raycast();
    *q = request;
    q->set_tick(tick);
    if (auto it = ignored->find(shard); it != ignored->end())
      for (uint32_t id : it->second) q->add_ignore_character_ids(id);
    return r;
  });
  if (!answered) return answered.error();
  ShardedRaycast out;
  out.tick = answered->first;
  for (auto& [shard, reply] : answered->second) {  // shards in name order
    const auto& hit = reply.raycast();
    if (!hit.hit()) continue;
    const bool nearer =
        !out.hit || hit.distance() < out.reply.distance() ||
        (hit.distance() == out.reply.distance() &&
         std::pair{shard, hit.character_id()} < std::pair{out.ref.shard, out.reply.character_id()});
    if (!nearer) continue;
    out.hit = true;
    out.ref = CharacterRef{shard, hit.character_id()};
    out.reply = hit;
  }
  if (out.hit) out.key = impl_->key_of(out.ref);
  return out;
}

Result<ShardedOverlapResult> ShardedClient::overlap_sphere(
    const anim::v1::OverlapSphereRequest& request, const std::vector<std::string>& ignore_keys) {
  auto ignored = impl_->ignored(ignore_keys);
  if (!ignored) return ignored.error();
  const std::optional<uint64_t> asked =
      request.has_tick() ? std::optional<uint64_t>(request.tick()) : std::nullopt;
  auto answered = impl_->at_one_tick(asked, [&](const std::string& shard, uint64_t tick) {
    Request r;
    auto* q = r.mutable_overlap_sphere();
    *q = request;
    q->set_tick(tick);
    if (auto it = ignored->find(shard); it != ignored->end())
      for (uint32_t id : it->second) q->add_ignore_character_ids(id);
    return r;
  });
  if (!answered) return answered.error();
  ShardedOverlapResult out;
  out.tick = answered->first;
  for (auto& [shard, reply] : answered->second) {
    for (const auto& c : reply.overlap_sphere().characters()) {
      CharacterRef ref{shard, c.character_id()};
      out.characters.push_back(ShardedOverlap{ref, impl_->key_of(ref), c});
    }
  }
  return out;
}

Result<std::map<std::string, uint32_t>> ShardedClient::subscribe(
    const anim::v1::SubscribeRequest& request) {
  anim::v1::SubscribeRequest each = request;
  each.clear_character_ids();
  {
    std::lock_guard lock(impl_->mutex);
    impl_->subscription = each;
    impl_->subscriptions.clear();
  }
  for (auto& [shard, c] : impl_->all_clients()) {
    if (auto s = impl_->ensure_subscribed(shard, c); !s) return s.error();
  }
  std::lock_guard lock(impl_->mutex);
  return impl_->subscriptions;
}

Result<Empty> ShardedClient::unsubscribe() {
  std::map<std::string, uint32_t> subscriptions;
  {
    std::lock_guard lock(impl_->mutex);
    subscriptions.swap(impl_->subscriptions);
    impl_->subscription.reset();
  }
  for (const auto& [shard, id] : subscriptions) {
    if (id == 0) continue;
    auto c = impl_->client(shard);
    if (!c) return c.error();
    auto r = (*c)->unsubscribe(id);
    if (!r) return r.error();
  }
  return Empty{};
}

void ShardedClient::set_frame_callback(FrameCallback callback) {
  std::lock_guard lock(impl_->frame_mutex);
  impl_->frame_callback =
      callback ? std::make_shared<const FrameCallback>(std::move(callback)) : nullptr;
}

std::optional<ShardFrame> ShardedClient::next_frame(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->frame_mutex);
  impl_->frame_cv.wait_for(lock, timeout, [&] { return !impl_->frames.empty(); });
  if (impl_->frames.empty()) return std::nullopt;
  ShardFrame frame = std::move(impl_->frames.front());
  impl_->frames.pop_front();
  return frame;
}

uint64_t ShardedClient::frames_dropped_locally() const {
  std::lock_guard lock(impl_->frame_mutex);
  return impl_->frames_dropped;
}

std::vector<std::pair<CharacterRef, CharacterRef>> ShardedClient::apply_move(
    const std::string& source, const std::string& target, const std::vector<uint32_t>& from_ids,
    const std::vector<uint32_t>& to_ids) {
  std::vector<std::pair<CharacterRef, CharacterRef>> changed;
  std::lock_guard lock(impl_->mutex);
  const size_t n = std::min(from_ids.size(), to_ids.size());
  for (size_t i = 0; i < n; ++i) {
    const CharacterRef old{source, from_ids[i]};
    auto it = impl_->keys.find(old);
    if (it == impl_->keys.end()) continue;
    const std::string key = std::move(it->second);
    impl_->keys.erase(it);
    const CharacterRef now{target, to_ids[i]};
    impl_->routes[key] = now;
    impl_->keys[now] = key;
    changed.emplace_back(old, now);
  }
  return changed;
}

bool ShardedClient::handle_message(const std::string& shard, const ServerMessage& message) {
  const auto moved = characters_moved_of(message);
  if (!moved) return false;
  const auto target = parse_address(moved->target);
  if (!target) return false;
  // The target's connection is opened by the next call that needs it (this may run on an I/O
  // thread, which must not wait on the network).
  apply_move(shard, target->first + ":" + std::to_string(target->second), moved->from_ids,
             moved->to_ids);
  return true;
}

}  // namespace animclient

#include "world/world.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "assets/asset_fingerprint.h"
#include "history/shown_pose.h"
#include "snapshot/compact_layout.h"

namespace animd {

Character::Character(uint32_t id_, AssetPtr asset_, uint64_t owner, uint64_t tick)
    : id(id_),
      asset(std::move(asset_)),
      owner_session(owner),
      spawn_tick(tick),
      // World::update evaluates every character in its pool threads' buffers and builds skin
      // palettes into the snapshot: the Animator's own scratch and palette would be idle
      // memory.
      animator(asset->skeleton, asset->clips, anim::AnimatorBuffers::kLentOnly),
      layout(compact_layout(asset)) {}

World::World(const Config& config, Metrics& metrics, AssetCatalog& catalog, WorkerPool& pool)
    : config_(config),
      metrics_(metrics),
      catalog_(catalog),
      pool_(pool),
      update_buffers_(static_cast<size_t>(pool.threads())),
      history_(std::make_shared<PoseHistory>(config.history_ticks(),
                                             2 * std::max(1, config.max_update_interval))),
      history_view_(history_),
      hit_table_(std::make_shared<HitVolumeTable>()),
      hit_table_view_(hit_table_) {
  for (auto& b : update_buffers_) b.reserve(anim::Skeleton::kMaxJoints);
  rate_policy_.max_interval = config.max_update_interval;
  lod_threads_.resize(static_cast<size_t>(pool.threads()));
  for (auto& t : lod_threads_) t.shown.resize(anim::Skeleton::kMaxJoints);
  interval_counts_.assign(16, 0);
  migration_nonce_ = std::random_device()();
  migration_nonce_ = (migration_nonce_ << 32) ^ std::random_device()();
}

namespace {
// Memory an asset holds (its vectors' contents), for --max-asset-bytes-total.
size_t asset_bytes(const anim::Asset& a) {
  size_t n = sizeof(anim::Asset);
  const auto& m = a.mesh;
  n += m.positions.size() * sizeof(m.positions[0]) + m.normals.size() * sizeof(m.normals[0]) +
       m.uvs.size() * sizeof(m.uvs[0]) + m.joints.size() * sizeof(m.joints[0]) +
       m.weights.size() * sizeof(m.weights[0]) + m.indices.size() * sizeof(m.indices[0]);
  const auto& s = a.skeleton;
  n += s.names.size() * 48 + s.rest_pose.size() * sizeof(anim::Transform) +
       s.inverse_bind.size() * sizeof(glm::mat4) + s.parents.size() * 2 +
       (s.source_of_joint.size() + s.joint_of_source.size()) * sizeof(int);
  const auto& h = a.hit_volumes;
  n += h.capsules.size() * sizeof(h.capsules[0]) +
       (h.scales.bound.size() + h.extents.size()) * sizeof(float);
  for (const auto& c : a.clips) n += sizeof(c) + c.memory_bytes();
  return n;
}
}  // namespace

anim::Status World::add_asset(std::shared_ptr<anim::Asset> asset, uint64_t owner) {
  if (assets_.count(asset->name))
    return anim::failed_precondition("asset name '" + asset->name + "' is already in use");
  // Core's loaders fit hit volumes; an asset put together otherwise gets them here.
  if (asset->hit_volumes.capsules.size() != static_cast<size_t>(asset->skeleton.num_joints()))
    asset->hit_volumes = anim::fit_hit_volumes(asset->skeleton, asset->clips, asset->mesh);
  if (!std::isfinite(asset->reach.radius))
    asset->reach = anim::pose_reach(asset->skeleton, asset->clips, asset->hit_volumes.scales);
  // The loader threads compute it (asset_loading.h); assets made otherwise get it here.
  if (asset->fingerprint == 0) asset->fingerprint = asset_fingerprint(*asset);
  if (assets_.size() >= config_.max_assets)
    return anim::Status(anim::StatusCode::kResourceExhausted,
                        "--max-assets (" + std::to_string(config_.max_assets) +
                            ") reached; unload_asset one first");
  const size_t bytes = asset_bytes(*asset);
  if (asset_bytes_ + bytes > config_.max_asset_bytes_total)
    return anim::Status(anim::StatusCode::kResourceExhausted,
                        "asset '" + asset->name + "' needs " + std::to_string(bytes) +
                            " bytes; with the " + std::to_string(asset_bytes_) +
                            " loaded that exceeds --max-asset-bytes-total " +
                            std::to_string(config_.max_asset_bytes_total));
  asset_bytes_ += bytes;
  const std::string name = asset->name;
  if (owner != 0) asset_owners_[name] = owner;
  assets_.emplace(name, std::move(asset));
  publish_catalog();
  return {};
}

anim::Expected<AssetMap::iterator> World::find_usable_asset(const std::string& name,
                                                            const std::string& field,
                                                            uint64_t owner) {
  auto it = assets_.find(name);
  if (it == assets_.end()) return anim::not_found(field + ": unknown asset '" + name + "'");
  auto o = asset_owners_.find(name);
  if (o != asset_owners_.end() && o->second != owner)
    return anim::Status(anim::StatusCode::kPermissionDenied,
                        field + ": asset '" + name +
                            "' belongs to another client (load it with shared = true to let "
                            "others use it)");
  return it;
}

anim::Status World::handle(const UnloadAsset& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto found = find_usable_asset(r.asset, "unload_asset.asset", owner);
  if (!found) return found.error();
  const auto it = *found;
  size_t users = 0;
  for (const auto& c : characters_) users += c->asset == it->second;
  if (users > 0)
    return anim::failed_precondition("unload_asset: asset '" + r.asset + "' is used by " +
                                     std::to_string(users) + " character(s); despawn them first");
  asset_bytes_ -= std::min(asset_bytes_, asset_bytes(*it->second));
  event_tables_.erase(it->second.get());
  blend_tables_.erase(it->second.get());
  machine_tables_.erase(it->second.get());
  morph_layouts_.erase(it->second.get());
  const anim::Asset* gone = it->second.get();
  asset_owners_.erase(r.asset);
  assets_.erase(it);
  publish_catalog();
  if (override_of(gone)) {
    std::erase_if(hit_overrides_, [gone](const auto& o) { return o.asset.get() == gone; });
    publish_hit_volumes();
  }
  return {};
}

uint64_t World::owner_of(const Caller& c) {
  // Without tokens every connection is its own owner (top bit set: never a token's key).
  return c.owner != 0 ? c.owner : (uint64_t{1} << 63) | c.session_id;
}

void World::note_owner(uint64_t session_id, uint64_t owner) {
  auto& owners = sessions_[session_id].owners;
  if (std::find(owners.begin(), owners.end(), owner) != owners.end()) return;
  owners.push_back(owner);
  OwnerState& o = owners_[owner];
  ++o.live_sessions;
  if (o.orphaned) {  // reconnected within the grace period: its characters stay
    o.orphaned = false;
    --orphaned_owners_;
  }
}

void World::expire_orphans(uint64_t tick) {
  if (orphaned_owners_ == 0) return;
  const auto grace =
      static_cast<uint64_t>(std::llround(config_.orphan_grace_s * config_.tick_rate));
  std::vector<uint64_t> expired;
  for (const auto& [key, o] : owners_)
    if (o.orphaned && tick >= o.orphaned_at + grace) expired.push_back(key);
  if (expired.empty()) return;
  std::vector<uint32_t> ids;
  for (const auto& c : characters_)
    if (c->owner != 0 && std::find(expired.begin(), expired.end(), c->owner) != expired.end())
      ids.push_back(c->id);
  for (uint32_t id : ids) remove_character(id);
  for (uint64_t key : expired) owners_.erase(key);
  orphaned_owners_ -= expired.size();
  metrics_.orphans_despawned.fetch_add(ids.size(), std::memory_order_relaxed);
}

void World::remove_character(uint32_t id) {
  auto it =
      std::lower_bound(characters_.begin(), characters_.end(), id,
                       [](const std::unique_ptr<Character>& x, uint32_t v) { return x->id < v; });
  if (it == characters_.end() || (*it)->id != id) return;
  Character& c = **it;
  if (auto s = sessions_.find(c.owner_session); s != sessions_.end() && s->second.characters)
    --s->second.characters;
  // Explicit subscriptions stop naming it; the sessions report it in `despawned`.
  for (auto& [sid, st] : sessions_)
    for (auto& [sub, w] : st.subscriptions) std::erase(w.ids, id);
  const bool had_ik = c.ik_cost > 0;
  ik_cost_ -= c.ik_cost;
  animators_.erase(animators_.begin() + (it - characters_.begin()));
  characters_.erase(it);
  if (had_ik) {
    // Recompute the scale for everyone left (the removed one no longer counts).
    const float scale = ik_cost_ > config_.ik_budget
                            ? static_cast<float>(double(config_.ik_budget) / double(ik_cost_))
                            : 1.0f;
    if (scale != ik_scale_) {
      ik_scale_ = scale;
      for (auto& ch : characters_)
        if (ch->ik_cost > 0) ch->animator.set_ik_iteration_scale(scale);
      metrics_.ik_scale.store(scale, std::memory_order_relaxed);
    }
  }
}

void World::update_ik_budget(Character& changed) {
  ik_cost_ -= changed.ik_cost;
  changed.ik_cost = changed.animator.ik_cost();
  ik_cost_ += changed.ik_cost;
  const float scale = ik_cost_ > config_.ik_budget
                          ? static_cast<float>(double(config_.ik_budget) / double(ik_cost_))
                          : 1.0f;
  changed.animator.set_ik_iteration_scale(scale);
  if (scale == ik_scale_) return;
  ik_scale_ = scale;
  for (auto& ch : characters_)
    if (ch->ik_cost > 0) ch->animator.set_ik_iteration_scale(scale);
  metrics_.ik_scale.store(scale, std::memory_order_relaxed);
}

anim::Expected<Character*> World::find_controlled(uint32_t id, const char* field, uint64_t owner) {
  auto c = find_character(id, field);
  if (!c) return c;
  if ((*c)->owner != 0 && (*c)->owner != owner)
    return anim::Status(anim::StatusCode::kPermissionDenied,
                        std::string(field) + ": character " + std::to_string(id) +
                            " belongs to another client (spawn with shared = true to let "
                            "others drive it)");
  if (auto s = check_not_migrating(**c, field); !s) return s;
  return c;
}

void World::publish_catalog() {
  catalog_.publish(std::make_shared<const AssetMap>(assets_));
  metrics_.assets.store(static_cast<uint32_t>(assets_.size()), std::memory_order_relaxed);
}

void World::update_counts() {
  metrics_.characters.store(static_cast<uint32_t>(characters_.size()), std::memory_order_relaxed);
  uint32_t subs = 0;
  for (const auto& [id, s] : sessions_) subs += static_cast<uint32_t>(s.subscriptions.size());
  metrics_.subscriptions.store(subs, std::memory_order_relaxed);
}

anim::Expected<uint32_t> World::spawn_unowned(const std::string& asset, const std::string& clip) {
  settle();
  SpawnCharacter r;
  r.asset = asset;
  r.clip = clip;
  auto spawned = spawn(r, 0, 0, 0);
  if (!spawned) return spawned.error();
  update_counts();  // apply() does this for commands; nothing else would until the next one
  return spawned->character_id;
}

anim::Expected<Character*> World::find_character(uint32_t id, const char* field) {
  auto it =
      std::lower_bound(characters_.begin(), characters_.end(), id,
                       [](const std::unique_ptr<Character>& c, uint32_t v) { return c->id < v; });
  if (it == characters_.end() || (*it)->id != id)
    return anim::not_found(std::string(field) + ": unknown character " + std::to_string(id));
  return it->get();
}

void World::settle() {
  if (!quantizing_) return;
  const size_t left = quantizing_->quantize.finish(pool_);
  metrics_.quantized_by_next_tick.fetch_add(left, std::memory_order_relaxed);
  quantizing_.reset();
}

void World::apply(std::vector<Command>& commands, uint64_t tick, double server_time) {
  settle();
  bool changed = false;
  while (!scheduled_.empty() && scheduled_.begin()->first <= tick) {
    auto due = scheduled_.extract(scheduled_.begin());
    changed = run(due.mapped(), tick, server_time) || changed;
  }
  for (auto& c : commands) {
    if (c.kind == Command::Kind::kRequest && c.at_tick != 0 && c.at_tick != tick) {
      changed = schedule(c, tick) || changed;
      continue;
    }
    changed = run(c, tick, server_time) || changed;
  }
  expire_orphans(tick);
  expire_migrations(tick);
  if (changed) update_counts();
}

bool World::run(Command& c, uint64_t tick, double server_time) {
  if (c.kind == Command::Kind::kSessionClosed) {
    session_closed(c.session_id, tick);
    return true;
  }
  const auto result = c.kind == Command::Kind::kInsertAsset ? insert_asset(c)
                      : c.kind == Command::Kind::kReplaceAsset
                          ? replace_asset(c)
                          : execute(c.request, Caller{c.session_id, c.owner}, tick, server_time);
  if (result && asset_changes_) note_asset_change(c);
  if (!c.sink) return false;
  reply(c, result, tick);
  return true;
}

bool World::schedule(Command& c, uint64_t tick) {
  auto refuse = [&](anim::Status why) {
    if (c.sink) reply(c, why, tick);
    return c.sink != nullptr;
  };
  if (c.at_tick < tick)
    return refuse(anim::failed_precondition("at_tick " + std::to_string(c.at_tick) +
                                            " is past: the request reached tick " +
                                            std::to_string(tick)));
  if (c.at_tick - tick > config_.max_schedule_ahead_ticks)
    return refuse(anim::invalid_argument(
        "at_tick " + std::to_string(c.at_tick) + " is " + std::to_string(c.at_tick - tick) +
        " ticks ahead of tick " + std::to_string(tick) + "; --max-schedule-ahead-ticks is " +
        std::to_string(config_.max_schedule_ahead_ticks)));
  scheduled_.emplace(c.at_tick, std::move(c));
  return false;
}

void World::cancel_scheduled(const anim::Status& why) {
  for (auto& [at, c] : scheduled_)
    if (c.sink) c.sink->deliver_result(ResultHeader{c.seq, c.request_id, 0}, why);
  scheduled_.clear();
}

void World::reply(const Command& c, const anim::Expected<WorldResult>& result, uint64_t tick) {
  c.sink->deliver_result(ResultHeader{c.seq, c.request_id, tick}, result);
}

anim::Expected<WorldResult> World::insert_asset(const Command& c) {
  const std::string name = c.asset->name;
  // Without tokens (owner 0) every load is shared: there is no one to keep it from.
  if (auto s = add_asset(c.asset, c.asset_shared ? 0 : c.owner); !s) return s;
  return WorldResult(AssetAdded{assets_.at(name)});
}

anim::Expected<WorldResult> World::replace_asset(const Command& c) {
  const std::string& name = c.asset->name;
  auto it = assets_.find(name);
  if (it == assets_.end())
    return anim::not_found("load_asset.attach_to: asset '" + name +
                           "' was unloaded while the clip was loading");
  if (auto o = asset_owners_.find(name); o != asset_owners_.end() && o->second != c.owner)
    return anim::Status(anim::StatusCode::kPermissionDenied,
                        "load_asset.attach_to: asset '" + name +
                            "' belongs to another client (load it with shared = true to let "
                            "others use it)");
  if (it->second != c.replaces)
    return anim::failed_precondition("load_asset.attach_to: asset '" + name +
                                     "' changed while the clip was loading (another load "
                                     "attached to it, or it was reloaded); send the request again");
  const size_t old_bytes = asset_bytes(*it->second), new_bytes = asset_bytes(*c.asset);
  const size_t others = asset_bytes_ - std::min(asset_bytes_, old_bytes);
  if (others + new_bytes > config_.max_asset_bytes_total)
    return anim::Status(
        anim::StatusCode::kResourceExhausted,
        "asset '" + name + "' with the new clip needs " + std::to_string(new_bytes) +
            " bytes; with the " + std::to_string(others) + " of the other assets that exceeds " +
            "--max-asset-bytes-total " + std::to_string(config_.max_asset_bytes_total));
  if (c.asset->fingerprint == 0) c.asset->fingerprint = asset_fingerprint(*c.asset);
  // Its clips are new: their translations bound its poses too.
  c.asset->reach = anim::pose_reach(c.asset->skeleton, c.asset->clips, c.asset->hit_volumes.scales);
  const AssetPtr next = c.asset;
  // add_clip_events changes and set_hit_volumes replacements carry over to the new version
  // (its first clips are the old version's).
  std::shared_ptr<const anim::ClipEventTable> events;
  if (auto t = event_tables_.find(c.replaces.get()); t != event_tables_.end()) {
    events = anim::ClipEventTable::extend_to(t->second, next->clips);
    event_tables_.erase(t);
    event_tables_[next.get()] = events;
  }
  // Blend spaces carry over too: their clips are among the first ones.
  std::shared_ptr<const anim::BlendSpaceTable> spaces;
  if (auto t = blend_tables_.find(c.replaces.get()); t != blend_tables_.end()) {
    spaces = t->second;
    blend_tables_.erase(t);
    blend_tables_[next.get()] = spaces;
  }
  // And state machines: their clip and blend space indices are the same in the new version.
  if (auto t = machine_tables_.find(c.replaces.get()); t != machine_tables_.end()) {
    auto machines = t->second;
    machine_tables_.erase(t);
    machine_tables_[next.get()] = std::move(machines);
  }
  // The mesh is the same: so is the morph layout.
  if (auto t = morph_layouts_.find(c.replaces.get()); t != morph_layouts_.end()) {
    auto layout = t->second;
    morph_layouts_.erase(t);
    morph_layouts_[next.get()] = std::move(layout);
  }
  for (auto& ch : characters_) {
    if (ch->asset != c.replaces) continue;
    // Cannot fail: the new version is a copy of the old one with clips appended. If it did,
    // the character would simply stay on the old version.
    if (!ch->animator.rebind(next->skeleton, next->clips)) continue;
    // One table for all (rebind grew each character's own copy); it was checked against the
    // same clips when made, so it is accepted.
    if (events) (void)ch->animator.set_event_table(events);
    // The same table the character has (a prefix of itself): accepted.
    if (spaces) (void)ch->animator.set_blend_spaces(spaces);
    // The compact layout depends on the skeleton and mesh only, which are the same: the
    // character keeps the one it has (no work on the tick thread).
    ch->asset = next;
  }
  asset_bytes_ = others + new_bytes;
  it->second = next;
  publish_catalog();
  bool overridden = false;
  for (auto& o : hit_overrides_)
    if (o.asset == c.replaces) {
      o.asset = next;
      overridden = true;
    }
  if (overridden) publish_hit_volumes();
  return WorldResult(AssetAdded{next});
}

void World::session_closed(uint64_t session_id, uint64_t tick) {
  std::erase_if(scheduled_,
                [&](const auto& entry) { return entry.second.session_id == session_id; });
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  for (const auto& [sub, w] : it->second.subscriptions) unwatch(w);
  // An owner with no connection left is orphaned: its characters go after the grace period
  // unless a connection with the same token comes back (note_owner).
  for (uint64_t key : it->second.owners) {
    auto o = owners_.find(key);
    if (o == owners_.end() || o->second.live_sessions == 0) continue;
    if (--o->second.live_sessions == 0) {
      o->second.orphaned = true;
      o->second.orphaned_at = tick;
      ++orphaned_owners_;
    }
  }
  sessions_.erase(it);
}

void World::unwatch(const Watch& w) {
  if (w.all) --all_watchers_, compact_all_watchers_ -= w.compact;
  for (uint32_t id : w.ids)
    if (auto c = find_character(id, "")) {
      --(*c)->watchers;
      (*c)->compact_watchers -= w.compact;
    }
}

namespace {
// Asks for a character's first lines and its Animator's (what World::update's serial pass
// reads of it) to be brought into the cache.
inline void prefetch(const Character& c) {
  __builtin_prefetch(&c);
  __builtin_prefetch(&c.animator);
}

// How much wider than both evaluated poses' bounds the bound of a pose interpolated between
// them is taken (HitPlacement): a joint of the interpolated pose strays from both by less than
// a quarter of the pose's size when the two are at most a floor interval apart
// (WorldLod tests check it on the assets' clips).
constexpr float kInterpolatedBoundGrowth = 1.25f;

struct UpdateJob {
  std::vector<std::unique_ptr<Character>>* characters;
  std::vector<anim::UpdateBuffers>* buffers;  // per pool thread
  Snapshot* snapshot;
  HistoryFrame* history;
  float dt;
  uint64_t tick;
  double server_time;
  bool degrade;
  bool palettes;  // build and copy skin palettes (a float subscription exists)
  bool quantize;  // quantize into snapshot->quant here (not left to after the tick)
  std::span<const StreamRegion> regions;  // region subscriptions: who is in one is watched
  // Update-rate LOD (lod/update_rates.h): off, every character is evaluated every tick (and
  // `degrade` applies).
  bool lod = false;
  bool all_watched = false;          // an all-characters subscription exists
  bool all_compact_watched = false;  // one of them in ENCODING_COMPACT
  float pressure = 0.0f;
  const RatePolicy* policy = nullptr;
  std::vector<UpdateRateCounts>* lod_threads = nullptr;  // per pool thread

  bool watched(const Character& c) const {
    if (c.watchers > 0) return true;
    const glm::vec3& p = c.animator.root_transform().translation;
    for (const auto& r : regions)
      if (r.zone(p) != StreamRegion::Zone::kOutside) return true;
    return false;
  }
  // Whether a compact subscription may encode the character this tick (by id, all, or the
  // compact regions the encoder picks from).
  bool compact_streamed(const Character& c) const {
    if (c.compact_watchers > 0 || all_compact_watched) return true;
    const glm::vec3& p = c.animator.root_transform().translation;
    for (const auto& r : snapshot->regions)
      if (r.zone(p) != StreamRegion::Zone::kOutside) return true;
    return false;
  }

  // The first tick after `tick` on a character's phase for `interval` (ids spread the
  // characters of one interval over its ticks).
  static uint64_t next_on_phase(uint64_t tick, uint32_t id, int interval) {
    const uint64_t k = static_cast<uint64_t>(interval);
    return tick + k - (tick + id) % k;
  }

  static void run(void* self, size_t begin, size_t end, int thread) {
    auto& j = *static_cast<UpdateJob*>(self);
    anim::UpdateBuffers& buffers = (*j.buffers)[static_cast<size_t>(thread)];
    UpdateRateCounts* lod = j.lod ? &(*j.lod_threads)[static_cast<size_t>(thread)] : nullptr;
    for (size_t i = begin; i < end; ++i) {
      Character& c = *(*j.characters)[i];
      if (lod)
        update_at_rate(j, c, i, buffers, *lod);
      else
        update_every_tick(j, c, i, buffers);
      SnapshotCharacter& sc = j.snapshot->characters[i];
      if (sc.num_morphs > 0) {
        const std::span<const float> w = c.animator.morph_weights();
        std::copy(w.begin(), w.end(), j.snapshot->morphs.begin() + sc.morph_offset);
      }
    }
  }

  // The update without allocated rates: every character every tick, but for `degrade`.
  static void update_every_tick(UpdateJob& j, Character& c, size_t i,
                                anim::UpdateBuffers& buffers) {
    // Degraded: an unwatched character updates on every other tick, with both ticks' dt.
    const bool skip = j.degrade && ((c.id + j.tick) & 1u) != 0 && !j.watched(c);
    c.updated = !skip;
    // This tick's model-space matrices: the update's, in the thread's buffers; for a
    // character this tick skipped, its own (brought up to date with its last pose).
    std::span<const glm::mat4> model;
    if (skip) {
      c.pending_dt += j.dt;
      c.animator.refresh_model();
      model = c.animator.model_matrices();
    } else {
      buffers.want_model = wants_model(j, c);
      c.animator.update(c.pending_dt + j.dt, buffers);
      c.pending_dt = 0.0f;
      if (buffers.model_written)
        model = std::span(buffers.model).first(c.animator.model_matrices().size());
    }
    finish_character(j, c, i, skip, model);
    if (!model.empty())
      record_entry(*j.history, i, c.animator, model);
    else
      record_entry(*j.history, i, c.animator, reach_of(c), nullptr);
    if (j.palettes) {
      const auto out = std::span(j.snapshot->palettes).subspan(c.palette_offset, model.size());
      anim::build_palette(c.animator.skeleton(), model, out);
    }
    if (j.quantize) quantize_character(*j.snapshot, i, c.animator, j.snapshot->quant_pull);
  }

  // Whether a character's update must compute its model-space matrices: for the palettes,
  // and for its placement when the clips' reach does not bound its pose (layers, a held
  // pose: what anim::PoseReach leaves out).
  static bool wants_model(const UpdateJob& j, const Character& c) {
    return j.palettes || c.animator.setup() != nullptr;
  }
  // The bound of a character's last evaluated pose from its asset's reach (no matrices).
  static anim::PoseBound reach_of(const Character& c) {
    return anim::reach_bound(c.asset->skeleton, c.asset->reach, c.animator.local_pose().locals);
  }

  // The snapshot's root and events of a character updated (or skipped) this tick.
  static void finish_character(UpdateJob& j, Character& c, size_t i, bool skipped,
                               std::span<const glm::mat4>) {
    // The root after the update: root motion moved it. And how many animation events it
    // crossed, which gather_events collects afterwards (reading only the characters that
    // have any: the others' memory is cold again by then).
    SnapshotCharacter& sc = j.snapshot->characters[i];
    sc.root = c.animator.root_transform();
    sc.events_count = skipped ? 0 : static_cast<uint32_t>(c.animator.fired_events().size());
    sc.events_overflowed = skipped ? 0 : c.animator.events_overflowed();
  }

  // The update with allocated rates (docs/animation.md, "Update rates"): the character is
  // evaluated at its planned tick; between two evaluations B and N the ticks t show
  // blend(pose A, pose B, (t - B + 1) / (N - B)), A the evaluation before B, so that motion
  // stays continuous and a character evaluated every tick shows its evaluated pose.
  static void update_at_rate(UpdateJob& j, Character& c, size_t i, anim::UpdateBuffers& buffers,
                             UpdateRateCounts& lod) {
    const size_t n = c.animator.model_matrices().size();
    const bool evaluate = c.evaluated_tick == 0 || j.tick >= c.next_evaluation;
    c.updated = evaluate;
    std::span<const glm::mat4> model;  // the evaluated pose's matrices, when computed
    if (evaluate) {
      const uint64_t next = next_on_phase(j.tick, c.id, c.interval);
      const bool interpolates =
          next - j.tick > 1 && c.evaluated_tick != 0 && c.interpolation_from.size() == n;
      if (interpolates) {
        const auto& locals = c.animator.local_pose().locals;
        std::copy(locals.begin(), locals.end(), c.interpolation_from.begin());
      }
      buffers.want_model = wants_model(j, c);
      c.animator.update(c.pending_dt + j.dt, buffers);
      c.pending_dt = 0.0f;
      c.interpolated_from = interpolates ? c.evaluated_tick : 0;
      c.evaluated_tick = j.tick;
      c.next_evaluation = next;
      if (buffers.model_written) model = std::span(buffers.model).first(n);
      c.evaluated_bounds[0] = c.evaluated_bounds[1];
      c.evaluated_bounds[1] = model.empty() ? reach_of(c) : anim::pose_bound(model);
      ++lod.evaluated;
    } else {
      c.pending_dt += j.dt;
      ++lod.skipped;
    }
    finish_character(j, c, i, !evaluate, model);

    // What this tick shows.
    float alpha = 1.0f;
    if (c.interpolated_from != 0) {
      const double span = static_cast<double>(c.next_evaluation - c.evaluated_tick);
      alpha = static_cast<float>(
          std::min(1.0, static_cast<double>(j.tick - c.evaluated_tick + 1) / std::max(1.0, span)));
    }
    const bool quantizing = static_cast<bool>(j.snapshot->quant);
    if (alpha < 1.0f) {
      const ShownFrom shown{static_cast<uint32_t>(j.tick - c.interpolated_from), alpha};
      // Bounds of both poses, widened: an interpolated joint strays from the chord between
      // its two positions by at most a fraction of the pose's size.
      const anim::PoseBound& a = c.evaluated_bounds[0];
      const anim::PoseBound& b = c.evaluated_bounds[1];
      anim::PoseBound both;
      both.center = 0.5f * (a.center + b.center);
      both.radius =
          kInterpolatedBoundGrowth * std::max(glm::length(a.center - both.center) + a.radius,
                                              glm::length(b.center - both.center) + b.radius);
      record_entry(*j.history, i, c.animator, both, &shown);
      const bool quantize_shown = quantizing && j.compact_streamed(c);
      if (j.palettes || quantize_shown) {
        const std::span<anim::Transform> locals = std::span(lod.shown).first(n);
        std::copy(c.interpolation_from.begin(), c.interpolation_from.end(), locals.begin());
        interpolate_shown(locals, c.animator.local_pose().locals, alpha);
        if (j.palettes) {
          const std::span<glm::mat4> shown_model = std::span(buffers.model).first(n);
          anim::local_to_model(c.animator.skeleton(), locals, shown_model);
          const auto out = std::span(j.snapshot->palettes).subspan(c.palette_offset, n);
          anim::build_palette(c.animator.skeleton(), shown_model, out);
        }
        if (quantize_shown) {
          quantize_character(*j.snapshot, i, locals, c.animator, j.snapshot->quant_pull);
          j.snapshot->characters[i].quantized_in_update = true;
        }
      }
    } else {
      record_entry(*j.history, i, c.animator, c.evaluated_bounds[1], nullptr);
      if (j.palettes) {
        if (!evaluate) {
          c.animator.refresh_model();
          model = c.animator.model_matrices();
        }
        const auto out = std::span(j.snapshot->palettes).subspan(c.palette_offset, n);
        anim::build_palette(c.animator.skeleton(), model, out);
      }
    }
    if (j.quantize && !j.snapshot->characters[i].quantized_in_update)
      quantize_character(*j.snapshot, i, c.animator, j.snapshot->quant_pull);

    // The next ticks' interval, from what watches the character now.
    const float s = c.significance_override >= 0.0f
                        ? c.significance_override
                        : watched_significance(c.watchers > 0 || j.all_watched,
                                               c.animator.root_transform().translation, j.regions);
    c.significance = s;
    const int interval = next_interval(s, c.interval, j.pressure, *j.policy);
    if (interval < c.interval)  // more significant: sooner, at once when every tick
      c.next_evaluation = std::min(c.next_evaluation, next_on_phase(j.tick, c.id, interval));
    c.interval = static_cast<uint8_t>(interval);
    ++lod.histogram[static_cast<size_t>(significance_bucket(s))];
    ++lod.intervals[static_cast<size_t>(interval - 1)];
  }
};
}  // namespace

SnapshotPtr World::update(float dt, uint64_t tick, double server_time, bool degrade) {
  settle();
  const auto started = std::chrono::steady_clock::now();
  // Update rates are allocated while a budget is set and reduced rates are allowed.
  const bool lod = std::isfinite(config_.anim_budget()) && rate_policy_.max_interval > 1;
  // A recycled snapshot: its vectors keep their capacity, so the tick allocates nothing once
  // the character count is steady. Every field is overwritten below and by the job.
  std::shared_ptr<Snapshot> snap = snapshots_.acquire();
  snap->tick = tick;
  snap->previous_tick = last_tick_;
  snap->server_time = server_time;
  snap->characters.resize(characters_.size());
  // ENCODING_COMPACT: this tick's quantized poses, and the two ticks before as baselines
  // (only while a compact subscription exists: quantizing costs the workers). Not while the
  // encode stage is still preparing an earlier tick: it would not take this one, and the
  // subscriptions it prepares for wait for the next it takes (session/stream_sender.cpp). Those at
  // a rate divisor are due at fixed ticks: every tick is quantized while one exists.
  const bool compact = metrics_.compact_subscriptions.load(std::memory_order_relaxed) > 0;
  // A stage that gets no CPU for long (a host busy with other work) defers nothing beyond
  // kMaxDeferredTicks: the sessions then encode what it could not (their fallback).
  const bool stage_busy = metrics_.stage_busy.load(std::memory_order_acquire);
  const bool paced = metrics_.compact_paced_subscriptions.load(std::memory_order_relaxed) > 0;
  // Quantized ticks are at most kMaxDeferredTicks + 1 apart: a delta between two of them finds
  // its baseline among a subscription's kept frames.
  static_assert(kMaxDeferredTicks + 1 <= kMaxKeptQuantAge);
  const bool deferred = compact && stage_busy && !paced && quant_recent_[0] &&
                        quant_recent_[0]->tick + kMaxDeferredTicks >= tick;
  QuantRef quant = compact && !deferred ? quant_frames_.acquire() : QuantRef();
  if (quant) quant->tick = tick;
  snap->quant = quant;
  snap->quant_deferred = deferred;
  if (deferred) metrics_.quant_deferred_ticks.fetch_add(1, std::memory_order_relaxed);
  const bool pull = quant && quant_recent_[0] && quant_recent_[0]->tick + kMaxPullGap >= tick;
  for (int k = 0; k < 2; ++k) {
    snap->quant_prev[k] = quant && quant_recent_[k] && quant_recent_[k]->tick + k + 1 == tick
                              ? quant_recent_[k]
                              : QuantRef();
    snap->quant_pull[k] = pull ? quant_recent_[k] : QuantRef();
    snap->pull_ticks[k] = snap->quant_pull[k] ? snap->quant_pull[k]->tick : 0;
  }
  if (quant) {
    quant->ids.resize(characters_.size());
    quant->offsets.resize(characters_.size());
    quant->morph_offsets.resize(characters_.size());
  }
  // One pass over the characters for the snapshot and the history frame: each character's
  // memory is cold at this point (the last tick touched 5,000 others since), and this part of
  // the tick is serial, so it is read once, and fetched a few characters ahead.
  HistoryFrame& history = history_->begin_tick(tick, server_time);
  constexpr size_t kAhead = 4;
  for (size_t i = 0; i < std::min(kAhead, characters_.size()); ++i) prefetch(*characters_[i]);
  uint32_t offset = 0;
  uint32_t morph_offset = 0;
  for (size_t i = 0; i < characters_.size(); ++i) {
    if (i + kAhead < characters_.size()) prefetch(*characters_[i + kAhead]);
    Character& c = *characters_[i];
    const bool may_interpolate = lod && (c.interval > 1 || c.interpolated_from != 0);
    add_entry(history, c.id, c.asset, c.animator, may_interpolate);
    // Room for the pose it interpolates from, made once when its interval first grows.
    if (lod && c.interval > 1 && c.interpolation_from.size() != c.animator.model_matrices().size())
      c.interpolation_from.resize(c.animator.model_matrices().size());
    c.palette_offset = offset;
    if (quant) quant->ids[i] = c.id, quant->offsets[i] = offset;
    if (quant) quant->morph_offsets[i] = morph_offset;
    auto& sc = snap->characters[i];
    sc.id = c.id;
    sc.asset = c.asset;
    sc.palette_offset = offset;
    sc.num_joints = static_cast<uint32_t>(c.asset->skeleton.num_joints());
    sc.morph_offset = morph_offset;
    sc.num_morphs = static_cast<uint32_t>(c.animator.morph_weights().size());
    morph_offset += sc.num_morphs;
    sc.watched_by_id = c.compact_watchers > 0 || compact_all_watchers_ > 0;
    sc.quantized_in_update = false;
    sc.layout = c.layout;
    // c.quant_*: the character's place in the last two quantized frames (quant_recent_).
    for (int k = 0; k < 2; ++k) {
      const bool in_recent =
          c.quant_tick[k] != 0 && quant_recent_[k] && quant_recent_[k]->tick == c.quant_tick[k];
      const bool held = in_recent && c.quant_tick[k] + k + 1 == tick;
      sc.prev_offset[k] = held ? c.quant_offset[k] : kNotQuantized;
      sc.prev_index[k] = held ? c.quant_index[k] : kNotQuantized;
      sc.pull_offset[k] = in_recent && pull ? c.quant_offset[k] : kNotQuantized;
      sc.pull_index[k] = in_recent && pull ? c.quant_index[k] : kNotQuantized;
    }
    if (quant) {
      c.quant_tick[1] = c.quant_tick[0], c.quant_offset[1] = c.quant_offset[0];
      c.quant_index[1] = c.quant_index[0];
      c.quant_tick[0] = tick, c.quant_offset[0] = offset;
      c.quant_index[0] = static_cast<uint32_t>(i);
    }
    offset += sc.num_joints;
  }
  // Skin palettes: only while a float subscription exists (nothing else reads them, and
  // building and copying them is a sixth of the tick).
  snap->has_palettes = metrics_.float_subscriptions.load(std::memory_order_relaxed) > 0;
  snap->palettes.resize(snap->has_palettes ? offset : 0);
  snap->morphs.resize(morph_offset);
  snap->moved.clear();
  std::swap(snap->moved, moved_);
  if (quant) {
    quant->joints.resize(offset);
    quant->morphs.resize(morph_offset);
    quant->roots.resize(characters_.size());
  }
  snap->reset_compact(characters_.size());
  snap->prepared.store(false, std::memory_order_relaxed);
  snap->regions.clear();
  if (quant)
    for (const auto& [id, s] : sessions_)
      for (const auto& [sub, w] : s.subscriptions)
        if (w.region && w.compact) snap->regions.push_back(*w.region);
  // Everybody is watched while an all-characters subscription exists. Allocated rates
  // replace the degraded ticks.
  degrade = !lod && degrade && all_watchers_ == 0;
  watched_regions_.clear();
  if (degrade || lod)
    for (const auto& [id, s] : sessions_)
      for (const auto& [sub, w] : s.subscriptions)
        if (w.region) watched_regions_.push_back(*w.region);
  // A free encode stage takes this tick at once: it quantizes it too, between this tick and
  // the next (quantize_work.h). Not for paced subscriptions (they do not wait for the stage,
  // so their frames would wait for the next tick instead).
  const bool after_tick = quant && quantize_after_tick_ && !stage_busy && !paced;
  UpdateJob job{&characters_,
                &update_buffers_,
                snap.get(),
                &history,
                dt,
                tick,
                server_time,
                degrade,
                snap->has_palettes,
                quant && !after_tick,
                watched_regions_};
  job.lod = lod;
  job.all_watched = all_watchers_ > 0;
  job.all_compact_watched = compact_all_watchers_ > 0;
  job.pressure = pressure_;
  job.policy = &rate_policy_;
  job.lod_threads = &lod_threads_;
  if (lod)
    for (auto& t : lod_threads_) {
      t.histogram.fill(0);
      t.intervals.fill(0);
      t.evaluated = t.skipped = 0;
    }
  pool_.run(characters_.size(), &UpdateJob::run, &job);
  snap->quantized_in_tick = job.quantize;
  if (job.quantize) metrics_.quantized_in_tick.fetch_add(1, std::memory_order_relaxed);
  if (after_tick) {
    // It reads snap->quant_pull, and lets go of them when finished.
    snap->quantize.start(*snap, animators_);
    quantizing_ = snap;
  } else {
    // Only the quantization read them: the snapshot waits in sessions for a while, and these
    // are whole frames the pool could reuse.
    snap->quant_pull[0].reset();
    snap->quant_pull[1].reset();
  }
  gather_events(*snap);
  if (quant || !compact) {  // a deferred tick keeps the last two quantized
    quant_recent_[1] = std::move(quant_recent_[0]);
    quant_recent_[0] = std::move(quant);
  }
  history_->publish();
  last_tick_ = tick;
  if (job.degrade) metrics_.degraded_ticks.fetch_add(1, std::memory_order_relaxed);
  if (lod) {
    plan_update_rates(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count());
  } else if (pressure_ != 0.0f || interval_counts_[0] != characters_.size()) {
    pressure_ = 0.0f;
    std::fill(interval_counts_.begin(), interval_counts_.end(), 0);
    interval_counts_[0] = static_cast<uint32_t>(characters_.size());
    for (auto& c : characters_) c->interval = 1;
  }
  return snap;
}

void World::gather_events(Snapshot& snap) {
  snap.events.clear();
  // Room for a few events per character: a recycled snapshot keeps it, so steady ticks do
  // not allocate here (more in one tick than ever before grows it once).
  if (snap.events.capacity() < characters_.size() * 4) snap.events.reserve(characters_.size() * 4);
  uint64_t fired = 0, overflowed = 0;
  // The update counted each character's events (UpdateJob): a pass over the snapshot's own
  // array, visiting only the characters that have some.
  for (size_t i = 0; i < characters_.size(); ++i) {
    SnapshotCharacter& sc = snap.characters[i];
    sc.events_begin = static_cast<uint32_t>(snap.events.size());
    if (sc.events_count == 0 && sc.events_overflowed == 0) {
      if (sc.event_table) sc.event_table.reset();
      continue;
    }
    const Character& c = *characters_[i];
    const auto events = c.animator.fired_events();
    sc.event_table = c.animator.event_table();
    snap.events.insert(snap.events.end(), events.begin(), events.end());
    fired += events.size() + sc.events_overflowed;
    overflowed += sc.events_overflowed;
  }
  if (fired) metrics_.events_fired.fetch_add(fired, std::memory_order_relaxed);
  if (overflowed) metrics_.events_overflowed.fetch_add(overflowed, std::memory_order_relaxed);
}

}  // namespace animd

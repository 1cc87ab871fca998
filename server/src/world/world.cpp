#include "world/world.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "anim/joint_detail.h"
#include "assets/asset_fingerprint.h"
#include "snapshot/compact_layout.h"

namespace animd {

Character::Character(uint32_t id_, AssetPtr asset_, uint64_t owner, uint64_t tick)
    : id(id_),
      asset(std::move(asset_)),
      owner_session(owner),
      spawn_tick(tick),
      layout(compact_layout(asset)),
      // World::update evaluates every character in its pool threads' buffers and builds skin
      // palettes into the snapshot: the Animator's own scratch, matrices and palette would be
      // idle memory.
      animator(asset->skeleton, asset->clips, anim::AnimatorBuffers::kLentOnly) {}

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
  if (config.anim_cost_us > 0.0) cost_model_.fix(config.anim_cost_us / 1000.0);
  lod_threads_.resize(static_cast<size_t>(pool.threads()));
  for (auto& t : lod_threads_) t.shown.resize(anim::Skeleton::kMaxJoints);
  interval_counts_.assign(kMaxUpdateInterval, 0);
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
  // Joint LOD: load_asset chooses the detail joints; assets made otherwise get derived ones.
  if (!asset->detail_joints_set)
    if (auto s = anim::set_detail_joints(*asset,
                                         anim::derive_detail_joints(asset->skeleton, asset->mesh));
        !s)
      return s;
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

size_t World::index_of(uint32_t id) const {
  const auto it = std::lower_bound(character_ids_.begin(), character_ids_.end(), id);
  return it != character_ids_.end() && *it == id ? static_cast<size_t>(it - character_ids_.begin())
                                                 : characters_.size();
}

void World::remove_character(uint32_t id) {
  const size_t index = index_of(id);
  if (index == characters_.size()) return;
  const auto it = characters_.begin() + static_cast<std::ptrdiff_t>(index);
  Character& c = **it;
  if (auto s = sessions_.find(c.owner_session); s != sessions_.end() && s->second.characters)
    --s->second.characters;
  // Explicit subscriptions stop naming it; the sessions report it in `despawned`.
  for (auto& [sid, st] : sessions_)
    for (auto& [sub, w] : st.subscriptions) std::erase(w.ids, id);
  const bool had_ik = c.ik_cost > 0;
  ik_cost_ -= c.ik_cost;
  animators_.erase(animators_.begin() + (it - characters_.begin()));
  character_ids_.erase(character_ids_.begin() + (it - characters_.begin()));
  characters_.erase(it);
  stale_placements();  // the characters after it moved down one place
  if (had_ik) {
    // Recompute the scale for everyone left (the removed one no longer counts).
    const float scale = ik_cost_ > config_.ik_budget
                            ? static_cast<float>(double(config_.ik_budget) / double(ik_cost_))
                            : 1.0f;
    if (scale != ik_scale_) {
      ik_scale_ = scale;
      for (auto& ch : characters_)
        if (ch->ik_cost > 0) ch->animator.set_ik_iteration_scale(scale);
      stale_placements();
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
  stale_placements();
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
  catch_up_clocks(**c);
  return c;
}

void World::catch_up_clocks(Character& c) {
  if (!(c.pending_dt > 0.0f)) return;
  // A pending dt is a sum of tick periods: finite and positive, never refused.
  (void)c.animator.catch_up(c.pending_dt);
  c.pending_dt = 0.0f;
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
  const size_t index = index_of(id);
  if (index == characters_.size())
    return anim::not_found(std::string(field) + ": unknown character " + std::to_string(id));
  // Whoever finds it may change it: the next update measures it afresh.
  if (index < placements_.size()) placements_[index].generation = 0;
  return characters_[index].get();
}

void World::settle() {
  if (!quantizing_) return;
  QuantizeWork& work = quantizing_->quantize;
  const QuantRef& before = quant_recent_[1];
  const size_t untaken = work.untaken();
  const bool give_up = abandon_late_quantization_ && untaken > 0 &&
                       quant_recent_[0].get() == quantizing_->quant.get() && before &&
                       before->tick + kMaxDeferredTicks >= quantizing_->tick &&
                       untaken * kAbandonUntakenShare >= quantizing_->characters.size();
  // The stage may take the rest meanwhile: then nothing is given up, and finish() completes.
  if (give_up && work.abandon()) {
    metrics_.quant_abandoned_ticks.fetch_add(1, std::memory_order_relaxed);
    // The frames before it are again the last two quantized.
    quant_recent_[0] = std::move(quant_recent_[1]);
    quant_recent_[1] = std::move(quant_displaced_);
  } else {
    const size_t left = work.finish(pool_);
    metrics_.quantized_by_next_tick.fetch_add(left, std::memory_order_relaxed);
  }
  quant_displaced_.reset();
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
  stale_placements();
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
  if (w.compact && (w.all || w.region)) restream_placements();
  for (uint32_t id : w.ids)
    if (auto c = find_character(id, "")) {
      --(*c)->watchers;
      (*c)->compact_watchers -= w.compact;
    }
}

}  // namespace animd

#include "world.h"

#include <algorithm>

#include "proto_convert.h"

namespace animd {

Character::Character(uint32_t id_, AssetPtr asset_, uint64_t owner, uint64_t tick,
                     int history_ticks)
    : id(id_),
      asset(std::move(asset_)),
      owner_session(owner),
      spawn_tick(tick),
      animator(asset->skeleton, asset->clips),
      history(history_ticks, asset->skeleton.num_joints()) {}

World::World(const Config& config, Metrics& metrics, AssetCatalog& catalog, WorkerPool& pool)
    : config_(config), metrics_(metrics), catalog_(catalog), pool_(pool) {}

anim::Status World::add_asset(std::shared_ptr<anim::Asset> asset) {
  if (assets_.count(asset->name))
    return anim::failed_precondition("asset name '" + asset->name + "' is already in use");
  const std::string name = asset->name;
  assets_.emplace(name, std::move(asset));
  publish_catalog();
  return {};
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
  anim::v1::SpawnRequest r;
  r.set_asset(asset);
  r.set_clip(clip);
  anim::v1::Reply reply;
  if (auto s = spawn(r, 0, 0, reply); !s) return s;
  return reply.spawn().character_id();
}

anim::Expected<Character*> World::find_character(uint32_t id, const char* field) {
  auto it =
      std::lower_bound(characters_.begin(), characters_.end(), id,
                       [](const std::unique_ptr<Character>& c, uint32_t v) { return c->id < v; });
  if (it == characters_.end() || (*it)->id != id)
    return anim::not_found(std::string(field) + ": unknown character " + std::to_string(id));
  return it->get();
}

void World::apply(std::vector<Command>& commands, uint64_t tick, double server_time) {
  bool changed = false;
  for (auto& c : commands) {
    if (c.kind == Command::Kind::kSessionClosed) {
      session_closed(c.session_id);
      changed = true;
      continue;
    }
    anim::v1::Reply reply =
        c.kind == Command::Kind::kInsertAsset ? insert_asset(c) : handle(c, tick, server_time);
    reply.set_request_id(c.request.request_id());
    reply.set_tick(tick);
    if (c.sink) c.sink->deliver(c.seq, std::move(reply));
    changed = true;
  }
  if (changed) update_counts();
}

anim::v1::Reply World::insert_asset(Command& c) {
  anim::v1::Reply reply;
  const std::string name = c.asset->name;
  if (auto s = add_asset(c.asset); !s) {
    set_status(reply, s);
    return reply;
  }
  set_status(reply, anim::Status::ok());
  fill_asset_info(*assets_.at(name), reply.mutable_load_asset()->mutable_asset());
  return reply;
}

void World::session_closed(uint64_t session_id) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  for (const auto& [sub, w] : it->second.subscriptions) unwatch(w);
  sessions_.erase(it);
  // Characters outlive their connection; they only stop counting against its limit.
}

void World::unwatch(const Watch& w) {
  if (w.all) --all_watchers_;
  for (uint32_t id : w.ids)
    if (auto c = find_character(id, "")) --(*c)->watchers;
}

namespace {
struct UpdateJob {
  std::vector<std::unique_ptr<Character>>* characters;
  Snapshot* snapshot;
  float dt;
  uint64_t tick;
  double server_time;
  bool degrade;

  static void run(void* self, size_t begin, size_t end) {
    auto& j = *static_cast<UpdateJob*>(self);
    for (size_t i = begin; i < end; ++i) {
      Character& c = *(*j.characters)[i];
      // Degraded: an unwatched character updates on every other tick, with both ticks' dt.
      const bool skip = j.degrade && c.watchers == 0 && ((c.id + j.tick) & 1u) != 0;
      if (skip) {
        c.pending_dt += j.dt;
      } else {
        c.animator.update(c.pending_dt + j.dt);
        c.pending_dt = 0.0f;
      }
      c.history.record(j.tick, j.server_time, c.animator.root_transform(),
                       c.animator.model_matrices());
      const auto palette = c.animator.palette();
      std::copy(palette.begin(), palette.end(), j.snapshot->palettes.begin() + c.palette_offset);
    }
  }
};
}  // namespace

SnapshotPtr World::update(float dt, uint64_t tick, double server_time, bool degrade) {
  auto snap = std::make_shared<Snapshot>();
  snap->tick = tick;
  snap->server_time = server_time;
  snap->characters.resize(characters_.size());
  uint32_t offset = 0;
  for (size_t i = 0; i < characters_.size(); ++i) {
    Character& c = *characters_[i];
    c.palette_offset = offset;
    auto& sc = snap->characters[i];
    sc.id = c.id;
    sc.asset = c.asset;
    sc.root = c.animator.root_transform();
    sc.palette_offset = offset;
    sc.num_joints = static_cast<uint32_t>(c.asset->skeleton.num_joints());
    offset += sc.num_joints;
  }
  snap->palettes.resize(offset);
  // Everybody is watched while an all-characters subscription exists.
  UpdateJob job{&characters_, snap.get(), dt, tick, server_time, degrade && all_watchers_ == 0};
  pool_.run(characters_.size(), &UpdateJob::run, &job);
  last_tick_ = tick;
  if (job.degrade) metrics_.degraded_ticks.fetch_add(1, std::memory_order_relaxed);
  return snap;
}

}  // namespace animd

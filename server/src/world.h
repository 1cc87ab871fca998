#pragma once
// World: everything the tick thread owns: assets, characters (Animator + asset + pose
// history), the subscription watch list, ids. Only the tick thread calls into a World.
//
// Per tick: apply(commands) (each produces exactly one reply, delivered to its session),
// then update(dt) which advances every character in parallel (WorkerPool; no allocation
// and no lock per character) and fills the tick's immutable Snapshot.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "anim/animator.h"
#include "asset_catalog.h"
#include "command.h"
#include "config.h"
#include "metrics.h"
#include "pose_history.h"
#include "snapshot.h"
#include "tick_stats.h"
#include "worker_pool.h"

namespace animd {

struct Character {
  Character(uint32_t id, AssetPtr asset, uint64_t owner, uint64_t spawn_tick, int history_ticks);

  uint32_t id;
  AssetPtr asset;
  uint64_t owner_session;  // the connection that spawned it (for its per-connection limit)
  uint64_t spawn_tick;
  anim::Animator animator;
  PoseHistory history;
  // Current values of each layer and goal, so that partial updates keep the rest.
  std::map<int, anim::AdditiveLayerUpdate> layers;
  std::map<int, float> goal_weights;
  int watchers = 0;             // explicit-id subscriptions naming it
  float pending_dt = 0.0f;      // time skipped while degraded, applied at the next update
  uint32_t palette_offset = 0;  // into this tick's Snapshot::palettes
};

class World {
 public:
  World(const Config& config, Metrics& metrics, AssetCatalog& catalog, WorkerPool& pool);

  // Adds an asset at start-up (before the tick runs). Fails on a duplicate name.
  anim::Status add_asset(std::shared_ptr<anim::Asset> asset);
  // Debug/benchmark: spawns a character owned by nobody.
  anim::Expected<uint32_t> spawn_unowned(const std::string& asset, const std::string& clip);

  // Applies commands at `tick` (replies go to each command's sink).
  void apply(std::vector<Command>& commands, uint64_t tick, double server_time);
  // Advances every character by dt and returns the tick's snapshot. `degrade`: characters
  // nobody watches update only every other tick (with the accumulated dt).
  SnapshotPtr update(float dt, uint64_t tick, double server_time, bool degrade);

  // Tick-time samples, fed by the tick loop (for StatsReply).
  TickStats& tick_stats() { return tick_stats_; }
  size_t num_characters() const { return characters_.size(); }

 private:
  struct Watch {
    bool all = false;
    std::vector<uint32_t> ids;
  };
  struct SessionState {
    uint32_t characters = 0;                  // live characters it spawned
    std::map<uint32_t, Watch> subscriptions;  // by subscription id
  };

  anim::v1::Reply handle(Command& command, uint64_t tick, double server_time);
  anim::v1::Reply insert_asset(Command& command);
  void session_closed(uint64_t session_id);

  // One function per request kind; each validates first and changes nothing on error.
  anim::Status spawn(const anim::v1::SpawnRequest& r, uint64_t session, uint64_t tick,
                     anim::v1::Reply& reply);
  anim::Status despawn(const anim::v1::DespawnRequest& r);
  anim::Status set_root(const anim::v1::SetRootTransformRequest& r);
  anim::Status play(const anim::v1::PlayRequest& r);
  anim::Status crossfade(const anim::v1::CrossfadeRequest& r);
  anim::Status set_speed(const anim::v1::SetSpeedRequest& r);
  anim::Status add_layer(const anim::v1::AddLayerRequest& r, anim::v1::Reply& reply);
  anim::Status update_layer(const anim::v1::UpdateLayerRequest& r);
  anim::Status remove_layer(const anim::v1::RemoveLayerRequest& r);
  anim::Status set_ik_goal(const anim::v1::SetIkGoalRequest& r, anim::v1::Reply& reply);
  anim::Status clear_ik_goal(const anim::v1::ClearIkGoalRequest& r);
  anim::Status query_pose(const anim::v1::QueryPoseRequest& r, uint64_t tick,
                          anim::v1::Reply& reply);
  void list_characters(anim::v1::Reply& reply);
  anim::Status subscribe(const anim::v1::SubscribeRequest& r, uint64_t session, uint32_t sub_id);
  anim::Status unsubscribe(const anim::v1::UnsubscribeRequest& r, uint64_t session);
  void stats(uint64_t tick, double server_time, anim::v1::Reply& reply);

  anim::Expected<Character*> find_character(uint32_t id, const char* field);
  void unwatch(const Watch& w);
  void publish_catalog();
  void update_counts();

  const Config& config_;
  Metrics& metrics_;
  AssetCatalog& catalog_;
  WorkerPool& pool_;
  AssetMap assets_;
  std::vector<std::unique_ptr<Character>> characters_;  // sorted by id
  std::unordered_map<uint64_t, SessionState> sessions_;
  int all_watchers_ = 0;  // subscriptions with all_characters
  uint32_t next_character_id_ = 1;
  uint64_t last_tick_ = 0;  // the latest completed tick
  TickStats tick_stats_;
};

}  // namespace animd

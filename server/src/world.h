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
  uint64_t owner = 0;      // who may drive it (World::owner_of); 0 = shared: any control client
  uint64_t spawn_tick;
  anim::Animator animator;
  PoseHistory history;
  // Current values of each layer and goal, so that partial updates keep the rest.
  std::map<int, anim::AdditiveLayerUpdate> layers;
  std::map<int, float> goal_weights;
  uint64_t ik_cost = 0;         // animator.ik_cost(), kept for the daemon's IK budget
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
    std::vector<uint64_t> owners;             // owner keys its commands carried
  };
  // An owner key (a token, or one connection when there are no tokens): its characters are
  // despawned once it has had no connection for --orphan-grace-seconds.
  struct OwnerState {
    uint32_t live_sessions = 0;
    bool orphaned = false;
    uint64_t orphaned_at = 0;  // tick
  };

  anim::v1::Reply handle(Command& command, uint64_t tick, double server_time);
  anim::v1::Reply insert_asset(Command& command);
  void session_closed(uint64_t session_id, uint64_t tick);
  // The owner key a command acts as: its token's, or its connection's without tokens.
  static uint64_t owner_of(const Command& command);
  void note_owner(uint64_t session_id, uint64_t owner);
  void expire_orphans(uint64_t tick);
  void remove_character(uint32_t id);
  anim::Status unload_asset(const anim::v1::UnloadAssetRequest& r);
  // Re-derives the IK iteration scale after a change of the total IK cost.
  void update_ik_budget(Character& changed);

  // One function per request kind; each validates first and changes nothing on error.
  anim::Status spawn(const anim::v1::SpawnRequest& r, uint64_t session, uint64_t owner,
                     uint64_t tick, anim::v1::Reply& reply);
  anim::Status despawn(const anim::v1::DespawnRequest& r, uint64_t owner);
  anim::Status set_root(const anim::v1::SetRootTransformRequest& r, uint64_t owner);
  anim::Status play(const anim::v1::PlayRequest& r, uint64_t owner);
  anim::Status crossfade(const anim::v1::CrossfadeRequest& r, uint64_t owner);
  anim::Status set_speed(const anim::v1::SetSpeedRequest& r, uint64_t owner);
  anim::Status add_layer(const anim::v1::AddLayerRequest& r, uint64_t owner,
                         anim::v1::Reply& reply);
  anim::Status update_layer(const anim::v1::UpdateLayerRequest& r, uint64_t owner);
  anim::Status remove_layer(const anim::v1::RemoveLayerRequest& r, uint64_t owner);
  anim::Status set_ik_goal(const anim::v1::SetIkGoalRequest& r, uint64_t owner,
                           anim::v1::Reply& reply);
  anim::Status clear_ik_goal(const anim::v1::ClearIkGoalRequest& r, uint64_t owner);
  anim::Status query_pose(const anim::v1::QueryPoseRequest& r, uint64_t tick,
                          anim::v1::Reply& reply);
  void list_characters(anim::v1::Reply& reply);
  anim::Status subscribe(const anim::v1::SubscribeRequest& r, uint64_t session, uint32_t sub_id);
  anim::Status unsubscribe(const anim::v1::UnsubscribeRequest& r, uint64_t session);
  void stats(uint64_t tick, double server_time, anim::v1::Reply& reply);

  anim::Expected<Character*> find_character(uint32_t id, const char* field);
  // As find_character, and the character must be shared or belong to `owner`
  // (PERMISSION_DENIED otherwise).
  anim::Expected<Character*> find_controlled(uint32_t id, const char* field, uint64_t owner);
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
  std::unordered_map<uint64_t, OwnerState> owners_;
  size_t orphaned_owners_ = 0;
  size_t asset_bytes_ = 0;  // estimated memory of assets_
  uint64_t ik_cost_ = 0;    // sum of the characters' ik_cost
  float ik_scale_ = 1.0f;   // the iteration scale in force (--ik-budget / ik_cost_)
  int all_watchers_ = 0;    // subscriptions with all_characters
  uint32_t next_character_id_ = 1;
  uint64_t last_tick_ = 0;  // the latest completed tick
  TickStats tick_stats_;
};

}  // namespace animd

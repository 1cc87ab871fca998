#pragma once
// What the World answers, in the daemon's own terms (no protobuf): one alternative of
// WorldResult per request that returns data, Done for the rest. Turned into the wire Reply
// by to_reply (request_convert.h) right after the World made it, on the tick thread.
//
// Large answers (QueryPose, CharacterList) refer to the character's asset for names instead
// of copying them: the AssetPtr keeps the asset alive for as long as the answer exists.

#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "anim/clip_events.h"
#include "anim/hit_volumes.h"
#include "anim/palette.h"
#include "anim/state_machine.h"
#include "anim/transform.h"
#include "assets/asset_catalog.h"
#include "history/history_queries.h"
#include "world/saved_character.h"

namespace animd {

// The request took effect and returns nothing.
struct Done {};

struct Spawned {
  uint32_t character_id = 0;  // > 0, never reused in the daemon's lifetime
  uint64_t tick = 0;          // the tick it was spawned at
};

struct LayerAdded {
  uint32_t layer_id = 0;  // > 0, unique per character
};

struct IkGoalSet {
  uint32_t goal_id = 0;  // > 0: the new goal's id, or the moved goal's
};

struct CharacterEntry {
  uint32_t character_id = 0;
  AssetPtr asset;  // never null
  int clip = -1;   // the latest target clip (index into asset->clips); -1 before any
  anim::Transform root;
  std::string blend_space;  // the latest target when it is a blend space (clip is then -1)
  // Update rates (docs/animation.md, "Update rates"): its significance as the last update
  // computed it (or set_significance's), in [0, 1], and the ticks between its evaluations.
  float significance = 1.0f;
  uint32_t update_interval = 1;
  bool detail_skipped = false;  // joint LOD: its evaluations leave the detail joints at rest
};

// Every character, by increasing id.
struct CharacterList {
  std::vector<CharacterEntry> characters;
};

struct Subscribed {
  uint32_t subscription_id = 0;  // the id the session assigned (> 0)
};

// The daemon's counters, as StatsReply carries them.
struct StatsAnswer {
  uint64_t tick = 0;  // the latest completed tick
  double tick_rate_hz = 0.0;
  double uptime_s = 0.0;
  uint32_t characters = 0;
  uint32_t sessions = 0;
  uint32_t subscriptions = 0;
  uint32_t assets = 0;
  double tick_time_p50_us = 0.0;  // over the last 1,000 ticks
  double tick_time_p99_us = 0.0;
  double tick_time_max_us = 0.0;
  uint64_t tick_overruns = 0;
  uint64_t bytes_in = 0;
  uint64_t bytes_out = 0;
  uint64_t stream_frames_sent = 0;
  uint64_t stream_frames_dropped = 0;
  uint64_t requests = 0;
  uint64_t request_errors = 0;
  uint32_t worker_threads = 0;
  uint64_t events_fired = 0;
  uint64_t events_overflowed = 0;
  uint64_t events_sent = 0;
  uint64_t events_dropped = 0;
  // Tick numbering (docs/operations.md, "Fleet clock").
  int64_t tick_epoch_unix_s = 0;  // --tick-epoch: seconds since the Unix epoch
  double tick_unix_time_s = 0.0;  // the wall-clock instant of `tick`, s since the Unix epoch
  uint64_t first_tick = 0;        // the first tick this daemon ran
  uint64_t ticks_skipped = 0;     // tick numbers that never ran (total)
  uint64_t clock_steps_forward = 0;
  uint64_t clock_steps_back = 0;
  // Update-rate LOD (docs/animation.md, "Update rates").
  double anim_budget_ms = 0.0;  // the budget in force; +infinity: unlimited
  float anim_pressure = 0.0f;   // the allocator's pressure (0: every character every tick)
  // Characters by update interval: entry i counts those updated every (i + 1)th tick.
  std::vector<uint32_t> update_intervals;
  uint32_t detail_skipped_characters = 0;  // joint LOD: evaluated with detail joints at rest
};

// A blend space defined: its triangle count (2D; 0 in 1D).
struct BlendSpaceDefined {
  uint32_t triangles = 0;
};

// Where a character's state machine is after the last update.
struct MachineStateAnswer {
  std::shared_ptr<const anim::StateMachine> machine;  // null: none runs (status not running)
  anim::MachineStatus status;                         // its indices are into *machine
  // Each machine layer (layer order): its id, machine and where it is.
  struct Layer {
    uint32_t layer_id = 0;
    std::shared_ptr<const anim::StateMachine> machine;
    anim::MachineStatus status;
  };
  std::vector<Layer> layers;
  std::vector<std::pair<std::string, float>> parameters;  // name, current (smoothed) value
  std::vector<std::pair<std::string, bool>> triggers;     // name, set
};

// A clip's events after add_clip_events, by time.
struct ClipEventsAnswer {
  std::vector<anim::ClipEvent> events;
};

// The hit volumes in force for an asset.
struct HitVolumesAnswer {
  AssetPtr asset;                                   // never null
  std::shared_ptr<const anim::HitVolumes> volumes;  // never null
  bool fitted = true;  // the asset's own (no set_hit_volumes since it loaded)
};

// A loaded asset was added (the reply to load_asset).
struct AssetAdded {
  AssetPtr asset;  // never null
};

// export_characters: the states, in the order asked.
struct CharactersExported {
  std::vector<SavedCharacter> characters;
};

// import_characters: the new characters' ids, in the order of the states.
struct CharactersImported {
  std::vector<uint32_t> character_ids;
};

// migrate, on the source (world_migrate.cpp): the frozen characters' states, for the migration
// thread to hand to the target. Never a wire reply: the migrate's sink takes it.
struct MigrationBegun {
  uint64_t migration = 0;    // this daemon's number for it (FinishMigration names it)
  std::string migration_id;  // its id on the target (unique across daemons and restarts)
  std::vector<uint32_t> characters;
  std::vector<SavedCharacter> states;  // in the same order
};

// migrate, once the target confirmed: where the characters live now.
struct Migrated {
  std::string target;                // "host:port"
  std::vector<uint32_t> target_ids;  // in the order asked
  uint64_t target_tick = 0;          // the first tick they live there
};

// commit_migration, on the target: the characters that went live (or were already live).
struct MigrationCommitted {
  std::vector<uint32_t> character_ids;
  uint64_t tick = 0;  // the first tick they live
};

using WorldResult =
    std::variant<Done, Spawned, LayerAdded, IkGoalSet, PoseAnswer, CharacterList, Subscribed,
                 StatsAnswer, AssetAdded, ClipEventsAnswer, RaycastHit, SphereOverlap,
                 HitVolumesAnswer, BlendSpaceDefined, MachineStateAnswer, CharactersExported,
                 CharactersImported, MigrationBegun, Migrated, MigrationCommitted>;

}  // namespace animd

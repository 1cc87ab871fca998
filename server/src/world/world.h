#pragma once
// World: everything the tick thread owns: assets, characters (Animator + asset), their pose
// history (published for every thread), the subscription watch list, ids. Only the tick thread
// calls into a World.
//
// Per tick: apply(commands) (each produces exactly one answer, handed to its command's
// ResultSink), then update(dt) which advances every character in parallel (WorkerPool; no
// allocation and no lock per character) and fills the tick's immutable Snapshot.
//
// The World speaks its own types (world_requests.h, world_results.h), never protobuf: the
// layer above converts at the edge (protocol/), requests in the sessions before they are
// queued, answers in the sink they are handed to (protocol/reply_sink.h).

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "anim/animator.h"
#include "assets/asset_catalog.h"
#include "base/byte_budget.h"
#include "base/config.h"
#include "base/metrics.h"
#include "base/worker_pool.h"
#include "history/hit_volume_table.h"
#include "history/pose_history.h"
#include "lod/significance.h"
#include "lod/update_rates.h"
#include "snapshot/quant_frame_pool.h"
#include "snapshot/snapshot.h"
#include "snapshot/snapshot_pool.h"
#include "world/asset_change_sink.h"
#include "world/character_placement.h"
#include "world/command.h"
#include "world/persisted_character.h"
#include "world/tick_stats.h"
#include "world/world_requests.h"
#include "world/world_results.h"

namespace animd {

// Cache-line aligned: the update reads its first four lines, then its Animator's, whose
// layout (anim/animator.h) counts in lines from its start.
struct alignas(64) Character {
  Character(uint32_t id, AssetPtr asset, uint64_t owner, uint64_t spawn_tick);

  uint32_t id;
  AssetPtr asset;
  uint64_t owner_session;  // the connection that spawned it (for its per-connection limit)
  uint64_t owner = 0;      // who may drive it (World::owner_of); 0 = shared: any control client
  uint64_t spawn_tick;
  uint64_t ik_cost = 0;      // animator.ik_cost(), kept for the daemon's IK budget
  int watchers = 0;          // explicit-id subscriptions naming it
  int compact_watchers = 0;  // those of them in ENCODING_COMPACT
  // Seconds of the ticks that skipped it (degraded ticks, update rates) since it was last
  // advanced: its next evaluation adds them to its dt, unless World::catch_up_clocks steps
  // them first (before a command changes it); a saved state includes them.
  float pending_dt = 0.0f;
  bool updated = false;         // updated in this tick (not skipped): its events are new
  uint32_t palette_offset = 0;  // into this tick's Snapshot::palettes
  // ENCODING_COMPACT: the asset's layout (compact_layout.h), and where the character's
  // quantized pose was in the QuantFrames of the last two quantized ticks it lived through
  // ([0] the latest; the World's quant_recent_ when it was in them).
  std::shared_ptr<const animcodec::Layout> layout;
  uint64_t quant_tick[2] = {0, 0};  // 0: none
  uint32_t quant_offset[2] = {0, 0};
  uint32_t quant_index[2] = {0, 0};
  // The migration freezing it on this daemon (World::outgoing_), 0: none. A frozen character
  // animates and answers queries; commands that change it are refused.
  uint64_t migrating = 0;
  // Update-rate LOD (lod/update_rates.h; docs/animation.md, "Update rates").
  float significance_override = -1.0f;  // set_significance: in [0, 1]; < 0: none
  float significance = 1.0f;            // as the last update computed it, in [0, 1]
  // What the regions and cameras gave it (watched_significance, not watched), for the root
  // position and the World's view generation it was computed at: a character that did not
  // move under the same regions and cameras keeps it.
  float view_significance = 0.0f;
  glm::vec3 view_root{0.0f};
  uint64_t view_generation = 0;  // 0: never computed
  uint8_t interval = 1;          // ticks between its evaluations from the next one on
  uint64_t evaluated_tick = 0;   // B: its last evaluation (0: none yet)
  // A: the evaluation before B when the ticks from B to the next evaluation show the
  // interpolation from A's pose to B's; 0 when they show B's pose.
  uint64_t interpolated_from = 0;
  uint64_t next_evaluation = 0;  // the tick of its next evaluation (planned at B)
  // A's local pose while it interpolates (sized by the tick before it needs it; kept).
  std::vector<anim::Transform> interpolation_from;
  // Model-space bounds of A's and B's poses (anim::pose_bound).
  anim::PoseBound evaluated_bounds[2];
  // What every tick reads of a character comes first, in a few cache lines, and the
  // Animator's own layout orders its part.
  alignas(64) anim::Animator animator;  // its history is in World::history()
  // Current values of each layer and goal, so that partial updates keep the rest (commands
  // only).
  std::map<int, anim::AdditiveLayerUpdate> layers;
  std::map<int, float> goal_weights;
};

// What one pool thread's share of an update with allocated rates counted (World::update), and
// its buffer for the poses shown between two evaluations.
struct alignas(64) UpdateRateCounts {
  SignificanceHistogram histogram{};
  size_t evaluated = 0, skipped = 0;
  size_t detail_skipped = 0;  // characters whose next evaluations skip detail joints
  std::array<uint32_t, kMaxUpdateInterval> intervals{};  // characters by interval - 1
  std::vector<anim::Transform> shown;                    // anim::Skeleton::kMaxJoints entries
};

// Who sent a request.
struct Caller {
  uint64_t session_id = 0;  // the connection (per-connection limits, subscriptions)
  // The token's owner key (auth.h), or 0 when the daemon has no tokens (the connection is
  // then the owner).
  uint64_t owner = 0;
};

// What a request handler knows of its command besides the request.
struct CommandContext {
  uint64_t session = 0;      // the connection that sent it (per-connection limits, subscriptions)
  uint64_t owner = 0;        // the owner key it acts as (World::owner_of: its token's, or its
                             // connection's without tokens)
  uint64_t tick = 0;         // the tick it is applied at
  double server_time = 0.0;  // seconds since the daemon started, at that tick
};

class World {
 public:
  World(const Config& config, Metrics& metrics, AssetCatalog& catalog, WorkerPool& pool);

  // Adds an asset at start-up (before the tick runs). Fails on a duplicate name.
  // `owner`: the owner key of the token that loaded it, the only one that may then spawn from,
  // change, extend or unload it; 0 = shared (any control client may).
  anim::Status add_asset(std::shared_ptr<anim::Asset> asset, uint64_t owner = 0);
  // Defines state machines on an asset at start-up (before the tick runs; the asset's
  // `.animgraph.json` file), all or none: the checks of define_state_machine, with machine i
  // named `state_machines[i]` in errors ("state_machines[0].transitions[2].to: no state named
  // 'rnu'").
  anim::Status add_state_machines(const std::string& asset,
                                  const std::vector<anim::StateMachineDesc>& machines);
  // Debug/benchmark: spawns a character owned by nobody.
  anim::Expected<uint32_t> spawn_unowned(const std::string& asset, const std::string& clip);

  // Applies commands at `tick`, in order; each request's reply goes to its command's sink.
  // A request scheduled for a later tick (Command::at_tick) is kept and applied at its tick,
  // before that tick's batch, scheduled ones in the order they arrived; one for a past tick
  // (FAILED_PRECONDITION) or further ahead than --max-schedule-ahead-ticks
  // (INVALID_ARGUMENT) is refused. A closed connection's scheduled requests are dropped.
  void apply(std::vector<Command>& commands, uint64_t tick, double server_time);
  // Answers every scheduled request with `why` (the daemon stopping) and forgets them.
  void cancel_scheduled(const anim::Status& why);
  size_t scheduled() const { return scheduled_.size(); }
  // One request from `caller` at `tick`, as apply() runs it (minus the reply): checked
  // against the world's state, then applied; on error nothing changed. `request` was made by
  // its converter (protocol/), so its values hold what world_requests.h promises.
  anim::Expected<WorldResult> execute(const WorldRequest& request, const Caller& caller,
                                      uint64_t tick, double server_time);
  // Advances every character by dt and returns the tick's snapshot. `degrade` (the tick before
  // overran its period): without allocated rates (budget unlimited, or --max-update-interval
  // 1), characters nobody watches update only every other tick (with the accumulated dt);
  // with allocated rates and the automatic budget, the budget shrinks, and it grows back after
  // ticks that kept their period (update_rates.h: next_auto_budget_share).
  SnapshotPtr update(float dt, uint64_t tick, double server_time, bool degrade);
  // Whether a tick's quantization (ENCODING_COMPACT) may be left to after the tick
  // (quantize_work.h) when the encode stage is free to take it at once: the server turns it
  // on when it has a stage (whose threads then run it between ticks). The next apply(),
  // execute() or update() completes what is left before it changes anything. Off: the
  // workers quantize inside update(), and every snapshot is quantized when published.
  void set_quantize_after_tick(bool on) { quantize_after_tick_ = on; }
  // Whether settle() may give up a tick's quantization left to after it instead of doing the
  // rest inside the next tick (QuantizeWork::abandon): when at least a quarter of it
  // (kAbandonUntakenShare) was still untaken, and the tick could have been left unquantized
  // anyway (its quantized frame before is at most kMaxDeferredTicks ticks older). The stream
  // then has no frame of that tick, as of a deferred one, and the next frames are pulled and
  // encoded against the frames before it. Off: settle() always completes it.
  void set_abandon_late_quantization(bool on) { abandon_late_quantization_ = on; }
  // Completes the last tick's quantization if it was left to after the tick (quantize_work.h),
  // or gives it up (set_abandon_late_quantization): the characters' poses are read by it
  // until then. apply(), execute() and update() call it first; the tick loop calls it before
  // apply() to time it apart (TickPhases::settle_us).
  void settle();

  // The characters' pose history: a frame per tick, published at the end of update(); read
  // by any thread (pose_query.h).
  const std::shared_ptr<const PoseHistory>& history() const { return history_view_; }
  // The hit volumes in force (set_hit_volumes replacements), published when they change;
  // read by any thread (hit_query.h).
  const std::shared_ptr<const HitVolumeTable>& hit_volumes() const { return hit_table_view_; }

  // The daemon's saved state (--state-dir; world_persist.cpp, docs/operations.md "Saved
  // state"). capture_characters appends the states of at most `max` characters with ids
  // greater than `after`, in id order, as the update of `tick` would start from them, and
  // returns the last id captured (0: none is left after `after`). drop_despawned removes
  // from `saved` (sorted by id) the characters that no longer exist.
  uint32_t capture_characters(uint32_t after, size_t max, uint64_t tick,
                              std::vector<PersistedCharacter>& out) const;
  void drop_despawned(std::vector<PersistedCharacter>& saved) const;
  uint32_t next_character_id() const { return next_character_id_; }
  // At start-up, before the tick runs: puts the saved characters back under their ids (each
  // checked as import_characters checks a state; one that fails is refused alone), ids
  // continuing past them and `next_id`. An owner key of a connection (no tokens) becomes
  // shared; a token's owner is orphaned at `tick` until a connection with that token comes
  // (--orphan-grace-seconds). Each character is caught up: stepped one tick period at a time
  // from its saved tick to `tick`, at most `max_catch_up_ticks` steps (catch_up == false:
  // none; the clock changed).
  RestoreOutcome restore_characters(std::vector<PersistedCharacter> saved, uint32_t next_id,
                                    uint64_t tick, bool catch_up, uint64_t max_catch_up_ticks);
  // Where the assets' changes made by commands go once applied (null: nowhere).
  void set_asset_changes(AssetChangeSink* sink) { asset_changes_ = sink; }

  // Update-rate LOD: the allocator's pressure in force (update_rates.h), and how many
  // characters have each update interval (index i: interval i + 1).
  float anim_pressure() const { return pressure_; }
  // The update's budget in force, in milliseconds: --anim-budget-ms, or with auto its share of
  // the tick period as the overruns left it; +infinity: unlimited.
  double anim_budget_ms() const;
  std::span<const uint32_t> interval_counts() const { return interval_counts_; }

  // Bytes the tick's stores hold (the memory gauges, docs/operations.md). Tick thread.
  struct StoreBytes {
    size_t history = 0;            // the pose history's frames (PoseHistory::bytes)
    size_t snapshots = 0;          // the snapshots made and kept for reuse (SnapshotPool::bytes)
    size_t quant_frames = 0;       // their quantized poses (QuantFramePool::bytes)
    size_t snapshot_count = 0;     // those snapshots (SnapshotPool::allocated)
    size_t quant_frame_count = 0;  // those frames (QuantFramePool::kept)
  };
  StoreBytes store_bytes() const {
    return {history_->bytes(), snapshots_.bytes(), quant_frames_.bytes(), snapshots_.allocated(),
            quant_frames_.kept()};
  }
  // Tick-time samples, fed by the tick loop (for StatsReply).
  TickStats& tick_stats() { return tick_stats_; }
  // Advances every character by `ticks` tick periods at once, in parallel, as a migration's
  // catch-up does (their events discarded). For the start-up: restoring saved characters
  // takes fleet time too, which they make up before the first tick.
  void advance_all(uint64_t ticks);
  const WorkerPool& pool() const { return pool_; }
  size_t num_characters() const { return characters_.size(); }

 private:
  struct Watch {
    bool all = false;
    std::vector<uint32_t> ids;
    std::optional<StreamRegion> region;  // a region subscription: watches who is in it
    bool compact = false;                // ENCODING_COMPACT (Subscribe::compact)
    std::optional<ViewCamera> camera;    // its camera: significance only
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

  // What apply() does for a kInsertAsset command.
  anim::Expected<WorldResult> insert_asset(const Command& command);
  // What apply() does for a kReplaceAsset command: puts the new version in place of
  // command.replaces if that is still current (FAILED_PRECONDITION otherwise: another load
  // changed the asset meanwhile) and moves the characters of the old version onto it
  // (Animator::rebind: same skeleton, clips appended), so that they can play the new clips.
  anim::Expected<WorldResult> replace_asset(const Command& command);
  // Hands a command's result to its sink.
  void reply(const Command& command, const anim::Expected<WorldResult>& result, uint64_t tick);
  // Applies one command now; true when it changed what update_counts() counts.
  bool run(Command& command, uint64_t tick, double server_time);
  // Keeps a request for its at_tick (false, after answering, when it cannot be).
  bool schedule(Command& command, uint64_t tick);
  void session_closed(uint64_t session_id, uint64_t tick);
  // The owner key a caller acts as: its token's, or its connection's without tokens.
  static uint64_t owner_of(const Caller& caller);
  void note_owner(uint64_t session_id, uint64_t owner);
  void expire_orphans(uint64_t tick);
  void remove_character(uint32_t id);
  // Tells asset_changes_ of `command`, applied with success, if it changed an asset.
  void note_asset_change(const Command& command);
  // Re-derives the IK iteration scale after a change of the total IK cost.
  void update_ik_budget(Character& changed);

  // One handler per request kind, chosen by the request's type (execute()); each checks the
  // request against the world's state first and changes nothing on error. A command's
  // handler is where its IK, hit, state machine or asset family lives (world_ik.cpp,
  // world_hits.cpp, world_state_machine.cpp, world.cpp), else world_commands.cpp.
  anim::Expected<Spawned> handle(const SpawnCharacter& r, const CommandContext& ctx);
  anim::Status handle(const DespawnCharacter& r, const CommandContext& ctx);
  anim::Status handle(const SetRootTransform& r, const CommandContext& ctx);
  anim::Status handle(const SetRootMotion& r, const CommandContext& ctx);
  anim::Status handle(const PlayClip& r, const CommandContext& ctx);
  anim::Status handle(const CrossfadeClip& r, const CommandContext& ctx);
  anim::Status handle(const SetCharacterSpeed& r, const CommandContext& ctx);
  anim::Expected<LayerAdded> handle(const AddLayer& r, const CommandContext& ctx);
  anim::Status handle(const UpdateLayer& r, const CommandContext& ctx);
  anim::Status handle(const RemoveLayer& r, const CommandContext& ctx);
  anim::Expected<IkGoalSet> handle(const SetIkGoal& r, const CommandContext& ctx);
  anim::Expected<IkGoalSet> handle(const MoveIkGoal& r, const CommandContext& ctx);
  anim::Status handle(const ClearIkGoal& r, const CommandContext& ctx);
  anim::Status handle(const SetAimIk& r, const CommandContext& ctx);
  anim::Status handle(const MoveAimTarget& r, const CommandContext& ctx);
  anim::Status handle(const ClearAimIk& r, const CommandContext& ctx);
  anim::Status handle(const SetFootIk& r, const CommandContext& ctx);
  anim::Status handle(const SetGround& r, const CommandContext& ctx);
  anim::Status handle(const ClearFootIk& r, const CommandContext& ctx);
  anim::Expected<PoseAnswer> handle(const QueryPose& r, const CommandContext& ctx);
  CharacterList handle(const ListCharacters& r, const CommandContext& ctx) const;
  anim::Expected<Subscribed> handle(const Subscribe& r, const CommandContext& ctx);
  anim::Status handle(const Unsubscribe& r, const CommandContext& ctx);
  anim::Status handle(const UpdateSubscription& r, const CommandContext& ctx);
  StatsAnswer handle(const GetStats& r, const CommandContext& ctx);
  anim::Status handle(const UnloadAsset& r, const CommandContext& ctx);
  anim::Expected<ClipEventsAnswer> handle(const AddClipEvents& r, const CommandContext& ctx);
  anim::Expected<BlendSpaceDefined> handle(const DefineBlendSpace& r, const CommandContext& ctx);
  anim::Status handle(const SetParameter& r, const CommandContext& ctx);
  anim::Status handle(const PlayMontage& r, const CommandContext& ctx);
  anim::Status handle(const StopMontage& r, const CommandContext& ctx);
  anim::Status handle(const JumpToSection& r, const CommandContext& ctx);
  anim::Status handle(const DefineStateMachine& r, const CommandContext& ctx);
  anim::Status handle(const StartStateMachine& r, const CommandContext& ctx);
  anim::Status handle(const StopStateMachine& r, const CommandContext& ctx);
  anim::Status handle(const SetTrigger& r, const CommandContext& ctx);
  anim::Status handle(const SetPose& r, const CommandContext& ctx);
  anim::Status handle(const BlendOutPose& r, const CommandContext& ctx);
  anim::Status handle(const SetMorphWeights& r, const CommandContext& ctx);
  anim::Status handle(const SetSignificance& r, const CommandContext& ctx);
  anim::Status handle(const ClearMorphWeights& r, const CommandContext& ctx);
  anim::Expected<MachineStateAnswer> handle(const GetMachineState& r, const CommandContext& ctx);
  // Saving and restoring characters (world_state.cpp).
  anim::Expected<CharactersExported> handle(const ExportCharacters& r, const CommandContext& ctx);
  anim::Expected<CharactersImported> handle(const ImportCharacters& r, const CommandContext& ctx);
  // Moving characters between daemons (world_migrate.cpp; fleet.proto has the protocol).
  anim::Expected<MigrationBegun> handle(const BeginMigration& r, const CommandContext& ctx);
  anim::Expected<Migrated> handle(const FinishMigration& r, const CommandContext& ctx);
  anim::Expected<MigrationCommitted> handle(const CommitMigration& r, const CommandContext& ctx);
  // import_characters with a migration id: `made` held until their commit.
  anim::Expected<CharactersImported> hold_migration(const ImportCharacters& r,
                                                    std::vector<std::unique_ptr<Character>> made,
                                                    const CommandContext& ctx);
  // Steps each character from the state `from_ticks[i]`'s update starts with to the one
  // `to_tick`'s starts with, a tick period per tick, in parallel (its events discarded: they
  // fired where it was then). A character already there (or ahead) is left as it is.
  void catch_up(std::vector<std::unique_ptr<Character>>& characters,
                const std::vector<uint64_t>& from_ticks, uint64_t to_tick);
  // Drops held migrations past their expiry and forgets old commits (apply(), every tick).
  void expire_migrations(uint64_t tick);
  // Who is told that `c` left: its owner's connections and those watching it.
  void add_watchers_of(const Character& c, std::vector<uint64_t>& sessions) const;
  // The character's state as the update of `tick` starts from it, its shared objects named:
  // with its pending_dt stepped (Animator::catch_up) on a copy of its Animator, so that saving
  // changes nothing (the tick's quantization may still be reading the character).
  SavedCharacter save_character(const Character& c, uint64_t tick) const;
  // A character made from `saved`, not yet in the world (id 0): the asset usable by `owner`
  // and of the saved fingerprint, its blend spaces and machines defined alike, its Animator set
  // up as spawn does and restored. `field` names the state in errors.
  anim::Expected<std::unique_ptr<Character>> restore_character(const SavedCharacter& saved,
                                                               const std::string& field,
                                                               const CommandContext& ctx);
  anim::Status handle(const SetHitVolumes& r, const CommandContext& ctx);
  anim::Expected<HitVolumesAnswer> handle(const GetHitVolumes& r, const CommandContext& ctx) const;
  // A new character. `owner`: who may drive it (0: shared); `session`: the connection that
  // spawned it (0: nobody's, for spawn_unowned).
  anim::Expected<Spawned> spawn(const SpawnCharacter& r, uint64_t session, uint64_t owner,
                                uint64_t tick);
  // What every new character's Animator is given before its first command (spawn, import):
  // the asset's morph layout, clip events and blend spaces as the World holds them.
  anim::Status set_up_animator(Character& ch);
  // The asset named `name`, for the command whose field is `field`: NOT_FOUND when there is
  // none, PERMISSION_DENIED when another owner than `owner` loaded it unshared.
  anim::Expected<AssetMap::iterator> find_usable_asset(const std::string& name,
                                                       const std::string& field, uint64_t owner);
  // Adds `machines` to `asset`'s state machines, all or none (world_state_machine.cpp):
  // names unique (FAILED_PRECONDITION), at most anim::kMaxStateMachinesPerAsset
  // (RESOURCE_EXHAUSTED), each made by anim::make_state_machine against the asset's clips and
  // blend spaces. `field(i)` is machine i's name in errors.
  anim::Status define_state_machines(const AssetPtr& asset,
                                     const std::vector<anim::StateMachineDesc>& machines,
                                     const std::function<std::string(size_t)>& field);
  // A blend space of the character's asset named `name`, or -1.
  int find_blend_space(const Character& c, const std::string& name) const;
  // Before the parallel update (world_placement.cpp, character_placement.h): each
  // character's place in `snap` and `history` at `tick` (`lod`: update rates are allocated;
  // `quantize`: a QuantFrame is filled this tick; `watch`: compact_watch()), from
  // placements_ (measured afresh where stale). Returns the totals: palette entries,
  // quantized joints, compact slots, morph weights.
  struct TickTotals {
    uint32_t palettes = 0, quant_joints = 0, compact_slots = 0, morphs = 0;
  };
  TickTotals place_tick(uint64_t tick, bool lod, bool quantize, const CompactWatch& watch,
                        Snapshot& snap, HistoryFrame& history);
  // The compact subscriptions' view (gathered into compact_regions_).
  CompactWatch compact_watch();
  // After the parallel update: the characters' fired events into the snapshot, counted.
  void gather_events(Snapshot& snap);
  // The replacement of `asset`'s volumes in hit_overrides_, or null.
  const HitVolumeOverride* override_of(const anim::Asset* asset) const;
  void publish_hit_volumes();

  anim::Expected<Character*> find_character(uint32_t id, const char* field);
  // UNAVAILABLE naming the migration when `c` is frozen by one, else OK.
  anim::Status check_not_migrating(const Character& c, const char* field) const;
  // As find_character, and the character must be shared or belong to `owner`
  // (PERMISSION_DENIED otherwise) and not be migrating. Every command that changes a
  // character finds it here: the character found has its clocks caught up (catch_up_clocks),
  // so that the command takes effect at the tick it runs at. A command refused after that
  // leaves it caught up: the same time at this tick, only stepped before its next evaluation
  // rather than by it.
  anim::Expected<Character*> find_controlled(uint32_t id, const char* field, uint64_t owner);
  // Steps the time of the ticks that skipped `c` since it was last advanced (pending_dt)
  // with Animator::catch_up: its clocks, fades, machines and root are then where a character
  // updated every tick has them when this tick's commands run, and its pose stays the last
  // evaluated one. The events crossed are reported with its next evaluation.
  static void catch_up_clocks(Character& c);
  void unwatch(const Watch& w);
  void publish_catalog();
  void update_counts();

  const Config& config_;
  Metrics& metrics_;
  AssetCatalog& catalog_;
  WorkerPool& pool_;
  // The buffers each pool thread evaluates its updates in (Animator::update(dt, buffers)),
  // indexed by the thread number WorkerPool gives its jobs: one set per thread stays in that
  // core's cache, where each character's own scratch and matrices would be cold memory. Sized
  // for Skeleton::kMaxJoints here, so that no update allocates, whichever thread runs it
  // first.
  std::vector<anim::UpdateBuffers> update_buffers_;
  AssetMap assets_;
  // The owner key of each asset loaded unshared by a token (add_asset); others are shared.
  std::map<std::string, uint64_t, std::less<>> asset_owners_;
  // Each asset's clip events as add_clip_events left them (absent: the clips' own events,
  // which every Animator starts with).
  std::map<const anim::Asset*, std::shared_ptr<const anim::ClipEventTable>> event_tables_;
  // Each asset's blend spaces (define_blend_space; absent: none). Tables only grow.
  std::map<const anim::Asset*, std::shared_ptr<const anim::BlendSpaceTable>> blend_tables_;
  // Each asset's state machines (define_state_machine, `.animgraph.json` files; absent: none).
  // Tables only grow; characters hold the machines they run.
  std::map<const anim::Asset*, std::shared_ptr<const anim::StateMachineTable>> machine_tables_;
  // Each asset's morph weight layout (anim::MorphLayout), made at its first spawn; absent for
  // assets without morph targets.
  std::map<const anim::Asset*, std::shared_ptr<const anim::MorphLayout>> morph_layouts_;
  std::shared_ptr<const anim::MorphLayout> morph_layout_of(const AssetPtr& asset);
  std::vector<std::unique_ptr<Character>> characters_;  // sorted by id
  // &characters_[i]->animator, in the same order (what quantization reads: quantize_work.h).
  std::vector<const anim::Animator*> animators_;
  // characters_[i]->id, in the same order: what a search by id reads (index_of), a few dense
  // lines instead of a Character's line at every step.
  std::vector<uint32_t> character_ids_;
  // The index in characters_ of the character with `id`, or characters_.size() when none.
  size_t index_of(uint32_t id) const;
  std::unordered_map<uint64_t, SessionState> sessions_;
  // Requests waiting for their at_tick, by tick; equal ticks in the order they arrived.
  std::multimap<uint64_t, Command> scheduled_;
  std::unordered_map<uint64_t, OwnerState> owners_;
  size_t orphaned_owners_ = 0;
  size_t asset_bytes_ = 0;        // estimated memory of assets_
  uint64_t ik_cost_ = 0;          // sum of the characters' ik_cost
  float ik_scale_ = 1.0f;         // the iteration scale in force (--ik-budget / ik_cost_)
  int all_watchers_ = 0;          // subscriptions with all_characters
  int compact_all_watchers_ = 0;  // those of them in ENCODING_COMPACT
  // The regions of every region subscription, gathered at a degraded tick or, with update
  // rates allocated, at every tick (kept for its capacity: steady-state ticks do not
  // allocate).
  std::vector<StreamRegion> watched_regions_;
  // The cameras of every subscription, gathered at every tick with update rates allocated
  // (kept for its capacity, as watched_regions_).
  std::vector<CameraCone> watched_cameras_;
  // The regions and cameras of the tick before, and a generation bumped whenever this tick's
  // differ from them (Character::view_generation).
  std::vector<StreamRegion> viewed_regions_;
  std::vector<CameraCone> viewed_cameras_;
  uint64_t view_generation_ = 1;
  // Update-rate LOD (world_lod.cpp): the policy, the pressure for the next tick, the cost
  // model the budget is turned into characters with, and per pool thread what the update
  // counted and its buffer for the interpolated poses.
  RatePolicy rate_policy_;
  float pressure_ = 0.0f;
  // With --anim-budget-ms auto: the budget's share of the tick period, in
  // [kMinAutoBudgetShare, Config::kAutoBudgetShare]; stepped at the start of each update with
  // allocated rates, from its `degrade`.
  double auto_budget_share_ = Config::kAutoBudgetShare;
  TickCostModel cost_model_;
  std::vector<UpdateRateCounts> lod_threads_;
  // Each character's place in the tick being updated, by index (kept for its capacity).
  std::vector<CharacterPlacement> placements_;
  // What the carried part of placements_ is valid for: bumped by a change to many characters
  // at once, or to their order (stale_placements()); a command finding one character makes
  // its entry stale alone (find_character).
  uint64_t placement_generation_ = 1;
  uint64_t measured_generation_ = 0;  // the generation every entry was last measured for
  bool placed_with_lod_ = false;      // the last update allocated rates (rooms depend on it)
  void stale_placements() { ++placement_generation_; }
  // What the placements' `streamed` is valid for: bumped when a compact subscription's region
  // or all-characters flag comes, goes or moves (restream_placements()); the next tick decides
  // `streamed` again from the carried positions alone.
  uint64_t watch_generation_ = 1;
  uint64_t streamed_generation_ = 1;
  void restream_placements() { ++watch_generation_; }
  // The compact region subscriptions' regions, gathered at every tick (kept for its capacity).
  std::vector<StreamRegion> compact_regions_;
  std::vector<uint32_t> interval_counts_;
  // After the update of a tick with allocation on: the next tick's pressure from what the
  // threads counted and the update's wall time.
  void plan_update_rates(double update_ms);
  // Migrations leaving this daemon, by number: where to, and the characters they froze.
  struct OutgoingMigration {
    std::string target;
    std::vector<uint32_t> characters;
  };
  std::map<uint64_t, OutgoingMigration> outgoing_;
  uint64_t next_migration_ = 1;
  // Names this daemon's migrations on targets (MigrationBegun::migration_id): random per start.
  uint64_t migration_nonce_ = 0;
  // Migrations arriving here, held until their commit (or expiry), by migration id: the
  // characters (id 0 until they go live), brought to the state `tick`'s update starts with.
  struct HeldMigration {
    std::vector<std::unique_ptr<Character>> characters;
    uint64_t tick = 0;
    uint64_t expires = 0;  // tick
  };
  std::map<std::string, HeldMigration> held_;
  size_t held_characters_ = 0;  // counted against --max-characters
  // Migrations committed here lately, so that a repeated commit answers the same.
  struct CommittedMigration {
    MigrationCommitted answer;
    uint64_t expires = 0;  // tick
  };
  std::map<std::string, CommittedMigration> committed_;
  // Notices for the next snapshot (Snapshot::moved).
  std::vector<MovedNotice> moved_;
  uint32_t next_character_id_ = 1;
  AssetChangeSink* asset_changes_ = nullptr;
  uint64_t last_tick_ = 0;  // the latest completed tick
  TickStats tick_stats_;
  SnapshotPool snapshots_;       // update()'s snapshots, recycled once their holders let go
  QuantFramePool quant_frames_;  // their quantized poses, likewise
  QuantRef quant_recent_[2];     // the last two ticks quantized ([0] latest)
  bool quantize_after_tick_ = false;
  // The last tick's snapshot while its quantization (Snapshot::quantize) may be unfinished;
  // reset by settle().
  std::shared_ptr<Snapshot> quantizing_;
  // The quantized frame that quantizing_'s frame pushed out of quant_recent_, put back if
  // settle() gives that frame up.
  QuantRef quant_displaced_;
  bool abandon_late_quantization_ = false;
  // settle() gives up a late quantization only when at least 1 / kAbandonUntakenShare of the
  // tick's characters were untaken: less is cheaper to finish than a frame is worth.
  static constexpr size_t kAbandonUntakenShare = 4;
  // Ticks in a row left unquantized while the encode stage is busy, at most (update()). With
  // a stage that gets no CPU, a session's fallback (kStageGraceTicks once the stage is
  // kStageStarvedTicks behind: compact_frame_choice.h) then sends frames within what
  // subscriptions keep for their deltas (kMaxKeptQuantAge, snapshot.h, checked where it is
  // used), so such a stream is slow, not made of key frames.
  static constexpr uint64_t kMaxDeferredTicks = 3;
  // A tick is pulled toward the last two quantized (compact_layout.h) only when the newest of
  // them is at most this many ticks before it: across a longer gap what a delta predicts is
  // too far from the pose to gain bytes, while reading the two frames still costs the tick
  // cold memory (docs/benchmarks.md, "Compact stream").
  static constexpr uint64_t kMaxPullGap = 2;
  std::shared_ptr<PoseHistory> history_;             // written by update() only
  std::shared_ptr<const PoseHistory> history_view_;  // the same, for readers
  HitVolumeOverrides hit_overrides_;  // set_hit_volumes replacements, of loaded assets only
  std::shared_ptr<HitVolumeTable> hit_table_;             // hit_overrides_ as published
  std::shared_ptr<const HitVolumeTable> hit_table_view_;  // the same, for readers
};

}  // namespace animd

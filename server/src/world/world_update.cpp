// The per-tick update: World::update (every character advanced in parallel, the snapshot and
// the history frame filled) and the events gathered after it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "base/tick_vector.h"
#include "history/shown_pose.h"
#include "lod/joint_lod.h"
#include "snapshot/compact_layout.h"
#include "world/character_tick.h"
#include "world/world.h"

namespace animd {

namespace {

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
  // The subscriptions' cameras: significance only (lod/significance.h).
  std::span<const CameraCone> cameras = {};
  // Changes whenever `regions` or `cameras` differ from the tick before's.
  uint64_t view_generation = 0;
  // Update-rate LOD (lod/update_rates.h): off, every character is evaluated every tick (and
  // `degrade` applies).
  bool lod = false;
  bool all_watched = false;  // an all-characters subscription exists
  float pressure = 0.0f;
  const RatePolicy* policy = nullptr;
  std::vector<UpdateRateCounts>* lod_threads = nullptr;  // per pool thread
  // Where each character's data goes (World::place_tick), and what its snapshot entry says
  // of the last two quantized ticks: World::quant_recent_, whether this tick's deltas may
  // pull from them, and whether an all-characters compact subscription exists.
  std::vector<CharacterPlacement>* placements = nullptr;
  // For the next tick's placements: their generation and what compact subscriptions see.
  uint64_t generation = 0;
  CompactWatch watch = {};
  const QuantRef* quant_recent = nullptr;
  bool pull = false;
  bool all_compact_watched = false;
  // Counts the character-ticks that did not fit their placement (Metrics::placement_misses).
  std::atomic<uint64_t>* placement_misses = nullptr;

  bool watched(const Character& c) const {
    if (c.watchers > 0) return true;
    const glm::vec3& p = c.animator.root_transform().translation;
    for (const auto& r : regions)
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
    // What every tick reads of a character is asked for kStateAhead characters ahead (a
    // skipped character takes little time), the rest of an evaluation's kUpdateAhead ahead;
    // with allocated rates only for the characters this tick evaluates.
    constexpr size_t kStateAhead = 8, kUpdateAhead = 2;
    auto state_ahead = [&](size_t k) { prefetch_character_state(*(*j.characters)[k]); };
    auto update_ahead = [&](size_t k) {
      if (!j.lod || (*j.placements)[k].evaluates) prefetch_character_update(*(*j.characters)[k]);
    };
    for (size_t i = begin; i < std::min(end, begin + kStateAhead); ++i) state_ahead(i);
    for (size_t i = begin; i < std::min(end, begin + kUpdateAhead); ++i) update_ahead(i);
    for (size_t i = begin; i < end; ++i) {
      if (i + kStateAhead < end) state_ahead(i + kStateAhead);
      if (i + kUpdateAhead < end) update_ahead(i + kUpdateAhead);
      Character& c = *(*j.characters)[i];
      place(j, c, i);
      const uint8_t interval = c.interval;
      if (lod)
        update_at_rate(j, c, i, buffers, *lod);
      else
        update_every_tick(j, c, i, buffers);
      // What does not fit the placement is left out and counted: more morph weights than
      // were placed, a record the room did not hold, and a record pointing at a setup the
      // frame does not keep alive (placing saw none). None happens while stale placements
      // are measured afresh.
      SnapshotCharacter& sc = j.snapshot->characters[i];
      const std::span<const float> weights = c.animator.morph_weights();
      bool missed = weights.size() > sc.num_morphs;
      const std::span<const float> placed =
          weights.first(std::min<size_t>(sc.num_morphs, weights.size()));
      std::copy(placed.begin(), placed.end(), j.snapshot->morphs.begin() + sc.morph_offset);
      CharacterPlacement& p = (*j.placements)[i];
      HistoryEntry& e = j.history->entries[i];
      if (e.setup != nullptr && !p.has_setups) e = HistoryEntry{e.character, e.offset, 0, e.asset};
      missed = missed || e.size == 0;
      if (missed) j.placement_misses->fetch_add(1, std::memory_order_relaxed);
      // For the next tick, while the character's memory is at hand: what its update changed
      // (a tick that skipped it changes nothing of it but, maybe, its interval).
      if (c.updated || c.interval != interval || p.generation != j.generation)
        measure_character(c, j.lod, j.watch, j.generation, p);
    }
  }

  // The character's places in this tick (World::place_tick) into its snapshot entry, the
  // quantized frame and the character itself (where it is in the last two quantized frames).
  static void place(UpdateJob& j, Character& c, size_t i) {
    const CharacterPlacement& p = (*j.placements)[i];
    c.palette_offset = p.palette_offset;
    Snapshot& snap = *j.snapshot;
    if (QuantFrame* quant = snap.quant.get()) {
      quant->ids[i] = c.id;
      quant->offsets[i] = p.quant_offset;
      quant->joint_counts[i] = p.num_joints;
      quant->morph_offsets[i] = p.morph_offset;
    }
    SnapshotCharacter& sc = snap.characters[i];
    sc.id = c.id;
    sc.asset = p.asset;
    sc.palette_offset = p.palette_offset;
    sc.num_joints = p.num_joints;
    sc.quant_offset = p.quant_offset;
    sc.compact_slot = p.compact_slot;
    sc.morph_offset = p.morph_offset;
    sc.num_morphs = p.num_morphs;
    sc.watched_by_id = c.compact_watchers > 0 || j.all_compact_watched;
    sc.quantized_in_update = false;
    sc.layout = p.layout;
    // c.quant_*: the character's places in its two newest quantized frames, matched to the
    // last two quantized (quant_recent) by tick: after a tick whose quantization was given up
    // (World::settle) the frames before it are the last two again, and the character's newer
    // record names the one given up, its older one the newer of those two.
    auto record_of = [&c](const QuantRef& frame) {
      for (int r = 0; r < 2; ++r)
        if (frame && c.quant_tick[r] != 0 && c.quant_tick[r] == frame->tick) return r;
      return -1;
    };
    for (int k = 0; k < 2; ++k) {
      const QuantRef& recent = j.quant_recent[k];
      const int r = record_of(recent);
      const bool held = r >= 0 && recent->tick + k + 1 == j.tick;
      const bool pulled = r >= 0 && j.pull;
      sc.prev_offset[k] = held ? c.quant_offset[r] : kNotQuantized;
      sc.prev_index[k] = held ? c.quant_index[r] : kNotQuantized;
      sc.pull_offset[k] = pulled ? c.quant_offset[r] : kNotQuantized;
      sc.pull_index[k] = pulled ? c.quant_index[r] : kNotQuantized;
    }
    if (p.quantized) {
      // The record kept beside this tick's: the newest frame still kept, when it holds the
      // character (the record before a tick given up), else the newest record.
      const int kept = std::max(record_of(j.quant_recent[0]), 0);
      c.quant_tick[1] = c.quant_tick[kept], c.quant_offset[1] = c.quant_offset[kept];
      c.quant_index[1] = c.quant_index[kept];
      c.quant_tick[0] = j.tick, c.quant_offset[0] = p.quant_offset;
      c.quant_index[0] = static_cast<uint32_t>(i);
    }
  }

  // The update without allocated rates: every character every tick, but for `degrade`.
  static void update_every_tick(UpdateJob& j, Character& c, size_t i,
                                anim::UpdateBuffers& buffers) {
    // Degraded: an unwatched character updates on every other tick, with both ticks' dt.
    const bool skip = j.degrade && ((c.id + j.tick) & 1u) != 0 && !j.watched(c);
    c.updated = !skip;
    // This tick's model-space matrices, in the thread's buffers: the update's; for a
    // character this tick skipped, those of its last pose.
    const size_t n = joint_count(c);
    std::span<const glm::mat4> model;
    if (skip) {
      c.pending_dt += j.dt;
      model = model_of_last_pose(c, buffers);
    } else {
      buffers.want_model = wants_model(j, c);
      c.animator.update(c.pending_dt + j.dt, buffers);
      c.pending_dt = 0.0f;
      if (buffers.model_written) model = std::span(buffers.model).first(n);
    }
    finish_character(j, c, i, skip);
    if (!model.empty())
      record_entry(*j.history, i, c.animator, model);
    else
      record_entry(*j.history, i, c.animator, reach_of(c), nullptr);
    if (j.palettes) {
      const auto out = std::span(j.snapshot->palettes).subspan(c.palette_offset, model.size());
      anim::build_palette(c.animator.skeleton(), model, out);
    }
    if (j.quantize && j.snapshot->in_quant(i))
      quantize_character(*j.snapshot, i, c.animator, j.snapshot->quant_pull);
  }

  // watched_significance for an unwatched character, kept while it neither moves nor sees
  // the regions and cameras change.
  static float view_significance(const UpdateJob& j, Character& c) {
    const glm::vec3& root = c.animator.root_transform().translation;
    if (c.view_generation != j.view_generation || c.view_root != root) {
      c.view_significance = watched_significance(false, root, j.regions, j.cameras);
      c.view_root = root;
      c.view_generation = j.view_generation;
    }
    return c.view_significance;
  }

  static size_t joint_count(const Character& c) {
    return static_cast<size_t>(c.asset->skeleton.num_joints());
  }
  // The model-space matrices of a character's last evaluated pose, computed in `buffers`
  // (the Animator keeps none of its own: anim::AnimatorBuffers::kLentOnly).
  static std::span<const glm::mat4> model_of_last_pose(const Character& c,
                                                       anim::UpdateBuffers& buffers) {
    const std::span<glm::mat4> model = std::span(buffers.model).first(joint_count(c));
    anim::local_to_model(c.animator.skeleton(), c.animator.local_pose().locals, model);
    return model;
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
  static void finish_character(UpdateJob& j, Character& c, size_t i, bool skipped) {
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
    const size_t n = joint_count(c);
    const bool evaluate = (*j.placements)[i].evaluates;  // as its history room was placed
    c.updated = evaluate;
    std::span<const glm::mat4> model;  // the evaluated pose's matrices, when computed
    if (evaluate) {
      const uint64_t next = next_on_phase(j.tick, c.id, c.interval);
      const bool interpolates =
          next - j.tick > 1 && c.evaluated_tick != 0 && c.interpolation_from.size() == n;
      buffers.want_model = wants_model(j, c);
      // Interpolating: the pose before this evaluation becomes A (the storage is exchanged).
      if (interpolates)
        c.animator.update(c.pending_dt + j.dt, buffers, c.interpolation_from);
      else
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
    finish_character(j, c, i, !evaluate);

    // What this tick shows, and its record: a tick that did not evaluate the character
    // refers to the record of its last evaluation.
    const uint32_t repeats_back = evaluate ? 0u : static_cast<uint32_t>(j.tick - c.evaluated_tick);
    float alpha = 1.0f;
    if (c.interpolated_from != 0) {
      const double span = static_cast<double>(c.next_evaluation - c.evaluated_tick);
      alpha = static_cast<float>(
          std::min(1.0, static_cast<double>(j.tick - c.evaluated_tick + 1) / std::max(1.0, span)));
    }
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
      record_entry(*j.history, i, c.animator, both, &shown, repeats_back);
      const bool quantize_shown = j.snapshot->in_quant(i);
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
      record_entry(*j.history, i, c.animator, c.evaluated_bounds[1], nullptr, repeats_back);
      if (j.palettes) {
        if (!evaluate) model = model_of_last_pose(c, buffers);
        const auto out = std::span(j.snapshot->palettes).subspan(c.palette_offset, n);
        anim::build_palette(c.animator.skeleton(), model, out);
      }
    }
    if (j.quantize && j.snapshot->in_quant(i) && !j.snapshot->characters[i].quantized_in_update)
      quantize_character(*j.snapshot, i, c.animator, j.snapshot->quant_pull);

    // The next ticks' interval, from what watches the character now.
    const float s = c.significance_override >= 0.0f   ? c.significance_override
                    : c.watchers > 0 || j.all_watched ? 1.0f
                                                      : view_significance(j, c);
    c.significance = s;
    const int interval = next_interval(s, c.interval, j.pressure, *j.policy);
    if (interval < c.interval)  // more significant: sooner, at once when every tick
      c.next_evaluation = std::min(c.next_evaluation, next_on_phase(j.tick, c.id, interval));
    c.interval = static_cast<uint8_t>(interval);
    c.animator.set_skip_detail(next_skip_detail(s, c.animator.skip_detail(), j.pressure));
    lod.detail_skipped += c.animator.skip_detail();
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
  if (lod && config_.anim_budget_ms < 0.0)
    auto_budget_share_ =
        next_auto_budget_share(auto_budget_share_, degrade, Config::kAutoBudgetShare);
  // A recycled snapshot: its vectors keep their capacity, so the tick allocates nothing once
  // the character count is steady. Every field is overwritten below and by the job.
  std::shared_ptr<Snapshot> snap = snapshots_.acquire();
  snap->tick = tick;
  snap->previous_tick = last_tick_;
  snap->server_time = server_time;
  resize_for_tick(snap->characters, characters_.size());
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
  if (!quant) quant_frames_.note_tick();
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
    resize_for_tick(quant->ids, characters_.size());
    resize_for_tick(quant->offsets, characters_.size());
    resize_for_tick(quant->joint_counts, characters_.size());
    resize_for_tick(quant->morph_offsets, characters_.size());
  }
  // The compact region subscriptions' regions: with the by-id and all-characters ones, they
  // say who is quantized (CharacterPlacement::streamed).
  snap->regions.clear();
  snap->assets.clear();
  snap->layouts.clear();
  snap->event_tables.clear();
  const CompactWatch watch = compact_watch();
  if (quant) snap->regions.assign(watch.regions.begin(), watch.regions.end());
  // Where each character's data goes (character_placement.h): placed by a serial pass over
  // the placements alone, which the update of the tick before wrote while each character's
  // memory was at hand (it is cold again here: the tick touched thousands of others since).
  HistoryFrame& history = history_->begin_tick(tick, server_time);
  const TickTotals totals = place_tick(tick, lod, static_cast<bool>(quant), watch, *snap, history);
  const uint32_t offset = totals.palettes;
  const uint32_t quant_offset = totals.quant_joints;
  const uint32_t compact_slots = totals.compact_slots;
  const uint32_t morph_offset = totals.morphs;
  // Skin palettes: only while a float subscription exists (nothing else reads them, and
  // building and copying them is a sixth of the tick).
  snap->has_palettes = metrics_.float_subscriptions.load(std::memory_order_relaxed) > 0;
  resize_for_tick(snap->palettes, snap->has_palettes ? offset : 0);
  resize_for_tick(snap->morphs, morph_offset);
  snap->moved.clear();
  std::swap(snap->moved, moved_);
  if (quant) {
    resize_for_tick(quant->joints, quant_offset);
    resize_for_tick(quant->morphs, morph_offset);
    resize_for_tick(quant->roots, characters_.size());
  }
  snap->reset_compact(compact_slots);
  snap->prepared.store(false, std::memory_order_relaxed);
  // Everybody is watched while an all-characters subscription exists. Allocated rates
  // replace the degraded ticks.
  degrade = !lod && degrade && all_watchers_ == 0;
  watched_regions_.clear();
  watched_cameras_.clear();
  if (degrade || lod)
    for (const auto& [id, s] : sessions_)
      for (const auto& [sub, w] : s.subscriptions) {
        if (w.region) watched_regions_.push_back(*w.region);
        if (lod && w.camera) watched_cameras_.push_back(camera_cone(*w.camera));
      }
  if (watched_regions_ != viewed_regions_ || watched_cameras_ != viewed_cameras_) {
    ++view_generation_;
    viewed_regions_ = watched_regions_;
    viewed_cameras_ = watched_cameras_;
  }
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
  job.cameras = watched_cameras_;
  job.view_generation = view_generation_;
  job.all_watched = all_watchers_ > 0;
  job.pressure = pressure_;
  job.policy = &rate_policy_;
  job.lod_threads = &lod_threads_;
  job.placements = &placements_;
  job.generation = placement_generation_;
  job.watch = watch;
  job.quant_recent = quant_recent_;
  job.pull = pull;
  job.all_compact_watched = compact_all_watchers_ > 0;
  job.placement_misses = &metrics_.placement_misses;
  if (lod)
    for (auto& t : lod_threads_) {
      t.histogram.fill(0);
      t.intervals.fill(0);
      t.evaluated = t.skipped = t.detail_skipped = 0;
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
    if (after_tick) quant_displaced_ = std::move(quant_recent_[1]);
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
    for (auto& c : characters_) {
      c->interval = 1;
      c->animator.set_skip_detail(false);
    }
    stale_placements();
    metrics_.detail_skipped_characters.store(0, std::memory_order_relaxed);
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
      sc.event_table = nullptr;
      continue;
    }
    const Character& c = *characters_[i];
    const auto events = c.animator.fired_events();
    sc.event_table = Snapshot::hold(snap.event_tables, c.animator.event_table());
    snap.events.insert(snap.events.end(), events.begin(), events.end());
    fired += events.size() + sc.events_overflowed;
    overflowed += sc.events_overflowed;
  }
  if (fired) metrics_.events_fired.fetch_add(fired, std::memory_order_relaxed);
  if (overflowed) metrics_.events_overflowed.fetch_add(overflowed, std::memory_order_relaxed);
}

}  // namespace animd

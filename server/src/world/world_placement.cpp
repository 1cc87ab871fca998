// Before the per-tick update: where each character's data goes in the tick
// (character_placement.h), placed by a serial pass over the placements alone.
#include <algorithm>

#include "base/tick_vector.h"
#include "history/pose_history.h"
#include "world/character_tick.h"
#include "world/world.h"

namespace animd {

namespace {

// Every character measured afresh, in parallel (after a change to many at once).
struct MeasureJob {
  const std::vector<std::unique_ptr<Character>>* characters;
  std::vector<CharacterPlacement>* placements;
  bool lod;
  CompactWatch watch;
  uint64_t generation;

  static void run(void* self, size_t begin, size_t end, int /*thread*/) {
    auto& j = *static_cast<MeasureJob*>(self);
    constexpr size_t kAhead = 4;
    auto ahead = [&](size_t k) {
      prefetch_character_state(*(*j.characters)[k]);
      prefetch_character_update(*(*j.characters)[k]);
    };
    for (size_t i = begin; i < std::min(end, begin + kAhead); ++i) ahead(i);
    for (size_t i = begin; i < end; ++i) {
      if (i + kAhead < end) ahead(i + kAhead);
      measure_character(*(*j.characters)[i], j.lod, j.watch, j.generation, (*j.placements)[i]);
    }
  }
};

// Every placement's `streamed` decided again from its carried position (after a compact
// subscription's region or all-characters flag changed).
struct RestreamJob {
  std::vector<CharacterPlacement>* placements;
  CompactWatch watch;

  static void run(void* self, size_t begin, size_t end, int /*thread*/) {
    auto& j = *static_cast<RestreamJob*>(self);
    for (size_t i = begin; i < end; ++i) {
      CharacterPlacement& p = (*j.placements)[i];
      p.streamed = compact_sees(j.watch, p.watched_by_id, p.position);
    }
  }
};

}  // namespace

CompactWatch World::compact_watch() {
  compact_regions_.clear();
  for (const auto& [id, s] : sessions_)
    for (const auto& [sub, w] : s.subscriptions)
      if (w.region && w.compact) compact_regions_.push_back(*w.region);
  return CompactWatch{compact_regions_, compact_all_watchers_ > 0};
}

World::TickTotals World::place_tick(uint64_t tick, bool lod, bool quantize,
                                    const CompactWatch& watch, Snapshot& snap,
                                    HistoryFrame& history) {
  if (placements_.size() < characters_.size()) placements_.resize(characters_.size());
  if (lod != placed_with_lod_) stale_placements();
  placed_with_lod_ = lod;
  if (measured_generation_ != placement_generation_) {
    MeasureJob job{&characters_, &placements_, lod, watch, placement_generation_};
    pool_.run(characters_.size(), &MeasureJob::run, &job);
    measured_generation_ = placement_generation_;
    streamed_generation_ = watch_generation_;
  }
  if (streamed_generation_ != watch_generation_) {
    RestreamJob job{&placements_, watch};
    pool_.run(characters_.size(), &RestreamJob::run, &job);
    streamed_generation_ = watch_generation_;
  }
  TickTotals t;
  // One entry and placement per character: room for all at once, not grown entry by entry.
  reserve_for_tick(history.entries, characters_.size());
  reserve_for_tick(history.placements, characters_.size());
  for (size_t i = 0; i < characters_.size(); ++i) {
    CharacterPlacement& p = placements_[i];
    // Found by a command since its update: its memory is read here.
    if (p.generation != placement_generation_)
      measure_character(*characters_[i], lod, watch, placement_generation_, p);
    if (p.needs_interpolation_room) {  // once, when its interval first grows
      characters_[i]->interpolation_from.resize(p.num_joints);
      p.needs_interpolation_room = false;
    }
    // With update rates: its first evaluation, then its planned ones.
    p.evaluates = !lod || p.first_evaluation || tick >= p.next_evaluation;
    p.record_room = p.evaluates ? p.room_evaluated : p.room_skipped;
    p.quantized = quantize && p.streamed;
    p.palette_offset = t.palettes;
    t.palettes += p.num_joints;
    p.quant_offset = p.quantized ? t.quant_joints : kNotQuantized;
    p.compact_slot = p.quantized ? t.compact_slots++ : kNotQuantized;
    if (p.quantized) t.quant_joints += p.num_joints;
    p.morph_offset = t.morphs;
    t.morphs += p.num_morphs;
    add_entry(history, p.id, p.asset, *p.asset_owner, p.record_room,
              p.has_setups ? p.animator : nullptr);
    Snapshot::hold(snap.assets, p.asset, *p.asset_owner);
    if (p.layout) Snapshot::hold(snap.layouts, p.layout, *p.layout_owner);
  }
  return t;
}

}  // namespace animd

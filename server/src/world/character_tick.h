#pragma once
// What the passes of World::update (world_update.cpp, world_placement.cpp) share about one
// character in one tick.
#include <cstdint>
#include <span>

#include "history/pose_history.h"
#include "snapshot/stream_region.h"
#include "world/character_placement.h"
#include "world/world.h"

namespace animd {

// Asks for what any tick reads of a character (evaluated or skipped) to be brought into the
// cache: its first lines and its Animator's state (anim::Animator::prefetch_state).
inline void prefetch_character_state(const Character& c) {
  const char* p = reinterpret_cast<const char*>(&c);
  const char* end = reinterpret_cast<const char*>(&c.animator);
  for (; p < end; p += 64) __builtin_prefetch(p);
  c.animator.prefetch_state();
}
// The same for the rest of what an update that evaluates it reads first.
inline void prefetch_character_update(const Character& c) {
  c.animator.prefetch();
}

// The carried part of `p` (character_placement.h) from the character as it is now, for the
// tick after: `lod`, update rates are allocated.
inline void measure_character(const Character& c, bool lod, const CompactWatch& watch,
                              uint64_t generation, CharacterPlacement& p) {
  const anim::Animator& a = c.animator;
  p.id = c.id;
  p.num_joints = static_cast<uint32_t>(c.asset->skeleton.num_joints());
  p.num_morphs = static_cast<uint32_t>(a.morph_weights().size());
  // A tick that does not evaluate it refers to its last evaluation's record
  // (record_reference); before its first, every tick evaluates it.
  const bool may_interpolate = lod && (c.interval > 1 || c.interpolated_from != 0);
  p.room_evaluated = entry_room(a, may_interpolate);
  p.room_skipped = c.evaluated_tick == 0
                       ? p.room_evaluated
                       : reference_words(a, a.root_transform(), c.interpolated_from != 0);
  p.first_evaluation = c.evaluated_tick == 0;
  p.next_evaluation = c.next_evaluation;
  p.position = a.root_transform().translation;
  p.watched_by_id = c.compact_watchers > 0;
  p.streamed = compact_sees(watch, p.watched_by_id, p.position);
  p.has_setups = a.setup() != nullptr || a.evaluated_setup() != nullptr;
  p.needs_interpolation_room = lod && c.interval > 1 && c.interpolation_from.size() != p.num_joints;
  p.asset = c.asset.get();
  p.asset_owner = &c.asset;
  p.layout = c.layout.get();
  p.layout_owner = &c.layout;
  p.animator = &a;
  p.generation = generation;
}

}  // namespace animd

#pragma once
// Where one character's data goes in one tick (World::update): in the snapshot's palettes,
// morph weights and compact slots, the quantized frame's joints and the history frame's
// words. Made so that the tick's serial part reads no character's memory:
//   1. carried: what the character needs, written at the end of its update in the tick before
//      (its memory is at hand then), or measured afresh from the character when that is stale
//      (a command found it, or something changed many characters at once);
//   2. placed (the tick thread): offsets as running sums over these entries alone, and the
//      history entries and keep-alives in id order;
//   3. the update job copies the offsets into the character and its snapshot entry, whose
//      memory it touches anyway.
#include <cstdint>
#include <memory>
#include <span>

#include <glm/vec3.hpp>

#include "anim/animator.h"
#include "anim/asset.h"
#include "snapshot/snapshot.h"
#include "snapshot/stream_region.h"

namespace animd {

// What a compact subscription sees of the characters: the compact region subscriptions'
// regions, and whether an all-characters compact subscription exists.
struct CompactWatch {
  std::span<const StreamRegion> regions = {};
  bool all = false;
};

// Whether a compact subscription may encode a character at `position` (by id: `by_id`). One
// tick's motion does not carry a character from outside a region's outer zone into its inner
// one, where a region's members start, so the position before the update decides.
inline bool compact_sees(const CompactWatch& watch, bool by_id, const glm::vec3& position) {
  if (by_id || watch.all) return true;
  for (const StreamRegion& region : watch.regions)
    if (region.zone(position) != StreamRegion::Zone::kOutside) return true;
  return false;
}

struct CharacterPlacement {
  // Carried (valid while `generation` is the World's placement generation; 0: stale).
  uint64_t generation = 0;
  uint32_t id = 0;
  uint32_t num_joints = 0;
  uint32_t num_morphs = 0;
  // Its history room (entry_room) at a tick that evaluates it, and at one that does not.
  uint32_t room_evaluated = 0;
  uint32_t room_skipped = 0;
  // When update rates are allocated: whether it has not been evaluated yet, and its next
  // planned evaluation (it is due at a tick >= that).
  bool first_evaluation = true;
  uint64_t next_evaluation = 0;
  // Its root position before the next update (world units) and whether a compact
  // subscription names it by id: what `streamed` is decided from, again without reading the
  // character when only the subscriptions' regions change (restream_placements()).
  glm::vec3 position{0.0f};
  bool watched_by_id = false;
  bool streamed = false;    // a compact subscription may encode it (by id, all or region)
  bool has_setups = false;  // its Animator holds a setup or an evaluated one
  // Its interval grew past 1 and the pose it interpolates from has no room yet.
  bool needs_interpolation_room = false;
  // Its asset and compact layout (null: none), with the shared pointers owning them (in the
  // character; read only for the first character of each, by address), and its Animator.
  const anim::Asset* asset = nullptr;
  const AssetPtr* asset_owner = nullptr;
  const animcodec::Layout* layout = nullptr;
  const std::shared_ptr<const animcodec::Layout>* layout_owner = nullptr;
  const anim::Animator* animator = nullptr;  // read when placing only when has_setups

  // Placed for this tick: its history room, whether it is evaluated and quantized, and
  // offsets into the
  // Snapshot::palettes, QuantFrame::joints (kNotQuantized: not quantized), the compact slots
  // (kNotQuantized: none) and Snapshot::morphs.
  uint32_t record_room = 0;
  bool evaluates = true;  // the update evaluates it (else it shows its last evaluations)
  bool quantized = false;
  uint32_t palette_offset = 0;
  uint32_t quant_offset = kNotQuantized;
  uint32_t compact_slot = kNotQuantized;
  uint32_t morph_offset = 0;
};

}  // namespace animd

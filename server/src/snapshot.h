#pragma once
// One tick's result, immutable once published (shared_ptr<const Snapshot>): what every
// subscription encodes its stream frames from, on the network threads.

#include <cstdint>
#include <memory>
#include <vector>

#include "anim/palette.h"
#include "anim/transform.h"
#include "asset_catalog.h"

namespace animd {

struct SnapshotCharacter {
  uint32_t id = 0;
  AssetPtr asset;               // keeps the name alive; asset->name is sent
  anim::Transform root;         // world placement at this tick
  uint32_t palette_offset = 0;  // into Snapshot::palettes
  uint32_t num_joints = 0;
};

struct Snapshot {
  uint64_t tick = 0;
  double server_time = 0.0;  // seconds since the daemon started (steady clock), tick start
  std::vector<SnapshotCharacter> characters;  // sorted by id
  std::vector<anim::PaletteMatrix> palettes;  // every character's palette, back to back

  // The character with `id`, or null (binary search: characters are sorted).
  const SnapshotCharacter* find(uint32_t id) const;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

}  // namespace animd

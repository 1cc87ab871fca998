#pragma once
// A character's significance: how much its animation matters to someone, in [0, 1]. The
// update-rate allocator (update_rates.h) gives the most significant characters the most
// updates. Computed per character and tick from what watches it, unless the game server set
// one (set_significance), which then wins.
//
// Rules, highest first:
//   1. an override in [0, 1] (set_significance) is the significance;
//   2. watched by id or by an all-characters subscription: 1;
//   3. the root in a region subscription's shape: 1; in its outer zone: kOuterZone;
//   4. otherwise, per region, kNearRegion / (1 + d / kFalloffMetres), d = the root's distance
//      to the region's shape (its outer zone excluded), the largest over the regions;
//   5. no region and no watcher: 0.
// Ties are broken by the allocator (by character id), so equal inputs give equal rates.

#include <span>

#include <glm/glm.hpp>

#include "snapshot/stream_region.h"

namespace animd {

inline constexpr float kOuterZone = 0.8f;
inline constexpr float kNearRegion = 0.6f;
inline constexpr float kFalloffMetres = 20.0f;

// Metres from `p` to the region's shape (0 inside it).
float distance_to_region(const StreamRegion& region, const glm::vec3& p);

// Rules 2-5 for a character whose root is at `root`: `watched` when a subscription names it
// or watches every character.
float watched_significance(bool watched, const glm::vec3& root,
                           std::span<const StreamRegion> regions);

}  // namespace animd

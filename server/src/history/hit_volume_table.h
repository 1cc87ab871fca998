#pragma once
// The hit volumes in force for each asset: the ones fitted at load (anim::Asset::hit_volumes)
// unless set_hit_volumes replaced them. The World (tick thread) owns the replacements and
// publishes them as one immutable list; hit queries on any thread read the list they got for
// the whole query. A replacement lives while its asset is loaded (unload_asset drops it; a
// query at a past tick then tests that asset's despawned characters with its fitted volumes).

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "anim/hit_volumes.h"
#include "assets/asset_catalog.h"

namespace animd {

struct HitVolumeOverride {
  AssetPtr asset;                                   // never null
  std::shared_ptr<const anim::HitVolumes> volumes;  // never null
};
using HitVolumeOverrides = std::vector<HitVolumeOverride>;  // one per asset at most

class HitVolumeTable {
 public:
  HitVolumeTable() : overrides_(std::make_shared<const HitVolumeOverrides>()) {}

  // Any thread.
  std::shared_ptr<const HitVolumeOverrides> get() const {
    std::lock_guard lock(mutex_);
    return overrides_;
  }
  // Tick thread.
  void publish(std::shared_ptr<const HitVolumeOverrides> overrides) {
    std::lock_guard lock(mutex_);
    overrides_ = std::move(overrides);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const HitVolumeOverrides> overrides_;
};

// The volumes in force for `asset`: its override in `overrides`, else its fitted ones.
inline const anim::HitVolumes& volumes_in_force(const HitVolumeOverrides& overrides,
                                                const anim::Asset& asset) {
  for (const auto& o : overrides)
    if (o.asset.get() == &asset) return *o.volumes;
  return asset.hit_volumes;
}

}  // namespace animd

#pragma once
// The daemon's loaded assets, as an immutable map published by the tick thread (which owns
// insertions) and read by any thread: network threads answer list_assets and
// get_asset_data from it without touching the World.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "anim/asset.h"

namespace animd {

using AssetPtr = std::shared_ptr<const anim::Asset>;
using AssetMap = std::map<std::string, AssetPtr, std::less<>>;

class AssetCatalog {
 public:
  AssetCatalog() : map_(std::make_shared<const AssetMap>()) {}
  std::shared_ptr<const AssetMap> get() const {
    std::lock_guard lock(mutex_);
    return map_;
  }
  void publish(std::shared_ptr<const AssetMap> map) {
    std::lock_guard lock(mutex_);
    map_ = std::move(map);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const AssetMap> map_;
};

}  // namespace animd

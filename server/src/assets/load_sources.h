#pragma once
// LoadSources: what each asset that load_asset made was made from (its LoadRequest, the
// uploaded bytes included), from the loader thread that made it to the tick that adds it,
// for the saved state's asset journal (--state-dir; persist/asset_journal.h). Off until
// enabled: then load_requested_asset remembers each request it loads, and the tick takes it
// back by the asset once the asset is in the World. An entry whose asset was never added (a
// refused insert takes it too; a load the daemon dropped while stopping) goes with its asset.
//
// One per process (the loaders and the World meet only through Commands). Thread-safe.

#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "anim/asset.h"
#include "assets/load_request.h"

namespace animd {

class LoadSources {
 public:
  static LoadSources& global();

  void enable(bool on);
  bool enabled() const;
  // Keeps a copy of `request` for `asset` (when enabled).
  void remember(const std::shared_ptr<const anim::Asset>& asset, const LoadRequest& request);
  // The request `asset` was made from, once (nullopt: none kept).
  std::optional<LoadRequest> take(const anim::Asset* asset);

 private:
  mutable std::mutex mutex_;
  bool enabled_ = false;
  std::vector<std::pair<std::weak_ptr<const anim::Asset>, LoadRequest>> kept_;
};

}  // namespace animd

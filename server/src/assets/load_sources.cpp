#include "assets/load_sources.h"

#include <algorithm>

namespace animd {

LoadSources& LoadSources::global() {
  static LoadSources sources;
  return sources;
}

void LoadSources::enable(bool on) {
  std::lock_guard lock(mutex_);
  enabled_ = on;
  if (!on) kept_.clear();
}

bool LoadSources::enabled() const {
  std::lock_guard lock(mutex_);
  return enabled_;
}

void LoadSources::remember(const std::shared_ptr<const anim::Asset>& asset,
                           const LoadRequest& request) {
  std::lock_guard lock(mutex_);
  if (!enabled_) return;
  std::erase_if(kept_, [](const auto& k) { return k.first.expired(); });
  kept_.emplace_back(asset, request);
}

std::optional<LoadRequest> LoadSources::take(const anim::Asset* asset) {
  std::lock_guard lock(mutex_);
  for (auto it = kept_.begin(); it != kept_.end(); ++it) {
    if (it->first.expired() || it->first.lock().get() != asset) continue;
    LoadRequest out = std::move(it->second);
    kept_.erase(it);
    return out;
  }
  return std::nullopt;
}

}  // namespace animd

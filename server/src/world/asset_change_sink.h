#pragma once
// AssetChangeSink: told by the World of every change to its assets that a client made, once
// applied, so that the saved state (--state-dir) can journal them and make them again at the
// next start (persist/asset_journal.h). Called on the tick thread; must not block.

#include <cstdint>
#include <memory>

#include "anim/asset.h"
#include "assets/load_request.h"
#include "world/world_requests.h"

namespace animd {

class AssetChangeSink {
 public:
  virtual ~AssetChangeSink() = default;
  // A load_asset's asset was added (`replaced` false) or put in place of the version it
  // extends (attach_to). `owner`: the owner key it was added under (0: shared). `source`: the
  // request it was made from (Command::source; null: not kept).
  virtual void asset_loaded(const std::shared_ptr<const anim::Asset>& asset,
                            std::shared_ptr<const LoadRequest> source, uint64_t owner,
                            bool replaced) = 0;
  // A request that changes an asset or its definitions (define_blend_space,
  // define_state_machine, add_clip_events, set_hit_volumes, unload_asset) was applied, acting
  // as `owner` (a token's owner key, or 0 for a connection without a token).
  virtual void request_applied(const WorldRequest& request, uint64_t owner) = 0;
};

}  // namespace animd

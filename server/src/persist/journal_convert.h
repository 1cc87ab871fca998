#pragma once
// The asset journal's records (asset_journal.h) are the wire requests that made each change:
// a change the World applied (domain form: world_requests.h, assets/load_request.h) is turned
// back into the anim.v1.Request a client would send for it, and at start-up the record goes
// through the same converters and checks as a client's request.

#include <optional>

#include "anim/status.h"
#include "anim/v1/envelope.pb.h"
#include "assets/load_request.h"
#include "world/world_requests.h"

namespace animd {

// load_asset with everything `r` holds (the upload's bytes or the path, name, skin, BVH
// options, attach_to, shared).
anim::v1::Request journal_request(const LoadRequest& r);
// The request of an asset change (define_blend_space, define_state_machine, add_clip_events,
// set_hit_volumes, unload_asset); nullopt for any other request.
std::optional<anim::v1::Request> journal_request(const WorldRequest& r);

// A record's request back in the World's terms, as a session converts it (caps, form):
// for load_asset a LoadRequest, else a WorldRequest.
struct JournaledChange {
  std::optional<LoadRequest> load;
  std::optional<WorldRequest> request;
};
anim::Expected<JournaledChange> journaled_change(anim::v1::Request&& r);

}  // namespace animd

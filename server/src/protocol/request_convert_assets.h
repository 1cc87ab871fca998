#pragma once
// load_asset's wire request as the daemon's LoadRequest (assets/load_request.h). Nothing is
// checked here: the loader checks the fields against the source (asset_loading.h).

#include "anim/v1/assets.pb.h"
#include "assets/load_request.h"

namespace animd {

// Moves the uploaded bytes out of `request` rather than copying them.
LoadRequest load_request_from_proto(anim::v1::LoadAssetRequest&& request);

}  // namespace animd

#pragma once
// The converters for morph targets (morph.proto): set_morph_weights and clear_morph_weights.
// Each entry's form and numbers are checked here, with the field's name in the error; which
// targets exist is the World's to check (the character's asset).

#include "anim/status.h"
#include "anim/v1/morph.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> set_morph_weights_request(const anim::v1::SetMorphWeightsRequest& r);
anim::Expected<WorldRequest> clear_morph_weights_request(
    const anim::v1::ClearMorphWeightsRequest& r);

}  // namespace animd

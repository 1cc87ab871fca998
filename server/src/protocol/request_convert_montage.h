#pragma once
// The converters for montages (montage.proto): play_montage, stop_montage and
// jump_to_section. Numbers, list lengths and name lengths are checked here, with the field's
// name in the error; characters, slots, clips and how sections fit the clip are the World's
// (and core's) to check.

#include "anim/status.h"
#include "anim/v1/montage.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> play_montage_request(const anim::v1::PlayMontageRequest& r);
anim::Expected<WorldRequest> stop_montage_request(const anim::v1::StopMontageRequest& r);
anim::Expected<WorldRequest> jump_to_section_request(const anim::v1::JumpToSectionRequest& r);

}  // namespace animd

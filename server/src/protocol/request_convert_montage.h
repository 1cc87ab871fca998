#pragma once
// The converters for montages (montage.proto): play_montage and stop_montage. Numbers are
// checked here, with the field's name in the error; characters, slots and clips are the
// World's to check.

#include "anim/status.h"
#include "anim/v1/montage.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> play_montage_request(const anim::v1::PlayMontageRequest& r);
anim::Expected<WorldRequest> stop_montage_request(const anim::v1::StopMontageRequest& r);

}  // namespace animd

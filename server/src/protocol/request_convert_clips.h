#pragma once
// The converters for what is added to an asset's clips at run time and how characters
// blend them: add_clip_events (assets.proto), define_blend_space and set_parameter
// (blend.proto). Name lengths, numbers and the axes count are checked here, with the field's
// name in the error (list lengths are capped before: request_convert_caps.h); assets, clips
// and characters are the World's to check.

#include "anim/status.h"
#include "anim/v1/assets.pb.h"
#include "anim/v1/blend.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> add_clip_events_request(const anim::v1::AddClipEventsRequest& r);
anim::Expected<WorldRequest> define_blend_space_request(const anim::v1::DefineBlendSpaceRequest& r);
anim::Expected<WorldRequest> set_parameter_request(const anim::v1::SetParameterRequest& r);

}  // namespace animd

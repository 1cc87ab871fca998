#pragma once
// The converters for the aim and foot IK requests (ik.proto): every number is checked here
// (finite, in range), with the field's name in the error (per-joint lists are capped at a
// chain's length before: request_convert_caps.h); joint names and chains are the Animator's
// to check.

#include "anim/status.h"
#include "anim/v1/ik.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> set_aim_ik_request(const anim::v1::SetAimIkRequest& r);
anim::Expected<WorldRequest> move_aim_target_request(const anim::v1::MoveAimTargetRequest& r);
anim::Expected<WorldRequest> set_foot_ik_request(const anim::v1::SetFootIkRequest& r);
anim::Expected<WorldRequest> set_ground_request(const anim::v1::SetGroundRequest& r);

}  // namespace animd

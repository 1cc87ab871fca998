#pragma once
// The converters for held poses (pose.proto): set_pose and blend_out_pose. The layout and
// the numbers are checked here, with the field's name in the error; the joint count and the
// transforms' validity are the Animator's to check (through the World).

#include "anim/status.h"
#include "anim/v1/pose.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> set_pose_request(const anim::v1::SetPoseRequest& r);
anim::Expected<WorldRequest> blend_out_pose_request(const anim::v1::BlendOutPoseRequest& r);

}  // namespace animd

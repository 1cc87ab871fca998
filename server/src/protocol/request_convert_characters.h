#pragma once
// The converters for the character requests (characters.proto): spawning and placing,
// root motion, clips and layers, IK goals and pose queries. Numbers and enum values are
// checked here, with the field's name in the error; assets, clips and joints are the
// World's to check.
#include "anim/status.h"
#include "anim/v1/characters.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> spawn_request(const anim::v1::SpawnRequest& r);
anim::Expected<WorldRequest> set_root_request(const anim::v1::SetRootTransformRequest& r);
anim::Expected<WorldRequest> set_root_motion_request(const anim::v1::SetRootMotionRequest& r);
anim::Expected<WorldRequest> play_request(const anim::v1::PlayRequest& r);
anim::Expected<WorldRequest> crossfade_request(const anim::v1::CrossfadeRequest& r);
anim::Expected<WorldRequest> set_speed_request(const anim::v1::SetSpeedRequest& r);
anim::Expected<WorldRequest> add_layer_request(const anim::v1::AddLayerRequest& r);
anim::Expected<WorldRequest> update_layer_request(const anim::v1::UpdateLayerRequest& r);
anim::Expected<WorldRequest> set_ik_goal_request(const anim::v1::SetIkGoalRequest& r);
anim::Expected<WorldRequest> query_pose_request(const anim::v1::QueryPoseRequest& r);
anim::Expected<WorldRequest> set_significance_request(const anim::v1::SetSignificanceRequest& r);

}  // namespace animd

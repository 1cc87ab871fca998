#pragma once
// The converters for the hit requests (hits.proto): raycast and overlap_sphere (answered
// from the pose history) and set_hit_volumes. Vectors, distances and capsule sizes are
// checked here, with the field's name in the error; characters, assets and joints are the
// World's (or the history's) to check.
#include "anim/status.h"
#include "anim/v1/hits.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<Raycast> raycast_request(const anim::v1::RaycastRequest& r);
anim::Expected<OverlapSphere> overlap_sphere_request(const anim::v1::OverlapSphereRequest& r);
anim::Expected<WorldRequest> set_hit_volumes_request(const anim::v1::SetHitVolumesRequest& r);

}  // namespace animd

#pragma once
// The edge between the wire protocol and the World: the request converters
// (request_convert_<family>.h, each anim::v1 request -> the World's request) and
// WorldResult -> anim::v1::Reply. Every protobuf <-> World conversion lives in protocol/; the
// World itself never sees a protobuf type.
//
// A converter checks everything a request can get wrong on its own (NaN and infinity, ranges,
// unknown enum values, a request naming nothing), with messages that name the wire field
// ("play.speed is NaN"). Converters are given lists within their caps: every repeated field
// is checked against its cap (request_convert_caps.h) before one runs. They run on the network
// thread (the session's command table, session/command_table.h), so a malformed request is
// answered without reaching the tick. What needs the world's state (unknown character, clip,
// joint; owner; limits) is the World's to check, after these.

#include <string>

#include "anim/status.h"
#include "anim/v1/envelope.pb.h"
#include "lod/view_camera.h"
#include "snapshot/stream_region.h"
#include "world/world_requests.h"
#include "world/world_results.h"

namespace animd {

// A subscription region, checked: one shape, finite values, radius > 0, box min <= max,
// outer_margin >= 0 with outer_rate_divisor >= 2 when it is > 0. `field` names the field in
// errors ("subscribe.region").
anim::Expected<StreamRegion> region_from_proto(const anim::v1::Region& r, const std::string& field);

// A subscription's camera, checked: eye and forward finite with every component within
// [-1e18, 1e18], forward not zero (made unit length), vertical_fov in (0, pi), aspect in
// (0, 1e18]. `field` names the field in errors ("subscribe.camera").
anim::Expected<ViewCamera> camera_from_proto(const anim::v1::Camera& c, const std::string& field);

// The reply for what the World answered: status, and the result for requests that return
// data. request_id and tick are the caller's to set.
anim::v1::Reply to_reply(const anim::Expected<WorldResult>& result);

}  // namespace animd

#pragma once
// The edge between the wire protocol and the World: anim::v1::Request -> WorldRequest, and
// WorldResult -> anim::v1::Reply. Every protobuf <-> World conversion lives here and in the
// request families' request_convert_<family>.h; the World itself never sees a protobuf type.
//
// to_world_request checks everything a request can get wrong on its own (NaN and infinity,
// ranges, unknown enum values, a request naming nothing), with the messages the daemon has
// always given ("play.speed is NaN"). First of all it checks every repeated field against its
// cap (request_convert_caps.h), before anything reads one: the request families
// (request_convert_<family>.h) are only given lists within their caps. It runs on the network
// thread (Session), so a malformed request is answered without reaching the tick. What needs the
// world's state (unknown character, clip, joint; owner; limits) is the World's to check, after
// these.

#include <string>

#include "anim/status.h"
#include "anim/v1/envelope.pb.h"
#include "stream_region.h"
#include "world_requests.h"
#include "world_results.h"

namespace animd {

// The World's request for `request`, or the error to answer it with (nothing changed).
// Subscribe comes back with subscription_id 0: the session assigns it. A request the World
// does not handle (assets: the session and the loader answer those; no command) is
// UNIMPLEMENTED.
anim::Expected<WorldRequest> to_world_request(const anim::v1::Request& request);

// A subscription region, checked: one shape, finite values, radius > 0, box min <= max,
// outer_margin >= 0 with outer_rate_divisor >= 2 when it is > 0. `field` names the field in
// errors ("subscribe.region").
anim::Expected<StreamRegion> region_from_proto(const anim::v1::Region& r, const std::string& field);

// The reply for what the World answered: status, and the result for requests that return
// data. request_id and tick are the caller's to set.
anim::v1::Reply to_reply(const anim::Expected<WorldResult>& result);

}  // namespace animd

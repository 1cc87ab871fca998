#pragma once
// The converters for the stream requests (stream.proto): subscribe and
// update_subscription. Which characters a subscription names (one way only), its event
// threshold, its region and its camera (region_from_proto, camera_from_proto:
// request_convert.h) are checked here, and that an update changes something; subscription ids
// and character ids are the World's to check.
#include "anim/status.h"
#include "anim/v1/stream.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> subscribe_request(const anim::v1::SubscribeRequest& r);
anim::Expected<WorldRequest> update_subscription_request(
    const anim::v1::UpdateSubscriptionRequest& r);

}  // namespace animd

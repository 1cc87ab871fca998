#pragma once
// The converters for the stream requests (stream.proto): subscribe and
// update_subscription. Which characters a subscription names (one way only), its event
// threshold and its region (region_from_proto, request_convert.h) are checked here;
// subscription ids and character ids are the World's to check.
#include "anim/status.h"
#include "anim/v1/stream.pb.h"
#include "world/world_requests.h"

namespace animd {

anim::Expected<WorldRequest> subscribe_request(const anim::v1::SubscribeRequest& r);
anim::Expected<WorldRequest> update_subscription_request(
    const anim::v1::UpdateSubscriptionRequest& r);

}  // namespace animd

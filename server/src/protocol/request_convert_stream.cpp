// The converters for subscriptions, and region_from_proto (request_convert_stream.h).
#include "protocol/request_convert_stream.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "protocol/proto_convert.h"
#include "protocol/request_convert.h"

namespace animd {

namespace {

using Converted = anim::Expected<WorldRequest>;

// Metres. Squared distances of positions up to the float range overflow to infinity; with
// radius + margin <= 2e18 the squared bound stays finite (4e36 < 3.4e38), so an infinite
// squared distance is never "inside".
constexpr float kMaxRegionSize = 1e18f;

}  // namespace

anim::Expected<StreamRegion> region_from_proto(const anim::v1::Region& r,
                                               const std::string& field) {
  StreamRegion out;
  switch (r.shape_case()) {
    case anim::v1::Region::kSphere: {
      out.shape = StreamRegion::Shape::kSphere;
      auto c = from_proto(r.sphere().center(), field + ".sphere.center");
      if (!c) return c.error();
      out.center = *c;
      out.radius = r.sphere().radius();
      // The bound keeps (radius + margin)^2 finite in float.
      if (!(out.radius > 0.0f && out.radius <= kMaxRegionSize))
        return anim::invalid_argument(field + ".sphere.radius must be > 0 and <= 1e18");
      break;
    }
    case anim::v1::Region::kBox: {
      out.shape = StreamRegion::Shape::kBox;
      auto lo = from_proto(r.box().min(), field + ".box.min");
      if (!lo) return lo.error();
      auto hi = from_proto(r.box().max(), field + ".box.max");
      if (!hi) return hi.error();
      if (!glm::all(glm::lessThanEqual(*lo, *hi)))
        return anim::invalid_argument(field + ".box: min must be <= max on every axis");
      out.min = *lo;
      out.max = *hi;
      break;
    }
    default:
      return anim::invalid_argument(field + ": give a sphere or a box");
  }
  out.outer_margin = r.outer_margin();
  if (!(out.outer_margin >= 0.0f && out.outer_margin <= kMaxRegionSize))
    return anim::invalid_argument(field + ".outer_margin must be >= 0 and <= 1e18");
  out.outer_divisor = std::max<uint32_t>(1, r.outer_rate_divisor());
  if (out.outer_margin > 0.0f && out.outer_divisor < 2)
    return anim::invalid_argument(field + ".outer_rate_divisor must be >= 2 with an outer_margin");
  return out;
}

Converted subscribe_request(const anim::v1::SubscribeRequest& r) {
  const int ways = int{r.all_characters()} + int{!r.character_ids().empty()} + int{r.has_region()};
  if (ways == 0)
    return anim::invalid_argument(
        "subscribe: give character_ids, set all_characters or give a region");
  if (ways > 1)
    return anim::invalid_argument(
        "subscribe: give only one of character_ids, all_characters and region");
  if (r.has_events())
    if (auto s = check_range(r.events().min_weight(), 0.0f, 1.0f, "subscribe.events.min_weight");
        !s)
      return s;
  Subscribe out;
  if (r.has_region()) {
    auto region = region_from_proto(r.region(), "subscribe.region");
    if (!region) return region.error();
    out.region = *region;
  }
  out.all_characters = r.all_characters();
  out.compact = r.encoding() == anim::v1::ENCODING_COMPACT;
  out.character_ids.assign(r.character_ids().begin(), r.character_ids().end());
  return WorldRequest(std::move(out));
}

Converted update_subscription_request(const anim::v1::UpdateSubscriptionRequest& r) {
  auto region = region_from_proto(r.region(), "update_subscription.region");
  if (!region) return region.error();
  return WorldRequest(UpdateSubscription{r.subscription_id(), *region});
}

}  // namespace animd

// The converters for subscriptions, region_from_proto and camera_from_proto
// (request_convert_stream.h).
#include "protocol/request_convert_stream.h"

#include <algorithm>
#include <cstdint>
#include <numbers>
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

// A camera's vectors and aspect: the same bound as a region's sizes.
constexpr float kMaxCameraValue = 1e18f;

// A camera vector: finite, every component within +-kMaxCameraValue.
anim::Expected<glm::vec3> bounded_vec3(const anim::v1::Vec3& v, const std::string& field) {
  auto out = from_proto(v, field);
  if (!out) return out.error();
  if (glm::any(glm::greaterThan(glm::abs(*out), glm::vec3(kMaxCameraValue))))
    return anim::invalid_argument(field + ": every component must be within [-1e18, 1e18]");
  return out;
}

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

anim::Expected<ViewCamera> camera_from_proto(const anim::v1::Camera& c, const std::string& field) {
  ViewCamera out;
  auto eye = bounded_vec3(c.eye(), field + ".eye");
  if (!eye) return eye.error();
  out.eye = *eye;
  auto forward = bounded_vec3(c.forward(), field + ".forward");
  if (!forward) return forward.error();
  // Normalized in double: no component of an accepted vector underflows or overflows there.
  const glm::dvec3 f(*forward);
  const double length = glm::length(f);
  if (!(length > 0.0)) return anim::invalid_argument(field + ".forward must not be zero");
  out.forward = glm::vec3(f / length);
  out.vertical_fov = c.vertical_fov();
  // pi as a float rounds up: the largest float accepted is below pi (tan(fov / 2) finite).
  if (!(out.vertical_fov > 0.0f && out.vertical_fov < std::numbers::pi_v<float>))
    return anim::invalid_argument(field + ".vertical_fov must be in (0, pi) radians");
  out.aspect = c.aspect();
  if (!(out.aspect > 0.0f && out.aspect <= kMaxCameraValue))
    return anim::invalid_argument(field + ".aspect must be > 0 and <= 1e18");
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
  if (r.has_camera()) {
    auto camera = camera_from_proto(r.camera(), "subscribe.camera");
    if (!camera) return camera.error();
    out.camera = *camera;
  }
  out.all_characters = r.all_characters();
  out.compact = r.encoding() == anim::v1::ENCODING_COMPACT;
  out.character_ids.assign(r.character_ids().begin(), r.character_ids().end());
  return WorldRequest(std::move(out));
}

Converted update_subscription_request(const anim::v1::UpdateSubscriptionRequest& r) {
  if (!r.has_region() && !r.has_camera() && !r.clear_camera())
    return anim::invalid_argument(
        "update_subscription: give a region, a camera or clear_camera (nothing to change)");
  if (r.has_camera() && r.clear_camera())
    return anim::invalid_argument(
        "update_subscription: give either camera or clear_camera, not both");
  UpdateSubscription out;
  out.subscription_id = r.subscription_id();
  if (r.has_region()) {
    auto region = region_from_proto(r.region(), "update_subscription.region");
    if (!region) return region.error();
    out.region = *region;
  }
  if (r.has_camera()) {
    auto camera = camera_from_proto(r.camera(), "update_subscription.camera");
    if (!camera) return camera.error();
    out.camera = *camera;
  }
  out.clear_camera = r.clear_camera();
  return WorldRequest(std::move(out));
}

}  // namespace animd

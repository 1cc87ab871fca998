// The converters for hit queries and hit volumes (request_convert_hits.h).
#include "protocol/request_convert_hits.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "protocol/proto_convert.h"

namespace animd {

namespace {

using Converted = anim::Expected<WorldRequest>;

// Ids of characters a hit query leaves out: sorted and unique (it looks them up).
std::vector<uint32_t> ignore_list(const google::protobuf::RepeatedField<uint32_t>& ids) {
  std::vector<uint32_t> out(ids.begin(), ids.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Hit capsules stay within this size (asset units), so that their squares and the bounds made
// from them stay far from the float range.
constexpr float kMaxCapsuleSize = 1e6f;

anim::Expected<anim::HitCapsule> capsule(const anim::v1::Capsule& c, const std::string& field) {
  anim::HitCapsule out;
  auto a = from_proto(c.a(), field + ".a");
  if (!a) return a.error();
  auto b = from_proto(c.b(), field + ".b");
  if (!b) return b.error();
  if (auto s = check_finite(c.radius(), field + ".radius"); !s) return s;
  if (c.radius() < 0.0f) return anim::invalid_argument(field + ".radius is negative");
  const float size = std::max({std::abs(a->x), std::abs(a->y), std::abs(a->z), std::abs(b->x),
                               std::abs(b->y), std::abs(b->z), c.radius()});
  if (size > kMaxCapsuleSize)
    return anim::invalid_argument(field + ": ends and radius must be within 1e6 (got " +
                                  std::to_string(size) + ")");
  out.a = *a;
  out.b = *b;
  out.radius = c.radius();
  return out;
}

}  // namespace

anim::Expected<Raycast> raycast_request(const anim::v1::RaycastRequest& r) {
  Raycast out;
  auto origin = from_proto(r.origin(), "raycast.origin");
  if (!origin) return origin.error();
  out.origin = *origin;
  auto direction = from_proto(r.direction(), "raycast.direction");
  if (!direction) return direction.error();
  // In double: the squares of a tiny (but non-zero) float direction do not underflow.
  const glm::dvec3 d(*direction);
  const double length = std::sqrt(glm::dot(d, d));
  if (!(length > 0.0)) return anim::invalid_argument("raycast.direction is zero");
  out.direction = glm::vec3(d / length);
  if (auto s = check_finite(r.max_distance(), "raycast.max_distance"); !s) return s;
  if (!(r.max_distance() > 0.0f))
    return anim::invalid_argument("raycast.max_distance must be > 0 (it is " +
                                  std::to_string(r.max_distance()) + ")");
  out.max_distance = r.max_distance();
  if (r.has_tick()) out.tick = r.tick();
  out.ignore = ignore_list(r.ignore_character_ids());
  return out;
}

anim::Expected<OverlapSphere> overlap_sphere_request(const anim::v1::OverlapSphereRequest& r) {
  OverlapSphere out;
  auto center = from_proto(r.center(), "overlap_sphere.center");
  if (!center) return center.error();
  out.center = *center;
  if (auto s = check_finite(r.radius(), "overlap_sphere.radius"); !s) return s;
  if (r.radius() < 0.0f) return anim::invalid_argument("overlap_sphere.radius is negative");
  out.radius = r.radius();
  if (r.has_tick()) out.tick = r.tick();
  out.ignore = ignore_list(r.ignore_character_ids());
  return out;
}

Converted set_hit_volumes_request(const anim::v1::SetHitVolumesRequest& r) {
  SetHitVolumes out;
  out.asset = r.asset();
  out.reset = r.reset();
  out.joints.reserve(static_cast<size_t>(r.joints_size()));
  for (int i = 0; i < r.joints_size(); ++i) {
    const auto& j = r.joints(i);
    const std::string field = "set_hit_volumes.joints[" + std::to_string(i) + "]";
    JointCapsuleEdit e;
    switch (j.joint_case()) {
      case anim::v1::JointCapsule::kJointName:
        if (j.joint_name().empty()) return anim::invalid_argument(field + ".joint_name is empty");
        e.joint_name = j.joint_name();
        break;
      case anim::v1::JointCapsule::kJointIndex:
        e.joint_index = j.joint_index();
        break;
      default:
        return anim::invalid_argument(field + ": give joint_name or joint_index");
    }
    auto c = capsule(j.capsule(), field + ".capsule");
    if (!c) return c.error();
    e.capsule = *c;
    out.joints.push_back(std::move(e));
  }
  return WorldRequest(std::move(out));
}

}  // namespace animd

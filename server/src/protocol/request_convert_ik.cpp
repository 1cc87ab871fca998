// The converters for the aim and foot IK requests (request_convert_ik.h).
#include "protocol/request_convert_ik.h"

#include <cmath>
#include <string>

#include "protocol/proto_convert.h"

namespace animd {

namespace {

using anim::Status;
using Converted = anim::Expected<WorldRequest>;

constexpr float kPi = 3.14159265358979f;
constexpr float kMaxLength = 1e6f;  // asset units: offsets and thresholds

// A Vec3 that must be finite and non-zero (an axis or a direction).
anim::Expected<glm::vec3> direction(const anim::v1::Vec3& v, const std::string& field) {
  auto d = from_proto(v, field);
  if (!d) return d.error();
  if (!(glm::length(*d) > 1e-6f) || !std::isfinite(glm::length(*d)))
    return anim::invalid_argument(field + " is zero (or too long); it must be a direction");
  return *d;
}

// Each value of a per-chain-joint list within [lo, hi] (its length is capped before:
// request_convert_caps.h).
Status per_joint(const google::protobuf::RepeatedField<float>& values, float lo, float hi,
                 const std::string& field) {
  for (int i = 0; i < values.size(); ++i)
    if (auto s = check_range(values[i], lo, hi, field + "[" + std::to_string(i) + "]"); !s)
      return s;
  return {};
}

anim::Expected<anim::IkSpace> space(anim::v1::Space s, const std::string& field) {
  switch (s) {
    case anim::v1::SPACE_MODEL:
      return anim::IkSpace::kModel;
    case anim::v1::SPACE_WORLD:
      return anim::IkSpace::kWorld;
    default:
      return anim::invalid_argument(field + " has an unknown value " + std::to_string(s));
  }
}

}  // namespace

Converted set_aim_ik_request(const anim::v1::SetAimIkRequest& r) {
  SetAimIk out;
  out.character = r.character_id();
  anim::AimIkDesc& d = out.desc;
  d.root_joint = r.root_joint();
  d.end_joint = r.end_joint();
  if (r.has_forward_axis()) {
    auto f = direction(r.forward_axis(), "set_aim_ik.forward_axis");
    if (!f) return f.error();
    d.forward_axis = *f;
  }
  auto sp = space(r.space(), "set_aim_ik.space");
  if (!sp) return sp.error();
  d.space = *sp;
  auto target = from_proto(r.target(), "set_aim_ik.target");
  if (!target) return target.error();
  d.target = *target;
  if (r.has_weight()) {
    if (auto s = check_range(r.weight(), 0.0f, 1.0f, "set_aim_ik.weight"); !s) return s;
    d.weight = r.weight();
  }
  if (r.has_up_axis() && !r.has_pole())
    return anim::invalid_argument("set_aim_ik.up_axis is set without a pole");
  if (r.has_pole()) {
    auto pole = direction(r.pole(), "set_aim_ik.pole");
    if (!pole) return pole.error();
    d.has_pole = true;
    d.pole = *pole;
    if (r.has_up_axis()) {
      auto up = direction(r.up_axis(), "set_aim_ik.up_axis");
      if (!up) return up.error();
      d.up_axis = *up;
    }
  }
  if (auto s = per_joint(r.joint_weights(), 0.0f, 1e6f, "set_aim_ik.joint_weights"); !s) return s;
  if (auto s = per_joint(r.max_angles(), 0.0f, kPi, "set_aim_ik.max_angles"); !s) return s;
  d.joint_weights.assign(r.joint_weights().begin(), r.joint_weights().end());
  d.max_angles.assign(r.max_angles().begin(), r.max_angles().end());
  return WorldRequest(std::move(out));
}

Converted move_aim_target_request(const anim::v1::MoveAimTargetRequest& r) {
  MoveAimTarget out;
  out.character = r.character_id();
  auto target = from_proto(r.target(), "move_aim_target.target");
  if (!target) return target.error();
  out.target = *target;
  if (r.has_weight()) {
    if (auto s = check_range(r.weight(), 0.0f, 1.0f, "move_aim_target.weight"); !s) return s;
    out.weight = r.weight();
  }
  return WorldRequest(std::move(out));
}

Converted set_foot_ik_request(const anim::v1::SetFootIkRequest& r) {
  SetFootIk out;
  out.character = r.character_id();
  anim::FootIkDesc& d = out.desc;
  const anim::v1::LegJoints* legs[2] = {&r.left(), &r.right()};
  for (int f = 0; f < anim::kNumFeet; ++f)
    d.legs[f] = {legs[f]->hip(), legs[f]->knee(), legs[f]->ankle(), ""};
  d.pelvis = r.pelvis();
  if (r.has_left_sole_offset()) {
    if (auto s =
            check_range(r.left_sole_offset(), 0.0f, kMaxLength, "set_foot_ik.left_sole_offset");
        !s)
      return s;
    d.sole_offsets[0] = r.left_sole_offset();
  }
  if (r.has_right_sole_offset()) {
    if (auto s =
            check_range(r.right_sole_offset(), 0.0f, kMaxLength, "set_foot_ik.right_sole_offset");
        !s)
      return s;
    d.sole_offsets[1] = r.right_sole_offset();
  }
  if (r.has_max_tilt()) {
    if (auto s = check_range(r.max_tilt(), 0.0f, 1.5f, "set_foot_ik.max_tilt"); !s) return s;
    d.max_tilt = r.max_tilt();
  }
  if (r.has_weight()) {
    if (auto s = check_range(r.weight(), 0.0f, 1.0f, "set_foot_ik.weight"); !s) return s;
    d.weight = r.weight();
  }
  d.lock_feet = r.has_lock_feet() ? r.lock_feet() : true;
  if (auto s = check_range(r.contact_height(), 0.0f, kMaxLength, "set_foot_ik.contact_height"); !s)
    return s;
  if (auto s = check_range(r.contact_speed(), 0.0f, kMaxLength, "set_foot_ik.contact_speed"); !s)
    return s;
  d.contact_height = r.contact_height();
  d.contact_speed = r.contact_speed();
  if (r.has_release_time()) {
    if (auto s = check_range(r.release_time(), 0.0f, 10.0f, "set_foot_ik.release_time"); !s)
      return s;
    d.release_time = r.release_time();
  }
  return WorldRequest(std::move(out));
}

Converted set_ground_request(const anim::v1::SetGroundRequest& r) {
  SetGround out;
  out.character = r.character_id();
  const auto normal = [](bool has, const anim::v1::Vec3& v,
                         const std::string& field) -> anim::Expected<glm::vec3> {
    if (!has) return glm::vec3(0.0f, 1.0f, 0.0f);
    auto n = direction(v, field);
    if (!n) return n.error();
    if (!(glm::normalize(*n).y > 0.1f))
      return anim::invalid_argument(field + " must face up (y > 0.1 once normalized)");
    return *n;
  };
  switch (r.ground_case()) {
    case anim::v1::SetGroundRequest::kPlane: {
      out.ground.kind = anim::GroundDesc::Kind::kPlane;
      auto point = from_proto(r.plane().point(), "set_ground.plane.point");
      if (!point) return point.error();
      out.ground.point = *point;
      auto n = normal(r.plane().has_normal(), r.plane().normal(), "set_ground.plane.normal");
      if (!n) return n.error();
      out.ground.normal = *n;
      break;
    }
    case anim::v1::SetGroundRequest::kFeet: {
      out.ground.kind = anim::GroundDesc::Kind::kFootSamples;
      const anim::v1::FootGround* feet[2] = {&r.feet().left(), &r.feet().right()};
      const char* names[2] = {"set_ground.feet.left", "set_ground.feet.right"};
      for (int f = 0; f < anim::kNumFeet; ++f) {
        const std::string field = names[f];
        if (auto s = check_range(feet[f]->height(), -1e9f, 1e9f, field + ".height"); !s) return s;
        out.ground.heights[f] = feet[f]->height();
        auto n = normal(feet[f]->has_normal(), feet[f]->normal(), field + ".normal");
        if (!n) return n.error();
        out.ground.normals[f] = *n;
      }
      break;
    }
    default:
      return anim::invalid_argument("set_ground has neither plane nor feet");
  }
  if (r.has_weight()) {
    if (auto s = check_range(r.weight(), 0.0f, 1.0f, "set_ground.weight"); !s) return s;
    out.weight = r.weight();
  }
  return WorldRequest(std::move(out));
}

}  // namespace animd

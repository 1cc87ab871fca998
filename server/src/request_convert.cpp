#include "request_convert.h"

#include <algorithm>
#include <cmath>

#include "anim/skeleton.h"
#include "proto_convert.h"
#include "request_convert_ik.h"

namespace animd {

namespace {
using anim::Status;
using Converted = anim::Expected<WorldRequest>;

Converted spawn(const anim::v1::SpawnRequest& r) {
  auto root = from_proto(r.root(), r.has_root(), "spawn.root");
  if (!root) return root.error();
  return WorldRequest(SpawnCharacter{r.asset(), r.clip(), *root, r.shared()});
}

Converted set_root(const anim::v1::SetRootTransformRequest& r) {
  auto root = from_proto(r.root(), r.has_root(), "set_root.root");
  if (!root) return root.error();
  return WorldRequest(SetRootTransform{r.character_id(), *root});
}

Converted set_root_motion(const anim::v1::SetRootMotionRequest& r) {
  SetRootMotion out;
  out.character = r.character_id();
  switch (r.mode()) {
    case anim::v1::ROOT_MOTION_OFF:
      out.mode = anim::RootMotionMode::kOff;
      break;
    case anim::v1::ROOT_MOTION_EXTRACT:
      out.mode = anim::RootMotionMode::kExtract;
      break;
    default:
      return anim::invalid_argument("set_root_motion.mode has an unknown value " +
                                    std::to_string(r.mode()) +
                                    " (ROOT_MOTION_OFF = 0, ROOT_MOTION_EXTRACT = 1)");
  }
  out.joint = r.joint();
  out.extract_vertical = r.extract_vertical();
  return WorldRequest(std::move(out));
}

Converted play(const anim::v1::PlayRequest& r) {
  PlayClip out;
  out.character = r.character_id();
  out.clip = r.clip();
  out.loop = r.has_loop() ? r.loop() : true;
  out.speed = r.has_speed() ? r.speed() : 1.0f;
  out.start_time = r.start_time();
  if (auto s = check_finite(out.speed, "play.speed"); !s) return s;
  if (auto s = check_finite(out.start_time, "play.start_time"); !s) return s;
  return WorldRequest(std::move(out));
}

Converted crossfade(const anim::v1::CrossfadeRequest& r) {
  if (auto s = check_finite(r.duration(), "crossfade.duration"); !s) return s;
  if (r.duration() < 0.0f) return anim::invalid_argument("crossfade.duration is negative");
  CrossfadeClip out;
  out.character = r.character_id();
  out.clip = r.clip();
  out.duration = r.duration();
  out.loop = r.has_loop() ? r.loop() : true;
  out.speed = r.has_speed() ? r.speed() : 1.0f;
  out.sync_normalized_time = r.sync_normalized_time();
  if (auto s = check_finite(out.speed, "crossfade.speed"); !s) return s;
  return WorldRequest(std::move(out));
}

Converted set_speed(const anim::v1::SetSpeedRequest& r) {
  if (auto s = check_finite(r.speed(), "set_speed.speed"); !s) return s;
  return WorldRequest(SetCharacterSpeed{r.character_id(), r.speed()});
}

Converted add_layer(const anim::v1::AddLayerRequest& r) {
  AddLayer out;
  out.character = r.character_id();
  out.clip = r.clip();
  out.reference_clip = r.reference_clip();
  if (auto s = check_finite(r.reference_time(), "add_layer.reference_time"); !s) return s;
  out.reference_time = r.reference_time();
  out.weight = r.has_weight() ? r.weight() : 1.0f;
  if (auto s = check_range(out.weight, 0.0f, 1.0f, "add_layer.weight"); !s) return s;
  out.speed = r.has_speed() ? r.speed() : 1.0f;
  if (auto s = check_finite(out.speed, "add_layer.speed"); !s) return s;
  out.parameter = r.parameter();
  if (auto s = check_range(out.parameter, 0.0f, 1.0f, "add_layer.parameter"); !s) return s;
  switch (r.time_source()) {
    case anim::v1::LAYER_TIME_OWN_CLOCK:
      out.time_source = anim::LayerTimeSource::kOwnClock;
      break;
    case anim::v1::LAYER_TIME_BASE_NORMALIZED:
      out.time_source = anim::LayerTimeSource::kBaseNormalized;
      break;
    case anim::v1::LAYER_TIME_PARAMETER:
      out.time_source = anim::LayerTimeSource::kParameter;
      break;
    default:
      return anim::invalid_argument("add_layer.time_source has an unknown value");
  }
  const auto& m = r.mask();
  if (!m.joint_weights().empty()) {
    out.mask.joint_weights.reserve(m.joint_weights().size());
    for (const auto& [name, value] : m.joint_weights()) {
      if (auto s = check_range(value, 0.0f, 1.0f, "add_layer.mask.joint_weights['" + name + "']");
          !s)
        return s;
      out.mask.joint_weights.emplace_back(name, value);
    }
    // A protobuf map has no order; sorted, the World reports the same unknown joint first
    // whichever order the sender's library wrote them in.
    std::sort(out.mask.joint_weights.begin(), out.mask.joint_weights.end());
  } else {
    out.mask.blend_root = m.blend_root();
  }
  return WorldRequest(std::move(out));
}

Converted update_layer(const anim::v1::UpdateLayerRequest& r) {
  UpdateLayer out;
  out.character = r.character_id();
  out.layer = r.layer_id();
  if (r.has_weight()) {
    if (auto s = check_range(r.weight(), 0.0f, 1.0f, "update_layer.weight"); !s) return s;
    out.weight = r.weight();
  }
  if (r.has_speed()) {
    if (auto s = check_finite(r.speed(), "update_layer.speed"); !s) return s;
    out.speed = r.speed();
  }
  if (r.has_parameter()) {
    if (auto s = check_range(r.parameter(), 0.0f, 1.0f, "update_layer.parameter"); !s) return s;
    out.parameter = r.parameter();
  }
  return WorldRequest(std::move(out));
}

anim::Expected<ChainConstraint> constraint(const anim::v1::JointConstraint& pc,
                                           const std::string& field) {
  ChainConstraint out;
  out.joint = pc.joint();
  anim::JointConstraint& c = out.limits;
  if (pc.has_ball_socket()) {
    // pi, rounded up to the next float: a client sending M_PI as a float is within range.
    if (auto s = check_range(pc.ball_socket().cone_angle(), 0.0f, 3.14159275f,
                             field + ".ball_socket.cone_angle");
        !s)
      return s;
    c.kind = anim::JointConstraint::Kind::kBallSocket;
    c.cone_angle = pc.ball_socket().cone_angle();
  } else if (pc.has_hinge()) {
    const auto& h = pc.hinge();
    auto axis = from_proto(h.axis(), field + ".hinge.axis");
    if (!axis) return axis.error();
    if (glm::length(*axis) < 1e-6f) return anim::invalid_argument(field + ".hinge.axis is zero");
    if (auto s = check_finite(h.min_angle(), field + ".hinge.min_angle"); !s) return s;
    if (auto s = check_finite(h.max_angle(), field + ".hinge.max_angle"); !s) return s;
    if (h.min_angle() > h.max_angle())
      return anim::invalid_argument(field + ".hinge.min_angle is above max_angle");
    c.kind = anim::JointConstraint::Kind::kHinge;
    c.axis = glm::normalize(*axis);
    c.min_angle = h.min_angle();
    c.max_angle = h.max_angle();
  } else {
    return anim::invalid_argument(field + " has neither ball_socket nor hinge");
  }
  return out;
}

Converted set_ik_goal(const anim::v1::SetIkGoalRequest& r) {
  auto target = from_proto(r.target(), "set_ik_goal.target");
  if (!target) return target.error();
  if (r.has_weight())
    if (auto s = check_range(r.weight(), 0.0f, 1.0f, "set_ik_goal.weight"); !s) return s;
  if (r.goal_id() != 0) {
    // Moving a goal takes its target and weight only; the chain's settings stay as they were
    // (and are not looked at).
    MoveIkGoal out{r.character_id(), r.goal_id(), *target, std::nullopt};
    if (r.has_weight()) out.weight = r.weight();
    return WorldRequest(std::move(out));
  }

  SetIkGoal out;
  out.character = r.character_id();
  out.root_joint = r.root_joint();
  out.effector_joint = r.effector_joint();
  out.target = *target;
  out.weight = r.has_weight() ? r.weight() : 1.0f;
  switch (r.solver()) {
    case anim::v1::IK_SOLVER_FABRIK:
      out.solver = anim::IkSolver::kFabrik;
      break;
    case anim::v1::IK_SOLVER_CCD:
      out.solver = anim::IkSolver::kCcd;
      break;
    case anim::v1::IK_SOLVER_TWO_BONE:
      out.solver = anim::IkSolver::kTwoBone;
      break;
    default:
      return anim::invalid_argument("set_ik_goal.solver has an unknown value");
  }
  switch (r.space()) {
    case anim::v1::SPACE_MODEL:
      out.space = anim::IkSpace::kModel;
      break;
    case anim::v1::SPACE_WORLD:
      out.space = anim::IkSpace::kWorld;
      break;
    default:
      return anim::invalid_argument("set_ik_goal.space has an unknown value");
  }
  if (r.has_pole()) {
    auto pole = from_proto(r.pole(), "set_ik_goal.pole");
    if (!pole) return pole.error();
    out.pole = *pole;
  }
  if (auto s = check_range(r.soften(), 0.0f, 1.0f, "set_ik_goal.soften"); !s) return s;
  out.soften = r.soften();
  if (r.max_iterations() > 1000)
    return anim::invalid_argument("set_ik_goal.max_iterations " +
                                  std::to_string(r.max_iterations()) + " is above 1000");
  out.max_iterations = r.max_iterations() == 0 ? 16 : static_cast<int>(r.max_iterations());
  if (auto s = check_finite(r.tolerance(), "set_ik_goal.tolerance"); !s) return s;
  if (r.tolerance() < 0.0f) return anim::invalid_argument("set_ik_goal.tolerance is negative");
  out.tolerance = r.tolerance() == 0.0f ? 1e-4f : r.tolerance();
  for (int i = 0; i < r.joint_weights_size(); ++i)
    if (auto s = check_range(r.joint_weights(i), 0.0f, 1.0f,
                             "set_ik_goal.joint_weights[" + std::to_string(i) + "]");
        !s)
      return s;
  out.joint_weights.assign(r.joint_weights().begin(), r.joint_weights().end());
  out.constraints.reserve(static_cast<size_t>(r.constraints_size()));
  for (int i = 0; i < r.constraints_size(); ++i) {
    auto c = constraint(r.constraints(i), "set_ik_goal.constraints[" + std::to_string(i) + "]");
    if (!c) return c.error();
    out.constraints.push_back(std::move(*c));
  }
  return WorldRequest(std::move(out));
}

Converted query_pose(const anim::v1::QueryPoseRequest& r) {
  QueryPose out;
  out.character = r.character_id();
  if (r.has_tick()) out.tick = r.tick();
  switch (r.space()) {
    case anim::v1::SPACE_MODEL:
      out.space = PoseSpace::kModel;
      break;
    case anim::v1::SPACE_WORLD:
      out.space = PoseSpace::kWorld;
      break;
    default:
      return anim::invalid_argument("query_pose.space has an unknown value");
  }
  out.joint_names.assign(r.joint_names().begin(), r.joint_names().end());
  out.joint_indices.assign(r.joint_indices().begin(), r.joint_indices().end());
  return WorldRequest(std::move(out));
}

Converted add_clip_events(const anim::v1::AddClipEventsRequest& r) {
  AddClipEvents out;
  out.asset = r.asset();
  out.clip = r.clip();
  out.replace = r.replace();
  if (r.events_size() > anim::kMaxEventsPerClip)
    return Status(anim::StatusCode::kResourceExhausted,
                  "add_clip_events.events has " + std::to_string(r.events_size()) +
                      " events, more than " + std::to_string(anim::kMaxEventsPerClip) +
                      " (a clip's limit)");
  out.events.reserve(static_cast<size_t>(r.events_size()));
  for (int i = 0; i < r.events_size(); ++i) {
    const auto& e = r.events(i);
    const std::string field = "add_clip_events.events[" + std::to_string(i) + "]";
    if (auto s = check_finite(e.time(), field + ".time"); !s) return s;
    if (e.time() < 0.0f) return anim::invalid_argument(field + ".time is negative");
    if (e.name().empty()) return anim::invalid_argument(field + ".name is empty");
    if (e.name().size() > anim::kMaxEventNameBytes)
      return anim::invalid_argument(field + ".name is longer than " +
                                    std::to_string(anim::kMaxEventNameBytes) + " bytes");
    if (e.payload().size() > anim::kMaxEventPayloadBytes)
      return anim::invalid_argument(field + ".payload is longer than " +
                                    std::to_string(anim::kMaxEventPayloadBytes) + " bytes");
    out.events.push_back(anim::ClipEvent{e.name(), e.time(), e.payload()});
  }
  return WorldRequest(std::move(out));
}

Converted define_blend_space(const anim::v1::DefineBlendSpaceRequest& r) {
  DefineBlendSpace out;
  out.asset = r.asset();
  if (r.name().empty()) return anim::invalid_argument("define_blend_space.name is empty");
  if (r.name().size() > anim::kMaxBlendNameBytes)
    return anim::invalid_argument("define_blend_space.name is longer than " +
                                  std::to_string(anim::kMaxBlendNameBytes) + " bytes");
  out.name = r.name();
  if (r.axes_size() < 1 || r.axes_size() > 2)
    return anim::invalid_argument("define_blend_space.axes has " + std::to_string(r.axes_size()) +
                                  " names; a blend space has 1 or 2 axes");
  for (int i = 0; i < r.axes_size(); ++i) {
    const std::string field = "define_blend_space.axes[" + std::to_string(i) + "]";
    if (r.axes(i).empty()) return anim::invalid_argument(field + " is empty");
    if (r.axes(i).size() > anim::kMaxBlendNameBytes)
      return anim::invalid_argument(field + " is longer than " +
                                    std::to_string(anim::kMaxBlendNameBytes) + " bytes");
    out.axes.push_back(r.axes(i));
  }
  if (r.samples_size() > anim::kMaxBlendSpaceSamples)
    return Status(anim::StatusCode::kResourceExhausted,
                  "define_blend_space.samples has " + std::to_string(r.samples_size()) +
                      " samples, more than " + std::to_string(anim::kMaxBlendSpaceSamples));
  out.samples.reserve(static_cast<size_t>(r.samples_size()));
  for (int i = 0; i < r.samples_size(); ++i) {
    const auto& s = r.samples(i);
    const std::string field = "define_blend_space.samples[" + std::to_string(i) + "]";
    if (s.clip().empty()) return anim::invalid_argument(field + ".clip is empty");
    for (const auto& [v, axis] : {std::pair{s.x(), ".x"}, std::pair{s.y(), ".y"}}) {
      if (auto st = check_finite(v, field + axis); !st) return st;
      if (std::abs(v) > anim::kMaxBlendCoordinate)
        return anim::invalid_argument(field + axis + " is beyond +-" +
                                      std::to_string(anim::kMaxBlendCoordinate));
    }
    out.samples.emplace_back(s.clip(), glm::vec2(s.x(), s.y()));
  }
  return WorldRequest(std::move(out));
}

Converted set_parameter(const anim::v1::SetParameterRequest& r) {
  SetParameter out;
  out.character = r.character_id();
  if (r.name().empty()) return anim::invalid_argument("set_parameter.name is empty");
  if (r.name().size() > anim::kMaxBlendNameBytes)
    return anim::invalid_argument("set_parameter.name is longer than " +
                                  std::to_string(anim::kMaxBlendNameBytes) + " bytes");
  out.name = r.name();
  if (auto s = check_finite(r.value(), "set_parameter.value"); !s) return s;
  if (auto s = check_finite(r.smoothing(), "set_parameter.smoothing"); !s) return s;
  if (r.smoothing() < 0.0f) return anim::invalid_argument("set_parameter.smoothing is negative");
  out.value = r.value();
  out.smoothing = r.smoothing();
  return WorldRequest(std::move(out));
}

// Ids of characters a hit query leaves out: sorted and unique (it looks them up).
std::vector<uint32_t> ignore_list(const google::protobuf::RepeatedField<uint32_t>& ids) {
  std::vector<uint32_t> out(ids.begin(), ids.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Converted raycast(const anim::v1::RaycastRequest& r) {
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
  return WorldRequest(std::move(out));
}

Converted overlap_sphere(const anim::v1::OverlapSphereRequest& r) {
  OverlapSphere out;
  auto center = from_proto(r.center(), "overlap_sphere.center");
  if (!center) return center.error();
  out.center = *center;
  if (auto s = check_finite(r.radius(), "overlap_sphere.radius"); !s) return s;
  if (r.radius() < 0.0f) return anim::invalid_argument("overlap_sphere.radius is negative");
  out.radius = r.radius();
  if (r.has_tick()) out.tick = r.tick();
  out.ignore = ignore_list(r.ignore_character_ids());
  return WorldRequest(std::move(out));
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

Converted set_hit_volumes(const anim::v1::SetHitVolumesRequest& r) {
  SetHitVolumes out;
  out.asset = r.asset();
  out.reset = r.reset();
  if (r.joints_size() > anim::Skeleton::kMaxJoints)
    return anim::invalid_argument("set_hit_volumes.joints has " + std::to_string(r.joints_size()) +
                                  " entries; a skeleton has at most " +
                                  std::to_string(anim::Skeleton::kMaxJoints) + " joints");
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

Converted subscribe(const anim::v1::SubscribeRequest& r) {
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
  out.character_ids.assign(r.character_ids().begin(), r.character_ids().end());
  return WorldRequest(std::move(out));
}

Converted update_subscription(const anim::v1::UpdateSubscriptionRequest& r) {
  auto region = region_from_proto(r.region(), "update_subscription.region");
  if (!region) return region.error();
  return WorldRequest(UpdateSubscription{r.subscription_id(), *region});
}

}  // namespace

namespace {
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

namespace {

// Writes a WorldResult into its Reply field.
struct ResultWriter {
  anim::v1::Reply& reply;

  void operator()(const Done&) const {}
  void operator()(const Spawned& s) const {
    auto* out = reply.mutable_spawn();
    out->set_character_id(s.character_id);
    out->set_tick(s.tick);
  }
  void operator()(const LayerAdded& l) const {
    reply.mutable_add_layer()->set_layer_id(l.layer_id);
  }
  void operator()(const IkGoalSet& g) const { reply.mutable_set_ik_goal()->set_goal_id(g.goal_id); }
  void operator()(const PoseAnswer& p) const {
    auto* out = reply.mutable_query_pose();
    out->set_tick(p.tick);
    out->set_server_time(p.server_time);
    to_proto(p.root, out->mutable_root());
    out->mutable_joints()->Reserve(static_cast<int>(p.joints.size()));
    for (const PoseJoint& j : p.joints) {
      auto* jp = out->add_joints();
      jp->set_index(j.index);
      jp->set_name(p.asset->skeleton.names[j.index]);
      const float* m = j.matrix.m;
      jp->mutable_matrix()->Add(m, m + 12);
      to_proto(glm::vec3(m[3], m[7], m[11]), jp->mutable_position());
    }
    append_palette(p.palette.data(), p.palette.size(), out->mutable_palette());
  }
  void operator()(const CharacterList& l) const {
    auto* out = reply.mutable_list_characters();
    out->mutable_characters()->Reserve(static_cast<int>(l.characters.size()));
    for (const CharacterEntry& c : l.characters) {
      auto* ci = out->add_characters();
      ci->set_character_id(c.character_id);
      ci->set_asset(c.asset->name);
      if (c.clip >= 0) ci->set_clip(c.asset->clips[static_cast<size_t>(c.clip)].name);
      ci->set_blend_space(c.blend_space);
      to_proto(c.root, ci->mutable_root());
    }
  }
  void operator()(const Subscribed& s) const {
    reply.mutable_subscribe()->set_subscription_id(s.subscription_id);
  }
  void operator()(const StatsAnswer& a) const {
    auto* s = reply.mutable_stats();
    s->set_tick(a.tick);
    s->set_tick_rate_hz(a.tick_rate_hz);
    s->set_uptime_s(a.uptime_s);
    s->set_characters(a.characters);
    s->set_sessions(a.sessions);
    s->set_subscriptions(a.subscriptions);
    s->set_assets(a.assets);
    s->set_tick_time_p50_us(a.tick_time_p50_us);
    s->set_tick_time_p99_us(a.tick_time_p99_us);
    s->set_tick_time_max_us(a.tick_time_max_us);
    s->set_tick_overruns(a.tick_overruns);
    s->set_bytes_in(a.bytes_in);
    s->set_bytes_out(a.bytes_out);
    s->set_stream_frames_sent(a.stream_frames_sent);
    s->set_stream_frames_dropped(a.stream_frames_dropped);
    s->set_requests(a.requests);
    s->set_request_errors(a.request_errors);
    s->set_worker_threads(a.worker_threads);
    s->set_events_fired(a.events_fired);
    s->set_events_overflowed(a.events_overflowed);
    s->set_events_sent(a.events_sent);
    s->set_events_dropped(a.events_dropped);
  }
  void operator()(const ClipEventsAnswer& a) const {
    auto* out = reply.mutable_add_clip_events();
    out->mutable_events()->Reserve(static_cast<int>(a.events.size()));
    for (const anim::ClipEvent& e : a.events) {
      auto* d = out->add_events();
      d->set_name(e.name);
      d->set_time(e.time);
      d->set_payload(e.payload);
    }
  }
  void operator()(const BlendSpaceDefined& d) const {
    reply.mutable_define_blend_space()->set_triangles(d.triangles);
  }
  void operator()(const AssetAdded& a) const {
    fill_asset_info(*a.asset, reply.mutable_load_asset()->mutable_asset());
  }
  void operator()(const RaycastHit& h) const {
    auto* out = reply.mutable_raycast();
    out->set_tick(h.tick);
    out->set_server_time(h.server_time);
    out->set_hit(h.hit);
    if (!h.hit) return;
    out->set_character_id(h.character_id);
    out->set_joint_index(h.joint);
    out->set_joint_name(h.asset->skeleton.names[h.joint]);
    to_proto(h.point, out->mutable_point());
    to_proto(h.normal, out->mutable_normal());
    out->set_distance(h.distance);
  }
  void operator()(const SphereOverlap& o) const {
    auto* out = reply.mutable_overlap_sphere();
    out->set_tick(o.tick);
    out->set_server_time(o.server_time);
    for (const CharacterOverlap& c : o.characters) {
      auto* co = out->add_characters();
      co->set_character_id(c.character_id);
      for (uint32_t j : c.joints) {
        auto* hj = co->add_joints();
        hj->set_index(j);
        hj->set_name(c.asset->skeleton.names[j]);
      }
    }
  }
  void operator()(const HitVolumesAnswer& h) const {
    auto* out = reply.mutable_hit_volumes();
    out->set_asset(h.asset->name);
    out->set_fitted(h.fitted);
    const auto& caps = h.volumes->capsules;
    for (size_t j = 0; j < caps.size(); ++j) {
      if (!caps[j].present()) continue;
      auto* jc = out->add_joints();
      jc->set_joint_index(static_cast<uint32_t>(j));
      jc->set_name(h.asset->skeleton.names[j]);
      to_proto(caps[j].a, jc->mutable_capsule()->mutable_a());
      to_proto(caps[j].b, jc->mutable_capsule()->mutable_b());
      jc->mutable_capsule()->set_radius(caps[j].radius);
    }
  }
};
}  // namespace

anim::Expected<WorldRequest> to_world_request(const anim::v1::Request& r) {
  using R = anim::v1::Request;
  switch (r.command_case()) {
    case R::kSpawn:
      return spawn(r.spawn());
    case R::kDespawn:
      return WorldRequest(DespawnCharacter{r.despawn().character_id()});
    case R::kSetRoot:
      return set_root(r.set_root());
    case R::kSetRootMotion:
      return set_root_motion(r.set_root_motion());
    case R::kPlay:
      return play(r.play());
    case R::kCrossfade:
      return crossfade(r.crossfade());
    case R::kSetSpeed:
      return set_speed(r.set_speed());
    case R::kAddLayer:
      return add_layer(r.add_layer());
    case R::kUpdateLayer:
      return update_layer(r.update_layer());
    case R::kRemoveLayer:
      return WorldRequest(
          RemoveLayer{r.remove_layer().character_id(), r.remove_layer().layer_id()});
    case R::kSetIkGoal:
      return set_ik_goal(r.set_ik_goal());
    case R::kClearIkGoal:
      return WorldRequest(
          ClearIkGoal{r.clear_ik_goal().character_id(), r.clear_ik_goal().goal_id()});
    case R::kQueryPose:
      return query_pose(r.query_pose());
    case R::kListCharacters:
      return WorldRequest(ListCharacters{});
    case R::kSubscribe:
      return subscribe(r.subscribe());
    case R::kUnsubscribe:
      return WorldRequest(Unsubscribe{r.unsubscribe().subscription_id()});
    case R::kUpdateSubscription:
      return update_subscription(r.update_subscription());
    case R::kStats:
      return WorldRequest(GetStats{});
    case R::kUnloadAsset:
      return WorldRequest(UnloadAsset{r.unload_asset().asset()});
    case R::kAddClipEvents:
      return add_clip_events(r.add_clip_events());
    case R::kRaycast:
      return raycast(r.raycast());
    case R::kOverlapSphere:
      return overlap_sphere(r.overlap_sphere());
    case R::kSetHitVolumes:
      return set_hit_volumes(r.set_hit_volumes());
    case R::kGetHitVolumes:
      return WorldRequest(GetHitVolumes{r.get_hit_volumes().asset()});
    case R::kSetAimIk:
      return set_aim_ik_request(r.set_aim_ik());
    case R::kMoveAimTarget:
      return move_aim_target_request(r.move_aim_target());
    case R::kClearAimIk:
      return WorldRequest(ClearAimIk{r.clear_aim_ik().character_id()});
    case R::kSetFootIk:
      return set_foot_ik_request(r.set_foot_ik());
    case R::kSetGround:
      return set_ground_request(r.set_ground());
    case R::kClearFootIk:
      return WorldRequest(ClearFootIk{r.clear_foot_ik().character_id()});
    case R::kDefineBlendSpace:
      return define_blend_space(r.define_blend_space());
    case R::kSetParameter:
      return set_parameter(r.set_parameter());
    default:
      return Status(anim::StatusCode::kUnimplemented, "the world does not handle this request");
  }
}

anim::v1::Reply to_reply(const anim::Expected<WorldResult>& result) {
  anim::v1::Reply reply;
  if (!result) {
    set_status(reply, result.error());
    return reply;
  }
  set_status(reply, Status::ok());
  std::visit(ResultWriter{reply}, *result);
  return reply;
}

}  // namespace animd

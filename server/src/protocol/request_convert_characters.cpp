// The converters for the character requests (request_convert_characters.h).
#include "protocol/request_convert_characters.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/proto_convert.h"

namespace animd {

namespace {

using Converted = anim::Expected<WorldRequest>;

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

// The first entry of `list` (in request order) equal to an earlier one, as
// {earlier position, its position}; nullopt when all differ. Sorts positions, so a list of n
// (at most its cap) costs n log n comparisons, whatever the entries hold.
template <typename List>
std::optional<std::pair<int, int>> first_repeat(const List& list) {
  std::vector<int> order(static_cast<size_t>(list.size()));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return list[a] < list[b]; });
  // Stable: a run of equal entries is in request order, its first two the first repeat.
  auto same = [&](size_t k) { return list[order[k - 1]] == list[order[k]]; };
  std::optional<std::pair<int, int>> out;
  for (size_t k = 1; k < order.size(); ++k)
    if (same(k) && (k == 1 || !same(k - 1)) && (!out || order[k] < out->second))
      out = std::pair{order[k - 1], order[k]};
  return out;
}

}  // namespace

Converted spawn_request(const anim::v1::SpawnRequest& r) {
  auto root = from_proto(r.root(), r.has_root(), "spawn.root");
  if (!root) return root.error();
  return WorldRequest(SpawnCharacter{r.asset(), r.clip(), *root, r.shared()});
}

Converted set_root_request(const anim::v1::SetRootTransformRequest& r) {
  auto root = from_proto(r.root(), r.has_root(), "set_root.root");
  if (!root) return root.error();
  return WorldRequest(SetRootTransform{r.character_id(), *root});
}

Converted set_root_motion_request(const anim::v1::SetRootMotionRequest& r) {
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

Converted play_request(const anim::v1::PlayRequest& r) {
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

Converted crossfade_request(const anim::v1::CrossfadeRequest& r) {
  if (auto s = check_finite(r.duration(), "crossfade.duration"); !s) return s;
  if (r.duration() < 0.0f) return anim::invalid_argument("crossfade.duration is negative");
  CrossfadeClip out;
  out.character = r.character_id();
  out.clip = r.clip();
  out.duration = r.duration();
  out.loop = r.has_loop() ? r.loop() : true;
  out.speed = r.has_speed() ? r.speed() : 1.0f;
  out.sync_normalized_time = r.sync_normalized_time();
  out.sync_markers = r.sync_markers();
  if (r.curve() > 1)
    return anim::invalid_argument("crossfade.curve has an unknown value " +
                                  std::to_string(r.curve()) + " (0 linear, 1 smooth step)");
  out.curve = r.curve() == 1 ? anim::BlendCurve::kSmoothStep : anim::BlendCurve::kLinear;
  if (auto s = check_finite(out.speed, "crossfade.speed"); !s) return s;
  return WorldRequest(std::move(out));
}

Converted set_speed_request(const anim::v1::SetSpeedRequest& r) {
  if (auto s = check_finite(r.speed(), "set_speed.speed"); !s) return s;
  return WorldRequest(SetCharacterSpeed{r.character_id(), r.speed()});
}

Converted add_layer_request(const anim::v1::AddLayerRequest& r) {
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
  switch (r.blend()) {
    case anim::v1::LAYER_BLEND_ADDITIVE:
      out.blend = anim::LayerBlend::kAdditive;
      break;
    case anim::v1::LAYER_BLEND_OVERRIDE:
      out.blend = anim::LayerBlend::kOverride;
      break;
    default:
      return anim::invalid_argument("add_layer.blend has an unknown value " +
                                    std::to_string(r.blend()) +
                                    " (LAYER_BLEND_ADDITIVE = 0, LAYER_BLEND_OVERRIDE = 1)");
  }
  out.state_machine = r.state_machine();
  out.state = r.state();
  out.morph_targets.assign(r.morph_targets().begin(), r.morph_targets().end());
  if (!out.state_machine.empty()) {
    if (!out.clip.empty())
      return anim::invalid_argument("add_layer.clip: a machine layer ('" + out.state_machine +
                                    "') plays its machine's states; leave clip empty");
    if (out.time_source != anim::LayerTimeSource::kOwnClock)
      return anim::invalid_argument(
          "add_layer.time_source: a machine layer runs on its own clock "
          "(LAYER_TIME_OWN_CLOCK)");
  } else if (!out.state.empty()) {
    return anim::invalid_argument("add_layer.state: given without a state_machine");
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

Converted update_layer_request(const anim::v1::UpdateLayerRequest& r) {
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

Converted set_ik_goal_request(const anim::v1::SetIkGoalRequest& r) {
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

Converted query_pose_request(const anim::v1::QueryPoseRequest& r) {
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
  // Each joint at most once: an answer is never longer than the skeleton (a joint both named
  // and indexed is refused by the history, which knows the names: pose_query.h).
  if (auto repeat = first_repeat(r.joint_names()))
    return anim::invalid_argument("query_pose.joint_names[" + std::to_string(repeat->second) +
                                  "]: joint '" + r.joint_names(repeat->second) +
                                  "' is already asked for by joint_names[" +
                                  std::to_string(repeat->first) + "]");
  if (auto repeat = first_repeat(r.joint_indices()))
    return anim::invalid_argument("query_pose.joint_indices[" + std::to_string(repeat->second) +
                                  "]: joint " + std::to_string(r.joint_indices(repeat->second)) +
                                  " is already asked for by joint_indices[" +
                                  std::to_string(repeat->first) + "]");
  out.joint_names.assign(r.joint_names().begin(), r.joint_names().end());
  out.joint_indices.assign(r.joint_indices().begin(), r.joint_indices().end());
  return WorldRequest(std::move(out));
}

anim::Expected<WorldRequest> set_significance_request(const anim::v1::SetSignificanceRequest& r) {
  if (r.character_ids().empty())
    return anim::invalid_argument("set_significance.character_ids is empty: name a character");
  SetSignificance out;
  out.clear = r.clear();
  if (!r.clear() && !(r.significance() >= 0.0f && r.significance() <= 1.0f))
    return anim::invalid_argument("set_significance.significance " +
                                  std::to_string(r.significance()) +
                                  " is not in [0, 1] (or set clear to drop the override)");
  out.significance = r.clear() ? 0.0f : r.significance();
  out.characters.assign(r.character_ids().begin(), r.character_ids().end());
  return WorldRequest(std::move(out));
}

}  // namespace animd

// The World's request handlers: each validates everything first, then changes state, so an
// error leaves the world exactly as it was.
#include <algorithm>
#include <cmath>

#include "anim/palette.h"
#include "proto_convert.h"
#include "world.h"

namespace animd {

namespace {
using anim::Status;

std::string clip_not_found(const std::string& clip, const anim::Asset& a) {
  return "unknown clip '" + clip + "' in asset '" + a.name + "'";
}

anim::Expected<int> find_clip(const std::string& field, const std::string& clip,
                              const anim::Asset& a) {
  const int i = a.find_clip(clip);
  if (i < 0) return anim::not_found(field + ": " + clip_not_found(clip, a));
  return i;
}

anim::Expected<int> find_joint(const std::string& field, const std::string& joint,
                               const anim::Asset& a) {
  const int j = a.skeleton.find_joint(joint);
  if (j < 0)
    return anim::not_found(field + ": unknown joint '" + joint + "' in asset '" + a.name + "'");
  return j;
}

Status check_range(float v, float lo, float hi, const std::string& field) {
  if (auto s = check_finite(v, field); !s) return s;
  if (v < lo || v > hi)
    return anim::invalid_argument(field + " = " + std::to_string(v) + " is outside [" +
                                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return {};
}

void fill_matrix(const glm::mat4& m, anim::v1::JointPose* out) {
  const auto p = anim::PaletteMatrix::from_mat4(m);
  out->mutable_matrix()->Add(p.m, p.m + 12);
  to_proto(glm::vec3(m[3]), out->mutable_position());
}
}  // namespace

anim::v1::Reply World::handle(Command& c, uint64_t tick, double server_time) {
  anim::v1::Reply reply;
  const auto& r = c.request;
  using R = anim::v1::Request;
  const uint64_t owner = owner_of(c);
  Status s;
  switch (r.command_case()) {
    case R::kSpawn:
      s = spawn(r.spawn(), c.session_id, r.spawn().shared() ? 0 : owner, tick, reply);
      break;
    case R::kDespawn:
      s = despawn(r.despawn(), owner);
      break;
    case R::kSetRoot:
      s = set_root(r.set_root(), owner);
      break;
    case R::kPlay:
      s = play(r.play(), owner);
      break;
    case R::kCrossfade:
      s = crossfade(r.crossfade(), owner);
      break;
    case R::kSetSpeed:
      s = set_speed(r.set_speed(), owner);
      break;
    case R::kAddLayer:
      s = add_layer(r.add_layer(), owner, reply);
      break;
    case R::kUpdateLayer:
      s = update_layer(r.update_layer(), owner);
      break;
    case R::kRemoveLayer:
      s = remove_layer(r.remove_layer(), owner);
      break;
    case R::kSetIkGoal:
      s = set_ik_goal(r.set_ik_goal(), owner, reply);
      break;
    case R::kClearIkGoal:
      s = clear_ik_goal(r.clear_ik_goal(), owner);
      break;
    case R::kUnloadAsset:
      s = unload_asset(r.unload_asset());
      break;
    case R::kQueryPose:
      s = query_pose(r.query_pose(), tick, reply);
      break;
    case R::kListCharacters:
      list_characters(reply);
      break;
    case R::kSubscribe:
      s = subscribe(r.subscribe(), c.session_id, c.subscription_id);
      if (s) reply.mutable_subscribe()->set_subscription_id(c.subscription_id);
      break;
    case R::kUnsubscribe:
      s = unsubscribe(r.unsubscribe(), c.session_id);
      break;
    case R::kStats:
      stats(tick, server_time, reply);
      break;
    default:
      s = Status(anim::StatusCode::kUnimplemented, "the world does not handle this request");
  }
  if (!s) reply.clear_result();
  set_status(reply, s);
  return reply;
}

Status World::spawn(const anim::v1::SpawnRequest& r, uint64_t session, uint64_t owner,
                    uint64_t tick, anim::v1::Reply& reply) {
  auto it = assets_.find(r.asset());
  if (it == assets_.end()) return anim::not_found("spawn.asset: unknown asset '" + r.asset() + "'");
  const AssetPtr& asset = it->second;
  auto root = from_proto(r.root(), r.has_root(), "spawn.root");
  if (!root) return root.error();
  int clip = -1;
  if (!r.clip().empty()) {
    auto c = find_clip("spawn.clip", r.clip(), *asset);
    if (!c) return c.error();
    clip = *c;
  }
  if (characters_.size() >= config_.max_characters)
    return Status(anim::StatusCode::kResourceExhausted,
                  "--max-characters (" + std::to_string(config_.max_characters) + ") reached");
  if (session != 0 && sessions_[session].characters >= config_.max_characters_per_connection)
    return Status(anim::StatusCode::kResourceExhausted,
                  "--max-characters-per-connection (" +
                      std::to_string(config_.max_characters_per_connection) + ") reached");
  if (next_character_id_ == 0)
    return Status(anim::StatusCode::kResourceExhausted, "character ids exhausted");
  auto ch = std::make_unique<Character>(next_character_id_, asset, session, tick,
                                        config_.history_ticks());
  if (auto s = ch->animator.set_root_transform(*root); !s) return s;
  if (clip >= 0)
    if (auto s = ch->animator.play(clip); !s) return s;
  ch->owner = owner;
  ++next_character_id_;
  if (session != 0) ++sessions_[session].characters;
  auto* out = reply.mutable_spawn();
  out->set_character_id(ch->id);
  out->set_tick(tick);
  characters_.push_back(std::move(ch));  // ids only grow: stays sorted
  return {};
}

Status World::despawn(const anim::v1::DespawnRequest& r, uint64_t owner) {
  auto c = find_controlled(r.character_id(), "despawn.character_id", owner);
  if (!c) return c.error();
  remove_character((*c)->id);
  return {};
}

Status World::set_root(const anim::v1::SetRootTransformRequest& r, uint64_t owner) {
  auto c = find_controlled(r.character_id(), "set_root.character_id", owner);
  if (!c) return c.error();
  auto root = from_proto(r.root(), r.has_root(), "set_root.root");
  if (!root) return root.error();
  return (*c)->animator.set_root_transform(*root);
}

Status World::play(const anim::v1::PlayRequest& r, uint64_t owner) {
  auto c = find_controlled(r.character_id(), "play.character_id", owner);
  if (!c) return c.error();
  auto clip = find_clip("play.clip", r.clip(), *(*c)->asset);
  if (!clip) return clip.error();
  anim::PlayOptions o;
  o.loop = r.has_loop() ? r.loop() : true;
  o.speed = r.has_speed() ? r.speed() : 1.0f;
  o.start_time = r.start_time();
  if (auto s = check_finite(o.speed, "play.speed"); !s) return s;
  if (auto s = check_finite(o.start_time, "play.start_time"); !s) return s;
  return (*c)->animator.play(*clip, o);
}

Status World::crossfade(const anim::v1::CrossfadeRequest& r, uint64_t owner) {
  auto c = find_controlled(r.character_id(), "crossfade.character_id", owner);
  if (!c) return c.error();
  auto clip = find_clip("crossfade.clip", r.clip(), *(*c)->asset);
  if (!clip) return clip.error();
  if (auto s = check_finite(r.duration(), "crossfade.duration"); !s) return s;
  if (r.duration() < 0.0f) return anim::invalid_argument("crossfade.duration is negative");
  anim::CrossfadeOptions o;
  o.loop = r.has_loop() ? r.loop() : true;
  o.speed = r.has_speed() ? r.speed() : 1.0f;
  o.sync_normalized_time = r.sync_normalized_time();
  if (auto s = check_finite(o.speed, "crossfade.speed"); !s) return s;
  return (*c)->animator.crossfade(*clip, r.duration(), o);
}

Status World::set_speed(const anim::v1::SetSpeedRequest& r, uint64_t owner) {
  auto c = find_controlled(r.character_id(), "set_speed.character_id", owner);
  if (!c) return c.error();
  if (auto s = check_finite(r.speed(), "set_speed.speed"); !s) return s;
  return (*c)->animator.set_speed(r.speed());
}

Status World::add_layer(const anim::v1::AddLayerRequest& r, uint64_t owner,
                        anim::v1::Reply& reply) {
  auto c = find_controlled(r.character_id(), "add_layer.character_id", owner);
  if (!c) return c.error();
  const anim::Asset& a = *(*c)->asset;
  anim::AdditiveLayerDesc d;
  auto clip = find_clip("add_layer.clip", r.clip(), a);
  if (!clip) return clip.error();
  d.clip = *clip;
  if (!r.reference_clip().empty()) {
    auto ref = find_clip("add_layer.reference_clip", r.reference_clip(), a);
    if (!ref) return ref.error();
    d.reference_clip = *ref;
  }
  if (auto s = check_finite(r.reference_time(), "add_layer.reference_time"); !s) return s;
  d.reference_time = r.reference_time();
  d.weight = r.has_weight() ? r.weight() : 1.0f;
  if (auto s = check_range(d.weight, 0.0f, 1.0f, "add_layer.weight"); !s) return s;
  d.speed = r.has_speed() ? r.speed() : 1.0f;
  if (auto s = check_finite(d.speed, "add_layer.speed"); !s) return s;
  d.parameter = r.parameter();
  if (auto s = check_range(d.parameter, 0.0f, 1.0f, "add_layer.parameter"); !s) return s;
  switch (r.time_source()) {
    case anim::v1::LAYER_TIME_OWN_CLOCK:
      d.time_source = anim::LayerTimeSource::kOwnClock;
      break;
    case anim::v1::LAYER_TIME_BASE_NORMALIZED:
      d.time_source = anim::LayerTimeSource::kBaseNormalized;
      break;
    case anim::v1::LAYER_TIME_PARAMETER:
      d.time_source = anim::LayerTimeSource::kParameter;
      break;
    default:
      return anim::invalid_argument("add_layer.time_source has an unknown value");
  }
  const auto& m = r.mask();
  if (!m.joint_weights().empty()) {
    std::vector<float> w(static_cast<size_t>(a.skeleton.num_joints()), 0.0f);
    for (const auto& [name, value] : m.joint_weights()) {
      auto j = find_joint("add_layer.mask.joint_weights", name, a);
      if (!j) return j.error();
      if (auto s = check_range(value, 0.0f, 1.0f, "add_layer.mask.joint_weights['" + name + "']");
          !s)
        return s;
      w[static_cast<size_t>(*j)] = value;
    }
    auto mask = anim::JointMask::per_joint(a.skeleton, std::move(w));
    if (!mask) return mask.error();
    d.mask = std::move(*mask);
  } else if (!m.blend_root().empty()) {
    auto j = find_joint("add_layer.mask.blend_root", m.blend_root(), a);
    if (!j) return j.error();
    auto mask = anim::JointMask::subtree(a.skeleton, *j);
    if (!mask) return mask.error();
    d.mask = std::move(*mask);
  }
  auto id = (*c)->animator.add_layer(d);
  if (!id) return id.error();
  (*c)->layers[*id] = anim::AdditiveLayerUpdate{d.weight, d.speed, d.parameter};
  reply.mutable_add_layer()->set_layer_id(static_cast<uint32_t>(*id));
  return {};
}

Status World::update_layer(const anim::v1::UpdateLayerRequest& r, uint64_t owner) {
  auto c = find_controlled(r.character_id(), "update_layer.character_id", owner);
  if (!c) return c.error();
  auto it = (*c)->layers.find(static_cast<int>(r.layer_id()));
  if (r.layer_id() == 0 || it == (*c)->layers.end())
    return anim::not_found("update_layer.layer_id: unknown layer " + std::to_string(r.layer_id()) +
                           " on character " + std::to_string(r.character_id()));
  anim::AdditiveLayerUpdate u = it->second;
  if (r.has_weight()) u.weight = r.weight();
  if (r.has_speed()) u.speed = r.speed();
  if (r.has_parameter()) u.parameter = r.parameter();
  if (auto s = check_range(u.weight, 0.0f, 1.0f, "update_layer.weight"); !s) return s;
  if (auto s = check_finite(u.speed, "update_layer.speed"); !s) return s;
  if (auto s = check_range(u.parameter, 0.0f, 1.0f, "update_layer.parameter"); !s) return s;
  if (auto s = (*c)->animator.update_layer(it->first, u); !s) return s;
  it->second = u;
  return {};
}

Status World::remove_layer(const anim::v1::RemoveLayerRequest& r, uint64_t owner) {
  auto c = find_controlled(r.character_id(), "remove_layer.character_id", owner);
  if (!c) return c.error();
  auto it = (*c)->layers.find(static_cast<int>(r.layer_id()));
  if (r.layer_id() == 0 || it == (*c)->layers.end())
    return anim::not_found("remove_layer.layer_id: unknown layer " + std::to_string(r.layer_id()) +
                           " on character " + std::to_string(r.character_id()));
  if (auto s = (*c)->animator.remove_layer(it->first); !s) return s;
  (*c)->layers.erase(it);
  return {};
}

Status World::set_ik_goal(const anim::v1::SetIkGoalRequest& r, uint64_t owner,
                          anim::v1::Reply& reply) {
  auto c = find_controlled(r.character_id(), "set_ik_goal.character_id", owner);
  if (!c) return c.error();
  Character& ch = **c;
  const anim::Asset& a = *ch.asset;
  auto target = from_proto(r.target(), "set_ik_goal.target");
  if (!target) return target.error();
  if (r.has_weight())
    if (auto s = check_range(r.weight(), 0.0f, 1.0f, "set_ik_goal.weight"); !s) return s;

  if (r.goal_id() != 0) {  // move an existing goal
    auto it = ch.goal_weights.find(static_cast<int>(r.goal_id()));
    if (it == ch.goal_weights.end())
      return anim::not_found("set_ik_goal.goal_id: unknown IK goal " + std::to_string(r.goal_id()) +
                             " on character " + std::to_string(ch.id));
    const float weight = r.has_weight() ? r.weight() : it->second;
    if (auto s = ch.animator.update_ik_target(it->first, *target, weight); !s) return s;
    it->second = weight;
    reply.mutable_set_ik_goal()->set_goal_id(r.goal_id());
    return {};
  }

  anim::IkGoalDesc d;
  auto root = find_joint("set_ik_goal.root_joint", r.root_joint(), a);
  if (!root) return root.error();
  auto eff = find_joint("set_ik_goal.effector_joint", r.effector_joint(), a);
  if (!eff) return eff.error();
  if (!a.skeleton.is_descendant(*eff, *root))
    return anim::invalid_argument("set_ik_goal: effector_joint '" + r.effector_joint() +
                                  "' does not descend from root_joint '" + r.root_joint() + "'");
  std::vector<int> chain;  // root first
  for (int j = *eff; j != *root; j = a.skeleton.parents[j]) chain.push_back(j);
  chain.push_back(*root);
  std::reverse(chain.begin(), chain.end());

  d.root_joint = r.root_joint();
  d.effector_joint = r.effector_joint();
  switch (r.solver()) {
    case anim::v1::IK_SOLVER_FABRIK:
      d.solver = anim::IkSolver::kFabrik;
      break;
    case anim::v1::IK_SOLVER_CCD:
      d.solver = anim::IkSolver::kCcd;
      break;
    case anim::v1::IK_SOLVER_TWO_BONE:
      d.solver = anim::IkSolver::kTwoBone;
      break;
    default:
      return anim::invalid_argument("set_ik_goal.solver has an unknown value");
  }
  switch (r.space()) {
    case anim::v1::SPACE_MODEL:
      d.space = anim::IkSpace::kModel;
      break;
    case anim::v1::SPACE_WORLD:
      d.space = anim::IkSpace::kWorld;
      break;
    default:
      return anim::invalid_argument("set_ik_goal.space has an unknown value");
  }
  d.target = *target;
  d.weight = r.has_weight() ? r.weight() : 1.0f;
  if (r.has_pole()) {
    auto pole = from_proto(r.pole(), "set_ik_goal.pole");
    if (!pole) return pole.error();
    d.has_pole = true;
    d.pole = *pole;
  }
  if (auto s = check_range(r.soften(), 0.0f, 1.0f, "set_ik_goal.soften"); !s) return s;
  d.soften = r.soften();
  if (r.max_iterations() > 1000)
    return anim::invalid_argument("set_ik_goal.max_iterations " +
                                  std::to_string(r.max_iterations()) + " is above 1000");
  d.max_iterations = r.max_iterations() == 0 ? 16 : static_cast<int>(r.max_iterations());
  if (auto s = check_finite(r.tolerance(), "set_ik_goal.tolerance"); !s) return s;
  if (r.tolerance() < 0.0f) return anim::invalid_argument("set_ik_goal.tolerance is negative");
  d.tolerance = r.tolerance() == 0.0f ? 1e-4f : r.tolerance();
  for (int i = 0; i < r.joint_weights_size(); ++i)
    if (auto s = check_range(r.joint_weights(i), 0.0f, 1.0f,
                             "set_ik_goal.joint_weights[" + std::to_string(i) + "]");
        !s)
      return s;
  d.joint_weights.assign(r.joint_weights().begin(), r.joint_weights().end());
  if (r.constraints_size() > 0) {
    d.constraints.assign(chain.size(), anim::JointConstraint{});
    for (int i = 0; i < r.constraints_size(); ++i) {
      const auto& pc = r.constraints(i);
      const std::string field = "set_ik_goal.constraints[" + std::to_string(i) + "]";
      auto j = find_joint(field + ".joint", pc.joint(), a);
      if (!j) return j.error();
      auto pos = std::find(chain.begin(), chain.end(), *j);
      if (pos == chain.end())
        return anim::invalid_argument(field + ".joint '" + pc.joint() + "' is not in the chain " +
                                      r.root_joint() + " .. " + r.effector_joint());
      anim::JointConstraint& out = d.constraints[static_cast<size_t>(pos - chain.begin())];
      if (pc.has_ball_socket()) {
        if (auto s = check_range(pc.ball_socket().cone_angle(), 0.0f, 3.14159275f,
                                 field + ".ball_socket.cone_angle");
            !s)
          return s;
        out.kind = anim::JointConstraint::Kind::kBallSocket;
        out.cone_angle = pc.ball_socket().cone_angle();
      } else if (pc.has_hinge()) {
        auto axis = from_proto(pc.hinge().axis(), field + ".hinge.axis");
        if (!axis) return axis.error();
        if (glm::length(*axis) < 1e-6f)
          return anim::invalid_argument(field + ".hinge.axis is zero");
        if (auto s = check_finite(pc.hinge().min_angle(), field + ".hinge.min_angle"); !s) return s;
        if (auto s = check_finite(pc.hinge().max_angle(), field + ".hinge.max_angle"); !s) return s;
        if (pc.hinge().min_angle() > pc.hinge().max_angle())
          return anim::invalid_argument(field + ".hinge.min_angle is above max_angle");
        out.kind = anim::JointConstraint::Kind::kHinge;
        out.axis = glm::normalize(*axis);
        out.min_angle = pc.hinge().min_angle();
        out.max_angle = pc.hinge().max_angle();
      } else {
        return anim::invalid_argument(field + " has neither ball_socket nor hinge");
      }
    }
  }
  auto id = ch.animator.set_ik_goal(d);
  if (!id) return id.error();
  ch.goal_weights[*id] = d.weight;
  update_ik_budget(ch);
  reply.mutable_set_ik_goal()->set_goal_id(static_cast<uint32_t>(*id));
  return {};
}

Status World::clear_ik_goal(const anim::v1::ClearIkGoalRequest& r, uint64_t owner) {
  auto c = find_controlled(r.character_id(), "clear_ik_goal.character_id", owner);
  if (!c) return c.error();
  auto it = (*c)->goal_weights.find(static_cast<int>(r.goal_id()));
  if (r.goal_id() == 0 || it == (*c)->goal_weights.end())
    return anim::not_found("clear_ik_goal.goal_id: unknown IK goal " + std::to_string(r.goal_id()) +
                           " on character " + std::to_string(r.character_id()));
  if (auto s = (*c)->animator.clear_ik_goal(it->first); !s) return s;
  (*c)->goal_weights.erase(it);
  update_ik_budget(**c);
  return {};
}

Status World::query_pose(const anim::v1::QueryPoseRequest& r, uint64_t /*tick*/,
                         anim::v1::Reply& reply) {
  auto c = find_character(r.character_id(), "query_pose.character_id");
  if (!c) return c.error();
  const Character& ch = **c;
  const anim::Asset& a = *ch.asset;
  const auto& h = ch.history;
  if (h.empty())
    return anim::not_found("query_pose: character " + std::to_string(ch.id) +
                           " has no pose yet (its first pose is tick " +
                           std::to_string(ch.spawn_tick) + ")");
  const std::string range =
      "available ticks " + std::to_string(h.oldest_tick()) + ".." + std::to_string(h.newest_tick());
  const uint64_t want = r.has_tick() ? r.tick() : h.newest_tick();
  if (want > h.newest_tick())
    return anim::invalid_argument("query_pose.tick " + std::to_string(want) +
                                  " is in the future; " + range);
  const int slot = h.find(want);
  if (slot < 0)
    return anim::not_found("query_pose.tick " + std::to_string(want) +
                           " is not in the pose history; " + range);
  if (r.space() != anim::v1::SPACE_MODEL && r.space() != anim::v1::SPACE_WORLD)
    return anim::invalid_argument("query_pose.space has an unknown value");

  std::vector<int> joints;
  const int n = a.skeleton.num_joints();
  for (const auto& name : r.joint_names()) {
    auto j = find_joint("query_pose.joint_names", name, a);
    if (!j) return j.error();
    joints.push_back(*j);
  }
  for (uint32_t idx : r.joint_indices()) {
    if (idx >= static_cast<uint32_t>(n))
      return anim::not_found("query_pose.joint_indices: joint index " + std::to_string(idx) +
                             " out of range (asset '" + a.name + "' has " + std::to_string(n) +
                             " joints)");
    joints.push_back(static_cast<int>(idx));
  }
  if (r.joint_names().empty() && r.joint_indices().empty())
    for (int j = 0; j < n; ++j) joints.push_back(j);

  const auto stored = h.model(slot);
  std::vector<glm::mat4> model(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) model[j] = stored[j].to_mat4();
  const glm::mat4 world = anim::to_matrix(h.root(slot));

  auto* out = reply.mutable_query_pose();
  out->set_tick(want);
  out->set_server_time(h.server_time(slot));
  to_proto(h.root(slot), out->mutable_root());
  for (int j : joints) {
    auto* jp = out->add_joints();
    jp->set_index(static_cast<uint32_t>(j));
    jp->set_name(a.skeleton.names[j]);
    fill_matrix(r.space() == anim::v1::SPACE_WORLD ? world * model[j] : model[j], jp);
  }
  std::vector<anim::PaletteMatrix> palette(static_cast<size_t>(n));
  anim::build_palette(a.skeleton, model, palette);
  append_palette(palette.data(), palette.size(), out->mutable_palette());
  return {};
}

void World::list_characters(anim::v1::Reply& reply) {
  auto* out = reply.mutable_list_characters();
  for (const auto& c : characters_) {
    auto* ci = out->add_characters();
    ci->set_character_id(c->id);
    ci->set_asset(c->asset->name);
    const int clip = c->animator.current_clip();
    if (clip >= 0 && clip < static_cast<int>(c->asset->clips.size()))
      ci->set_clip(c->asset->clips[clip].name);
    to_proto(c->animator.root_transform(), ci->mutable_root());
  }
}

Status World::subscribe(const anim::v1::SubscribeRequest& r, uint64_t session, uint32_t sub_id) {
  if (!r.all_characters() && r.character_ids().empty())
    return anim::invalid_argument("subscribe: give character_ids or set all_characters");
  Watch w;
  w.all = r.all_characters();
  for (uint32_t id : r.character_ids()) {
    auto c = find_character(id, "subscribe.character_ids");
    if (!c) return c.error();
    w.ids.push_back(id);
  }
  std::sort(w.ids.begin(), w.ids.end());
  w.ids.erase(std::unique(w.ids.begin(), w.ids.end()), w.ids.end());
  for (uint32_t id : w.ids) ++(*find_character(id, ""))->watchers;
  if (w.all) ++all_watchers_;
  sessions_[session].subscriptions[sub_id] = std::move(w);
  return {};
}

Status World::unsubscribe(const anim::v1::UnsubscribeRequest& r, uint64_t session) {
  auto& subs = sessions_[session].subscriptions;
  if (r.subscription_id() == 0) {
    for (const auto& [id, w] : subs) unwatch(w);
    subs.clear();
    return {};
  }
  auto it = subs.find(r.subscription_id());
  if (it == subs.end())
    return anim::not_found("unsubscribe.subscription_id: unknown subscription " +
                           std::to_string(r.subscription_id()) + " on this connection");
  unwatch(it->second);
  subs.erase(it);
  return {};
}

void World::stats(uint64_t tick, double server_time, anim::v1::Reply& reply) {
  auto* s = reply.mutable_stats();
  const auto& m = metrics_;
  const TickTimes t = tick_stats_.compute();
  s->set_tick(tick == 0 ? 0 : tick - 1);
  s->set_tick_rate_hz(config_.tick_rate);
  s->set_uptime_s(server_time);
  s->set_characters(static_cast<uint32_t>(characters_.size()));
  s->set_sessions(m.sessions.load());
  uint32_t subs = 0;
  for (const auto& [id, st] : sessions_) subs += static_cast<uint32_t>(st.subscriptions.size());
  s->set_subscriptions(subs);
  s->set_assets(static_cast<uint32_t>(assets_.size()));
  s->set_tick_time_p50_us(t.p50_us);
  s->set_tick_time_p99_us(t.p99_us);
  s->set_tick_time_max_us(t.max_us);
  s->set_tick_overruns(m.tick_overruns.load());
  s->set_bytes_in(m.bytes_in.load());
  s->set_bytes_out(m.bytes_out.load());
  s->set_stream_frames_sent(m.stream_frames_sent.load());
  s->set_stream_frames_dropped(m.stream_frames_dropped.load());
  s->set_requests(m.requests.load());
  s->set_request_errors(m.request_errors.load());
  s->set_worker_threads(static_cast<uint32_t>(pool_.threads()));
}

}  // namespace animd

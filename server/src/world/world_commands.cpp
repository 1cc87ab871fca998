// The World's request handlers: each checks the request against the world's state first,
// then changes it, so an error leaves the world exactly as it was. The requests' own values
// were checked when they were made (request_convert.h); error messages name the wire
// fields, which is what the client sent.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "anim/palette.h"
#include "history/pose_query.h"
#include "world/world.h"

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

// A handler's answer as the World's result.
anim::Expected<WorldResult> result_of(const Status& s) {
  if (!s) return s;
  return WorldResult(Done{});
}
template <class T>
anim::Expected<WorldResult> result_of(anim::Expected<T>&& r) {
  if (!r) return r.error();
  return WorldResult(std::move(*r));
}
// An answer that cannot fail.
template <class T>
requires std::is_constructible_v<WorldResult, T&&> anim::Expected<WorldResult> result_of(
    T&& answer) {
  return WorldResult(std::forward<T>(answer));
}
}  // namespace

anim::Expected<WorldResult> World::execute(const WorldRequest& request, const Caller& caller,
                                           uint64_t tick, double server_time) {
  settle();
  const CommandContext ctx{caller.session_id, owner_of(caller), tick, server_time};
  // Only requests show a live connection acting for its owner (orphan tracking): a loaded
  // asset (insert_asset) may arrive after its connection closed (the load finished late) and
  // must not revive the owner (its characters would then never be despawned).
  // A migration's end comes from the daemon's migration thread, not from its connection.
  if (!std::holds_alternative<FinishMigration>(request)) note_owner(ctx.session, ctx.owner);
  return std::visit([&](const auto& r) { return result_of(handle(r, ctx)); }, request);
}

anim::Expected<Spawned> World::handle(const SpawnCharacter& r, const CommandContext& ctx) {
  // The caller must be allowed the asset, whoever will own the character.
  if (auto usable = find_usable_asset(r.asset, "spawn.asset", ctx.owner); !usable)
    return usable.error();
  return spawn(r, ctx.session, r.shared ? 0 : ctx.owner, ctx.tick);
}

anim::Expected<Spawned> World::spawn(const SpawnCharacter& r, uint64_t session, uint64_t owner,
                                     uint64_t tick) {
  auto it = assets_.find(r.asset);
  if (it == assets_.end()) return anim::not_found("spawn.asset: unknown asset '" + r.asset + "'");
  const AssetPtr& asset = it->second;
  int clip = -1;
  if (!r.clip.empty()) {
    auto c = find_clip("spawn.clip", r.clip, *asset);
    if (!c) return c.error();
    clip = *c;
  }
  if (characters_.size() + held_characters_ >= config_.max_characters)
    return Status(anim::StatusCode::kResourceExhausted,
                  "--max-characters (" + std::to_string(config_.max_characters) + ") reached");
  if (session != 0 && sessions_[session].characters >= config_.max_characters_per_connection)
    return Status(anim::StatusCode::kResourceExhausted,
                  "--max-characters-per-connection (" +
                      std::to_string(config_.max_characters_per_connection) + ") reached");
  if (next_character_id_ == 0)
    return Status(anim::StatusCode::kResourceExhausted, "character ids exhausted");
  auto ch = std::make_unique<Character>(next_character_id_, asset, session, tick);
  if (auto s = ch->animator.set_root_transform(r.root); !s) return s;
  if (auto s = set_up_animator(*ch); !s) return s;
  if (clip >= 0)
    if (auto s = ch->animator.play(clip); !s) return s;
  ch->owner = owner;
  ++next_character_id_;
  if (session != 0) ++sessions_[session].characters;
  const Spawned out{ch->id, tick};
  animators_.push_back(&ch->animator);
  character_ids_.push_back(ch->id);
  characters_.push_back(std::move(ch));  // ids only grow: stays sorted
  return out;
}

Status World::set_up_animator(Character& ch) {
  const AssetPtr& asset = ch.asset;
  if (auto layout = morph_layout_of(asset))
    if (auto s = ch.animator.set_morph_layout(std::move(layout)); !s) return s;
  // The asset's events as add_clip_events left them (else the clips' own, already there).
  if (auto t = event_tables_.find(asset.get()); t != event_tables_.end())
    if (auto s = ch.animator.set_event_table(t->second); !s) return s;
  if (auto t = blend_tables_.find(asset.get()); t != blend_tables_.end())
    if (auto s = ch.animator.set_blend_spaces(t->second); !s) return s;
  return {};
}

Status World::handle(const DespawnCharacter& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "despawn.character_id", owner);
  if (!c) return c.error();
  remove_character((*c)->id);
  return {};
}

Status World::handle(const SetRootTransform& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_root.character_id", owner);
  if (!c) return c.error();
  return (*c)->animator.set_root_transform(r.root);
}

Status World::handle(const SetRootMotion& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_root_motion.character_id", owner);
  if (!c) return c.error();
  anim::RootMotionOptions o;
  o.mode = r.mode;
  o.extract_vertical = r.extract_vertical;
  if (!r.joint.empty()) {
    auto j = find_joint("set_root_motion.joint", r.joint, *(*c)->asset);
    if (!j) return j.error();
    o.joint = *j;
  }
  return (*c)->animator.set_root_motion(o);
}

Status World::handle(const PlayClip& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "play.character_id", owner);
  if (!c) return c.error();
  anim::PlayOptions o;
  o.loop = r.loop;
  o.speed = r.speed;
  o.start_time = r.start_time;
  if (const int space = find_blend_space(**c, r.clip); space >= 0)
    return (*c)->animator.play_blend_space(space, o);
  auto clip = find_clip("play.clip", r.clip, *(*c)->asset);
  if (!clip) return clip.error();
  return (*c)->animator.play(*clip, o);
}

Status World::handle(const CrossfadeClip& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "crossfade.character_id", owner);
  if (!c) return c.error();
  anim::CrossfadeOptions o;
  o.loop = r.loop;
  o.speed = r.speed;
  o.sync_normalized_time = r.sync_normalized_time;
  o.sync_markers = r.sync_markers;
  o.curve = r.curve;
  if (const int space = find_blend_space(**c, r.clip); space >= 0)
    return (*c)->animator.crossfade_blend_space(space, r.duration, o);
  auto clip = find_clip("crossfade.clip", r.clip, *(*c)->asset);
  if (!clip) return clip.error();
  return (*c)->animator.crossfade(*clip, r.duration, o);
}

Status World::handle(const SetCharacterSpeed& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_speed.character_id", owner);
  if (!c) return c.error();
  return (*c)->animator.set_speed(r.speed);
}

anim::Expected<LayerAdded> World::handle(const AddLayer& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "add_layer.character_id", owner);
  if (!c) return c.error();
  const anim::Asset& a = *(*c)->asset;
  anim::AdditiveLayerDesc d;
  d.blend = r.blend;
  if (!r.state_machine.empty()) {
    // A machine layer: its clip comes from its states.
  } else if (!r.clip.empty() || r.blend != anim::LayerBlend::kOverride) {  // else a slot
    auto clip = find_clip("add_layer.clip", r.clip, a);
    if (!clip) return clip.error();
    d.clip = *clip;
  }
  if (!r.reference_clip.empty()) {
    auto ref = find_clip("add_layer.reference_clip", r.reference_clip, a);
    if (!ref) return ref.error();
    d.reference_clip = *ref;
  }
  d.reference_time = r.reference_time;
  d.weight = r.weight;
  d.speed = r.speed;
  d.parameter = r.parameter;
  d.time_source = r.time_source;
  if (!r.mask.joint_weights.empty()) {
    std::vector<float> w(static_cast<size_t>(a.skeleton.num_joints()), 0.0f);
    for (const auto& [name, value] : r.mask.joint_weights) {
      auto j = find_joint("add_layer.mask.joint_weights", name, a);
      if (!j) return j.error();
      w[static_cast<size_t>(*j)] = value;
    }
    auto mask = anim::JointMask::per_joint(a.skeleton, std::move(w));
    if (!mask) return mask.error();
    d.mask = std::move(*mask);
  } else if (!r.mask.blend_root.empty()) {
    auto j = find_joint("add_layer.mask.blend_root", r.mask.blend_root, a);
    if (!j) return j.error();
    auto mask = anim::JointMask::subtree(a.skeleton, *j);
    if (!mask) return mask.error();
    d.mask = std::move(*mask);
  }
  if (!r.morph_targets.empty()) {
    const auto& layout = (*c)->animator.morph_layout();
    if (!layout)
      return anim::failed_precondition("add_layer.morph_targets: asset '" + a.name +
                                       "' has no morph targets");
    for (size_t i = 0; i < r.morph_targets.size(); ++i)
      if (auto found = layout->resolve(r.morph_targets[i]); !found)
        return anim::Status(found.error().code(), "add_layer.morph_targets[" + std::to_string(i) +
                                                      "]: " + found.error().message());
    d.morph_targets = r.morph_targets;
  }
  anim::Expected<int> id = 0;
  if (!r.state_machine.empty()) {
    auto t = machine_tables_.find((*c)->asset.get());
    const int index = t != machine_tables_.end() ? t->second->find(r.state_machine) : -1;
    if (index < 0)
      return anim::not_found("add_layer.state_machine: asset '" + a.name +
                             "' has no state machine named '" + r.state_machine + "'");
    anim::MachineLayerDesc m;
    m.machine = t->second->machines[static_cast<size_t>(index)];
    m.state = r.state;
    m.blend = d.blend;
    m.weight = d.weight;
    m.speed = d.speed;
    m.mask = d.mask;
    m.reference_clip = d.reference_clip;
    m.reference_time = d.reference_time;
    m.morph_targets = d.morph_targets;
    id = (*c)->animator.add_machine_layer(m);
  } else {
    id = (*c)->animator.add_layer(d);
  }
  if (!id) return id.error();
  (*c)->layers[*id] = anim::AdditiveLayerUpdate{d.weight, d.speed, d.parameter};
  return LayerAdded{static_cast<uint32_t>(*id)};
}

Status World::handle(const UpdateLayer& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "update_layer.character_id", owner);
  if (!c) return c.error();
  auto it = (*c)->layers.find(static_cast<int>(r.layer));
  if (r.layer == 0 || it == (*c)->layers.end())
    return anim::not_found("update_layer.layer_id: unknown layer " + std::to_string(r.layer) +
                           " on character " + std::to_string(r.character));
  anim::AdditiveLayerUpdate u = it->second;
  u.weight = r.weight.value_or(u.weight);
  u.speed = r.speed.value_or(u.speed);
  u.parameter = r.parameter.value_or(u.parameter);
  if (auto s = (*c)->animator.update_layer(it->first, u); !s) return s;
  it->second = u;
  return {};
}

Status World::handle(const RemoveLayer& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "remove_layer.character_id", owner);
  if (!c) return c.error();
  auto it = (*c)->layers.find(static_cast<int>(r.layer));
  if (r.layer == 0 || it == (*c)->layers.end())
    return anim::not_found("remove_layer.layer_id: unknown layer " + std::to_string(r.layer) +
                           " on character " + std::to_string(r.character));
  if (auto s = (*c)->animator.remove_layer(it->first); !s) return s;
  (*c)->layers.erase(it);
  return {};
}

Status World::handle(const PlayMontage& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "play_montage.character_id", ctx.owner);
  if (!c) return c.error();
  if (r.slot == 0 || !(*c)->layers.contains(static_cast<int>(r.slot)))
    return anim::not_found("play_montage.slot: unknown layer " + std::to_string(r.slot) +
                           " on character " + std::to_string(r.character));
  auto clip = find_clip("play_montage.clip", r.clip, *(*c)->asset);
  if (!clip) return clip.error();
  return (*c)->animator.play_montage(
      static_cast<int>(r.slot),
      anim::MontageDesc{*clip, r.rate, r.blend_in, r.blend_out, r.start_time, r.sections});
}

Status World::handle(const StopMontage& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "stop_montage.character_id", ctx.owner);
  if (!c) return c.error();
  if (r.slot == 0 || !(*c)->layers.contains(static_cast<int>(r.slot)))
    return anim::not_found("stop_montage.slot: unknown layer " + std::to_string(r.slot) +
                           " on character " + std::to_string(r.character));
  return (*c)->animator.stop_montage(static_cast<int>(r.slot), r.blend_out);
}

Status World::handle(const JumpToSection& r, const CommandContext& ctx) {
  auto c = find_controlled(r.character, "jump_to_section.character_id", ctx.owner);
  if (!c) return c.error();
  if (r.slot == 0 || !(*c)->layers.contains(static_cast<int>(r.slot)))
    return anim::not_found("jump_to_section.slot: unknown layer " + std::to_string(r.slot) +
                           " on character " + std::to_string(r.character));
  return (*c)->animator.jump_to_section(static_cast<int>(r.slot), r.section);
}

anim::Expected<IkGoalSet> World::handle(const MoveIkGoal& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_ik_goal.character_id", owner);
  if (!c) return c.error();
  Character& ch = **c;
  auto it = ch.goal_weights.find(static_cast<int>(r.goal));
  if (it == ch.goal_weights.end())
    return anim::not_found("set_ik_goal.goal_id: unknown IK goal " + std::to_string(r.goal) +
                           " on character " + std::to_string(ch.id));
  const float weight = r.weight.value_or(it->second);
  if (auto s = ch.animator.update_ik_target(it->first, r.target, weight); !s) return s;
  it->second = weight;
  return IkGoalSet{r.goal};
}

anim::Expected<IkGoalSet> World::handle(const SetIkGoal& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_ik_goal.character_id", owner);
  if (!c) return c.error();
  Character& ch = **c;
  const anim::Asset& a = *ch.asset;
  auto root = find_joint("set_ik_goal.root_joint", r.root_joint, a);
  if (!root) return root.error();
  auto eff = find_joint("set_ik_goal.effector_joint", r.effector_joint, a);
  if (!eff) return eff.error();
  if (!a.skeleton.is_descendant(*eff, *root))
    return anim::invalid_argument("set_ik_goal: effector_joint '" + r.effector_joint +
                                  "' does not descend from root_joint '" + r.root_joint + "'");
  std::vector<int> chain;  // root first
  for (int j = *eff; j != *root; j = a.skeleton.parents[j]) chain.push_back(j);
  chain.push_back(*root);
  std::reverse(chain.begin(), chain.end());

  anim::IkGoalDesc d;
  d.root_joint = r.root_joint;
  d.effector_joint = r.effector_joint;
  d.solver = r.solver;
  d.space = r.space;
  d.target = r.target;
  d.weight = r.weight;
  d.has_pole = r.pole.has_value();
  d.pole = r.pole.value_or(glm::vec3(0.0f));
  d.soften = r.soften;
  d.max_iterations = r.max_iterations;
  d.tolerance = r.tolerance;
  d.joint_weights = r.joint_weights;
  if (!r.constraints.empty()) {
    d.constraints.assign(chain.size(), anim::JointConstraint{});
    for (size_t i = 0; i < r.constraints.size(); ++i) {
      const ChainConstraint& pc = r.constraints[i];
      const std::string field = "set_ik_goal.constraints[" + std::to_string(i) + "]";
      auto j = find_joint(field + ".joint", pc.joint, a);
      if (!j) return j.error();
      auto pos = std::find(chain.begin(), chain.end(), *j);
      if (pos == chain.end())
        return anim::invalid_argument(field + ".joint '" + pc.joint + "' is not in the chain " +
                                      r.root_joint + " .. " + r.effector_joint);
      d.constraints[static_cast<size_t>(pos - chain.begin())] = pc.limits;
    }
  }
  auto id = ch.animator.set_ik_goal(d);
  if (!id) return id.error();
  ch.goal_weights[*id] = d.weight;
  update_ik_budget(ch);
  return IkGoalSet{static_cast<uint32_t>(*id)};
}

Status World::handle(const ClearIkGoal& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "clear_ik_goal.character_id", owner);
  if (!c) return c.error();
  auto it = (*c)->goal_weights.find(static_cast<int>(r.goal));
  if (r.goal == 0 || it == (*c)->goal_weights.end())
    return anim::not_found("clear_ik_goal.goal_id: unknown IK goal " + std::to_string(r.goal) +
                           " on character " + std::to_string(r.character));
  if (auto s = (*c)->animator.clear_ik_goal(it->first); !s) return s;
  (*c)->goal_weights.erase(it);
  update_ik_budget(**c);
  return {};
}

anim::Expected<PoseAnswer> World::handle(const QueryPose& r, const CommandContext&) {
  auto c = find_character(r.character, "query_pose.character_id");
  if (!c) return c.error();
  // The same answer the network threads give (pose_query.h); they pass on the queries whose
  // character the history does not have yet.
  if (auto answer = query_history(*history_, r)) return std::move(*answer);
  return anim::not_found("query_pose: character " + std::to_string((*c)->id) +
                         " has no pose yet (its first pose is tick " +
                         std::to_string((*c)->spawn_tick) + ")");
}

CharacterList World::handle(const ListCharacters&, const CommandContext&) const {
  CharacterList out;
  out.characters.reserve(characters_.size());
  for (const auto& c : characters_) {
    int clip = c->animator.current_clip();
    if (clip < 0 || clip >= static_cast<int>(c->asset->clips.size())) clip = -1;
    out.characters.push_back(CharacterEntry{c->id,
                                            c->asset,
                                            clip,
                                            c->animator.root_transform(),
                                            {},
                                            c->significance,
                                            c->interval,
                                            c->animator.skip_detail()});
    if (const int space = c->animator.current_blend_space(); space >= 0)
      out.characters.back().blend_space =
          c->animator.blend_spaces()->spaces[static_cast<size_t>(space)]->name;
  }
  return out;
}

anim::Expected<Subscribed> World::handle(const Subscribe& r, const CommandContext& ctx) {
  const uint64_t session = ctx.session;
  Watch w;
  w.all = r.all_characters;
  w.region = r.region;
  w.compact = r.compact;
  w.camera = r.camera;
  for (uint32_t id : r.character_ids) {
    auto c = find_character(id, "subscribe.character_ids");
    if (!c) return c.error();
    w.ids.push_back(id);
  }
  std::sort(w.ids.begin(), w.ids.end());
  w.ids.erase(std::unique(w.ids.begin(), w.ids.end()), w.ids.end());
  for (uint32_t id : w.ids) {
    Character& c = **find_character(id, "");
    ++c.watchers;
    c.compact_watchers += w.compact;
  }
  if (w.all) ++all_watchers_, compact_all_watchers_ += w.compact;
  if (w.compact && (w.all || w.region)) restream_placements();
  sessions_[session].subscriptions[r.subscription_id] = std::move(w);
  return Subscribed{r.subscription_id};
}

Status World::handle(const Unsubscribe& r, const CommandContext& ctx) {
  const uint64_t session = ctx.session;
  auto& subs = sessions_[session].subscriptions;
  if (r.subscription_id == 0) {
    for (const auto& [id, w] : subs) unwatch(w);
    subs.clear();
    return {};
  }
  auto it = subs.find(r.subscription_id);
  if (it == subs.end())
    return anim::not_found("unsubscribe.subscription_id: unknown subscription " +
                           std::to_string(r.subscription_id) + " on this connection");
  unwatch(it->second);
  subs.erase(it);
  return {};
}

Status World::handle(const UpdateSubscription& r, const CommandContext& ctx) {
  const uint64_t session = ctx.session;
  const std::string which =
      "update_subscription.subscription_id " + std::to_string(r.subscription_id);
  auto& subs = sessions_[session].subscriptions;
  auto it = subs.find(r.subscription_id);
  if (it == subs.end()) return anim::not_found(which + ": no such subscription on this connection");
  Watch& w = it->second;
  if (r.region && !w.region)
    return anim::invalid_argument(which + " follows characters, not a region");
  if (r.region) {
    w.region = r.region;
    if (w.compact) restream_placements();
  }
  if (r.camera) w.camera = r.camera;
  if (r.clear_camera) w.camera.reset();
  return {};
}

anim::Expected<ClipEventsAnswer> World::handle(const AddClipEvents& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto found = find_usable_asset(r.asset, "add_clip_events.asset", owner);
  if (!found) return found.error();
  const AssetPtr& asset = (*found)->second;
  auto clip = find_clip("add_clip_events.clip", r.clip, *asset);
  if (!clip) return clip.error();
  const anim::Clip& c = asset->clips[static_cast<size_t>(*clip)];
  for (size_t i = 0; i < r.events.size(); ++i)
    if (auto s =
            anim::check_event(r.events[i], c, "add_clip_events.events[" + std::to_string(i) + "]");
        !s)
      return s;
  // The new table: the current one (or the clips' own events) with this clip's list changed.
  auto current = event_tables_.find(asset.get());
  std::shared_ptr<const anim::ClipEventTable> base =
      current != event_tables_.end() ? current->second
                                     : anim::ClipEventTable::from_clips(asset->clips);
  auto next = std::make_shared<anim::ClipEventTable>();
  if (base)
    *next = *base;
  else
    next->clips.resize(asset->clips.size());
  auto& list = next->clips[static_cast<size_t>(*clip)];
  if (r.replace) list.clear();
  if (list.size() + r.events.size() > static_cast<size_t>(anim::kMaxEventsPerClip))
    return anim::Status(anim::StatusCode::kResourceExhausted,
                        "add_clip_events: clip '" + r.clip + "' would have " +
                            std::to_string(list.size() + r.events.size()) + " events, more than " +
                            std::to_string(anim::kMaxEventsPerClip));
  list.insert(list.end(), r.events.begin(), r.events.end());
  anim::sort_events(list);
  std::shared_ptr<const anim::ClipEventTable> table = std::move(next);
  // The table's checks depend only on the asset's clips: the first character's verdict is
  // every character's, so a refusal changes nothing.
  stale_placements();
  for (const auto& ch : characters_)
    if (ch->asset == asset)
      if (auto s = ch->animator.set_event_table(table); !s) return s;
  event_tables_[asset.get()] = table;
  return ClipEventsAnswer{table->clips[static_cast<size_t>(*clip)]};
}

int World::find_blend_space(const Character& c, const std::string& name) const {
  auto t = blend_tables_.find(c.asset.get());
  return t == blend_tables_.end() ? -1 : t->second->find(name);
}

anim::Expected<BlendSpaceDefined> World::handle(const DefineBlendSpace& r,
                                                const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto found = find_usable_asset(r.asset, "define_blend_space.asset", owner);
  if (!found) return found.error();
  const AssetPtr& asset = (*found)->second;
  if (asset->find_clip(r.name) >= 0)
    return anim::Status(anim::StatusCode::kFailedPrecondition,
                        "define_blend_space.name: asset '" + r.asset + "' has a clip named '" +
                            r.name + "' (play and crossfade name both)");
  auto current = blend_tables_.find(asset.get());
  const size_t have = current != blend_tables_.end() ? current->second->spaces.size() : 0;
  if (current != blend_tables_.end() && current->second->find(r.name) >= 0)
    return anim::Status(anim::StatusCode::kFailedPrecondition,
                        "define_blend_space.name: asset '" + r.asset +
                            "' already has a blend space named '" + r.name +
                            "' (definitions are immutable: choose another name)");
  if (have >= static_cast<size_t>(anim::kMaxBlendSpacesPerAsset))
    return anim::Status(anim::StatusCode::kResourceExhausted,
                        "define_blend_space: asset '" + r.asset + "' has " + std::to_string(have) +
                            " blend spaces, the most it may have");
  anim::BlendSpaceDesc d;
  d.name = r.name;
  d.axes = r.axes;
  d.sync_markers = r.sync_markers;
  d.samples.reserve(r.samples.size());
  for (size_t i = 0; i < r.samples.size(); ++i) {
    auto clip = find_clip("define_blend_space.samples[" + std::to_string(i) + "].clip",
                          r.samples[i].first, *asset);
    if (!clip) return clip.error();
    d.samples.push_back(anim::BlendSample{*clip, r.samples[i].second});
  }
  auto space = anim::make_blend_space(d, asset->clips, asset->skeleton.num_joints());
  if (!space)
    return anim::Status(space.error().code(), "define_blend_space." + space.error().message());
  auto next = std::make_shared<anim::BlendSpaceTable>();
  if (current != blend_tables_.end()) *next = *current->second;
  next->spaces.push_back(std::make_shared<const anim::BlendSpace>(std::move(*space)));
  std::shared_ptr<const anim::BlendSpaceTable> table = std::move(next);
  // The old spaces come first, as the same objects, and the new one's clips were checked
  // against the asset: every character of it accepts the table.
  stale_placements();
  for (const auto& ch : characters_)
    if (ch->asset == asset)
      if (auto s = ch->animator.set_blend_spaces(table); !s) return s;
  blend_tables_[asset.get()] = table;
  return BlendSpaceDefined{static_cast<uint32_t>(table->spaces.back()->triangles.size())};
}

anim::Status World::handle(const SetParameter& r, const CommandContext& ctx) {
  const uint64_t owner = ctx.owner;
  auto c = find_controlled(r.character, "set_parameter.character_id", owner);
  if (!c) return c.error();
  return (*c)->animator.set_parameter(r.name, r.value, r.smoothing);
}

StatsAnswer World::handle(const GetStats&, const CommandContext& ctx) {
  const uint64_t tick = ctx.tick;
  const double server_time = ctx.server_time;
  StatsAnswer s;
  const auto& m = metrics_;
  const TickTimes t = tick_stats_.compute();
  // The latest completed tick: this one is still running.
  s.tick = tick == 0 ? 0 : last_tick_;
  s.tick_rate_hz = config_.tick_rate;
  s.uptime_s = server_time;
  s.characters = static_cast<uint32_t>(characters_.size());
  s.sessions = m.sessions.load();
  for (const auto& [id, st] : sessions_)
    s.subscriptions += static_cast<uint32_t>(st.subscriptions.size());
  s.assets = static_cast<uint32_t>(assets_.size());
  s.tick_time_p50_us = t.p50_us;
  s.tick_time_p99_us = t.p99_us;
  s.tick_time_max_us = t.max_us;
  s.tick_overruns = m.tick_overruns.load();
  s.bytes_in = m.bytes_in.load();
  s.bytes_out = m.bytes_out.load();
  s.stream_frames_sent = m.stream_frames_sent.load();
  s.stream_frames_dropped = m.stream_frames_dropped.load();
  s.requests = m.requests.load();
  s.request_errors = m.request_errors.load();
  s.worker_threads = static_cast<uint32_t>(pool_.threads());
  s.events_fired = m.events_fired.load();
  s.events_overflowed = m.events_overflowed.load();
  s.events_sent = m.events_sent.load();
  s.events_dropped = m.events_dropped.load();
  s.tick_epoch_unix_s = config_.tick_epoch;
  s.tick_unix_time_s = s.tick == 0 ? 0.0
                                   : static_cast<double>(config_.tick_epoch) +
                                         static_cast<double>(s.tick) / config_.tick_rate;
  s.first_tick = m.first_tick.load();
  s.ticks_skipped = m.ticks_skipped.load();
  s.clock_steps_forward = m.clock_steps_forward.load();
  s.clock_steps_back = m.clock_steps_back.load();
  s.anim_budget_ms = anim_budget_ms();
  s.anim_pressure = pressure_;
  s.update_intervals.assign(interval_counts_.begin(),
                            interval_counts_.begin() + std::max(1, rate_policy_.max_interval));
  s.detail_skipped_characters = m.detail_skipped_characters.load();
  return s;
}

}  // namespace animd

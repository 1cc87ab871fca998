// Animator: the whole state as plain data (animator_state.h): capture_state and
// restore_state. A restore rebuilds the derived setups through the commands that made them
// (so every description gets the commands' checks), then puts the clocks back in place.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "anim/animator.h"
#include "animator_checks.h"

namespace anim {

namespace {

using animator_checks::in_unit_range;

// The checks of a restored state, each naming the field it refuses.
struct StateChecker {
  std::string error;

  bool fail(const std::string& field, const std::string& what) {
    if (error.empty()) error = "restore_state: " + field + ": " + what;
    return false;
  }
  bool finite(const std::string& field, float v) {
    return std::isfinite(v) || fail(field, "is NaN or infinite");
  }
  bool finite(const std::string& field, const glm::vec3& v) {
    return is_finite(v) || fail(field, "has a NaN or infinite component");
  }
  bool non_negative(const std::string& field, float v) {
    return (std::isfinite(v) && v >= 0.0f) || fail(field, "must be finite and >= 0");
  }
  bool unit(const std::string& field, float v) {
    return in_unit_range(v) || fail(field, "is outside [0, 1]");
  }
  bool index(const std::string& field, int v, int lo, int end) {
    return (v >= lo && v < end) ||
           fail(field, std::to_string(v) + " is outside [" + std::to_string(lo) + ", " +
                           std::to_string(end) + ")");
  }
  bool motion(const std::string& field, const RootMotion& m) {
    return finite(field + ".translation", m.translation) && finite(field + ".yaw", m.yaw);
  }
};

std::string at(const std::string& field, size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

// The setup entries a restore rebuilt, with the stored descriptions' exact values put back
// (the commands normalize axes and rotations; a normalized value given again may move by an
// ulp).
template <typename T>
std::shared_ptr<const T> with(const std::shared_ptr<const T>& made, auto edit) {
  auto copy = std::make_shared<T>(*made);
  edit(*copy);
  return copy;
}

}  // namespace

AnimatorState Animator::capture_state() const {
  AnimatorState s;
  s.speed = speed_;
  s.next_layer_id = next_layer_id_;
  s.next_goal_id = next_goal_id_;
  s.root = root_;
  s.root_set = root_set_;
  s.root_motion = root_motion_;
  if (controls_) {
    s.parameters.assign(controls_->params.begin(), controls_->params.begin() + num_params_);
    s.triggers.assign(controls_->triggers.begin(), controls_->triggers.begin() + num_triggers_);
  }
  s.main = main_;
  s.machine = machine_;
  s.layers = layers_;
  s.goals = goals_;
  if (setup_) {
    for (const auto& l : setup_->layers)
      s.layer_configs.push_back(LayerConfig{l->clip, l->blend, l->mask, l->reference_clip,
                                            l->reference_time, l->morph_targets});
    for (const auto& g : setup_->goals) s.goal_descs.push_back(g->desc);
    if (setup_->aim) s.aim = setup_->aim->desc;
    if (setup_->feet) {
      s.feet = setup_->feet->desc;
      s.foot_stride_clips = static_cast<int>(setup_->feet->strides.size());
    }
    if (setup_->held) s.held_pose = setup_->held->locals;
  }
  s.aim_input = aim_input_;
  s.foot_input = foot_input_;
  s.foot_state = foot_state_;
  s.foot_output = foot_output_;
  s.lock_held = lock_held_;
  s.held_weight = held_weight_;
  s.held_from = held_from_;
  s.held_out_duration = held_out_duration_;
  s.held_out_elapsed = held_out_elapsed_;
  s.morph_weights = morph_weights_;
  if (num_morph_overrides_ > 0) s.morph_overrides = morph_overrides_;
  // Caches are not state: a restored Animator starts its cursors afresh.
  auto clear_track = [](TrackState& t) {
    t.base.cursor = {};
    t.base.term_cursors = {};
    for (FadeState& f : t.fades) f.player.cursor = {}, f.player.term_cursors = {};
  };
  clear_track(s.main);
  for (PlayerState& p : s.machine.players) p.cursor = {}, p.term_cursors = {};
  for (LayerState& l : s.layers) {
    l.cursor = {};
    if (!l.machine) continue;
    clear_track(l.machine->track);
    for (PlayerState& p : l.machine->driver.players) p.cursor = {}, p.term_cursors = {};
  }
  return s;
}

Status Animator::restore_state(const AnimatorState& state) {
  StateChecker check;
  const int num_clips = static_cast<int>(clips_.size());
  const int num_spaces = spaces_ ? static_cast<int>(spaces_->spaces.size()) : 0;
  const int num_params = static_cast<int>(state.parameters.size());
  auto refused = [&]() { return invalid_argument(check.error); };

  // A player of a track: its clip or blend space, clock and last move.
  auto player_ok = [&](const std::string& f, const PlayerState& p) {
    if (p.space >= 0) {
      if (!check.index(f + ".space", p.space, 0, num_spaces)) return false;
      if (p.clip != -1) return check.fail(f + ".clip", "must be -1 for a blend space");
      for (size_t k = 0; k < p.params.size(); ++k)
        if (!check.index(at(f + ".params", k), p.params[k], -1, num_params)) return false;
      const BlendWeights& w = p.weights;
      if (!check.index(f + ".weights.count", w.count, 0, 4)) return false;
      const int samples =
          static_cast<int>(spaces_->spaces[static_cast<size_t>(p.space)]->samples.size());
      for (int k = 0; k < w.count; ++k) {
        const size_t i = static_cast<size_t>(k);
        if (!check.index(at(f + ".weights.sample", i), w.sample[i], 0, samples) ||
            !check.finite(at(f + ".weights.weight", i), w.weight[i]) ||
            !check.finite(at(f + ".weights.mix", i), w.mix[i]))
          return false;
      }
    } else {
      if (!check.index(f + ".clip", p.clip, -1, num_clips)) return false;
      if (p.clip >= 0) {
        if (Status s = check_clip(p.clip, (f + ":").c_str()); !s) return check.fail(f, s.message());
      }
    }
    const float duration = p.space >= 0 ? 1.0f : p.clip >= 0 ? clips_[p.clip].duration : 0.0f;
    if (!check.finite(f + ".time", p.time)) return false;
    if (p.time < 0.0f || p.time > duration)
      return check.fail(f + ".time", std::to_string(p.time) + " is outside [0, " +
                                         std::to_string(duration) + "]");
    return check.finite(f + ".speed", p.speed) && check.finite(f + ".advance", p.advance) &&
           check.motion(f + ".motion", p.motion) && check.finite(f + ".from", p.from) &&
           check.finite(f + ".carry", p.carry);
  };
  auto track_ok = [&](const std::string& f, const TrackState& t) {
    if (!player_ok(f + ".base", t.base)) return false;
    if (!check.index(f + ".num_fades", t.num_fades, 0, kMaxFades + 1)) return false;
    for (int i = 0; i < t.num_fades; ++i) {
      const FadeState& fade = t.fades[static_cast<size_t>(i)];
      const std::string ff = at(f + ".fades", static_cast<size_t>(i));
      if (!player_ok(ff + ".player", fade.player)) return false;
      if (!(std::isfinite(fade.duration) && fade.duration > 0.0f))
        return check.fail(ff + ".duration", "must be finite and > 0");
      if (!check.non_negative(ff + ".elapsed", fade.elapsed)) return false;
      if (fade.elapsed > fade.duration)
        return check.fail(ff + ".elapsed", "is beyond the fade's duration");
      if (fade.curve != BlendCurve::kLinear && fade.curve != BlendCurve::kSmoothStep)
        return check.fail(ff + ".curve", "is not a known blend curve");
    }
    return true;
  };
  // A machine driver's players and place, against the driver the restore made for it.
  auto driver_ok = [&](const std::string& f, const MachineDriverState& d) {
    const StateMachine& m = *d.machine;
    const int states = static_cast<int>(m.states.size());
    if (static_cast<int>(d.players.size()) != states)
      return check.fail(f + ".players", std::to_string(d.players.size()) +
                                            " players for a machine of " + std::to_string(states) +
                                            " states");
    for (size_t i = 0; i < d.players.size(); ++i) {
      const PlayerState& p = d.players[i];
      const MachineState& ms = m.states[i];
      if (p.clip != ms.clip || p.space != ms.space)
        return check.fail(at(f + ".players", i),
                          "does not play what state '" + ms.name + "' plays");
      if (!player_ok(at(f + ".players", i), p)) return false;
    }
    return check.index(f + ".run.state", d.run.state, 0, states) &&
           check.finite(f + ".run.state_time", d.run.state_time) &&
           check.index(f + ".run.transition", d.run.transition, -1,
                       static_cast<int>(m.transitions.size())) &&
           check.index(f + ".run.from", d.run.from, -1, states);
  };

  // Everything is rebuilt in a fresh Animator of the same asset; it replaces this one only
  // once all of it passed.
  Animator next(*skeleton_, clips_,
                palette_.empty() ? AnimatorBuffers::kLentOnly : AnimatorBuffers::kOwn);
  next.events_ = events_;
  if (events_) next.fired_.make();
  next.ik_iteration_scale_ = ik_iteration_scale_;
  next.skip_detail_ = skip_detail_;
  if (Status s = next.set_blend_spaces(spaces_); !s) return s;
  if (Status s = next.set_morph_layout(morph_layout_); !s) return s;

  if (Status s = next.set_speed(state.speed); !s)
    return invalid_argument("restore_state: " + s.message());
  if (Status s = animator_checks::check_root_transform("restore_state: root", state.root); !s)
    return s;
  next.root_ = state.root;
  next.root_set_ = state.root_set;
  if (Status s = next.set_root_motion(state.root_motion); !s)
    return invalid_argument("restore_state: root_motion: " + s.message());

  // Parameters and triggers first: machines then find theirs in the same slots.
  if (num_params > kMaxParameters)
    return invalid_argument("restore_state: parameters: " + std::to_string(num_params) +
                            " of at most " + std::to_string(kMaxParameters));
  std::set<std::string> names;
  for (size_t i = 0; i < state.parameters.size(); ++i) {
    const ParameterState& p = state.parameters[i];
    const std::string f = at("parameters", i);
    if (p.name.empty() || p.name.size() > kMaxBlendNameBytes || !names.insert(p.name).second)
      return invalid_argument("restore_state: " + f + ".name '" + p.name +
                              "' is empty, too long or used twice");
    if (!check.finite(f + ".value", p.value) || !check.finite(f + ".target", p.target) ||
        !check.finite(f + ".velocity", p.velocity) ||
        !check.non_negative(f + ".smoothing", p.smoothing))
      return refused();
    next.controls_.make().params[i] = p;
  }
  next.num_params_ = num_params;
  if (state.triggers.size() > static_cast<size_t>(kMaxTriggers))
    return invalid_argument("restore_state: triggers: " + std::to_string(state.triggers.size()) +
                            " of at most " + std::to_string(kMaxTriggers));
  names.clear();
  for (size_t i = 0; i < state.triggers.size(); ++i) {
    const TriggerState& t = state.triggers[i];
    if (t.name.empty() || t.name.size() > kMaxMachineNameBytes || !names.insert(t.name).second)
      return invalid_argument("restore_state: " + at("triggers", i) + ".name '" + t.name +
                              "' is empty, too long or used twice");
    next.controls_.make().triggers[i] = t;
  }
  next.num_triggers_ = static_cast<int>(state.triggers.size());

  // The pose setup, as the commands make it: held pose, aim, feet, goals, layers.
  if (state.held_pose) {
    if (Status s = next.set_pose(*state.held_pose); !s)
      return invalid_argument("restore_state: held_pose: " + s.message());
  }
  if (state.aim) {
    if (Status s = next.set_aim_ik(*state.aim); !s)
      return invalid_argument("restore_state: aim: " + s.message());
  }
  if (state.feet) {
    if (Status s = next.set_foot_ik(*state.feet); !s)
      return invalid_argument("restore_state: feet: " + s.message());
    if (!check.index("foot_stride_clips", state.foot_stride_clips, 0, num_clips + 1))
      return refused();
  }
  const int goal_count = static_cast<int>(state.goals.size());
  if (state.goal_descs.size() != state.goals.size())
    return invalid_argument(
        "restore_state: goal_descs: " + std::to_string(state.goal_descs.size()) + " for " +
        std::to_string(goal_count) + " goals");
  std::set<int> ids;
  for (size_t i = 0; i < state.goals.size(); ++i) {
    const GoalState& g = state.goals[i];
    const std::string f = at("goals", i);
    if (auto made = next.set_ik_goal(state.goal_descs[i]); !made)
      return invalid_argument("restore_state: " + at("goal_descs", i) + ": " +
                              made.error().message());
    if (!check.index(f + ".id", g.id, 1, state.next_goal_id)) return refused();
    if (!ids.insert(g.id).second)
      return invalid_argument("restore_state: " + f + ".id is used twice");
    if (!check.finite(f + ".target", g.target) || !check.unit(f + ".weight", g.weight))
      return refused();
    next.goals_[i] = g;
  }
  if (state.layer_configs.size() != state.layers.size())
    return invalid_argument(
        "restore_state: layer_configs: " + std::to_string(state.layer_configs.size()) + " for " +
        std::to_string(state.layers.size()) + " layers");
  ids.clear();
  for (size_t i = 0; i < state.layers.size(); ++i) {
    const LayerState& l = state.layers[i];
    const LayerConfig& c = state.layer_configs[i];
    const std::string f = at("layers", i);
    Expected<int> made = 0;
    if (l.machine) {
      if (!l.machine->driver.machine)
        return invalid_argument("restore_state: " + f + ": no machine");
      MachineLayerDesc d;
      d.machine = l.machine->driver.machine;
      d.blend = c.blend;
      d.weight = l.weight;
      d.speed = l.speed;
      d.mask = c.mask;
      d.reference_clip = c.reference_clip;
      d.reference_time = c.reference_time;
      d.morph_targets = c.morph_targets;
      made = next.add_machine_layer(d);
    } else {
      AdditiveLayerDesc d;
      d.clip = l.slot ? -1 : c.clip;
      d.blend = l.slot ? LayerBlend::kOverride : c.blend;
      d.reference_clip = c.reference_clip;
      d.reference_time = c.reference_time;
      d.weight = l.weight;
      d.mask = c.mask;
      d.time_source = l.time_source;
      d.speed = l.speed;
      d.parameter = l.parameter;
      d.morph_targets = c.morph_targets;
      made = next.add_layer(d);
    }
    if (!made) return invalid_argument("restore_state: " + f + ": " + made.error().message());
    if (!check.index(f + ".id", l.id, 1, state.next_layer_id)) return refused();
    if (!ids.insert(l.id).second)
      return invalid_argument("restore_state: " + f + ".id is used twice");
    LayerState& to = next.layers_[i];
    if (l.machine) {
      if (!track_ok(f + ".machine.track", l.machine->track) ||
          !driver_ok(f + ".machine.driver", l.machine->driver))
        return refused();
      to.machine->track = l.machine->track;
      to.machine->driver.players = l.machine->driver.players;
      to.machine->driver.run = l.machine->driver.run;
      to.id = l.id;
      continue;
    }
    // A clip layer keeps its clip; a slot plays its montage's (or none).
    const int clip = l.slot ? l.clip : c.clip;
    if (l.clip != clip)
      return invalid_argument("restore_state: " + f + ".clip differs from its config");
    if (!check.index(f + ".clip", clip, -1, num_clips)) return refused();
    const float duration = clip >= 0 ? clips_[clip].duration : 0.0f;
    if (!check.finite(f + ".time", l.time) || !check.finite(f + ".from", l.from) ||
        !check.finite(f + ".advance", l.advance) || !check.finite(f + ".carry", l.carry))
      return refused();
    if (l.time < 0.0f || l.time > duration)
      return invalid_argument("restore_state: " + f + ".time is outside the clip");
    const LayerState::Montage& m = l.montage;
    if (l.slot) {
      if (static_cast<uint8_t>(m.phase) > static_cast<uint8_t>(MontagePhase::kEnded))
        return invalid_argument("restore_state: " + f + ".montage.phase is not known");
      if ((m.phase == MontagePhase::kNone) != (clip < 0))
        return invalid_argument("restore_state: " + f +
                                ".clip: a slot plays a clip exactly when it has a montage");
      if (!(std::isfinite(m.rate) && m.rate > 0.0f))
        return invalid_argument("restore_state: " + f + ".montage.rate must be finite and > 0");
      if (!check.non_negative(f + ".montage.blend_in", m.blend_in) ||
          !check.non_negative(f + ".montage.blend_out", m.blend_out) ||
          !check.unit(f + ".montage.start_weight", m.start_weight) ||
          !check.non_negative(f + ".montage.elapsed", m.elapsed) ||
          !check.unit(f + ".montage.envelope", m.envelope) ||
          !check.unit(f + ".montage.stop_from", m.stop_from) ||
          !check.non_negative(f + ".montage.stop_duration", m.stop_duration) ||
          !check.non_negative(f + ".montage.stop_elapsed", m.stop_elapsed) ||
          !check.index(f + ".montage.interrupted_clip", m.interrupted_clip, -1, num_clips))
        return refused();
      const int sections = m.timeline ? static_cast<int>(m.timeline->sections.size()) : 0;
      if (!m.timeline && (m.section != -1 || m.from_section != -1))
        return invalid_argument("restore_state: " + f + ".montage.section is set without sections");
      if (m.timeline && (!check.index(f + ".montage.section", m.section, 0, sections) ||
                         !check.index(f + ".montage.from_section", m.from_section, -1, sections)))
        return refused();
      if (clip >= 0) {
        PoseSetup edited = next.copy_setup();
        edited.layers[i] = with(edited.layers[i], [&](LayerSetup& s) { s.clip = clip; });
        next.replace_setup(std::move(edited));
      }
    }
    const int id = l.id;
    const float weight = to.weight, speed = to.speed, parameter = to.parameter;
    const LayerTimeSource source = to.time_source;
    const bool loop = to.loop, slot = to.slot;
    to = l;
    to.cursor = {};
    to.id = id;
    to.weight = weight, to.speed = speed, to.parameter = parameter;
    to.time_source = source, to.loop = loop, to.slot = slot;
  }
  if (!check.index("next_layer_id", state.next_layer_id, 1, 1 << 30) ||
      !check.index("next_goal_id", state.next_goal_id, 1, 1 << 30))
    return refused();
  next.next_layer_id_ = state.next_layer_id;
  next.next_goal_id_ = state.next_goal_id;

  // The exact values of the descriptions the commands normalized, and the stride curves of
  // the clips the foot IK was set with.
  if (next.setup_) {
    PoseSetup edited = next.copy_setup();
    for (size_t i = 0; i < edited.goals.size(); ++i)
      edited.goals[i] = with(edited.goals[i], [&](GoalSetup& g) {
        for (size_t k = 0; k < g.desc.constraints.size(); ++k)
          g.desc.constraints[k].axis = state.goal_descs[i].constraints[k].axis;
      });
    if (edited.aim) edited.aim = with(edited.aim, [&](AimSetup& a) { a.desc = *state.aim; });
    if (edited.held)
      edited.held = with(edited.held, [&](HeldPose& h) { h.locals = *state.held_pose; });
    if (edited.feet)
      edited.feet = with(edited.feet, [&](FootIkSetup& fs) {
        fs.strides.resize(static_cast<size_t>(state.foot_stride_clips));
      });
    next.replace_setup(std::move(edited));
  }

  // The main track and its machine.
  if (state.machine.machine) {
    if (Status s = next.start_state_machine(state.machine.machine); !s)
      return invalid_argument("restore_state: machine: " + s.message());
    if (!driver_ok("machine", state.machine)) return refused();
    next.machine_.players = state.machine.players;
    next.machine_.run = state.machine.run;
  }
  if (!track_ok("main", state.main)) return refused();
  next.main_ = state.main;

  // Per-update inputs and what the last update left for the next one.
  if (!check.finite("aim_input.target", state.aim_input.target) ||
      !check.unit("aim_input.weight", state.aim_input.weight))
    return refused();
  next.aim_input_ = state.aim_input;
  const FootIkInput& fi = state.foot_input;
  if (!check.unit("foot_input.weight", fi.weight)) return refused();
  for (size_t f = 0; f < kNumFeet; ++f) {
    if (!check.finite(at("foot_input.normals", f), fi.normals[f]) ||
        !check.finite(at("foot_input.values", f), fi.values[f]) ||
        !check.finite(at("foot_input.locks", f) + ".position", fi.locks[f].position) ||
        !check.unit(at("foot_input.locks", f) + ".weight", fi.locks[f].weight) ||
        !check.unit(at("foot_state.lock_weight", f), state.foot_state.lock_weight[f]) ||
        !check.finite(at("foot_state.lock_position", f), state.foot_state.lock_position[f]) ||
        !check.finite(at("foot_state.need", f), state.foot_state.need[f]) ||
        !check.finite(at("foot_output.ground_targets", f), state.foot_output.ground_targets[f]) ||
        !check.finite(at("foot_output.need", f), state.foot_output.need[f]))
      return refused();
    if (fi.has_ground && !(fi.normals[f].y > 0.1f))
      return invalid_argument("restore_state: " + at("foot_input.normals", f) +
                              " is not up-facing");
  }
  if (!check.finite("foot_state.pelvis_drop", state.foot_state.pelvis_drop) ||
      !check.finite("foot_output.pelvis_drop", state.foot_output.pelvis_drop))
    return refused();
  next.foot_input_ = fi;
  next.foot_state_ = state.foot_state;
  next.foot_output_ = state.foot_output;
  next.lock_held_ = state.lock_held;

  if (!check.unit("held_weight", state.held_weight) || !check.unit("held_from", state.held_from) ||
      !check.finite("held_out_duration", state.held_out_duration) ||
      !check.non_negative("held_out_elapsed", state.held_out_elapsed))
    return refused();
  next.held_weight_ = state.held_weight;
  next.held_from_ = state.held_from;
  next.held_out_duration_ = state.held_out_duration;
  next.held_out_elapsed_ = state.held_out_elapsed;

  const size_t num_weights = next.morph_weights_.size();
  if (state.morph_weights.size() != num_weights)
    return invalid_argument(
        "restore_state: morph_weights: " + std::to_string(state.morph_weights.size()) +
        " for an asset of " + std::to_string(num_weights) + " morph weights");
  for (size_t i = 0; i < num_weights; ++i)
    if (!check.finite(at("morph_weights", i), state.morph_weights[i])) return refused();
  next.morph_weights_ = state.morph_weights;
  if (!state.morph_overrides.empty()) {
    if (state.morph_overrides.size() != num_weights)
      return invalid_argument(
          "restore_state: morph_overrides: " + std::to_string(state.morph_overrides.size()) +
          " for an asset of " + std::to_string(num_weights) + " morph weights");
    int count = 0;
    for (size_t i = 0; i < num_weights; ++i) {
      const MorphOverrideState& o = state.morph_overrides[i];
      const std::string f = at("morph_overrides", i);
      if (static_cast<uint8_t>(o.mode) > static_cast<uint8_t>(MorphOverrideState::Mode::kClearing))
        return invalid_argument("restore_state: " + f + ".mode is not known");
      if (!check.finite(f + ".from", o.from) || !check.finite(f + ".to", o.to) ||
          !check.non_negative(f + ".elapsed", o.elapsed) ||
          !check.non_negative(f + ".duration", o.duration))
        return refused();
      count += o.mode != MorphOverrideState::Mode::kNone ? 1 : 0;
    }
    next.morph_overrides_ = state.morph_overrides;
    next.num_morph_overrides_ = count;
  }

  *this = std::move(next);
  return Status::ok();
}

}  // namespace anim

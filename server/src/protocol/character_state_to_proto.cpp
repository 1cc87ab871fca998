// A character's saved state to its wire form (character_state_convert.h): every value as it
// is, floats bit for bit, the definitions it names by name and fingerprint.
#include "protocol/character_state_convert.h"
#include "protocol/proto_convert.h"

namespace animd {

namespace {

namespace v1 = anim::v1;

void vec(const glm::vec3& v, v1::Vec3* out) {
  to_proto(v, out);
}

v1::IkSolver solver_to_proto(anim::IkSolver s) {
  switch (s) {
    case anim::IkSolver::kCcd:
      return v1::IK_SOLVER_CCD;
    case anim::IkSolver::kTwoBone:
      return v1::IK_SOLVER_TWO_BONE;
    case anim::IkSolver::kFabrik:
      break;
  }
  return v1::IK_SOLVER_FABRIK;
}

// ---- to the wire ----

void player_to_proto(const anim::PlayerState& p, v1::SavedPlayer* out) {
  out->set_clip(p.clip);
  out->set_space(p.space);
  out->set_time(p.time);
  out->set_speed(p.speed);
  out->set_loop(p.loop);
  out->set_advance(p.advance);
  vec(p.motion.translation, out->mutable_motion_translation());
  out->set_motion_yaw(p.motion.yaw);
  out->set_from(p.from);
  out->set_wraps(p.wraps);
  out->set_fresh(p.fresh);
  auto* w = out->mutable_weights();
  w->set_count(static_cast<uint32_t>(p.weights.count));
  w->set_sample0(p.weights.sample[0]);
  w->set_sample1(p.weights.sample[1]);
  w->set_sample2(p.weights.sample[2]);
  w->set_weight0(p.weights.weight[0]);
  w->set_weight1(p.weights.weight[1]);
  w->set_weight2(p.weights.weight[2]);
  w->set_mix0(p.weights.mix[0]);
  w->set_mix1(p.weights.mix[1]);
  w->set_mix2(p.weights.mix[2]);
  out->set_param_x(p.params[0]);
  out->set_param_y(p.params[1]);
  out->set_carry(p.carry);
}

void track_to_proto(const anim::TrackState& t, v1::SavedTrack* out) {
  player_to_proto(t.base, out->mutable_base());
  for (int i = 0; i < t.num_fades; ++i) {
    const anim::FadeState& f = t.fades[static_cast<size_t>(i)];
    auto* o = out->add_fades();
    player_to_proto(f.player, o->mutable_player());
    o->set_duration(f.duration);
    o->set_elapsed(f.elapsed);
    o->set_sync(f.sync);
    o->set_markers(f.markers);
    o->set_curve(static_cast<v1::BlendCurve>(f.curve));
  }
}

void definition_to_proto(const SavedDefinition& d, v1::SavedDefinition* out) {
  out->set_name(d.name);
  out->set_fingerprint(d.fingerprint);
}

void driver_to_proto(const anim::MachineDriverState& d, const SavedDefinition& machine,
                     v1::SavedMachineDriver* out) {
  definition_to_proto(machine, out->mutable_machine());
  for (const anim::PlayerState& p : d.players) player_to_proto(p, out->add_players());
  out->set_state(d.run.state);
  out->set_state_time(d.run.state_time);
  out->set_transition(d.run.transition);
  out->set_from(d.run.from);
}

void layer_to_proto(const anim::LayerState& l, const anim::LayerConfig& c,
                    const SavedDefinition& machine,
                    const std::vector<anim::MontageSection>& sections, v1::SavedLayer* out) {
  out->set_id(static_cast<uint32_t>(l.id));
  out->set_clip(l.clip);
  out->set_time_source(static_cast<v1::LayerTimeSource>(l.time_source));
  out->set_weight(l.weight);
  out->set_speed(l.speed);
  out->set_parameter(l.parameter);
  out->set_time(l.time);
  out->set_from(l.from);
  out->set_advance(l.advance);
  out->set_wraps(l.wraps);
  out->set_loop(l.loop);
  out->set_fresh(l.fresh);
  out->set_slot(l.slot);
  out->set_carry(l.carry);
  out->set_blend(static_cast<v1::LayerBlend>(c.blend));
  out->set_config_clip(c.clip);
  out->mutable_mask()->Add(c.mask.weights.begin(), c.mask.weights.end());
  out->set_reference_clip(c.reference_clip);
  out->set_reference_time(c.reference_time);
  for (const auto& t : c.morph_targets) out->add_morph_targets(t);
  if (l.machine) {
    track_to_proto(l.machine->track, out->mutable_machine_track());
    driver_to_proto(l.machine->driver, machine, out->mutable_machine_driver());
  }
  const anim::LayerState::Montage& m = l.montage;
  auto* o = out->mutable_montage();
  o->set_phase(static_cast<v1::SavedMontagePhase>(m.phase));
  o->set_rate(m.rate);
  o->set_blend_in(m.blend_in);
  o->set_blend_out(m.blend_out);
  o->set_start_weight(m.start_weight);
  o->set_elapsed(m.elapsed);
  o->set_envelope(m.envelope);
  o->set_stop_from(m.stop_from);
  o->set_stop_duration(m.stop_duration);
  o->set_stop_elapsed(m.stop_elapsed);
  for (const anim::MontageSection& s : sections) {
    auto* so = o->add_sections();
    so->set_name(s.name);
    so->set_start_time(s.start_time);
    so->set_next(s.next);
  }
  o->set_section(m.section);
  o->set_from_section(m.from_section);
  o->set_hops(m.hops);
  o->set_started(m.started);
  o->set_blending_out(m.blending_out);
  o->set_began_blending_out(m.began_blending_out);
  o->set_ended_now(m.ended_now);
  o->set_interrupted_clip(m.interrupted_clip);
}

void goal_to_proto(const anim::GoalState& g, const anim::IkGoalDesc& d, v1::SavedIkGoal* out) {
  out->set_id(static_cast<uint32_t>(g.id));
  vec(g.target, out->mutable_target());
  out->set_weight(g.weight);
  out->set_root_joint(d.root_joint);
  out->set_effector_joint(d.effector_joint);
  out->set_solver(solver_to_proto(d.solver));
  out->set_space(static_cast<v1::Space>(d.space));
  vec(d.target, out->mutable_desc_target());
  out->set_desc_weight(d.weight);
  out->set_use_pole(d.has_pole);
  vec(d.pole, out->mutable_pole());
  out->set_soften(d.soften);
  out->set_max_iterations(d.max_iterations);
  out->set_tolerance(d.tolerance);
  out->mutable_joint_weights()->Add(d.joint_weights.begin(), d.joint_weights.end());
  for (const anim::JointConstraint& c : d.constraints) {
    auto* o = out->add_constraints();
    o->set_kind(static_cast<v1::SavedConstraintKind>(c.kind));
    o->set_cone_angle(c.cone_angle);
    vec(c.axis, o->mutable_axis());
    o->set_min_angle(c.min_angle);
    o->set_max_angle(c.max_angle);
  }
}

void aim_to_proto(const anim::AimIkDesc& a, v1::SavedAimIk* out) {
  out->set_root_joint(a.root_joint);
  out->set_end_joint(a.end_joint);
  vec(a.forward_axis, out->mutable_forward_axis());
  out->set_use_pole(a.has_pole);
  vec(a.up_axis, out->mutable_up_axis());
  vec(a.pole, out->mutable_pole());
  out->set_space(static_cast<v1::Space>(a.space));
  vec(a.target, out->mutable_target());
  out->set_weight(a.weight);
  out->mutable_joint_weights()->Add(a.joint_weights.begin(), a.joint_weights.end());
  out->mutable_max_angles()->Add(a.max_angles.begin(), a.max_angles.end());
}

void leg_to_proto(const anim::LegJointNames& l, float sole, v1::SavedLeg* out) {
  out->set_hip(l.hip);
  out->set_knee(l.knee);
  out->set_ankle(l.ankle);
  out->set_toe(l.toe);
  out->set_sole_offset(sole);
}

void feet_to_proto(const anim::AnimatorState& s, v1::SavedFootIk* out) {
  if (s.feet) {
    const anim::FootIkDesc& d = *s.feet;
    auto* o = out->mutable_desc();
    leg_to_proto(d.legs[0], d.sole_offsets[0], o->mutable_left());
    leg_to_proto(d.legs[1], d.sole_offsets[1], o->mutable_right());
    o->set_pelvis(d.pelvis);
    o->set_max_tilt(d.max_tilt);
    o->set_weight(d.weight);
    o->set_lock_feet(d.lock_feet);
    o->set_contact_height(d.contact_height);
    o->set_contact_speed(d.contact_speed);
    o->set_release_time(d.release_time);
    o->set_stride_clips(s.foot_stride_clips);
  }
  const anim::FootIkInput& in = s.foot_input;
  out->set_input_weight(in.weight);
  out->set_has_ground(in.has_ground);
  out->set_samples(in.samples);
  for (size_t f = 0; f < anim::kNumFeet; ++f) {
    v1::SavedFoot* o = f == 0 ? out->mutable_left() : out->mutable_right();
    vec(in.normals[f], o->mutable_ground_normal());
    o->set_ground_value(in.values[f]);
    vec(in.locks[f].position, o->mutable_lock_position());
    o->set_lock_weight(in.locks[f].weight);
    o->set_lock_capture(in.locks[f].capture);
    o->set_planted(s.foot_state.planted[f]);
    o->set_state_lock_weight(s.foot_state.lock_weight[f]);
    vec(s.foot_state.lock_position[f], o->mutable_state_lock_position());
    o->set_state_need(s.foot_state.need[f]);
    vec(s.foot_output.ground_targets[f], o->mutable_ground_target());
    o->set_output_need(s.foot_output.need[f]);
    o->set_lock_held(s.lock_held[f]);
  }
  out->set_state_pelvis_drop(s.foot_state.pelvis_drop);
  out->set_output_ran(s.foot_output.ran);
  out->set_output_pelvis_drop(s.foot_output.pelvis_drop);
}

}  // namespace

void to_proto(const SavedCharacter& saved, v1::CharacterState* out) {
  out->set_version(saved.version);
  out->set_asset(saved.asset);
  out->set_asset_fingerprint(saved.asset_fingerprint);
  for (const SavedDefinition& d : saved.blend_spaces)
    definition_to_proto(d, out->add_blend_spaces());
  out->set_shared(saved.shared);
  out->set_character_id(saved.character_id);
  out->set_tick(saved.tick);
  const anim::AnimatorState& s = saved.state;
  v1::SavedAnimator* a = out->mutable_animator();
  a->set_speed(s.speed);
  a->set_next_layer_id(static_cast<uint32_t>(s.next_layer_id));
  a->set_next_goal_id(static_cast<uint32_t>(s.next_goal_id));
  to_proto(s.root, a->mutable_root());
  a->set_root_set(s.root_set);
  a->mutable_root_motion()->set_mode(static_cast<v1::RootMotionMode>(s.root_motion.mode));
  a->mutable_root_motion()->set_joint(s.root_motion.joint);
  a->mutable_root_motion()->set_extract_vertical(s.root_motion.extract_vertical);
  for (const anim::ParameterState& p : s.parameters) {
    auto* o = a->add_parameters();
    o->set_name(p.name);
    o->set_value(p.value);
    o->set_target(p.target);
    o->set_velocity(p.velocity);
    o->set_smoothing(p.smoothing);
  }
  for (const anim::TriggerState& t : s.triggers) {
    auto* o = a->add_triggers();
    o->set_name(t.name);
    o->set_set(t.set);
  }
  track_to_proto(s.main, a->mutable_main());
  if (s.machine.machine) driver_to_proto(s.machine, saved.machine, a->mutable_machine());
  for (size_t i = 0; i < s.layers.size(); ++i)
    layer_to_proto(s.layers[i], s.layer_configs[i], saved.layer_machines[i],
                   saved.layer_sections[i], a->add_layers());
  for (size_t i = 0; i < s.goals.size(); ++i)
    goal_to_proto(s.goals[i], s.goal_descs[i], a->add_goals());
  if (s.aim) aim_to_proto(*s.aim, a->mutable_aim());
  vec(s.aim_input.target, a->mutable_aim_input_target());
  a->set_aim_input_weight(s.aim_input.weight);
  feet_to_proto(s, a->mutable_foot_ik());
  if (s.held_pose) {
    auto* locals = a->mutable_held_pose()->mutable_locals();
    locals->Reserve(static_cast<int>(s.held_pose->size() * 10));
    for (const anim::Transform& t : *s.held_pose) {
      const float v[10] = {t.translation.x, t.translation.y, t.translation.z, t.rotation.x,
                           t.rotation.y,    t.rotation.z,    t.rotation.w,    t.scale.x,
                           t.scale.y,       t.scale.z};
      locals->Add(std::begin(v), std::end(v));
    }
  }
  a->set_held_weight(s.held_weight);
  a->set_held_from(s.held_from);
  a->set_held_out_duration(s.held_out_duration);
  a->set_held_out_elapsed(s.held_out_elapsed);
  a->mutable_morph_weights()->Add(s.morph_weights.begin(), s.morph_weights.end());
  for (const anim::MorphOverrideState& m : s.morph_overrides) {
    auto* o = a->add_morph_overrides();
    o->set_mode(static_cast<v1::SavedMorphMode>(m.mode));
    o->set_from(m.from);
    o->set_to(m.to);
    o->set_elapsed(m.elapsed);
    o->set_duration(m.duration);
  }
}

}  // namespace animd

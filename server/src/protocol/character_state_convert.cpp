// CharacterState -> SavedCharacter (character_state_convert.h), field by field in the order of
// state.proto, each form checked; the caps of a state's repeated fields; the converters of
// export_characters and import_characters. The other direction is character_state_to_proto.cpp.
#include "protocol/character_state_convert.h"
#include "protocol/request_convert_fleet.h"

#include <limits>
#include <set>
#include <utility>

#include "protocol/proto_convert.h"
#include "protocol/request_convert_caps.h"

namespace animd {

namespace {

namespace v1 = anim::v1;

// Reading: the first fault, with the field it is in.
struct Reader {
  std::string error;
  anim::StatusCode code = anim::StatusCode::kInvalidArgument;

  bool fail(const std::string& field, const std::string& what) {
    if (error.empty()) error = field + ": " + what;
    return false;
  }
  // A wire enum within [0, last].
  bool known(const std::string& field, int v, int last) {
    return (v >= 0 && v <= last) || fail(field, "has an unknown value " + std::to_string(v));
  }
  // An int fitting core's int8 slots / int indices.
  bool fits(const std::string& field, int64_t v, int64_t lo, int64_t hi) {
    return (v >= lo && v <= hi) ||
           fail(field, std::to_string(v) + " is outside [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "]");
  }
};

std::string at(const std::string& field, int i) {
  return field + "[" + std::to_string(i) + "]";
}

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

// Vec3 fields are read as they are (an unset one is 0, 0, 0): finiteness is restore_state's.
glm::vec3 vec(const v1::Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

anim::Transform transform(const v1::Transform& t) {
  anim::Transform out;
  out.translation = vec(t.translation());
  out.rotation = glm::quat(t.rotation().w(), t.rotation().x(), t.rotation().y(), t.rotation().z());
  out.scale = vec(t.scale());
  return out;
}

// ---- from the wire ----

bool player_from_proto(Reader& rd, const std::string& f, const v1::SavedPlayer& p,
                       anim::PlayerState& out) {
  if (!rd.fits(f + ".clip", p.clip(), -1, kIntMax) ||
      !rd.fits(f + ".space", p.space(), -1, kIntMax) ||
      !rd.fits(f + ".param_x", p.param_x(), -1, anim::Animator::kMaxParameters - 1) ||
      !rd.fits(f + ".param_y", p.param_y(), -1, anim::Animator::kMaxParameters - 1))
    return false;
  const v1::SavedBlendWeights& w = p.weights();
  if (!rd.fits(f + ".weights.count", w.count(), 0, 3) ||
      !rd.fits(f + ".weights.sample0", w.sample0(), -1, kIntMax) ||
      !rd.fits(f + ".weights.sample1", w.sample1(), -1, kIntMax) ||
      !rd.fits(f + ".weights.sample2", w.sample2(), -1, kIntMax))
    return false;
  out.clip = p.clip();
  out.space = p.space();
  out.time = p.time();
  out.speed = p.speed();
  out.loop = p.loop();
  out.advance = p.advance();
  out.motion.translation = vec(p.motion_translation());
  out.motion.yaw = p.motion_yaw();
  out.from = p.from();
  out.wraps = p.wraps();
  out.fresh = p.fresh();
  out.weights.count = static_cast<int>(w.count());
  out.weights.sample = {w.sample0(), w.sample1(), w.sample2()};
  out.weights.weight = {w.weight0(), w.weight1(), w.weight2()};
  out.weights.mix = {w.mix0(), w.mix1(), w.mix2()};
  out.params = {static_cast<int8_t>(p.param_x()), static_cast<int8_t>(p.param_y())};
  out.carry = p.carry();
  return true;
}

bool track_from_proto(Reader& rd, const std::string& f, const v1::SavedTrack& t,
                      anim::TrackState& out) {
  if (!player_from_proto(rd, f + ".base", t.base(), out.base)) return false;
  for (int i = 0; i < t.fades_size(); ++i) {
    const v1::SavedFade& in = t.fades(i);
    const std::string ff = at(f + ".fades", i);
    anim::FadeState& fade = out.fades[static_cast<size_t>(i)];
    if (!player_from_proto(rd, ff + ".player", in.player(), fade.player) ||
        !rd.known(ff + ".curve", in.curve(), v1::BLEND_CURVE_SMOOTH_STEP))
      return false;
    fade.duration = in.duration();
    fade.elapsed = in.elapsed();
    fade.sync = in.sync();
    fade.markers = in.markers();
    fade.curve = static_cast<anim::BlendCurve>(in.curve());
  }
  out.num_fades = t.fades_size();
  return true;
}

SavedDefinition definition_from_proto(const v1::SavedDefinition& d) {
  return SavedDefinition{d.name(), d.fingerprint()};
}

bool driver_from_proto(Reader& rd, const std::string& f, const v1::SavedMachineDriver& d,
                       anim::MachineDriverState& out) {
  if (d.machine().name().empty()) return rd.fail(f + ".machine.name", "is empty");
  out.players.resize(static_cast<size_t>(d.players_size()));
  for (int i = 0; i < d.players_size(); ++i)
    if (!player_from_proto(rd, at(f + ".players", i), d.players(i),
                           out.players[static_cast<size_t>(i)]))
      return false;
  if (!rd.fits(f + ".state", d.state(), -1, kIntMax) ||
      !rd.fits(f + ".transition", d.transition(), -1, kIntMax) ||
      !rd.fits(f + ".from", d.from(), -1, kIntMax))
    return false;
  out.run.state = d.state();
  out.run.state_time = d.state_time();
  out.run.transition = d.transition();
  out.run.from = d.from();
  return true;
}

bool layer_from_proto(Reader& rd, const std::string& f, const v1::SavedLayer& l,
                      SavedCharacter& out) {
  anim::LayerState layer;
  anim::LayerConfig config;
  if (!rd.fits(f + ".id", l.id(), 1, kIntMax) || !rd.fits(f + ".clip", l.clip(), -1, kIntMax) ||
      !rd.known(f + ".time_source", l.time_source(), v1::LAYER_TIME_PARAMETER) ||
      !rd.known(f + ".blend", l.blend(), v1::LAYER_BLEND_OVERRIDE) ||
      !rd.fits(f + ".config_clip", l.config_clip(), -1, kIntMax) ||
      !rd.fits(f + ".reference_clip", l.reference_clip(), -1, kIntMax))
    return false;
  layer.id = static_cast<int>(l.id());
  layer.clip = l.clip();
  layer.time_source = static_cast<anim::LayerTimeSource>(l.time_source());
  layer.weight = l.weight();
  layer.speed = l.speed();
  layer.parameter = l.parameter();
  layer.time = l.time();
  layer.from = l.from();
  layer.advance = l.advance();
  layer.wraps = l.wraps();
  layer.loop = l.loop();
  layer.fresh = l.fresh();
  layer.slot = l.slot();
  layer.carry = l.carry();
  config.clip = l.config_clip();
  config.blend = static_cast<anim::LayerBlend>(l.blend());
  config.mask.weights.assign(l.mask().begin(), l.mask().end());
  config.reference_clip = l.reference_clip();
  config.reference_time = l.reference_time();
  config.morph_targets.assign(l.morph_targets().begin(), l.morph_targets().end());
  SavedDefinition machine;
  if (l.has_machine_driver() != l.has_machine_track())
    return rd.fail(f + ".machine_driver",
                   "a machine layer has both its track and its driver, another layer neither");
  if (l.has_machine_driver()) {
    auto m = std::make_unique<anim::MachineLayerState>();
    if (!track_from_proto(rd, f + ".machine_track", l.machine_track(), m->track) ||
        !driver_from_proto(rd, f + ".machine_driver", l.machine_driver(), m->driver))
      return false;
    machine = definition_from_proto(l.machine_driver().machine());
    layer.machine = anim::BoxedCopy<anim::MachineLayerState>(std::move(m));
  }
  const v1::SavedMontage& m = l.montage();
  const std::string mf = f + ".montage";
  if (!rd.known(mf + ".phase", m.phase(), v1::SAVED_MONTAGE_ENDED) ||
      !rd.fits(mf + ".section", m.section(), -1, kIntMax) ||
      !rd.fits(mf + ".from_section", m.from_section(), -1, kIntMax) ||
      !rd.fits(mf + ".interrupted_clip", m.interrupted_clip(), -1, kIntMax))
    return false;
  anim::LayerState::Montage& o = layer.montage;
  o.phase = static_cast<anim::MontagePhase>(m.phase());
  o.rate = m.rate();
  o.blend_in = m.blend_in();
  o.blend_out = m.blend_out();
  o.start_weight = m.start_weight();
  o.elapsed = m.elapsed();
  o.envelope = m.envelope();
  o.stop_from = m.stop_from();
  o.stop_duration = m.stop_duration();
  o.stop_elapsed = m.stop_elapsed();
  o.section = m.section();
  o.from_section = m.from_section();
  o.hops = m.hops();
  o.started = m.started();
  o.blending_out = m.blending_out();
  o.began_blending_out = m.began_blending_out();
  o.ended_now = m.ended_now();
  o.interrupted_clip = m.interrupted_clip();
  std::vector<anim::MontageSection> sections;
  for (const v1::MontageSection& s : m.sections())
    sections.push_back(anim::MontageSection{s.name(), s.start_time(), s.next()});
  out.state.layers.push_back(std::move(layer));
  out.state.layer_configs.push_back(std::move(config));
  out.layer_machines.push_back(std::move(machine));
  out.layer_sections.push_back(std::move(sections));
  return true;
}

bool goal_from_proto(Reader& rd, const std::string& f, const v1::SavedIkGoal& g,
                     anim::AnimatorState& out) {
  if (!rd.fits(f + ".id", g.id(), 1, kIntMax) ||
      !rd.known(f + ".solver", g.solver(), v1::IK_SOLVER_TWO_BONE) ||
      !rd.known(f + ".space", g.space(), v1::SPACE_WORLD))
    return false;
  anim::GoalState state;
  state.id = static_cast<int>(g.id());
  state.target = vec(g.target());
  state.weight = g.weight();
  anim::IkGoalDesc d;
  d.root_joint = g.root_joint();
  d.effector_joint = g.effector_joint();
  d.solver = g.solver() == v1::IK_SOLVER_CCD        ? anim::IkSolver::kCcd
             : g.solver() == v1::IK_SOLVER_TWO_BONE ? anim::IkSolver::kTwoBone
                                                    : anim::IkSolver::kFabrik;
  d.space = static_cast<anim::IkSpace>(g.space());
  d.target = vec(g.desc_target());
  d.weight = g.desc_weight();
  d.has_pole = g.use_pole();
  d.pole = vec(g.pole());
  d.soften = g.soften();
  d.max_iterations = g.max_iterations();
  d.tolerance = g.tolerance();
  d.joint_weights.assign(g.joint_weights().begin(), g.joint_weights().end());
  for (int i = 0; i < g.constraints_size(); ++i) {
    const v1::SavedJointConstraint& c = g.constraints(i);
    if (!rd.known(at(f + ".constraints", i) + ".kind", c.kind(), v1::SAVED_CONSTRAINT_HINGE))
      return false;
    anim::JointConstraint jc;
    jc.kind = static_cast<anim::JointConstraint::Kind>(c.kind());
    jc.cone_angle = c.cone_angle();
    jc.axis = vec(c.axis());
    jc.min_angle = c.min_angle();
    jc.max_angle = c.max_angle();
    d.constraints.push_back(jc);
  }
  out.goals.push_back(state);
  out.goal_descs.push_back(std::move(d));
  return true;
}

bool aim_from_proto(Reader& rd, const std::string& f, const v1::SavedAimIk& a,
                    anim::AimIkDesc& out) {
  if (!rd.known(f + ".space", a.space(), v1::SPACE_WORLD)) return false;
  out.root_joint = a.root_joint();
  out.end_joint = a.end_joint();
  out.forward_axis = vec(a.forward_axis());
  out.has_pole = a.use_pole();
  out.up_axis = vec(a.up_axis());
  out.pole = vec(a.pole());
  out.space = static_cast<anim::IkSpace>(a.space());
  out.target = vec(a.target());
  out.weight = a.weight();
  out.joint_weights.assign(a.joint_weights().begin(), a.joint_weights().end());
  out.max_angles.assign(a.max_angles().begin(), a.max_angles().end());
  return true;
}

void feet_from_proto(const v1::SavedFootIk& in, anim::AnimatorState& s) {
  if (in.has_desc()) {
    const v1::SavedFootIkDesc& d = in.desc();
    anim::FootIkDesc desc;
    const v1::SavedLeg* legs[anim::kNumFeet] = {&d.left(), &d.right()};
    for (size_t f = 0; f < anim::kNumFeet; ++f) {
      desc.legs[f] =
          anim::LegJointNames{legs[f]->hip(), legs[f]->knee(), legs[f]->ankle(), legs[f]->toe()};
      desc.sole_offsets[f] = legs[f]->sole_offset();
    }
    desc.pelvis = d.pelvis();
    desc.max_tilt = d.max_tilt();
    desc.weight = d.weight();
    desc.lock_feet = d.lock_feet();
    desc.contact_height = d.contact_height();
    desc.contact_speed = d.contact_speed();
    desc.release_time = d.release_time();
    s.feet = std::move(desc);
    s.foot_stride_clips = d.stride_clips();
  }
  s.foot_input.weight = in.input_weight();
  s.foot_input.has_ground = in.has_ground();
  s.foot_input.samples = in.samples();
  for (size_t f = 0; f < anim::kNumFeet; ++f) {
    const v1::SavedFoot& o = f == 0 ? in.left() : in.right();
    s.foot_input.normals[f] = vec(o.ground_normal());
    s.foot_input.values[f] = o.ground_value();
    s.foot_input.locks[f].position = vec(o.lock_position());
    s.foot_input.locks[f].weight = o.lock_weight();
    s.foot_input.locks[f].capture = o.lock_capture();
    s.foot_state.planted[f] = o.planted();
    s.foot_state.lock_weight[f] = o.state_lock_weight();
    s.foot_state.lock_position[f] = vec(o.state_lock_position());
    s.foot_state.need[f] = o.state_need();
    s.foot_output.ground_targets[f] = vec(o.ground_target());
    s.foot_output.need[f] = o.output_need();
    s.lock_held[f] = o.lock_held();
  }
  s.foot_state.pelvis_drop = in.state_pelvis_drop();
  s.foot_output.ran = in.output_ran();
  s.foot_output.pelvis_drop = in.output_pelvis_drop();
}

}  // namespace

anim::Expected<SavedCharacter> from_proto(const v1::CharacterState& in, const std::string& field) {
  if (in.version() == 0)
    return anim::invalid_argument(field + ".version is unset (a state names its version)");
  if (in.version() > anim::kAnimatorStateVersion)
    return anim::failed_precondition(
        field + ".version " + std::to_string(in.version()) + " is newer than this daemon's (" +
        std::to_string(anim::kAnimatorStateVersion) + "): restore it on a daemon that knows it");
  if (in.asset().empty()) return anim::invalid_argument(field + ".asset is empty");
  Reader rd;
  auto refused = [&]() { return anim::Status(rd.code, rd.error); };
  SavedCharacter out;
  out.version = in.version();
  out.asset = in.asset();
  out.asset_fingerprint = in.asset_fingerprint();
  for (const auto& d : in.blend_spaces()) out.blend_spaces.push_back(definition_from_proto(d));
  out.shared = in.shared();
  out.character_id = in.character_id();
  out.tick = in.tick();

  const v1::SavedAnimator& a = in.animator();
  const std::string af = field + ".animator";
  anim::AnimatorState& s = out.state;
  if (!rd.fits(af + ".next_layer_id", a.next_layer_id(), 1, kIntMax) ||
      !rd.fits(af + ".next_goal_id", a.next_goal_id(), 1, kIntMax) ||
      !rd.known(af + ".root_motion.mode", a.root_motion().mode(), v1::ROOT_MOTION_EXTRACT) ||
      !rd.fits(af + ".root_motion.joint", a.root_motion().joint(), -1, kIntMax))
    return refused();
  s.speed = a.speed();
  s.next_layer_id = static_cast<int>(a.next_layer_id());
  s.next_goal_id = static_cast<int>(a.next_goal_id());
  s.root = transform(a.root());
  s.root_set = a.root_set();
  s.root_motion.mode = static_cast<anim::RootMotionMode>(a.root_motion().mode());
  s.root_motion.joint = a.root_motion().joint();
  s.root_motion.extract_vertical = a.root_motion().extract_vertical();
  for (const auto& p : a.parameters())
    s.parameters.push_back(
        anim::ParameterState{p.name(), p.value(), p.target(), p.velocity(), p.smoothing()});
  for (const auto& t : a.triggers()) s.triggers.push_back(anim::TriggerState{t.name(), t.set()});
  if (!track_from_proto(rd, af + ".main", a.main(), s.main)) return refused();
  if (a.has_machine()) {
    if (!driver_from_proto(rd, af + ".machine", a.machine(), s.machine)) return refused();
    out.machine = definition_from_proto(a.machine().machine());
  }
  for (int i = 0; i < a.layers_size(); ++i)
    if (!layer_from_proto(rd, at(af + ".layers", i), a.layers(i), out)) return refused();
  for (int i = 0; i < a.goals_size(); ++i)
    if (!goal_from_proto(rd, at(af + ".goals", i), a.goals(i), s)) return refused();
  if (a.has_aim()) {
    anim::AimIkDesc aim;
    if (!aim_from_proto(rd, af + ".aim", a.aim(), aim)) return refused();
    s.aim = std::move(aim);
  }
  s.aim_input.target = vec(a.aim_input_target());
  s.aim_input.weight = a.aim_input_weight();
  feet_from_proto(a.foot_ik(), s);
  if (a.has_held_pose()) {
    const auto& locals = a.held_pose().locals();
    if (locals.size() % 10 != 0)
      return anim::invalid_argument(af + ".held_pose.locals: " + std::to_string(locals.size()) +
                                    " floats, not 10 per joint");
    std::vector<anim::Transform> pose(static_cast<size_t>(locals.size() / 10));
    for (size_t j = 0; j < pose.size(); ++j) {
      const float* v = locals.data() + 10 * j;
      pose[j].translation = {v[0], v[1], v[2]};
      pose[j].rotation = glm::quat(v[6], v[3], v[4], v[5]);
      pose[j].scale = {v[7], v[8], v[9]};
    }
    s.held_pose = std::move(pose);
  }
  s.held_weight = a.held_weight();
  s.held_from = a.held_from();
  s.held_out_duration = a.held_out_duration();
  s.held_out_elapsed = a.held_out_elapsed();
  s.morph_weights.assign(a.morph_weights().begin(), a.morph_weights().end());
  for (int i = 0; i < a.morph_overrides_size(); ++i) {
    const auto& m = a.morph_overrides(i);
    if (!rd.known(at(af + ".morph_overrides", i) + ".mode", m.mode(), v1::SAVED_MORPH_CLEARING))
      return refused();
    s.morph_overrides.push_back(
        anim::MorphOverrideState{static_cast<anim::MorphOverrideState::Mode>(m.mode()), m.from(),
                                 m.to(), m.elapsed(), m.duration()});
  }
  return out;
}

anim::Status check_character_state_caps(const v1::CharacterState& st) {
  namespace c = caps;
  const v1::SavedAnimator& a = st.animator();
  auto track = [](const RepeatedFieldCap& fades, const v1::SavedTrack& t) {
    return check_cap(fades, t.fades_size());
  };
  if (auto s = check_cap(c::kStateBlendSpaces, st.blend_spaces_size()); !s) return s;
  if (auto s = check_cap(c::kStateParameters, a.parameters_size()); !s) return s;
  if (auto s = check_cap(c::kStateTriggers, a.triggers_size()); !s) return s;
  if (auto s = track(c::kStateMainFades, a.main()); !s) return s;
  if (auto s = check_cap(c::kStateMachinePlayers, a.machine().players_size()); !s) return s;
  if (auto s = check_cap(c::kStateLayers, a.layers_size()); !s) return s;
  for (const v1::SavedLayer& l : a.layers()) {
    if (auto s = check_cap(c::kStateLayerMask, l.mask_size()); !s) return s;
    if (auto s = check_cap(c::kStateLayerMorphTargets, l.morph_targets_size()); !s) return s;
    if (auto s = track(c::kStateLayerMachineFades, l.machine_track()); !s) return s;
    if (auto s = check_cap(c::kStateLayerMachinePlayers, l.machine_driver().players_size()); !s)
      return s;
    if (auto s = check_cap(c::kStateLayerSections, l.montage().sections_size()); !s) return s;
  }
  if (auto s = check_cap(c::kStateGoals, a.goals_size()); !s) return s;
  for (const v1::SavedIkGoal& g : a.goals()) {
    if (auto s = check_cap(c::kStateGoalJointWeights, g.joint_weights_size()); !s) return s;
    if (auto s = check_cap(c::kStateGoalConstraints, g.constraints_size()); !s) return s;
  }
  if (auto s = check_cap(c::kStateAimJointWeights, a.aim().joint_weights_size()); !s) return s;
  if (auto s = check_cap(c::kStateAimMaxAngles, a.aim().max_angles_size()); !s) return s;
  if (auto s = check_cap(c::kStateHeldPose, a.held_pose().locals_size()); !s) return s;
  if (auto s = check_cap(c::kStateMorphWeights, a.morph_weights_size()); !s) return s;
  return check_cap(c::kStateMorphOverrides, a.morph_overrides_size());
}

anim::Expected<WorldRequest> export_characters_request(const v1::ExportCharactersRequest& r) {
  ExportCharacters out;
  std::set<uint32_t> seen;
  for (int i = 0; i < r.character_ids_size(); ++i) {
    if (!seen.insert(r.character_ids(i)).second)
      return anim::invalid_argument(at("export_characters.character_ids", i) + ": character " +
                                    std::to_string(r.character_ids(i)) + " is listed twice");
    out.characters.push_back(r.character_ids(i));
  }
  if (out.characters.empty())
    return anim::invalid_argument("export_characters.character_ids is empty");
  return WorldRequest(std::move(out));
}

anim::Expected<WorldRequest> import_characters_request(const v1::ImportCharactersRequest& r) {
  ImportCharacters out;
  if (r.states_size() == 0) return anim::invalid_argument("import_characters.states is empty");
  out.characters.reserve(static_cast<size_t>(r.states_size()));
  for (int i = 0; i < r.states_size(); ++i) {
    auto saved = from_proto(r.states(i), at("import_characters.states", i));
    if (!saved) return saved.error();
    out.characters.push_back(std::move(*saved));
  }
  if (!r.migration_id().empty()) {
    if (auto s = check_migration_id(r.migration_id(), "import_characters.migration_id"); !s)
      return s;
    out.migration_id = r.migration_id();
  }
  return WorldRequest(std::move(out));
}

}  // namespace animd

// The caps on the repeated fields of requests (request_convert_caps.h).
#include "protocol/request_convert_caps.h"

#include <array>
#include <initializer_list>
#include <string>
#include <utility>

#include "protocol/character_state_convert.h"

namespace animd {

namespace {

using Sized = std::pair<const RepeatedFieldCap&, int>;

anim::Status first_over(std::initializer_list<Sized> fields) {
  for (const auto& [cap, count] : fields)
    if (auto s = check_cap(cap, count); !s) return s;
  return {};
}

// `cap`'s refusal for `count` entries in the field errors name `field`.
anim::Status refusal(const RepeatedFieldCap& cap, std::string_view field, int count) {
  return anim::Status(cap.code, std::string(field) + " has " + std::to_string(count) + " " +
                                    cap.unit + ", more than " + std::to_string(cap.limit) + " (" +
                                    cap.why + ")");
}

// The name of a state machine's capped field `cap` after the machine's name `field`:
// "define_state_machine.machine.states" -> "<field>.states".
std::string machine_field(std::string_view field, const RepeatedFieldCap& cap) {
  constexpr std::string_view kMachine = "define_state_machine.machine";
  return std::string(field) + std::string(std::string_view(cap.field).substr(kMachine.size()));
}

}  // namespace

anim::Status check_cap(const RepeatedFieldCap& cap, int count) {
  if (count <= cap.limit) return {};
  return refusal(cap, cap.field, count);
}

namespace {

// A walk over a machine and the machines its states hold, depth-first (the order
// make_state_machine flattens them in), that names fields only for a refusal.
struct MachineWalk {
  std::string_view field;  // the outermost machine's name in errors
  // The states leading to the machine at each depth: route[0] holds depth 2's, ...
  std::array<int, anim::kMaxMachineDepth> route{};
  int leaves = 0;       // states that play a motion met so far
  int transitions = 0;  // transitions met so far

  // The name of the machine `depth` deep on the route, in errors.
  std::string machine(int depth) const {
    std::string out(field);
    for (int d = 1; d < depth; ++d)
      out += ".states[" + std::to_string(route[static_cast<size_t>(d - 1)]) + "].machine";
    return out;
  }

  // The caps of machine `m`, `depth` machines deep, then of the machines its states hold.
  anim::Status check(const anim::v1::StateMachineDef& m, int depth) {
    if (m.states_size() > caps::kDefineStateMachineStates.limit)
      return refusal(caps::kDefineStateMachineStates,
                     machine_field(machine(depth), caps::kDefineStateMachineStates),
                     m.states_size());
    if (m.transitions_size() > caps::kDefineStateMachineTransitions.limit)
      return refusal(caps::kDefineStateMachineTransitions,
                     machine_field(machine(depth), caps::kDefineStateMachineTransitions),
                     m.transitions_size());
    for (int i = 0; i < m.transitions_size(); ++i)
      if (m.transitions(i).conditions_size() > caps::kDefineStateMachineConditions.limit)
        return refusal(caps::kDefineStateMachineConditions,
                       machine(depth) + ".transitions[" + std::to_string(i) + "].conditions",
                       m.transitions(i).conditions_size());
    if (transitions + m.transitions_size() > anim::kMaxMachineTransitions)
      return anim::invalid_argument(machine(depth) + ".transitions[" +
                                    std::to_string(anim::kMaxMachineTransitions - transitions) +
                                    "]: more than " + std::to_string(anim::kMaxMachineTransitions) +
                                    " transitions in the machine (nested machines' included)");
    transitions += m.transitions_size();
    for (int i = 0; i < m.states_size(); ++i) {
      if (!m.states(i).has_machine()) {
        if (++leaves > anim::kMaxMachineStates)
          return anim::invalid_argument(
              machine(depth) + ".states[" + std::to_string(i) + "]: more than " +
              std::to_string(anim::kMaxMachineStates) +
              " states play a motion in the machine (nested machines' included)");
        continue;
      }
      // Refused before it is read: the walk goes no deeper than the limit.
      if (depth >= anim::kMaxMachineDepth)
        return anim::invalid_argument(machine(depth) + ".states[" + std::to_string(i) +
                                      "].machine: machines nest more than " +
                                      std::to_string(anim::kMaxMachineDepth) + " deep");
      route[static_cast<size_t>(depth - 1)] = i;
      if (auto s = check(m.states(i).machine(), depth + 1); !s) return s;
    }
    return {};
  }
};

}  // namespace

anim::Status check_state_machine_caps(const anim::v1::StateMachineDef& m, std::string_view field) {
  return MachineWalk{field}.check(m, 1);
}

anim::Status check_repeated_field_caps(const anim::v1::Request& r) {
  using R = anim::v1::Request;
  switch (r.command_case()) {
    case R::kQueryPose:
      return first_over({{caps::kQueryPoseJointNames, r.query_pose().joint_names_size()},
                         {caps::kQueryPoseJointIndices, r.query_pose().joint_indices_size()}});
    case R::kSubscribe:
      return check_cap(caps::kSubscribeCharacterIds, r.subscribe().character_ids_size());
    case R::kRaycast:
      return check_cap(caps::kRaycastIgnore, r.raycast().ignore_character_ids_size());
    case R::kOverlapSphere:
      return check_cap(caps::kOverlapSphereIgnore, r.overlap_sphere().ignore_character_ids_size());
    case R::kAddLayer:
      return first_over({{caps::kAddLayerMaskJointWeights,
                          static_cast<int>(r.add_layer().mask().joint_weights().size())},
                         {caps::kAddLayerMorphTargets, r.add_layer().morph_targets_size()}});
    case R::kSetIkGoal:
      return first_over({{caps::kSetIkGoalJointWeights, r.set_ik_goal().joint_weights_size()},
                         {caps::kSetIkGoalConstraints, r.set_ik_goal().constraints_size()}});
    case R::kSetAimIk:
      return first_over({{caps::kSetAimIkJointWeights, r.set_aim_ik().joint_weights_size()},
                         {caps::kSetAimIkMaxAngles, r.set_aim_ik().max_angles_size()}});
    case R::kAddClipEvents:
      return check_cap(caps::kAddClipEventsEvents, r.add_clip_events().events_size());
    case R::kDefineBlendSpace:
      return first_over({{caps::kDefineBlendSpaceAxes, r.define_blend_space().axes_size()},
                         {caps::kDefineBlendSpaceSamples, r.define_blend_space().samples_size()}});
    case R::kPlayMontage:
      return check_cap(caps::kPlayMontageSections, r.play_montage().sections_size());
    case R::kDefineStateMachine:
      return check_state_machine_caps(r.define_state_machine().machine(),
                                      "define_state_machine.machine");
    case R::kSetHitVolumes:
      return check_cap(caps::kSetHitVolumesJoints, r.set_hit_volumes().joints_size());
    case R::kLoadAsset:
      return check_cap(caps::kLoadAssetDetailJoints, r.load_asset().detail_joints_size());
    case R::kSetPose:
      return check_cap(caps::kSetPoseLocals, r.set_pose().locals_size());
    case R::kSetMorphWeights:
      return check_cap(caps::kSetMorphWeightsWeights, r.set_morph_weights().weights_size());
    case R::kClearMorphWeights:
      return check_cap(caps::kClearMorphWeightsTargets, r.clear_morph_weights().targets_size());
    case R::kExportCharacters:
      return check_cap(caps::kExportCharacterIds, r.export_characters().character_ids_size());
    case R::kImportCharacters: {
      if (auto s = check_cap(caps::kImportStates, r.import_characters().states_size()); !s)
        return s;
      for (const auto& state : r.import_characters().states())
        if (auto s = check_character_state_caps(state); !s) return s;
      return {};
    }
    case R::kMigrate:
      return check_cap(caps::kMigrateCharacterIds, r.migrate().character_ids_size());
    case R::kSetSignificance:
      return check_cap(caps::kSetSignificanceCharacterIds,
                       r.set_significance().character_ids_size());
    default:
      return {};
  }
}

}  // namespace animd

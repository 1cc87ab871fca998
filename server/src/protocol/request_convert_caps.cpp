// The caps on the repeated fields of requests (request_convert_caps.h).
#include "protocol/request_convert_caps.h"

#include <initializer_list>
#include <string>
#include <utility>

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

anim::Status check_state_machine_caps(const anim::v1::StateMachineDef& m, std::string_view field) {
  if (m.states_size() > caps::kDefineStateMachineStates.limit)
    return refusal(caps::kDefineStateMachineStates,
                   machine_field(field, caps::kDefineStateMachineStates), m.states_size());
  if (m.transitions_size() > caps::kDefineStateMachineTransitions.limit)
    return refusal(caps::kDefineStateMachineTransitions,
                   machine_field(field, caps::kDefineStateMachineTransitions),
                   m.transitions_size());
  for (int i = 0; i < m.transitions_size(); ++i)
    if (m.transitions(i).conditions_size() > caps::kDefineStateMachineConditions.limit)
      return refusal(caps::kDefineStateMachineConditions,
                     std::string(field) + ".transitions[" + std::to_string(i) + "].conditions",
                     m.transitions(i).conditions_size());
  return {};
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
      return check_cap(caps::kAddLayerMaskJointWeights,
                       static_cast<int>(r.add_layer().mask().joint_weights().size()));
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
    case R::kSetPose:
      return check_cap(caps::kSetPoseLocals, r.set_pose().locals_size());
    default:
      return {};
  }
}

}  // namespace animd

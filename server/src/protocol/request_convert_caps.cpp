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

}  // namespace

anim::Status check_cap(const RepeatedFieldCap& cap, int count) {
  if (count <= cap.limit) return {};
  return anim::Status(cap.code, std::string(cap.field) + " has " + std::to_string(count) + " " +
                                    cap.unit + ", more than " + std::to_string(cap.limit) + " (" +
                                    cap.why + ")");
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
    case R::kSetHitVolumes:
      return check_cap(caps::kSetHitVolumesJoints, r.set_hit_volumes().joints_size());
    default:
      return {};
  }
}

}  // namespace animd

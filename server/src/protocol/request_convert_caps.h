#pragma once
// The caps on the repeated fields of requests: one table, one check. A frame's size bounds
// what parsing holds (a 1 MiB frame parses into ~500k repeated varints), not what answering
// it would cost, so every repeated field of every request message (proto/anim/v1/*.proto,
// maps included) has a cap here, and a request over one is refused before any work is done
// on the field: check_repeated_field_caps reads only the fields' sizes. Session::handle runs
// it on every request before routing it, and to_world_request runs it first, so the World
// and the request families only ever see lists within their caps. docs/protocol.md, "Limits
// on repeated fields", lists the table.
//
// A test walks the protobuf descriptors reachable from Request and fails for a repeated
// field without a cap here (tests/server/protocol/request_convert_caps_test.cpp).

#include <array>
#include <string_view>

#include "anim/animator.h"
#include "anim/blend_space.h"
#include "anim/clip_events.h"
#include "anim/pose_evaluation.h"
#include "anim/skeleton.h"
#include "anim/state_machine.h"
#include "anim/status.h"
#include "anim/v1/envelope.pb.h"

namespace animd {

// One repeated field's cap. The refusal reads
// "<field> has <count> <unit>, more than <limit> (<why>)".
struct RepeatedFieldCap {
  const char* field;      // as errors name it: "<command>.<field>[.<field>]"
  int limit;              // the most entries accepted
  anim::StatusCode code;  // the refusal's code
  const char* unit;       // what the entries are: "names", "ids", ...
  const char* why;        // where the limit comes from
};

// Character ids one subscription may list; larger sets subscribe with all_characters or a
// region. Each listed id is looked up once per subscribe and kept with the subscription.
inline constexpr int kMaxSubscribeCharacterIds = 16384;
// Characters one raycast or overlap_sphere may leave out.
inline constexpr int kMaxIgnoredCharacterIds = 1024;
// Characters one export_characters or import_characters names.
inline constexpr int kMaxSavedCharacters = 1024;
// Morph weights a saved state carries (one per morph target of its asset).
inline constexpr int kMaxSavedMorphWeights = 65536;

namespace caps {
using anim::StatusCode;
constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
constexpr StatusCode kExhausted = StatusCode::kResourceExhausted;
constexpr int kJoints = anim::Skeleton::kMaxJoints;
constexpr int kChain = anim::kMaxChainJoints;

inline constexpr RepeatedFieldCap kQueryPoseJointNames{"query_pose.joint_names", kJoints, kInvalid,
                                                       "names", "a skeleton's joint limit"};
inline constexpr RepeatedFieldCap kQueryPoseJointIndices{
    "query_pose.joint_indices", kJoints, kInvalid, "indices", "a skeleton's joint limit"};
inline constexpr RepeatedFieldCap kSubscribeCharacterIds{
    "subscribe.character_ids", kMaxSubscribeCharacterIds, kExhausted, "ids",
    "larger sets: all_characters or a region"};
inline constexpr RepeatedFieldCap kAddLayerMaskJointWeights{
    "add_layer.mask.joint_weights", kJoints, kInvalid, "entries", "a skeleton's joint limit"};
inline constexpr RepeatedFieldCap kSetIkGoalJointWeights{
    "set_ik_goal.joint_weights", kChain, kInvalid, "values", "an IK chain's joint limit"};
inline constexpr RepeatedFieldCap kSetIkGoalConstraints{"set_ik_goal.constraints", kChain, kInvalid,
                                                        "constraints", "an IK chain's joint limit"};
inline constexpr RepeatedFieldCap kSetAimIkJointWeights{
    "set_aim_ik.joint_weights", kChain, kInvalid, "values", "an IK chain's joint limit"};
inline constexpr RepeatedFieldCap kSetAimIkMaxAngles{"set_aim_ik.max_angles", kChain, kInvalid,
                                                     "values", "an IK chain's joint limit"};
inline constexpr RepeatedFieldCap kAddClipEventsEvents{
    "add_clip_events.events", anim::kMaxEventsPerClip, kExhausted, "events", "a clip's limit"};
inline constexpr RepeatedFieldCap kDefineBlendSpaceAxes{"define_blend_space.axes", 2, kInvalid,
                                                        "names", "a blend space has 1 or 2 axes"};
inline constexpr RepeatedFieldCap kDefineBlendSpaceSamples{"define_blend_space.samples",
                                                           anim::kMaxBlendSpaceSamples, kExhausted,
                                                           "samples", "a blend space's limit"};
inline constexpr RepeatedFieldCap kPlayMontageSections{"play_montage.sections",
                                                       anim::kMaxMontageSections, kExhausted,
                                                       "sections", "a montage's limit"};
inline constexpr RepeatedFieldCap kDefineStateMachineStates{"define_state_machine.machine.states",
                                                            anim::kMaxMachineStates, kInvalid,
                                                            "states", "a state machine's limit"};
inline constexpr RepeatedFieldCap kDefineStateMachineTransitions{
    "define_state_machine.machine.transitions", anim::kMaxMachineTransitions, kInvalid,
    "transitions", "a state machine's limit"};
// A list inside each entry of a repeated message: the refusal names the entry
// ("define_state_machine.machine.transitions[3].conditions has ...").
inline constexpr RepeatedFieldCap kDefineStateMachineConditions{
    "define_state_machine.machine.transitions.conditions", anim::kMaxTransitionConditions, kInvalid,
    "conditions", "a transition's limit"};
inline constexpr RepeatedFieldCap kSetPoseLocals{"set_pose.locals", 10 * kJoints, kInvalid,
                                                 "floats", "10 per joint of a skeleton's limit"};
inline constexpr RepeatedFieldCap kSetMorphWeightsWeights{"set_morph_weights.weights",
                                                          anim::kMaxMorphOverrides, kInvalid,
                                                          "weights", "morph weights per command"};
inline constexpr RepeatedFieldCap kClearMorphWeightsTargets{"clear_morph_weights.targets",
                                                            anim::kMaxMorphOverrides, kInvalid,
                                                            "targets", "morph weights per command"};
inline constexpr RepeatedFieldCap kAddLayerMorphTargets{"add_layer.morph_targets",
                                                        anim::kMaxMorphOverrides, kInvalid, "names",
                                                        "morph weights per command"};
inline constexpr RepeatedFieldCap kLoadAssetDetailJoints{
    "load_asset.detail_joints", kJoints, kInvalid, "names", "a skeleton's joint limit"};
inline constexpr RepeatedFieldCap kSetHitVolumesJoints{"set_hit_volumes.joints", kJoints, kInvalid,
                                                       "entries", "a skeleton's joint limit"};
inline constexpr RepeatedFieldCap kRaycastIgnore{"raycast.ignore_character_ids",
                                                 kMaxIgnoredCharacterIds, kExhausted, "ids",
                                                 "ignored characters per query"};
inline constexpr RepeatedFieldCap kOverlapSphereIgnore{"overlap_sphere.ignore_character_ids",
                                                       kMaxIgnoredCharacterIds, kExhausted, "ids",
                                                       "ignored characters per query"};
inline constexpr RepeatedFieldCap kExportCharacterIds{"export_characters.character_ids",
                                                      kMaxSavedCharacters, kExhausted, "ids",
                                                      "characters per request"};
inline constexpr RepeatedFieldCap kImportStates{"import_characters.states", kMaxSavedCharacters,
                                                kExhausted, "states", "characters per request"};
inline constexpr RepeatedFieldCap kStateBlendSpaces{"import_characters.states.blend_spaces",
                                                    anim::kMaxBlendSpacesPerAsset, kInvalid,
                                                    "definitions", "an asset's blend space limit"};
inline constexpr RepeatedFieldCap kStateParameters{"import_characters.states.animator.parameters",
                                                   anim::Animator::kMaxParameters, kInvalid,
                                                   "parameters", "a character's limit"};
inline constexpr RepeatedFieldCap kStateTriggers{"import_characters.states.animator.triggers",
                                                 anim::kMaxTriggers, kInvalid, "triggers",
                                                 "a character's limit"};
inline constexpr RepeatedFieldCap kStateMainFades{"import_characters.states.animator.main.fades",
                                                  anim::kMaxFades, kInvalid, "fades",
                                                  "a track's limit"};
inline constexpr RepeatedFieldCap kStateMachinePlayers{
    "import_characters.states.animator.machine.players", anim::kMaxMachineStates, kInvalid,
    "players", "a state machine's limit"};
inline constexpr RepeatedFieldCap kStateLayers{"import_characters.states.animator.layers",
                                               anim::kMaxLayers, kInvalid, "layers",
                                               "a character's limit"};
inline constexpr RepeatedFieldCap kStateLayerMask{"import_characters.states.animator.layers.mask",
                                                  kJoints, kInvalid, "weights",
                                                  "a skeleton's joint limit"};
inline constexpr RepeatedFieldCap kStateLayerMorphTargets{
    "import_characters.states.animator.layers.morph_targets", anim::kMaxMorphOverrides, kInvalid,
    "names", "morph weights per command"};
inline constexpr RepeatedFieldCap kStateLayerMachineFades{
    "import_characters.states.animator.layers.machine_track.fades", anim::kMaxFades, kInvalid,
    "fades", "a track's limit"};
inline constexpr RepeatedFieldCap kStateLayerMachinePlayers{
    "import_characters.states.animator.layers.machine_driver.players", anim::kMaxMachineStates,
    kInvalid, "players", "a state machine's limit"};
inline constexpr RepeatedFieldCap kStateLayerSections{
    "import_characters.states.animator.layers.montage.sections", anim::kMaxMontageSections,
    kInvalid, "sections", "a montage's limit"};
inline constexpr RepeatedFieldCap kStateGoals{"import_characters.states.animator.goals",
                                              anim::kMaxIkGoals, kInvalid, "goals",
                                              "a character's limit"};
inline constexpr RepeatedFieldCap kStateGoalJointWeights{
    "import_characters.states.animator.goals.joint_weights", kChain, kInvalid, "values",
    "an IK chain's joint limit"};
inline constexpr RepeatedFieldCap kStateGoalConstraints{
    "import_characters.states.animator.goals.constraints", kChain, kInvalid, "constraints",
    "an IK chain's joint limit"};
inline constexpr RepeatedFieldCap kStateAimJointWeights{
    "import_characters.states.animator.aim.joint_weights", kChain, kInvalid, "values",
    "an IK chain's joint limit"};
inline constexpr RepeatedFieldCap kStateAimMaxAngles{
    "import_characters.states.animator.aim.max_angles", kChain, kInvalid, "values",
    "an IK chain's joint limit"};
inline constexpr RepeatedFieldCap kStateHeldPose{
    "import_characters.states.animator.held_pose.locals", 10 * kJoints, kInvalid, "floats",
    "10 per joint of a skeleton's limit"};
inline constexpr RepeatedFieldCap kStateMorphWeights{
    "import_characters.states.animator.morph_weights", kMaxSavedMorphWeights, kInvalid, "weights",
    "the morph weights a state carries"};
inline constexpr RepeatedFieldCap kStateMorphOverrides{
    "import_characters.states.animator.morph_overrides", kMaxSavedMorphWeights, kInvalid,
    "overrides", "the morph weights a state carries"};
inline constexpr RepeatedFieldCap kMigrateCharacterIds{"migrate.character_ids", kMaxSavedCharacters,
                                                       kExhausted, "ids", "characters per request"};
inline constexpr RepeatedFieldCap kSetSignificanceCharacterIds{
    "set_significance.character_ids", 4096, kExhausted, "ids", "characters per request"};
}  // namespace caps

// Every cap, in the order of docs/protocol.md's table.
inline constexpr std::array kRepeatedFieldCaps = {
    caps::kQueryPoseJointNames,
    caps::kQueryPoseJointIndices,
    caps::kSubscribeCharacterIds,
    caps::kRaycastIgnore,
    caps::kOverlapSphereIgnore,
    caps::kAddLayerMaskJointWeights,
    caps::kSetIkGoalJointWeights,
    caps::kSetIkGoalConstraints,
    caps::kSetAimIkJointWeights,
    caps::kSetAimIkMaxAngles,
    caps::kAddClipEventsEvents,
    caps::kDefineBlendSpaceAxes,
    caps::kDefineBlendSpaceSamples,
    caps::kPlayMontageSections,
    caps::kDefineStateMachineStates,
    caps::kDefineStateMachineTransitions,
    caps::kDefineStateMachineConditions,
    caps::kSetHitVolumesJoints,
    caps::kLoadAssetDetailJoints,
    caps::kSetPoseLocals,
    caps::kSetMorphWeightsWeights,
    caps::kClearMorphWeightsTargets,
    caps::kAddLayerMorphTargets,
    caps::kExportCharacterIds,
    caps::kImportStates,
    caps::kStateBlendSpaces,
    caps::kStateParameters,
    caps::kStateTriggers,
    caps::kStateMainFades,
    caps::kStateMachinePlayers,
    caps::kStateLayers,
    caps::kStateLayerMask,
    caps::kStateLayerMorphTargets,
    caps::kStateLayerMachineFades,
    caps::kStateLayerMachinePlayers,
    caps::kStateLayerSections,
    caps::kStateGoals,
    caps::kStateGoalJointWeights,
    caps::kStateGoalConstraints,
    caps::kStateAimJointWeights,
    caps::kStateAimMaxAngles,
    caps::kStateHeldPose,
    caps::kStateMorphWeights,
    caps::kStateMorphOverrides,
    caps::kMigrateCharacterIds,
    caps::kSetSignificanceCharacterIds,
};

// OK when `count` entries are within `cap`, else its refusal.
anim::Status check_cap(const RepeatedFieldCap& cap, int count);

// OK when every repeated field of `request`'s command is within its cap, else the refusal
// for the first field (in the .proto's field order) over it. Reads sizes only: no allocation,
// and no work proportional to any field but for the sizes of the lists inside a capped list's
// entries (each transition's conditions, each state's nested machine).
anim::Status check_repeated_field_caps(const anim::v1::Request& request);

// The caps of a state machine's lists (states, transitions, each transition's conditions)
// with its fields named after `field`, the machine's name in errors: the request's
// "define_state_machine.machine", or "state_machines[2]" in an `.animgraph.json` file. The
// machines its states hold are checked the same way ("<field>.states[1].machine.states"), and
// with them the limits of the whole: at most anim::kMaxMachineDepth machines deep (a deeper
// one is refused before it is read, so the walk's depth is bounded), anim::kMaxMachineStates
// states that play a motion and anim::kMaxMachineTransitions transitions in all.
anim::Status check_state_machine_caps(const anim::v1::StateMachineDef& machine,
                                      std::string_view field);

}  // namespace animd

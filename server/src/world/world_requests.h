#pragma once
// What a client may ask of the World, in the daemon's own terms (no protobuf). Made from a
// wire request by its converter (protocol/request_convert.h), which checks everything that
// needs no world state: every float is finite, ranges hold, enums are known, required fields are
// there, defaults are filled in. The World checks the rest (unknown character, clip, joint, layer,
// goal, owner, limits) and changes nothing on error.
//
// Units as in the protocol: distances in the asset's units, angles in radians, times in
// seconds. Character, layer, goal and subscription ids are the ones the daemon handed out;
// 0 never names one. Fields every request uses the same way:
//   character  the id spawn returned; the World answers NOT_FOUND for an unknown one and,
//              for commands that drive it, PERMISSION_DENIED for another owner's
//   clip       a clip of the character's asset, by name (NOT_FOUND otherwise)
//   layer, goal  ids add_layer / set_ik_goal returned for that character

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "anim/status.h"
#include "history/history_queries.h"
#include "lod/view_camera.h"
#include "snapshot/stream_region.h"
#include "world/saved_character.h"

#include <glm/glm.hpp>

#include "anim/aim_ik.h"
#include "anim/animator.h"
#include "anim/foot_ik.h"
#include "anim/hit_volumes.h"
#include "anim/ik.h"
#include "anim/state_machine.h"
#include "anim/transform.h"

namespace animd {

// A new character of `asset`, placed at `root`.
struct SpawnCharacter {
  std::string asset;     // an asset name (the World answers NOT_FOUND for an unknown one)
  std::string clip;      // clip to start playing (looping); empty = rest pose
  anim::Transform root;  // world placement: finite, unit rotation, no zero scale component
  // false: the character belongs to the caller's owner key (others get PERMISSION_DENIED,
  // and it goes when the owner is orphaned); true: anyone may drive it.
  bool shared = false;
};

struct DespawnCharacter {
  uint32_t character = 0;
};

struct SetRootTransform {
  uint32_t character = 0;
  anim::Transform root;  // world placement: finite, unit rotation, no zero scale component
};

// Root motion on or off (anim::Animator::set_root_motion).
struct SetRootMotion {
  uint32_t character = 0;
  anim::RootMotionMode mode = anim::RootMotionMode::kOff;  // a known value
  std::string joint;  // empty: the skeleton's root joint (the World finds the name)
  bool extract_vertical = false;
};

// Adds events to a clip of an asset (or sets them, with replace), for every character of it.
struct AddClipEvents {
  std::string asset;  // an asset name (NOT_FOUND otherwise)
  std::string clip;   // a clip of it, by name (NOT_FOUND otherwise)
  // Names non-empty, times finite, sizes within anim::kMaxEvent*Bytes, at most
  // anim::kMaxEventsPerClip; the World checks the times against the clip's duration.
  std::vector<anim::ClipEvent> events;
  bool replace = false;
};

// Defines a blend space on an asset, for every character of it.
struct DefineBlendSpace {
  std::string asset;  // an asset name (NOT_FOUND otherwise)
  // Name, axes and sample coordinates checked for form (non-empty, sizes, finite, at most
  // anim::kMaxBlendSpaceSamples samples); the World resolves the clip names and
  // anim::make_blend_space checks the rest.
  std::string name;
  std::vector<std::string> axes;
  std::vector<std::pair<std::string, glm::vec2>> samples;  // clip name, position
  bool sync_markers = false;                               // anim::BlendSpaceDesc's
};

// Sets a character's named parameter (what blend spaces' axes read).
struct SetParameter {
  uint32_t character = 0;
  std::string name;        // non-empty, at most anim::kMaxBlendNameBytes
  float value = 0.0f;      // finite
  float smoothing = 0.0f;  // seconds, finite, >= 0
};

// Cuts to a clip (no fade). `clip` may name a blend space of the asset instead.
struct PlayClip {
  uint32_t character = 0;
  std::string clip;
  bool loop = true;         // false holds the last frame
  float speed = 1.0f;       // rate multiplier, finite; negative plays in reverse
  float start_time = 0.0f;  // seconds into the clip, finite (the Animator checks the range)
};

// Fades to a clip (or a blend space) over `duration` seconds.
struct CrossfadeClip {
  uint32_t character = 0;
  std::string clip;
  float duration = 0.0f;              // seconds, finite, >= 0 (0 = a cut)
  bool loop = true;                   // for the target clip, as PlayClip::loop
  float speed = 1.0f;                 // for the target clip; finite
  bool sync_normalized_time = false;  // start at the current clip's normalized time
  bool sync_markers = false;          // keep in step by foot plants (implies sync)
  anim::BlendCurve curve = anim::BlendCurve::kLinear;
};

struct SetCharacterSpeed {
  uint32_t character = 0;
  float speed = 1.0f;  // multiplies every clip's and layer's speed; finite, may be negative
};

// Which joints a layer affects. `joint_weights`, when not empty, wins over `blend_root`;
// neither = every joint at weight 1.
struct LayerMask {
  std::string blend_root;  // this joint and its subtree at weight 1, the rest 0
  // Joint name -> weight in [0, 1]; joints not listed get 0. Names unchecked (the World).
  std::vector<std::pair<std::string, float>> joint_weights;
};

// An additive layer: (clip - reference) * weight on top of the base animation.
struct AddLayer {
  uint32_t character = 0;
  std::string clip;
  std::string reference_clip;   // empty: the layer's own clip
  float reference_time = 0.0f;  // seconds into the reference clip, finite
  float weight = 1.0f;          // [0, 1]
  float speed = 1.0f;           // own clock only; finite
  float parameter = 0.0f;       // parameter time source only; [0, 1]
  anim::LayerTimeSource time_source = anim::LayerTimeSource::kOwnClock;
  LayerMask mask;
  // kOverride with an empty clip: a montage slot.
  anim::LayerBlend blend = anim::LayerBlend::kAdditive;
  // Not empty: a machine layer running this machine of the asset (clip empty), from `state`.
  std::string state_machine;
  std::string state;
  std::vector<std::string> morph_targets;  // empty: every target the layer's clips animate
};

// Changes a layer; unset values keep theirs.
struct UpdateLayer {
  uint32_t character = 0;
  uint32_t layer = 0;
  std::optional<float> weight;     // [0, 1]
  std::optional<float> speed;      // finite
  std::optional<float> parameter;  // [0, 1]
};

struct RemoveLayer {
  uint32_t character = 0;
  uint32_t layer = 0;
};

// A joint limit of an IK chain, by joint name (the World finds it in the chain).
struct ChainConstraint {
  std::string joint;
  // kBallSocket: cone_angle in [0, pi]. kHinge: axis finite, unit length (normalized here),
  // min_angle <= max_angle, both finite. Never kNone.
  anim::JointConstraint limits;
};

// A new IK goal on the chain root_joint .. effector_joint.
struct SetIkGoal {
  uint32_t character = 0;
  std::string root_joint;
  std::string effector_joint;  // must descend from root_joint (checked by the World)
  anim::IkSolver solver = anim::IkSolver::kFabrik;
  anim::IkSpace space = anim::IkSpace::kModel;  // of target and pole
  glm::vec3 target{0.0f};                       // finite
  float weight = 1.0f;                          // [0, 1]
  std::optional<glm::vec3> pole;                // two-bone: bend toward this point; finite
  float soften = 0.0f;                          // two-bone: [0, 1] (the Animator: < 1)
  int max_iterations = 16;                      // CCD/FABRIK: [1, 1000]
  float tolerance = 1e-4f;                      // CCD/FABRIK: > 0, asset units
  std::vector<float> joint_weights;             // CCD: per chain joint, root first, [0, 1]
  std::vector<ChainConstraint> constraints;
};

// Moves an existing goal (set_ik_goal with a goal id): new target, and weight if given.
struct MoveIkGoal {
  uint32_t character = 0;
  uint32_t goal = 0;            // > 0
  glm::vec3 target{0.0f};       // finite, in the goal's space
  std::optional<float> weight;  // [0, 1]; unset keeps the goal's weight
};

struct ClearIkGoal {
  uint32_t character = 0;
  uint32_t goal = 0;
};

// Sets (or replaces) the character's aim IK. its converter checks every number (finite,
// ranges, counts of per-joint values not above anim::kMaxChainJoints); the Animator checks
// the joints, the chain and the per-joint counts.
struct SetAimIk {
  uint32_t character = 0;
  anim::AimIkDesc desc;
};

// Moves the aim's target (in its space) and, when given, its weight.
struct MoveAimTarget {
  uint32_t character = 0;
  glm::vec3 target{0.0f};       // finite
  std::optional<float> weight;  // [0, 1]; unset keeps the aim's weight
};

struct ClearAimIk {
  uint32_t character = 0;
};

// Sets (or replaces) the character's foot IK: numbers checked by its converter, joints
// by the Animator.
struct SetFootIk {
  uint32_t character = 0;
  anim::FootIkDesc desc;
};

// The ground under the character (world space) and, when given, the foot IK's weight.
struct SetGround {
  uint32_t character = 0;
  anim::GroundDesc ground;      // finite; normals non-zero and up-facing (the Animator)
  std::optional<float> weight;  // [0, 1]; needs a foot IK
};

struct ClearFootIk {
  uint32_t character = 0;
};

// One joint's new capsule: by name, or (name empty) by index.
struct JointCapsuleEdit {
  std::string joint_name;
  uint32_t joint_index = 0;
  anim::HitCapsule capsule;  // finite, radius >= 0, every value <= 1e6 in size
};

// Replaces capsules of an asset's joints (after going back to the fitted ones if `reset`).
struct SetHitVolumes {
  std::string asset;
  bool reset = false;
  std::vector<JointCapsuleEdit> joints;  // the World checks the joints exist, once each
};

// The capsules in force for an asset.
struct GetHitVolumes {
  std::string asset;
};

struct ListCharacters {};

struct GetStats {};

// Removes an asset no character uses.
struct UnloadAsset {
  std::string asset;
};

// Makes the World count the caller's connection as watching characters (for degraded ticks
// and for the subscription count); the session itself encodes the frames.
struct Subscribe {
  std::vector<uint32_t> character_ids;  // may repeat; empty for all_characters and region
  bool all_characters = false;
  uint32_t subscription_id = 0;  // > 0, assigned by the session (not from the wire)
  // A region subscription: the stream encoder picks its characters by position; for degraded
  // ticks the World counts every character whose root is in it (outer zone included) as
  // watched.
  std::optional<StreamRegion> region;
  // ENCODING_COMPACT: the encode stage prepares frames for the characters it watches (a
  // float subscription's frames are the palettes, encoded by its session).
  bool compact = false;
  // With any of the three ways: a viewpoint for the characters' significance only
  // (lod/significance.h); checked (request_convert.h: camera_from_proto).
  std::optional<ViewCamera> camera = std::nullopt;
};

// Changes a subscription of this connection; what is not given stays. The converter gives at
// least one of region, camera and clear_camera, and never camera with clear_camera. All or
// none: a refused one changes nothing.
struct UpdateSubscription {
  uint32_t subscription_id = 0;
  // Moves a region subscription's region (the camera moved); refused for another kind.
  // Checked (request_convert.h: region_from_proto).
  std::optional<StreamRegion> region;
  std::optional<ViewCamera> camera = std::nullopt;  // replaces (or gives) the camera
  bool clear_camera = false;  // removes the subscription's camera, if it has one
};

struct Unsubscribe {
  uint32_t subscription_id = 0;  // 0: every subscription of the connection
};

// Plays a clip once in a montage slot (docs/animation.md, "Montages").
struct PlayMontage {
  uint32_t character = 0;
  uint32_t slot = 0;  // the slot's layer id
  std::string clip;
  float rate = 1.0f;        // finite, > 0
  float blend_in = 0.0f;    // seconds, finite, >= 0
  float blend_out = 0.0f;   // seconds, finite, >= 0
  float start_time = 0.0f;  // seconds, finite, >= 0 (the clip's duration is the World's check)
  // At most anim::kMaxMontageSections; names (and `next`s) within
  // anim::kMaxMontageSectionNameBytes, start times finite and >= 0. How they fit the clip and
  // each other is core's check (anim::make_montage_timeline).
  std::vector<anim::MontageSection> sections;
};

// Blends out the montage playing in a slot.
struct StopMontage {
  uint32_t character = 0;
  uint32_t slot = 0;
  float blend_out = 0.0f;  // seconds, finite, >= 0
};

// Moves the playhead of the montage in a slot to the start of one of its sections.
struct JumpToSection {
  uint32_t character = 0;
  uint32_t slot = 0;
  std::string section;  // non-empty, at most anim::kMaxMontageSectionNameBytes
};

// Defines a state machine on an asset, for every character of it (docs/animation.md, "State
// machines").
struct DefineStateMachine {
  std::string asset;  // an asset name (NOT_FOUND otherwise)
  // Numbers finite, enums known, no state named "*" (the wire's any-state `from`), an exit
  // time unset (-1) or >= 0, lists within their caps; anim::make_state_machine checks the rest
  // against the asset's clips and blend spaces.
  anim::StateMachineDesc machine;
};

// Runs a state machine of the character's asset on its base.
struct StartStateMachine {
  uint32_t character = 0;
  std::string machine;  // non-empty, at most anim::kMaxMachineNameBytes
  std::string state;    // at most anim::kMaxMachineNameBytes; empty: the machine's entry
};

struct StopStateMachine {
  uint32_t character = 0;
};

// Sets or clears a named trigger of the character.
struct SetTrigger {
  uint32_t character = 0;
  std::string name;  // non-empty, at most anim::kMaxMachineNameBytes
  bool value = true;
};

// Holds a pose handed in from outside the animation (docs/animation.md, "Held poses").
struct SetPose {
  uint32_t character = 0;
  std::vector<anim::Transform> locals;  // finite; the joint count is the Animator's check
};

// Fades from the held pose into the animation.
struct BlendOutPose {
  uint32_t character = 0;
  float duration = 0.0f;  // seconds, finite, >= 0
};

// A morph weight named on the wire: by name (MorphLayout::find) or by index.
struct MorphTargetRef {
  std::string name;  // empty: `index` names it
  uint32_t index = 0;
  float value = 0.0f;  // set_morph_weights only; finite
};

// Overrides morph weights (docs/animation.md, "Morph targets").
struct SetMorphWeights {
  uint32_t character = 0;
  std::vector<MorphTargetRef> weights;  // at most anim::kMaxMorphOverrides
  float blend_time = 0.0f;              // seconds, finite, >= 0
};

// Hands morph weights back to the clips (none named: all).
struct ClearMorphWeights {
  uint32_t character = 0;
  std::vector<MorphTargetRef> targets;
  float blend_time = 0.0f;
};

// Where the character's state machine is.
struct GetMachineState {
  uint32_t character = 0;
};

// The states of characters (docs/animation.md, "Saving and restoring a character"). The
// characters stay as they are.
struct ExportCharacters {
  std::vector<uint32_t> characters;  // distinct; at most kMaxSavedCharacters (request caps)
};

// New characters from saved states, all or none. Each state's names and layer lists hold
// SavedCharacter's promises (one layer_machines and layer_sections entry per layer, a machine
// layer's state boxed); its values are restore_state's to check.
struct ImportCharacters {
  std::vector<SavedCharacter> characters;
  // Non-empty: a migration's first step (world_migrate.cpp): the characters are made, brought
  // to the current tick and held until CommitMigration names this id.
  std::string migration_id;
};

// A migration's first step on the source (migrate): the characters (distinct, at most
// kMaxSavedCharacters) are frozen and their states taken; `target` ("host:port") names where
// they go, in refusals of commands to them.
struct BeginMigration {
  std::vector<uint32_t> characters;
  std::string target;
};

// A migration's last step on the source, sent by the migration thread (never by a client):
// the target committed (`committed`: the characters are forgotten here and their owners and
// watchers told) or the migration failed (`failure`: the characters are unfrozen and stay).
struct FinishMigration {
  uint64_t migration = 0;  // MigrationBegun::migration
  bool committed = false;
  std::vector<uint32_t> target_ids;  // committed: the ids on the target, in the order begun
  uint64_t target_tick = 0;          // committed: the first tick they live on the target
  anim::Status failure;              // not committed: why (the migrate's answer)
};

// A migration's last step on the target: the held characters of `migration_id` go live, or
// with `abort` are dropped.
struct CommitMigration {
  std::string migration_id;
  bool abort = false;
};

// Sets how much characters matter to the update-rate allocator (docs/animation.md, "Update
// rates"), all or none: `significance` in [0, 1] wins over what watches them until `clear`.
struct SetSignificance {
  std::vector<uint32_t> characters;  // at least one; repeats allowed
  float significance = 0.0f;         // in [0, 1] (ignored with clear)
  bool clear = false;
};

// One request. The first alternative (what a default-made Command holds) changes nothing.
using WorldRequest = std::variant<
    GetStats, SpawnCharacter, DespawnCharacter, SetRootTransform, PlayClip, CrossfadeClip,
    SetCharacterSpeed, AddLayer, UpdateLayer, RemoveLayer, SetIkGoal, MoveIkGoal, ClearIkGoal,
    QueryPose, ListCharacters, Subscribe, Unsubscribe, UpdateSubscription, UnloadAsset,
    SetRootMotion, AddClipEvents, SetHitVolumes, GetHitVolumes, SetAimIk, MoveAimTarget, ClearAimIk,
    SetFootIk, SetGround, ClearFootIk, DefineBlendSpace, SetParameter, PlayMontage, StopMontage,
    JumpToSection, DefineStateMachine, StartStateMachine, StopStateMachine, SetTrigger,
    GetMachineState, SetPose, BlendOutPose, SetMorphWeights, ClearMorphWeights, ExportCharacters,
    ImportCharacters, BeginMigration, FinishMigration, CommitMigration, SetSignificance>;

}  // namespace animd

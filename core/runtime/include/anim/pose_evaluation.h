#pragma once
// Pose evaluation: the local pose and model-space matrices of one character from its
// animation state at one instant, with the jobs (sampling, blending, additive/override layers,
// local-to-model, IK). The Animator's update() advances its clocks and then calls
// evaluate_pose(); a host that kept the inputs of a past update (the daemon's pose history)
// calls evaluate_pose() with the same inputs and gets the same pose, bit for bit.
//
// The inputs are split in two:
//  - PoseInputs: the values that change from update to update (clip times, fade weights,
//    layer times and weights, IK targets and weights, the root). Small, copied per update.
//  - PoseSetup: what changes only with a command that adds or removes a layer or an IK goal
//    (layer masks and reference poses, IK chains and constraints). Immutable once made and
//    shared (std::shared_ptr<const PoseSetup>): a new setup object replaces the old one.
//
// Determinism: the result depends only on the skeleton, the clips, the inputs and the setup.
// Sampling cursors are caches (sampling_job.h): giving them or not never changes a result,
// and the scratch's previous contents never do either (IK starts from the animated pose).
// Nothing here allocates, locks or keeps state between calls.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/aim_ik.h"
#include "anim/animator_options.h"
#include "anim/foot_contacts.h"
#include "anim/foot_ik.h"
#include "anim/ik.h"
#include "anim/joint_mask.h"
#include "anim/root_motion.h"
#include "anim/sampling_job.h"
#include "anim/transform.h"

namespace anim {

class Clip;
class Skeleton;

inline constexpr int kMaxFades = 8;          // overlapping crossfades per character
inline constexpr int kMaxLayers = 16;        // layers per character
inline constexpr int kMaxIkGoals = 8;        // IK goals per character
inline constexpr int kMaxChainJoints = 32;   // joints per IK chain (root..effector)
inline constexpr int kMaxMachineLayers = 4;  // layers that run a state machine, per character

// What a layer is, fixed when it is added (weight and time are per-update inputs).
struct LayerSetup {
  int clip = -1;  // index into the character's clips; its joint count is the skeleton's
  LayerBlend blend = LayerBlend::kAdditive;
  JointMask mask;  // empty: all joints; else one weight in [0, 1] per joint
  // kAdditive: the reference pose subtracted from the clip, one entry per joint. Empty for
  // kOverride.
  std::vector<Transform> reference;
  // A machine layer: its pose is the next entry of PoseInputs::machine_layers (a base and
  // crossfades, as the character's own), not `clip` (-1). An override machine layer's
  // sources have root motion taken out as the base's; an additive one's are left as they
  // are.
  bool machine = false;
  // Morph weights (morph_evaluation.h), for a character whose asset has morph targets; both
  // empty otherwise. morph_mask: empty: the layer reaches every weight; else one factor in
  // {0, 1} per weight (the targets the layer names). morph_reference (kAdditive): the
  // reference's weights, one per weight, subtracted from the layer's.
  std::vector<float> morph_mask;
  std::vector<float> morph_reference;
  // What it was made from (Animator::capture_state): the reference clip (-1: none, kOverride)
  // and time `reference` was sampled at, and the morph target names of its desc.
  int reference_clip = -1;
  float reference_time = 0.0f;
  std::vector<std::string> morph_targets;
};

// What an IK goal is, fixed when it is set (target and weight are per-update inputs).
struct GoalSetup {
  // Validated by Animator::set_ik_goal: constraints' hinge axes normalized. Its `target` and
  // `weight` are those the goal was set with; the inputs' (GoalInput) are the ones used.
  IkGoalDesc desc;
  std::vector<int> joints;             // chain root..effector, 2..kMaxChainJoints entries
  std::vector<glm::quat> rest_locals;  // rest local rotation of each chain joint
  std::vector<glm::vec3> bone_dirs;    // unit rest direction to the next chain joint, local
};

// What an aim IK is, fixed when it is set (target and weight are per-update inputs).
struct AimSetup {
  AimIkDesc desc;                 // validated by Animator::set_aim_ik: axes and pole unit length
  std::vector<int> joints;        // chain root..end, 1..kMaxChainJoints entries
  std::vector<float> fractions;   // per joint: its weight / the sum of its and later weights
  std::vector<float> max_angles;  // per joint, radians in [0, pi]
};

// One leg of a foot IK, resolved from FootIkDesc.
struct LegSetup {
  int hip = -1, knee = -1, ankle = -1;  // knee's parent is hip, ankle's parent is knee
  float sole_offset = 0.0f;             // ankle height above the sole, asset units, >= 0
  float length = 0.0f;                  // rest hip-knee plus knee-ankle length, asset units
};

// What a foot IK is, fixed when it is set (weight, ground and locks are per-update inputs).
struct FootIkSetup {
  FootIkDesc desc;  // validated by Animator::set_foot_ik, thresholds resolved (> 0)
  int pelvis = -1;  // lowered by the pelvis drop; an ancestor of both hips
  std::array<LegSetup, kNumFeet> legs;
  std::vector<StrideCurves> strides;  // one per clip the character had when it was set
};

// A full local pose handed in from outside the animation (the game server's ragdoll), held
// over the animated pose (Animator::set_pose). One transform per joint (skeleton order),
// finite, unit rotations, non-zero scales, in the skeleton's local space as given (root
// motion does not take anything out of it).
struct HeldPose {
  std::vector<Transform> locals;
};

// The layers and goals of a character, in the order they apply. Immutable once made.
struct PoseSetup {
  std::vector<std::shared_ptr<const LayerSetup>> layers;  // at most kMaxLayers, never null
  std::vector<std::shared_ptr<const GoalSetup>> goals;    // at most kMaxIkGoals, never null
  std::shared_ptr<const AimSetup> aim;                    // null: no aim IK
  std::shared_ptr<const FootIkSetup> feet;                // null: no foot IK
  std::shared_ptr<const HeldPose> held;                   // null: no held pose
};

// One more clip mixed into a ClipInput's pose (a blend space's second or third sample).
struct BlendTermInput {
  int clip = -1;                     // index into the clips (never -1 when in use)
  float time = 0.0f;                 // seconds into the clip (already wrapped)
  float mix = 0.0f;                  // (0, 1]: blended onto the pose so far with this weight
  SamplingCursor* cursor = nullptr;  // optional cache for sampling this clip
};

// A clip at a time: the base of the pose, or one crossfade's target. A blend space playing
// there is its first sample's clip here, with its other samples in `terms`: the source's
// pose is the first clip's, then mix(pose, terms[k]'s clip, terms[k].mix) for each term in
// order (blend_space.h, BlendWeights).
struct ClipInput {
  int clip = -1;                     // index into the clips; -1: the skeleton's rest pose
  float time = 0.0f;                 // seconds into the clip (already wrapped)
  SamplingCursor* cursor = nullptr;  // optional cache for sampling this clip
  int num_terms = 0;                 // 0..2 terms in use (0 when clip is -1)
  std::array<BlendTermInput, 2> terms{};
};

// One crossfade: `source` blended over everything below it with `weight`.
struct FadeInput {
  ClipInput source;
  float weight = 0.0f;  // elapsed / duration, in [0, 1)
};

// One layer, the i-th of the setup's layers.
struct LayerInput {
  float time = 0.0f;                 // seconds into the layer's clip
  float weight = 0.0f;               // [0, 1]; <= 0 leaves the pose untouched
  SamplingCursor* cursor = nullptr;  // optional cache for the layer clip
};

// A machine layer's pose: `source`, then each of its fades blended over it (the first
// num_fades entries, oldest first), as PoseInputs' base and fades.
struct MachineLayerInput {
  ClipInput source;
  int num_fades = 0;  // 0..kMaxFades
  std::array<FadeInput, kMaxFades> fades{};
  std::span<const FadeInput> active_fades() const {
    return std::span(fades).first(static_cast<size_t>(num_fades));
  }
};

// One IK goal, the i-th of the setup's goals.
struct GoalInput {
  glm::vec3 target{0.0f};  // in the goal's space (setup desc.space)
  float weight = 0.0f;     // [0, 1]; <= 0 leaves the pose untouched
};

// The aim IK's target and weight (setup aim).
struct AimInput {
  glm::vec3 target{0.0f};  // in the aim's space (setup desc.space)
  float weight = 0.0f;     // [0, 1]; <= 0 leaves the pose untouched
};

// One foot's world-space lock (docs/animation.md, "Foot IK").
struct FootLockInput {
  glm::vec3 position{0.0f};  // the ankle target held (world space); unused when capture
  float weight = 0.0f;       // [0, 1]: how much the lock wins over the free target
  bool capture = false;      // the foot plants now: hold this evaluation's ground target
};

// The foot IK's per-update values (setup feet). World space, Y up.
struct FootIkInput {
  float weight = 0.0f;      // [0, 1]; <= 0, or no ground, leaves the pose untouched
  bool has_ground = false;  // false until the host describes the ground
  // Per foot, the ground plane: unit normal (y > 0.1) and `value`: the plane's offset d
  // (normal . x = d) when !samples, the ground's height under the ankle when samples.
  bool samples = false;
  std::array<glm::vec3, kNumFeet> normals{glm::vec3(0.0f, 1.0f, 0.0f), glm::vec3(0.0f, 1.0f, 0.0f)};
  std::array<float, kNumFeet> values{};
  std::array<FootLockInput, kNumFeet> locks{};
};

// What the foot IK of one evaluation found (when PoseOutput::feet is given).
struct FootIkOutput {
  bool ran = false;  // false: weight 0 or no ground (nothing below is set)
  std::array<glm::vec3, kNumFeet> ground_targets{};  // each ankle's target on the ground (world)
  std::array<float, kNumFeet> need{};                // world vertical move each ankle needed
  float pelvis_drop = 0.0f;                          // world vertical move of the pelvis (<= 0)
};

// Everything of one update that is not in the setup.
struct PoseInputs {
  // Model space -> world space; maps world-space IK targets and poles into model space.
  Transform root;
  ClipInput base;
  std::span<const FadeInput> fades;    // oldest first, at most kMaxFades
  std::span<const LayerInput> layers;  // exactly one per setup layer (none without setup)
  // Exactly one per machine layer of the setup (LayerSetup::machine), in layer order; a
  // machine layer's LayerInput gives its weight (its time and cursor are unused).
  std::span<const MachineLayerInput> machine_layers;
  std::span<const GoalInput> goals;  // exactly one per setup goal (none without setup)
  // Scales every CCD/FABRIK goal's iterations, in (0, 1] (at least one sweep each).
  float ik_iteration_scale = 1.0f;
  // Root motion: the joint whose travel is taken out of every sampled clip pose (the base,
  // each fade's clip, each override layer's clip) before they are blended; additive layers
  // are left as they are. joint -1: off. (The root above already includes the travel.)
  RootMotionInput root_motion;
  AimInput aim;      // used when the setup has an aim IK
  FootIkInput feet;  // used when the setup has a foot IK
  // The held pose's weight over the animated pose (base, fades and layers), in [0, 1]; used
  // when the setup has one (IK applies after it). <= 0 leaves the pose untouched.
  float held_weight = 0.0f;
  // Joint LOD (joint_detail.h): true gives each of the skeleton's detail joints its rest local
  // transform, after the layers and the held pose and before IK, and samples none of their
  // channels. false, or a skeleton without detail joints: the full pose.
  bool skip_detail = false;
};

// Working memory of one evaluation; reusable for any number of them (one thread at a time).
// Its vectors may be larger than a skeleton (only their first num_joints entries are used),
// so one scratch sized for the largest skeleton serves every skeleton without allocating.
struct PoseScratch {
  std::vector<Transform> sample;  // one clip sample; grown to the skeleton by evaluate_pose
  // A blend space's further samples while `sample` holds the source being built; grown
  // by evaluate_pose on first use.
  std::vector<Transform> term;
  // A machine layer's pose while its fades' samples are taken; grown on first use.
  std::vector<Transform> layer;
  std::array<glm::vec3, kMaxChainJoints> positions{};
  std::array<glm::vec3, kMaxChainJoints> solved{};
  std::array<glm::quat, kMaxChainJoints> rotations{};
  std::array<glm::quat, kMaxChainJoints> animated{};  // aim IK: the chain's animated locals
  // Morph weights (morph_evaluation.h): a source's, a blend-space term's or a machine layer
  // fade's weights, and per morph set whether the layer being applied animates it. Grown to
  // the character's weight and set counts on first use.
  std::vector<float> morph_source, morph_term, morph_fade;
  std::vector<uint8_t> morph_animated;

  // Sizes `sample` and `term` for skeletons of up to `joints` joints, so that evaluating such
  // a skeleton allocates nothing (never shrinks).
  void reserve(size_t joints) {
    if (sample.size() < joints) sample.resize(joints);
    if (term.size() < joints) term.resize(joints);
    if (layer.size() < joints) layer.resize(joints);
  }
};

// Where an evaluation writes: the local pose and the model-space matrices (including
// Skeleton::root_transform, not PoseInputs::root), one entry per joint each.
struct PoseOutput {
  std::span<Transform> locals;
  std::span<glm::mat4> model;
  FootIkOutput* feet = nullptr;  // optional: what the foot IK found
  // The caller needs only `locals`: `model` is written only when an IK step needs it.
  bool skip_model = false;
};

// Evaluates the pose: base, then each fade blended over the result so far, then the layers,
// local-to-model, then the foot IK, the aim IK and the IK goals (docs/animation.md, "IK").
// With root motion, each clip sample has its joint pinned
// to the rest pose's motion frame (remove_root_motion) before it is used. `setup` may be null when
// the inputs have no layers and no goals. Preconditions (checked by the callers that build inputs,
// as the Animator's commands do): clip indices valid for `clips` with the skeleton's joint count,
// inputs and setup of matching lengths, outputs sized to the skeleton. `scratch.sample` (and
// `scratch.term`, when a source has blend terms) is grown when it has fewer entries than the
// skeleton has joints (the only allocation, on first use).
// Returns whether output.model was written (always, unless output.skip_model and no IK step
// ran).
bool evaluate_pose(const Skeleton& skeleton, std::span<const Clip> clips, const PoseInputs& inputs,
                   const PoseSetup* setup, PoseScratch& scratch, PoseOutput output);

}  // namespace anim

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
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/animator_options.h"
#include "anim/ik.h"
#include "anim/joint_mask.h"
#include "anim/root_motion.h"
#include "anim/sampling_job.h"
#include "anim/transform.h"

namespace anim {

class Clip;
class Skeleton;

inline constexpr int kMaxFades = 8;         // overlapping crossfades per character
inline constexpr int kMaxLayers = 16;       // layers per character
inline constexpr int kMaxIkGoals = 8;       // IK goals per character
inline constexpr int kMaxChainJoints = 32;  // joints per IK chain (root..effector)

// What a layer is, fixed when it is added (weight and time are per-update inputs).
struct LayerSetup {
  int clip = -1;  // index into the character's clips; its joint count is the skeleton's
  LayerBlend blend = LayerBlend::kAdditive;
  JointMask mask;  // empty: all joints; else one weight in [0, 1] per joint
  // kAdditive: the reference pose subtracted from the clip, one entry per joint. Empty for
  // kOverride.
  std::vector<Transform> reference;
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

// The layers and goals of a character, in the order they apply. Immutable once made.
struct PoseSetup {
  std::vector<std::shared_ptr<const LayerSetup>> layers;  // at most kMaxLayers, never null
  std::vector<std::shared_ptr<const GoalSetup>> goals;    // at most kMaxIkGoals, never null
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

// One IK goal, the i-th of the setup's goals.
struct GoalInput {
  glm::vec3 target{0.0f};  // in the goal's space (setup desc.space)
  float weight = 0.0f;     // [0, 1]; <= 0 leaves the pose untouched
};

// Everything of one update that is not in the setup.
struct PoseInputs {
  // Model space -> world space; maps world-space IK targets and poles into model space.
  Transform root;
  ClipInput base;
  std::span<const FadeInput> fades;    // oldest first, at most kMaxFades
  std::span<const LayerInput> layers;  // exactly one per setup layer (none without setup)
  std::span<const GoalInput> goals;    // exactly one per setup goal (none without setup)
  // Scales every CCD/FABRIK goal's iterations, in (0, 1] (at least one sweep each).
  float ik_iteration_scale = 1.0f;
  // Root motion: the joint whose travel is taken out of every sampled clip pose (the base,
  // each fade's clip, each override layer's clip) before they are blended; additive layers
  // are left as they are. joint -1: off. (The root above already includes the travel.)
  RootMotionInput root_motion;
};

// Working memory of one evaluation; reusable for any number of them (one thread at a time).
struct PoseScratch {
  std::vector<Transform> sample;  // one clip sample; resized to the skeleton by evaluate_pose
  // A blend space's further samples while `sample` holds the source being built; resized
  // by evaluate_pose on first use.
  std::vector<Transform> term;
  std::array<glm::vec3, kMaxChainJoints> positions{};
  std::array<glm::vec3, kMaxChainJoints> solved{};
  std::array<glm::quat, kMaxChainJoints> rotations{};
};

// Where an evaluation writes: the local pose and the model-space matrices (including
// Skeleton::root_transform, not PoseInputs::root), one entry per joint each.
struct PoseOutput {
  std::span<Transform> locals;
  std::span<glm::mat4> model;
};

// Evaluates the pose: base, then each fade blended over the result so far, then the layers,
// local-to-model, then the IK goals. With root motion, each clip sample has its joint pinned
// to the rest pose's motion frame (remove_root_motion) before it is used. `setup` may be null when
// the inputs have no layers and no goals. Preconditions (checked by the callers that build inputs,
// as the Animator's commands do): clip indices valid for `clips` with the skeleton's joint count,
// inputs and setup of matching lengths, outputs sized to the skeleton. `scratch.sample` (and
// `scratch.term`, when a source has blend terms) is resized when it does not have one entry per
// joint (the only allocation, on first use).
void evaluate_pose(const Skeleton& skeleton, std::span<const Clip> clips, const PoseInputs& inputs,
                   const PoseSetup* setup, PoseScratch& scratch, PoseOutput output);

}  // namespace anim

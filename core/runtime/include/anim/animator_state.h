#pragma once
// A character's animation state as plain data: what Animator::capture_state() hands out and
// Animator::restore_state() takes back (docs/animation.md, "Saving and restoring a
// character"). Everything that decides the character's future poses is here; what the
// Animator derives from it (pose setups, reference poses, stride curves, root-motion frames,
// sampling cursors) is rebuilt on restore from the descriptions below.
//
// The same types are the Animator's own working state (its players, fades, layers, goals):
// their fields' meanings and units are stated once, here. Clips and blend spaces are named by
// index into the character's asset (its clips; the BlendSpaceTable set on the Animator); state
// machines by the shared StateMachine the host resolves for the asset.
//
// Invariants restore_state() checks (a state from outside is untrusted input): every index is
// in range for the asset, every float is finite, counts are within the Animator's limits, and
// the parameter and trigger slots a player or machine names exist.

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "anim/aim_ik.h"
#include "anim/animator_options.h"
#include "anim/blend_space.h"
#include "anim/foot_ik.h"
#include "anim/ik.h"
#include "anim/joint_mask.h"
#include "anim/montage_sections.h"
#include "anim/pose_evaluation.h"
#include "anim/root_motion.h"
#include "anim/sampling_job.h"
#include "anim/state_machine.h"
#include "anim/transform.h"

namespace anim {

// The version of AnimatorState's content. A host stores it with a serialized state and
// refuses to restore one with a greater version than it knows.
inline constexpr uint32_t kAnimatorStateVersion = 1;

// One clip playing on its own clock.
struct PlayerState {
  int clip = -1;       // -1: the rest pose (before the first play)
  float time = 0.0f;   // seconds, inside [0, duration]
  float speed = 1.0f;  // own rate; the character speed multiplies it
  bool loop = true;
  // Where the last sample found its keys (a cache only: see sampling_job.h).
  mutable SamplingCursor cursor;
  // The last update's playhead travel in seconds, loop wraps unrolled (a synced fade
  // follows it), and with root motion the joint's travel over it (its frame at the old time).
  float advance = 0.0f;
  RootMotion motion;
  // The last update's playhead move, for events: from where, and the loop wraps (< 0:
  // backwards across the start). `fresh` until the playhead first moves after play or
  // crossfade placed it: an event exactly at the start time fires then.
  float from = 0.0f;
  int64_t wraps = 0;
  bool fresh = true;
  // A blend space (index into spaces_; clip is then -1): `time` is its normalized phase
  // (in [0, 1], a cycle of "duration 1"), `advance` in phases. Its samples this update,
  // from the parameters in the slots its axes name (-1: none, read as 0).
  int space = -1;
  BlendWeights weights{};
  std::array<int8_t, 2> params{-1, -1};
  mutable std::array<SamplingCursor, 2> term_cursors{};  // for weights' samples 1 and 2
  float carry = 0.0f;  // what `time` misses of the exact clock (advance_clip_time)
};
// A named parameter (set_parameter) and its smoothing state.
struct ParameterState {
  std::string name;
  float value = 0.0f;      // current
  float target = 0.0f;     // where it is going
  float velocity = 0.0f;   // units per second (the spring's)
  float smoothing = 0.0f;  // seconds, >= 0
};
// One crossfade: `player` fades in over everything below it in the queue.
struct FadeState {
  PlayerState player;
  float duration = 0.0f;  // > 0
  float elapsed = 0.0f;   // seconds of fade time so far; weight = curve(elapsed / duration)
  bool sync = false;      // player follows the normalized time of the player below
  bool markers = false;   // with sync: by foot markers where both clips have them
  BlendCurve curve = BlendCurve::kLinear;
  float weight() const;  // the target's weight over what is below it, in [0, 1]
};
// A named trigger (set_trigger).
struct TriggerState {
  std::string name;
  bool set = false;
};
// Where the running state machine is.
struct MachineRunState {
  int state = -1;
  float state_time = 0.0f;  // cycles played since the state was entered
  int transition = -1;      // the last transition that started a fade (-1: none)
  int from = -1;            // the state it fades from
};
// A base and the crossfades over it: the character's main track, or a machine layer's.
struct TrackState {
  PlayerState base;
  std::array<FadeState, kMaxFades> fades{};
  int num_fades = 0;
  const PlayerState& latest() const { return num_fades > 0 ? fades[num_fades - 1].player : base; }
};
// A state machine running on a track: the machine, a player for each of its states (made
// when it starts), the character's parameter and trigger slots its conditions read, and
// where it is.
struct MachineDriverState {
  std::shared_ptr<const StateMachine> machine;
  std::vector<PlayerState> players;
  std::array<int8_t, kMaxMachineParameters> params{};
  std::array<int8_t, kMaxTriggers> triggers{};
  MachineRunState run;
};
// A heap object that is copied with its owner: state that is large and used by few
// characters (a machine layer's; the Animator's parameters, triggers, fired events, layer and
// goal inputs), out of line, made by the command that first needs it.
template <typename T>
class BoxedCopy {
 public:
  BoxedCopy() = default;
  explicit BoxedCopy(std::unique_ptr<T> p) : p_(std::move(p)) {}
  BoxedCopy(const BoxedCopy& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  BoxedCopy& operator=(const BoxedCopy& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  BoxedCopy(BoxedCopy&&) noexcept = default;
  BoxedCopy& operator=(BoxedCopy&&) noexcept = default;
  T* operator->() const { return p_.get(); }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // The object, value-initialized first when there is none (allocates: for commands).
  T& make() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }

 private:
  std::unique_ptr<T> p_;
};
// A weight the game overrides: kSet shows lerp(from, to, elapsed / duration); kClearing
// shows lerp(from, the animated value, elapsed / duration) and ends when it reaches 1.
struct MorphOverrideState {
  enum class Mode : uint8_t { kNone, kSet, kClearing };
  Mode mode = Mode::kNone;
  float from = 0.0f;
  float to = 0.0f;
  float elapsed = 0.0f;   // seconds of update time
  float duration = 0.0f;  // seconds, >= 0
  float alpha() const { return duration > 0.0f ? std::min(elapsed / duration, 1.0f) : 1.0f; }
};
// A machine layer's own track and machine.
struct MachineLayerState {
  TrackState track;
  MachineDriverState driver;
};
// A layer's clock and current values; what it is (clip, blend, mask, reference) is its
// LayerSetup, at the same position in setup_->layers.
struct LayerState {
  int id = 0;
  int clip = -1;
  LayerTimeSource time_source = LayerTimeSource::kOwnClock;
  float weight = 1.0f;     // kept current by update_layer
  float speed = 1.0f;      // kept current by update_layer
  float parameter = 0.0f;  // kept current by update_layer
  float time = 0.0f;       // the layer clip's time, seconds
  SamplingCursor cursor;   // for the layer clip (a cache only)
  // The last update's playhead move, for events (as PlayerState's).
  float from = 0.0f;
  float advance = 0.0f;
  int64_t wraps = 0;
  bool loop = true;  // false for kParameter: its time jumps, never wraps
  bool fresh = true;
  bool slot = false;  // made without a clip: clip is -1 until a montage plays in it
  // A machine layer (add_machine_layer): its pose is its machine's track; clip, time and
  // the clock fields above are unused.
  BoxedCopy<MachineLayerState> machine;
  float carry = 0.0f;  // own clock and montages: what `time` misses (advance_clip_time)
  // The montage playing in a slot: its clock replaces the layer's (forward, held at the
  // end) and `envelope` scales the layer's weight.
  struct Montage {
    MontagePhase phase = MontagePhase::kNone;
    float rate = 1.0f;
    float blend_in = 0.0f, blend_out = 0.0f;  // seconds
    float start_weight = 0.0f;  // where its blend-in starts (the replaced montage's weight)
    float elapsed = 0.0f;       // character seconds since it started
    float envelope = 0.0f;      // its weight after the last update, in [0, 1]
    float stop_from = 0.0f;     // kStopping: the envelope when it was stopped
    float stop_duration = 0.0f;
    float stop_elapsed = 0.0f;
    // Sections (null: none, the whole clip is one) and the playhead's place in them; the
    // last update's move through them, for events: the section it left from, the sections
    // entered through `next`.
    std::shared_ptr<const MontageTimeline> timeline;
    int section = -1;
    int from_section = -1;
    int64_t hops = 0;
    // Lifecycle (fired_events): whether montage_started was reported; the clip of a
    // montage this one replaced before it ended (-1: none), reported as interrupted by the
    // next update; whether it blends out after the last update; what that update began.
    bool started = false;
    bool blending_out = false;
    bool began_blending_out = false;
    bool ended_now = false;
    int interrupted_clip = -1;
  } montage;
};
// An IK goal's current target and weight; its chain and settings are its GoalSetup, at the
// same position in setup_->goals.
struct GoalState {
  int id = 0;
  glm::vec3 target{0.0f};
  float weight = 1.0f;
};

// What a layer is, as it was added (the inputs its LayerSetup was derived from).
struct LayerConfig {
  int clip = -1;  // its clip; -1: a montage slot (kOverride) or a machine layer
  LayerBlend blend = LayerBlend::kAdditive;
  JointMask mask;               // empty: all joints; else one weight in [0, 1] per joint
  int reference_clip = -1;      // kAdditive: the reference clip (-1: the layer's own clip)
  float reference_time = 0.0f;  // seconds into the reference clip
  std::vector<std::string> morph_targets;  // AdditiveLayerDesc::morph_targets
};

// A character's whole animation state (Animator::capture_state / restore_state).
struct AnimatorState {
  float speed = 1.0f;  // the character speed (set_speed)
  // The ids the next add_layer / set_ik_goal hand out (> every id in use).
  int next_layer_id = 1;
  int next_goal_id = 1;
  Transform root;         // model space -> world space; finite, unit rotation, no zero scale
  bool root_set = false;  // set_root_transform since the last update
  RootMotionOptions root_motion;  // joint resolved (>= 0) while kExtract
  // Blend-space parameters and triggers, in the order they were made (slots are indices).
  std::vector<ParameterState> parameters;  // at most Animator::kMaxParameters
  std::vector<TriggerState> triggers;      // at most kMaxTriggers
  TrackState main;                         // the base and its crossfades
  // The state machine on the main track (machine null: none); its players one per leaf
  // state of the machine, its slots indices into `parameters` and `triggers`.
  MachineDriverState machine;
  // Layers in the order they apply, each with what it was made from; a machine layer's
  // `machine` holds its track and driver.
  std::vector<LayerState> layers;
  std::vector<LayerConfig> layer_configs;  // one per layer
  // IK goals in solve order, each with its desc as the goal keeps it (GoalSetup::desc).
  std::vector<GoalState> goals;
  std::vector<IkGoalDesc> goal_descs;  // one per goal
  std::optional<AimIkDesc> aim;        // AimSetup::desc; none: no aim IK
  AimInput aim_input;
  // Foot IK (FootIkSetup::desc; none: no foot IK), with the number of clips its stride curves
  // were made for, and its per-update inputs and state (the ground, locks).
  std::optional<FootIkDesc> feet;
  int foot_stride_clips = 0;
  FootIkInput foot_input;
  FootIkState foot_state;
  FootIkOutput foot_output;
  std::array<bool, kNumFeet> lock_held{};
  // The held pose (set_pose): one local transform per joint; none: no held pose. Its weight
  // and blend-out (held_out_duration < 0: not blending out).
  std::optional<std::vector<Transform>> held_pose;
  float held_weight = 0.0f;
  float held_from = 0.0f;
  float held_out_duration = -1.0f;
  float held_out_elapsed = 0.0f;
  // Morph targets: the last update's weights (one per weight of the asset's MorphLayout;
  // empty without one) and the game's overrides (one per weight, or empty: none).
  std::vector<float> morph_weights;
  std::vector<MorphOverrideState> morph_overrides;
};

}  // namespace anim

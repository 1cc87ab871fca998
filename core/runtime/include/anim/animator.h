#pragma once
// Animator: one character's animation state and its per-tick update.
//
// It plays a base clip, runs a queue of overlapping crossfades, stacks additive layers,
// applies IK goals, and produces the final local pose, model-space matrices and skin palette.
// docs/animation.md describes every feature's semantics.
//
// Threading and memory: an Animator is used by one thread at a time. Commands (play,
// crossfade, add_layer, ...) may allocate; update() and catch_up() never allocate and never
// lock.
// Determinism: the same sequence of commands and dts gives bit-identical palettes.
// Every command validates its input first and leaves the state unchanged on error.
//
// The skeleton and clips are borrowed: they must outlive the Animator (the server keeps
// assets alive with shared ownership). Clips are named by their index in `clips`.

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "anim/animator_options.h"
#include "anim/animator_state.h"
#include "anim/asset.h"
#include "anim/blend_space.h"
#include "anim/clip_events.h"
#include "anim/ik.h"
#include "anim/joint_mask.h"
#include "anim/montage_sections.h"
#include "anim/morph_layout.h"
#include "anim/palette.h"
#include "anim/pose.h"
#include "anim/pose_evaluation.h"
#include "anim/root_motion.h"
#include "anim/sampling_job.h"
#include "anim/state_machine.h"
#include "anim/status.h"

namespace anim {

// What an Animator allocates for itself. kOwn: its own evaluation scratch, model-space
// matrices and skin palette, for update(dt). kLentOnly: none of them (a scratch pose and two
// matrices per joint less), for an owner that updates it only in lent buffers
// (update(dt, buffers)) and takes the model matrices from them, the daemon: model_matrices()
// and palette() are empty, model_current() and palette_current() false, until
// refresh_model(), refresh_palette() or update(dt), whose first call then allocates them
// (after that they work as with kOwn, allocating nothing).
enum class AnimatorBuffers { kOwn, kLentOnly };

// Working memory that one thread lends to every Animator::update(dt, buffers) it runs, so
// that the evaluation stays in the core's cache from character to character.
struct UpdateBuffers {
  PoseScratch scratch;
  // Model-space matrices of the last update run in these buffers (its skeleton's
  // num_joints first entries; the rest unused), when model_written.
  std::vector<glm::mat4> model;
  // Whether update(dt, buffers) must write `model`. False: only when a step of the pose
  // needed them (foot, aim or goal IK); a caller that only reads the local pose (a compact
  // stream quantizes local transforms) saves the local-to-model pass this way.
  bool want_model = true;
  // Set by update(dt, buffers): whether `model` holds the new pose's matrices.
  bool model_written = false;

  // Sizes everything for skeletons of up to `max_joints` joints, so that no update of such a
  // skeleton allocates (smaller buffers are grown by the update that needs more).
  void reserve(int max_joints) {
    const size_t n = static_cast<size_t>(max_joints);
    scratch.reserve(n);
    if (model.size() < n) model.resize(n);
  }
};

class Animator {
 public:
  static constexpr int kMaxFades = anim::kMaxFades;      // overlapping crossfades; more collapse
                                                         // the oldest
  static constexpr int kMaxLayers = anim::kMaxLayers;    // layers per character
  static constexpr int kMaxIkGoals = anim::kMaxIkGoals;  // IK goals per character
  static constexpr int kMaxChainJoints = anim::kMaxChainJoints;  // joints per IK chain
  static constexpr int kMaxParameters = 16;  // named blend-space parameters per character

  // Starts in the skeleton's rest pose, with no clip; model matrices and (with kOwn) palette
  // are valid right away. See AnimatorBuffers.
  Animator(const Skeleton& skeleton, std::span<const Clip> clips,
           AnimatorBuffers buffers = AnimatorBuffers::kOwn);

  const Skeleton& skeleton() const { return *skeleton_; }
  std::span<const Clip> clips() const { return clips_; }

  // Points the Animator at another copy of its skeleton and clips: the same asset replaced by
  // a version with clips appended (the daemon attaching a retargeted BVH clip to a loaded
  // asset). `skeleton` must have the same joints (names and parents) and `clips` must start
  // with the current clips (same names, joint counts and durations), in order; more may
  // follow. What is playing keeps playing; nothing else changes. On a mismatch it fails
  // (FAILED_PRECONDITION, naming what differs) and changes nothing. A command: not for update.
  Status rebind(const Skeleton& skeleton, std::span<const Clip> clips);

  // Cuts to `clip` (no fade); clears running crossfades. Layers and IK goals stay.
  Status play(int clip, const PlayOptions& options = {});
  // Fades from the current result to `clip` over `duration` seconds (>= 0, 0 = cut). Fades
  // may overlap (up to kMaxFades; one more collapses the oldest, see docs/animation.md).
  // Asking for the clip that is already the latest target is a no-op (returns OK).
  // Fade time advances with |character speed|.
  Status crossfade(int clip, float duration, const CrossfadeOptions& options = {});

  // Blend spaces (docs/animation.md, "Blend spaces"). The table of the asset's spaces (null:
  // none); a new table must hold the current one's spaces first, as the same objects (spaces
  // are never redefined: the players point at them). FAILED_PRECONDITION otherwise.
  Status set_blend_spaces(std::shared_ptr<const BlendSpaceTable> table);
  const std::shared_ptr<const BlendSpaceTable>& blend_spaces() const { return spaces_; }
  // As play and crossfade, with a blend space (index into the table) in place of a clip. Its
  // samples' clips share one normalized phase: `options.start_time` is that phase, in [0, 1].
  // The parameters its axes name are created (at 0) when the character does not have them
  // yet (RESOURCE_EXHAUSTED beyond kMaxParameters). A crossfade to the blend space that is
  // already the latest target is a no-op; clips and spaces fade into each other freely.
  Status play_blend_space(int space, const PlayOptions& options = {});
  Status crossfade_blend_space(int space, float duration, const CrossfadeOptions& options = {});
  // Sets a named parameter (created when new): it moves toward `value` (finite) as a
  // critically damped spring that covers about 90% of a step in `smoothing` seconds (finite,
  // >= 0; 0 = at once, from the next update). Smoothing runs on update's dt (not scaled by the
  // character speed: a parameter is the game's input, not animation time).
  Status set_parameter(const std::string& name, float value, float smoothing);
  // A parameter's current (smoothed) value; NOT_FOUND when the character has none so named.
  Expected<float> parameter(const std::string& name) const;
  // The latest target's blend space (index into the table), -1 when it is a clip or nothing.
  int current_blend_space() const;
  // The samples the latest target's blend space used in the last update (count 0 otherwise).
  BlendWeights current_blend_weights() const;
  // True when the base or a fade plays a blend space (its pose takes up to three clips).
  bool plays_blend_space() const;

  // Character playback speed (finite, may be negative or 0): multiplies every clip's and
  // layer's own speed and the progress of fades.
  Status set_speed(float speed);
  float speed() const { return speed_; }

  // Returns the new layer's id (> 0). Layers apply in the order they were added.
  Expected<int> add_layer(const AdditiveLayerDesc& desc);
  Status update_layer(int layer_id, const AdditiveLayerUpdate& update);
  Status remove_layer(int layer_id);

  // Montages (docs/animation.md, "Montages"): a clip played once in a slot, the override
  // layer `slot` made by add_layer without a clip (its mask and weight apply). Playing one
  // where another plays replaces it, its blend-in starting from the weight the other had.
  // The clip advances with |character speed| x rate and holds its last frame; the weight
  // rises over blend_in, falls over blend_out to 0 at the montage's end (the clip's end, or
  // with sections the end of a section without `next`; a loop of sections never ends on its
  // own), and the slot is silent once it reaches 0 (kEnded). stop_montage blends out from the
  // current weight over `blend_out` seconds (finite, >= 0; 0: silent from the next update).
  // Each montage's lifecycle (started, blending out, ended, interrupted) is reported in
  // fired_events() (EventSource::kMontage).
  Status play_montage(int slot, const MontageDesc& desc);
  Status stop_montage(int slot, float blend_out);
  // Moves the playhead of the montage playing in `slot` (kPlaying or kStopping) to the start
  // of its section named `section`, at once: the next update plays on from there (the events
  // of the span skipped are not fired; one at the section's start fires with that update).
  // NOT_FOUND when the montage has no section so named (or no sections).
  Status jump_to_section(int slot, const std::string& section);
  Expected<MontageState> montage(int slot) const;

  // State machines (docs/animation.md, "State machines"). Runs `machine` on the base: it
  // cuts to `state` (empty: the machine's entry state) and, from the next update on, each
  // update starts at most one transition (a crossfade) before the clocks advance. While it
  // runs, play, crossfade and their blend-space forms are refused (FAILED_PRECONDITION).
  // The parameters and triggers its conditions read are created (0, clear) when the
  // character does not have them (RESOURCE_EXHAUSTED beyond kMaxParameters / kMaxTriggers),
  // and its states' blend spaces must be the character's (set_blend_spaces). Replaces a
  // machine that runs. On error nothing changes.
  Status start_state_machine(std::shared_ptr<const StateMachine> machine,
                             const std::string& state = {});
  // Stops the machine (none: nothing to do): the base keeps playing and fading what it plays.
  void stop_state_machine();
  const std::shared_ptr<const StateMachine>& state_machine() const { return machine_.machine; }
  MachineStatus machine_status() const;
  // Machine layers (docs/animation.md, "Machine layers"): a layer whose pose is a state
  // machine's, run on its own base and crossfades exactly as the base's machine runs (same
  // parameters and triggers: a trigger is consumed by the first machine that fires on it,
  // the base's first, then the layers' in order). It applies over the pose under it as an
  // override or additive layer with its mask and weight; update_layer sets its weight and
  // speed (a rate on its clocks and fades), remove_layer stops it. At most kMaxMachineLayers
  // per character. Returns the layer's id. On error nothing changes.
  Expected<int> add_machine_layer(const MachineLayerDesc& desc);
  // Where a machine layer's machine is (and which machine: machine_layer_machine); NOT_FOUND for an
  // unknown layer, INVALID_ARGUMENT for a layer that runs no machine.
  Expected<MachineStatus> machine_layer_status(int layer_id) const;
  std::shared_ptr<const StateMachine> machine_layer_machine(int layer_id) const;  // null: none
  // The ids of the layers that run a machine, in layer order.
  std::vector<int> machine_layer_ids() const;
  // The character's parameters and triggers, in the order they were made (for reports).
  int num_parameters() const { return num_params_; }
  const std::string& parameter_name(int i) const {
    return controls_->params[static_cast<size_t>(i)].name;
  }
  float parameter_value(int i) const { return controls_->params[static_cast<size_t>(i)].value; }
  int num_triggers() const { return num_triggers_; }
  const std::string& trigger_name(int i) const {
    return controls_->triggers[static_cast<size_t>(i)].name;
  }
  bool trigger_set(int i) const { return controls_->triggers[static_cast<size_t>(i)].set; }
  // Sets (true) or clears (false) a named trigger, created when new (RESOURCE_EXHAUSTED
  // beyond kMaxTriggers; the name non-empty, at most kMaxMachineNameBytes). A set trigger
  // stays set until a transition whose conditions test it fires, which clears it.
  Status set_trigger(const std::string& name, bool value = true);
  // NOT_FOUND when the character has no trigger so named.
  Expected<bool> trigger(const std::string& name) const;

  // Held poses (docs/animation.md, "Held poses"): set_pose holds `locals` (one per joint in
  // skeleton order; finite, rotations of unit length within 1e-3 (normalized), non-zero
  // scales) as the character's local pose from the next update on, over its animation,
  // which keeps playing underneath (IK still applies on top; root motion stops while held).
  // A new set_pose replaces the held pose at full weight. blend_out_pose fades from the held
  // pose into the animation over `duration` seconds of update time (finite, >= 0; 0: gone
  // from the next update), starting from its current weight; FAILED_PRECONDITION when no
  // pose is held. On error nothing changes.
  Status set_pose(std::span<const Transform> locals);
  Status blend_out_pose(float duration);
  // The held pose's weight now: 1 after set_pose, falling while it blends out, 0 without one.
  float held_pose_weight() const { return held_weight_; }

  // Morph targets (docs/animation.md, "Morph targets"). The layout of the asset's morph
  // weights (null or empty: none): set once, before any layer is added (FAILED_PRECONDITION
  // otherwise, or when a clip's morph channels do not fit it). With one, every update blends
  // the clips' weights as it blends their poses (morph_evaluation.h), then applies the game's
  // overrides; without one, updates cost nothing more.
  Status set_morph_layout(std::shared_ptr<const MorphLayout> layout);
  const std::shared_ptr<const MorphLayout>& morph_layout() const { return morph_layout_; }
  // The last update's weights, one per layout weight (before the first update: the
  // defaults); empty without a layout.
  std::span<const float> morph_weights() const { return morph_weights_; }
  // Overrides the given weights (indices distinct, valid; values finite, within
  // [kMinMorphWeight, kMaxMorphWeight]; at most kMaxMorphOverrides): each moves linearly from
  // the value it shows now to its value over `blend_time` seconds of update time (finite,
  // >= 0; 0: from the next update), then holds it over what the clips give.
  // FAILED_PRECONDITION without morph targets. On error nothing changes.
  Status set_morph_weights(std::span<const MorphWeightValue> weights, float blend_time);
  // Hands the given weights (empty: every overridden one) back to the clips: each fades from
  // the value it shows now to the animated value over `blend_time` seconds. A weight that is
  // not overridden is left as it is. Errors as set_morph_weights.
  Status clear_morph_weights(std::span<const int> indices, float blend_time);
  // How many weights are overridden or fading back to the clips.
  int num_morph_overrides() const { return num_morph_overrides_; }
  bool morph_overridden(int index) const;

  // Returns the new goal's id (> 0). Goals are solved in the order they were added.
  Expected<int> set_ik_goal(const IkGoalDesc& goal);
  // Replaces the target (same space as the goal's) and weight of an existing goal.
  Status update_ik_target(int goal_id, const glm::vec3& target, float weight);
  Status clear_ik_goal(int goal_id);
  // Scales the iterations of every CCD/FABRIK goal by `scale` in (0, 1] (at least one sweep
  // each): how a host with an IK budget degrades when too much IK is asked of it. 1 = as
  // each goal asks. Values outside (0, 1] or NaN are clamped to 1.
  void set_ik_iteration_scale(float scale) {
    ik_iteration_scale_ = scale > 0.0f && scale < 1.0f ? scale : 1.0f;
  }
  float ik_iteration_scale() const { return ik_iteration_scale_; }

  // Joint LOD, set by the host per update (joint_detail.h): true evaluates the next updates
  // with the skeleton's detail joints at rest and their channels unsampled
  // (PoseInputs::skip_detail). A skeleton without detail joints ignores it (skip_detail()
  // stays false).
  void set_skip_detail(bool skip) { skip_detail_ = skip && !skeleton_->detail_joints.empty(); }
  bool skip_detail() const { return skip_detail_; }
  // Joint-iterations the goals ask for per update (sum of max_iterations x chain length of
  // the iterative goals; a two-bone goal counts as its chain length).
  uint64_t ik_cost() const;

  // Aim IK (aim_ik.h, docs/animation.md "Aim IK"): at most one per character; setting one
  // replaces the previous. update_aim_target moves its target (same space) and weight.
  Status set_aim_ik(const AimIkDesc& desc);
  Status update_aim_target(const glm::vec3& target, float weight);
  Status clear_aim_ik();
  bool has_aim_ik() const { return setup_ && setup_->aim; }
  const AimInput& aim_input() const { return aim_input_; }  // target and weight in force

  // Foot IK (foot_ik.h, docs/animation.md "Foot IK"): at most one per character; setting one
  // replaces the previous (and its locks). The ground persists until replaced (set it before
  // or after set_foot_ik); nothing happens without one. set_foot_ik_weight in [0, 1].
  Status set_foot_ik(const FootIkDesc& desc);
  Status set_ground(const GroundDesc& ground);
  Status set_foot_ik_weight(float weight);
  Status clear_foot_ik();
  bool has_foot_ik() const { return setup_ && setup_->feet; }
  // What the last update did for the feet (planting, locks, needs, pelvis drop).
  const FootIkState& foot_ik_state() const { return foot_state_; }

  // The character's placement in the world (model space -> world space); used for
  // world-space IK targets and reported to clients. Must be finite with non-zero scale.
  // With root motion, the next update() leaves the root where it was set (it wins over that
  // update's travel, which is dropped); the updates after it move it on from there.
  Status set_root_transform(const Transform& root);
  const Transform& root_transform() const { return root_; }

  // Root motion (docs/animation.md, "Root motion"): kExtract takes the chosen joint's travel
  // out of the pose and moves the root by it in every update; kOff leaves it in the pose.
  // The joint must exist (-1: the skeleton's root joint). Changing it moves nothing by
  // itself: the pose shows the joint pinned (or not) from the next update on.
  Status set_root_motion(const RootMotionOptions& options);
  // The settings in force, with the joint resolved (never -1 while kExtract).
  const RootMotionOptions& root_motion() const { return root_motion_; }
  // The travel the last update() (or catch_up()) applied to the root, in model space (zero
  // when off, or when a set root won that step).
  const RootMotion& last_root_motion() const { return last_root_motion_; }

  // Animation events (docs/animation.md, "Animation events"): the table of every clip's
  // events the playheads fire. Starts as the clips' own events (Clip::events; null when
  // none). A table must have one list per clip, each sorted by time within its clip (the
  // daemon's add_clip_events makes a new table and gives it to every character of the
  // asset). Null: no events. The events a catch_up() fired that no update has reported yet
  // are dropped (their indices name the old table's events).
  Status set_event_table(std::shared_ptr<const ClipEventTable> table);
  const std::shared_ptr<const ClipEventTable>& event_table() const { return events_; }
  // The events the last update() crossed, in order: the base clip's, each fade's (oldest
  // first), each layer's (in the order added); each source's in the order its playhead met
  // them. An update that follows catch_up() calls reports the catch-ups' events first, in the
  // order they fired, then its own. At most kMaxFiredEvents; the rest are only counted
  // (events_overflowed()). Between a catch_up() and the next update they hold what the
  // catch-ups fired so far.
  std::span<const FiredEvent> fired_events() const {
    if (!fired_) return {};
    return std::span<const FiredEvent>(*fired_).first(static_cast<size_t>(num_fired_));
  }
  uint64_t events_overflowed() const { return events_overflowed_; }

  // Advances every clock by dt seconds (>= 0, finite) and recomputes pose, model matrices
  // and (unless PaletteUpdate::kSkip) palette. No allocation, no lock. A bad dt is rejected
  // and nothing changes. kSkip is for a caller that needs the palette only some of the time
  // (the daemon builds none while nobody streams float palettes): palette() then keeps the
  // one from before until refresh_palette().
  Status update(float dt, PaletteUpdate palette = PaletteUpdate::kBuild);
  // The same update (the same local pose, bit for bit), evaluated in `buffers`, which one
  // thread lends to every Animator it updates: the model-space matrices of this update are
  // buffers.model's first num_joints entries (until the buffers' next use), and the
  // Animator's own model_matrices() and palette() are left out of date (model_current() and
  // palette_current() false) until refresh_model() or refresh_palette(). A daemon updating
  // thousands of characters a tick keeps the evaluation in the core's cache this way: each
  // Animator's own scratch and matrices would be cold memory at every update.
  // No lock; no allocation once the buffers are sized (UpdateBuffers::reserve).
  Status update(float dt, UpdateBuffers& buffers);
  // update(dt, buffers) that also hands over the local pose from before it: on return
  // `previous` holds that pose (one Transform per joint) and local_pose() the new one. When
  // `previous` already has one entry per joint the two exchange their storage (no copy, no
  // allocation: every update writes every joint's local transform); otherwise it is resized
  // and the pose copied. Storage taken from local_pose().locals before the call then belongs
  // to `previous`. A refused dt changes nothing, `previous` included. For a host that
  // interpolates between its last two evaluations.
  Status update(float dt, UpdateBuffers& buffers, std::vector<Transform>& previous);
  // Advances the state by dt seconds (finite, >= 0) exactly as update(dt) advances it, without
  // evaluating the pose: for a host that evaluates a character less often than it steps time
  // and must bring its clocks up to date before a command (the daemon's update rates). Every
  // clock, fade, state machine, parameter, layer and montage, the held pose's and the morph
  // overrides' blends, the foot locks' planting and release, and the root (root motion, or a
  // set root that wins this step) move on; the events crossed fire and wait for the next
  // update, which reports them before its own (fired_events()). local_pose(),
  // model_matrices(), palette(), morph_weights(), evaluated_inputs() and evaluated_setup()
  // stay those of the last evaluation; a command that starts from a shown value
  // (set_morph_weights, clear_morph_weights) starts from those.
  // The rule: catch_up(a) then update(b) gives the same local pose, model matrices, morph
  // weights, root and clocks, bit for bit, as update(a) then update(b), and fired_events()
  // the two updates' events in order (the first kMaxFiredEvents kept, the rest counted);
  // with foot IK, whose locks capture their positions at evaluations, the pose may differ.
  // A command between the two steps acts on the same state in both. Several catch-ups in a
  // row are several steps (not one of their summed dt: the clocks round each step).
  // A NaN, infinite or negative dt is refused (INVALID_ARGUMENT) and nothing changes.
  // No allocation, no lock.
  Status catch_up(float dt);
  // Recomputes model_matrices() from the local pose if the last update left them out of date
  // (the same matrices the evaluation had: every IK step keeps them equal to the local
  // pose's). No allocation (but see AnimatorBuffers::kLentOnly), no lock.
  void refresh_model();
  // Builds the palette from the current model matrices if the last update skipped it
  // (refreshing the model matrices first if needed; nothing to do otherwise). No allocation
  // (but see AnimatorBuffers::kLentOnly), no lock.
  void refresh_palette();
  // Asks the CPU to start bringing into its cache the state an update, and a record of its
  // evaluated inputs, read first. A hint for a caller about to update many Animators in turn:
  // no effect on any result.
  void prefetch() const;
  // The same hint for a caller that reads the state without updating it: the root, the
  // morph weights, skip_detail(), and the last evaluation's root and setup.
  void prefetch_state() const;
  // Whether model_matrices() are those of local_pose() (false after update(dt, buffers),
  // until refresh_model() or refresh_palette()).
  bool model_current() const { return model_current_; }
  // Whether palette() is the skin palette of model_matrices() (false after an update with
  // PaletteUpdate::kSkip or buffers, until refresh_palette()).
  bool palette_current() const { return palette_current_; }

  const Pose& local_pose() const { return pose_; }
  // Model-space matrix of every joint (skeleton order), including Skeleton::root_transform
  // but not the Animator's root transform; see model_current().
  std::span<const glm::mat4> model_matrices() const { return model_; }
  // The skin palette (joint order); see palette_current(). Empty with
  // AnimatorBuffers::kLentOnly until the first refresh_palette() or update(dt).
  std::span<const PaletteMatrix> palette() const { return palette_; }

  // Saving and restoring (docs/animation.md, "Saving and restoring a character"). The whole
  // state that decides the future poses, as plain data; a command (allocates).
  AnimatorState capture_state() const;
  // Replaces this Animator's state by `state` (from capture_state() of an Animator of the
  // same skeleton and clips, with the same blend spaces, event table and morph layout set
  // before this call): from the next update on, both give bit-identical poses, palettes,
  // morph weights and events. `state` is checked first (indices, counts, finite values, the
  // descriptions' own checks, as the commands make them); on error (INVALID_ARGUMENT,
  // NOT_FOUND or FAILED_PRECONDITION, naming the field) nothing changes. The model matrices
  // and palette stay those of before until the next update.
  Status restore_state(const AnimatorState& state);

  // Introspection for queries and tests.
  int current_clip() const;         // the latest target clip, -1 before the first play (or
                                    // when it is a blend space: current_blend_space)
  float current_clip_time() const;  // its time in seconds (a blend space: its phase, 0..1)
  int num_active_fades() const { return main_.num_fades; }
  // Bounds on what the next update evaluates, for a host that sizes buffers before it (the
  // daemon's history): the fades of the main track (a running machine may start one more)
  // and whether a source may be a blend space; the machine layers' sources (base and fades,
  // one more fade each), summed.
  int fades_bound() const;
  bool blend_space_bound() const;
  int machine_layer_sources_bound() const;
  int num_layers() const { return static_cast<int>(layers_.size()); }
  int num_ik_goals() const { return static_cast<int>(goals_.size()); }

  // What the last update() evaluated (before the first: the rest pose, identity root):
  // evaluate_pose(skeleton(), clips(), evaluated_inputs(), evaluated_setup().get(), ...)
  // gives model_matrices() again, bit for bit. The spans point into the Animator (valid
  // until its next update), and so do the sampling cursors (caches: give them to an
  // evaluation only on the thread that owns the Animator, or set them to null).
  PoseInputs evaluated_inputs() const;
  // evaluated_inputs().root without the copy: the root the last evaluation posed.
  const Transform& evaluated_root() const { return inputs_.root; }
  const std::shared_ptr<const PoseSetup>& evaluated_setup() const { return evaluated_setup_; }
  // The layers and goals the next update() evaluates (null when none): replaced by a new
  // object by add_layer, remove_layer, set_ik_goal and clear_ik_goal, never modified.
  const std::shared_ptr<const PoseSetup>& setup() const { return setup_; }

 private:
  // The working state's types (animator_state.h).
  using Player = PlayerState;
  using Parameter = ParameterState;
  using Fade = FadeState;
  using Trigger = TriggerState;
  using MachineRun = MachineRunState;
  using Track = TrackState;
  using MachineDriver = MachineDriverState;
  template <typename T>
  using Boxed = BoxedCopy<T>;
  using MorphOverride = MorphOverrideState;
  using MachineLayer = MachineLayerState;
  using Layer = LayerState;
  using Goal = GoalState;

  Status check_clip(int clip, const char* what) const;
  // The layer's weight in the pose: its own, times its montage's envelope in a slot (0 for a
  // slot with nothing playing).
  static float layer_weight(const Layer& layer);
  // Advances a slot's montage clock and envelope by `dt` seconds of update time.
  void advance_montage(Layer& layer, float dt);
  // A slot's events of the update (fire_events): its montage's lifecycle around the events
  // its clip crossed (those only with an event table), section hops followed.
  void fire_montage(Layer& layer);
  void fire_montage_event(const Layer& layer, int clip, MontageEvent event);
  // The clip events of clip `clip` between a and b (each end included or not), met playing
  // forward, as a slot's (EventSource::kLayer).
  void fire_span(int clip, float a, bool with_a, float b, bool with_b, float weight,
                 uint32_t layer_id);
  std::vector<Layer>::iterator find_layer(int layer_id);
  std::vector<Layer>::const_iterator find_layer(int layer_id) const;
  Status check_mask(const std::string& who, const JointMask& mask) const;
  // add_layer for a montage slot (an override layer without a clip).
  Expected<int> add_slot(const AdditiveLayerDesc& desc);
  // The tail of every add_layer: gives `layer` the next id, appends it and its setup.
  int append_layer(Layer layer, std::shared_ptr<const LayerSetup> setup);
  // A player for blend space `space` (checked), its parameter slots resolved; creates the
  // missing parameters only when everything else passed.
  Expected<Player> space_player(int space, bool loop, float speed, const char* what);
  // Cuts to / fades to a player made by play or crossfade (their shared tail), on `track`.
  void start_fade(Track& track, const Player& target, float duration, bool sync,
                  BlendCurve curve = BlendCurve::kLinear, bool markers = false);
  // A track's clocks: its base and fades advanced by dt x rate seconds of character time
  // (fades' progress too), a finished fade promoted to the base.
  void advance_track(Track& track, float dt, float rate);
  // The events a track's playheads crossed, each source with its share of the track's pose
  // times `weight`.
  void fire_track(Track& track, float weight, EventSource base_source, EventSource fade_source,
                  uint32_t layer_id);
  // Marker sync: the follower's time at the leader's place between foot plants; false when
  // either has no plants (no foot IK, a blend space, a clip without contacts).
  bool marker_time(const Player& leader, const Player& follower, float& out) const;
  bool marker_time(int leader_clip, float leader_time, int follower_clip, float follower_time,
                   float& out) const;
  // FAILED_PRECONDITION naming `what` while a state machine drives the base.
  Status check_no_machine(const char* what) const;
  // Starts `machine` in `driver` on `track`, cut to `state` (empty: its entry): checks
  // everything first (nothing changes on error), then creates the parameters and triggers it
  // needs. `what` names the command in messages.
  Status start_machine(MachineDriver& driver, Track& track,
                       std::shared_ptr<const StateMachine> machine, const std::string& state,
                       const char* what);
  // A machine's step at the start of an update: starts the first transition that can fire.
  // And after the clocks: the current state's time.
  void step_machine(MachineDriver& driver, Track& track);
  void track_machine_time(MachineDriver& driver, const Track& track) const;
  bool conditions_hold(const MachineDriver& driver, const MachineTransition& t) const;
  MachineStatus status_of(const MachineDriver& driver, const Track& track) const;
  int find_trigger(const std::string& name) const;
  // Seconds per cycle: the clip's duration, 1 for a blend space's phase, 0 for the rest pose.
  float duration_of(const Player& p) const;
  // A blend space player's samples from the current parameters (no-op for clips).
  void refresh_weights(Player& p) const;
  // The clip and time of a blend space player's k-th sample this update.
  int term_clip(const Player& p, int k) const;
  float term_time(const Player& p, int k) const;
  // Its time at phase `phase` (marker sync places followers by the leader's plants), and
  // the span it moved in the last update: from, and the loop wraps (its events and travel).
  float term_time_at(const Player& p, int k, float phase) const;
  void term_span(const Player& p, int k, float& from, int64_t& wraps) const;
  void smooth_parameters(float dt);
  const Player& latest() const { return main_.latest(); }
  void advance_player(Player& p, float dt) const;
  // After p.time moved from t0 by `step` seconds (unwrapped; the time is already wrapped):
  // p.advance and, with root motion, p.motion.
  void track_travel(Player& p, float t0, float step) const;
  // Blends the players' motions as the pose blends them and moves the root.
  void apply_root_motion_step();
  // Records the events this update's playheads crossed (fired_), with each source's weight.
  void fire_events();
  void fire_crossings(int clip, float t0, float t1, int64_t wraps, float advance, bool fresh,
                      float weight, EventSource source, uint32_t layer_id);
  float wrap(const Player& p, float time) const;
  // Commands only (they allocate): a copy of the current setup, and installing an edited
  // copy as the new setup_ (null when it has neither layers nor goals).
  PoseSetup copy_setup() const { return setup_ ? *setup_ : PoseSetup{}; }
  void replace_setup(PoseSetup next);
  // A player's pose input (a blend space: its samples as terms).
  ClipInput clip_input(const Player& p) const;
  // Fills inputs_ from the current state (no allocation).
  void gather_inputs();

  // Laid out for the update: what every update reads or writes comes first, then the kept
  // inputs and the clocks in the order they are used; arrays used in part (fades beyond the
  // first, layers, goals, IK scratch) last. Fewer cache lines per character update.
  const Skeleton* skeleton_;
  std::span<const Clip> clips_;
  float speed_ = 1.0f;
  float ik_iteration_scale_ = 1.0f;
  bool skip_detail_ = false;
  int next_layer_id_ = 1;
  int next_goal_id_ = 1;
  Transform root_;
  // The setup of the last evaluation (with inputs_ below), and its morph weights.
  std::shared_ptr<const PoseSetup> evaluated_setup_;
  std::vector<float> morph_weights_;
  RootMotionInput motion_input_;  // joint -1 while root motion is off
  bool root_set_ = false;         // set_root_transform since the last update
  RootMotion last_root_motion_;
  RootMotion rest_frame_;  // the joint's motion frame in the rest pose
  RootMotionOptions root_motion_;
  std::shared_ptr<const PoseSetup> setup_;  // layers_ and goals_ setups; null when none
  // What every update checks, whether the character uses it or not: the parameters in use,
  // the held pose (in setup_->held: its weight for the next evaluation and its blend-out), the
  // morph targets (the layout, null: none; the overrides in use), the events (the table; what the
  // last update fired; fired_ holding a catch_up's events for the next update, which adds its own,
  // then clears them); and below, the main track's state machine, whose first line says whether one
  // runs.
  int num_params_ = 0;
  float held_weight_ = 0.0f;
  float held_from_ = 0.0f;           // the weight its blend-out started from
  float held_out_duration_ = -1.0f;  // < 0: not blending out
  float held_out_elapsed_ = 0.0f;
  int num_morph_overrides_ = 0;
  int num_fired_ = 0;
  bool events_held_ = false;
  uint64_t events_overflowed_ = 0;
  std::shared_ptr<const ClipEventTable> events_;
  std::shared_ptr<const MorphLayout> morph_layout_;
  // The machine layers' inputs of the last evaluation, in layer order (made with the first
  // machine layer, then kept).
  Boxed<std::array<MachineLayerInput, kMaxMachineLayers>> machine_layer_inputs_;
  std::vector<Layer> layers_;  // capacity kMaxLayers once a layer exists (cursors stay put)
  std::vector<Goal> goals_;
  Pose pose_;
  std::vector<glm::mat4> model_;
  std::vector<PaletteMatrix> palette_;
  bool model_current_ = true;    // model_ matches pose_ (see model_current())
  bool palette_current_ = true;  // palette_ matches model_ (see palette_current())
  MachineDriver machine_;        // on the main track

  // The last evaluation's inputs. The spans of inputs_ only say how many entries of the
  // arrays are in use (copying an Animator copies them as they are).
  PoseInputs inputs_;
  Track main_;  // the base and its crossfades
  std::array<FadeInput, kMaxFades> fade_inputs_{};
  // update(dt)'s scratch, out of line (its IK chain arrays are large, and an owner that lends
  // buffers never uses them): made by regrow_own_buffers.
  Boxed<PoseScratch> scratch_;
  // Made with the first layer and the first IK goal.
  Boxed<std::array<LayerInput, kMaxLayers>> layer_inputs_;
  Boxed<std::array<GoalInput, kMaxIkGoals>> goal_inputs_;
  // Aim and foot IK: the values the next update evaluates (used when the setup has them), and
  // whether each foot's lock position holds a captured target.
  AimInput aim_input_;
  FootIkInput foot_input_;
  FootIkOutput foot_output_;
  FootIkState foot_state_;
  std::array<bool, kNumFeet> lock_held_{};
  // Per step of time (advance), after the clocks: which feet are planted and their locks'
  // weights; after an evaluation: the positions captured.
  void plan_foot_locks(float dt);
  // An update's two halves: clocks, fades, root motion, layer clocks, events and foot locks
  // (all of catch_up); then the pose (into `scratch` and `model`, the latter sized to the
  // skeleton).
  void advance(float dt);
  // Returns whether `model` was written (always unless skip_model and no IK step ran).
  bool evaluate(PoseScratch& scratch, std::span<glm::mat4> model, bool skip_model = false);
  void keep_foot_locks();
  // Makes scratch_ and sizes it, model_ and palette_ to the skeleton if
  // AnimatorBuffers::kLentOnly left them empty (nothing to do otherwise).
  void regrow_own_buffers();
  // Blend spaces and parameters.
  std::shared_ptr<const BlendSpaceTable> spaces_;
  // The named parameters (num_params_ of them) and triggers (num_triggers_), made with the
  // first one.
  struct Controls {
    std::array<Parameter, kMaxParameters> params{};
    std::array<Trigger, kMaxTriggers> triggers{};
  };
  Boxed<Controls> controls_;
  void advance_held_pose(float dt);
  std::vector<MorphOverride> morph_overrides_;  // one per morph weight once a layout is set
  void advance_morph_overrides(float dt);
  void evaluate_morphs(PoseScratch& scratch);
  Status check_morph_command(const char* what, float blend_time) const;
  // A layer's morph mask and (additive, reference clip >= 0) reference weights, from its
  // desc's morph target names; nothing to do without a layout and names.
  Status morph_layer_setup(const std::string& who, const std::vector<std::string>& targets,
                           int reference_clip, float reference_time, LayerSetup& setup) const;
  int num_triggers_ = 0;
  // The last update's events, num_fired_ of them: made with an event table or a montage slot
  // (nothing else fires).
  Boxed<std::array<FiredEvent, kMaxFiredEvents>> fired_;
};

}  // namespace anim

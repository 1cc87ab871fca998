#pragma once
// The options of the Animator's commands (play, crossfade, layers), in a header of their own
// so that pose evaluation (pose_evaluation.h) can name the layer kinds without the Animator.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "anim/joint_mask.h"

namespace anim {

// Whether Animator::update builds the skin palette (kSkip: pose and model matrices only; the
// palette is built later by refresh_palette(), if at all).
enum class PaletteUpdate : uint8_t { kBuild, kSkip };

struct PlayOptions {
  bool loop = true;         // loop, or clamp on the last frame (reverse: clamp on the first)
  float speed = 1.0f;       // clip playback rate multiplier, finite; negative plays in reverse
  float start_time = 0.0f;  // seconds into the clip, in [0, duration]
};

// The shape of a crossfade's weight over its duration, x = elapsed / duration in [0, 1].
enum class BlendCurve : uint8_t {
  kLinear,      // x
  kSmoothStep,  // x * x * (3 - 2 x): starts and ends gently
};

struct CrossfadeOptions {
  bool loop = true;    // as PlayOptions::loop, for the target clip
  float speed = 1.0f;  // as PlayOptions::speed, for the target clip
  // When true the target starts at the normalized time of the clip it fades from (the
  // previous latest target) and, while the fade runs, keeps following that clip's normalized
  // time (walk <-> run keep the feet in phase). After the fade it runs on its own clock.
  // When false the target starts at time 0 (as three.js crossFadeTo does).
  bool sync_normalized_time = false;
  // Marker sync (docs/animation.md, "Marker sync"): as sync_normalized_time, but the target
  // is placed, and kept while fading, at the same fraction of the way between the same two
  // foot plants (left then right, or right then left) as the clip it fades from, so that
  // clips whose cycles differ in length and phase stay on the same foot. The plants are the
  // foot IK's contacts (set_foot_ik: its stride curves); where either clip has none, or a
  // blend space plays, normalized time is followed instead. Implies sync.
  bool sync_markers = false;
  BlendCurve curve = BlendCurve::kLinear;  // the target's weight over the fade
};

enum class LayerTimeSource : uint8_t {
  kOwnClock,        // the layer clip advances by dt * layer speed * character speed, looping
  kBaseNormalized,  // the layer clip follows the normalized time of the latest target clip
  kParameter,       // the caller sets a normalized time 0..1 (aim / lean amount)
};

// How a layer combines with the pose under it (base, fades and earlier layers).
enum class LayerBlend : uint8_t {
  // Adds the clip's delta against the reference pose, scaled by weight * mask (lean, breathe).
  kAdditive,
  // Replaces: blends from the pose under it toward the clip's pose by weight * mask, joint by
  // joint (wave on the upper body over walk). A joint at effective weight 1 is the clip's pose
  // bit for bit, at 0 untouched bit for bit. The reference fields are not used.
  kOverride,
};

// A layer played on top of the base and fades. (The name predates kOverride: the same
// clip, weight, mask and time source describe both kinds.)
struct AdditiveLayerDesc {
  // The layer's clip (index into the Animator's clips). -1 with kOverride: a montage slot,
  // silent until a montage plays in it (Animator::play_montage).
  int clip = -1;
  LayerBlend blend = LayerBlend::kAdditive;
  // kAdditive: reference pose subtracted from the clip: `reference_clip` (default: the
  // layer's own clip) sampled at `reference_time` seconds (default 0: its first frame).
  // Precomputed when the layer is added. Validated for kOverride too, but not used.
  int reference_clip = -1;      // -1: the layer's own clip
  float reference_time = 0.0f;  // seconds into the reference clip, in [0, its duration]
  float weight = 1.0f;          // 0..1
  JointMask mask;               // empty: all joints; else one weight in [0, 1] per joint
  LayerTimeSource time_source = LayerTimeSource::kOwnClock;
  float speed = 1.0f;       // for kOwnClock, finite; negative plays in reverse
  float parameter = 0.0f;   // for kParameter, 0..1
  float start_time = 0.0f;  // for kOwnClock: seconds into the clip, in [0, duration]
  // The morph targets the layer reaches (docs/animation.md, "Morph targets"): empty: all
  // those its clip animates; else only these (MorphLayout::resolve names: "set/target", a
  // target's own name, or a set's name). Needs an asset with morph targets.
  std::vector<std::string> morph_targets;
};

// What update_layer may change after creation (all three are always applied).
struct AdditiveLayerUpdate {
  float weight = 1.0f;     // 0..1
  float speed = 1.0f;      // finite, may be negative
  float parameter = 0.0f;  // 0..1
};

struct StateMachine;

// A layer that runs a state machine (Animator::add_machine_layer).
struct MachineLayerDesc {
  std::shared_ptr<const StateMachine> machine;  // non-null, made for the character's asset
  std::string state;                            // where it starts; empty: the machine's entry
  LayerBlend blend = LayerBlend::kOverride;
  float weight = 1.0f;  // 0..1
  float speed = 1.0f;   // finite: a rate on the machine's clocks and fades
  JointMask mask;       // empty: all joints; else one weight in [0, 1] per joint
  // kAdditive: the reference pose subtracted from the machine's pose: `reference_clip`
  // (-1: the clip of the start state, or its blend space's first sample) at `reference_time`
  // seconds. Unused for kOverride.
  int reference_clip = -1;
  float reference_time = 0.0f;
  std::vector<std::string> morph_targets;  // as AdditiveLayerDesc::morph_targets
};

inline constexpr int kMaxMorphOverrides = 256;   // weights named by one morph command
inline constexpr float kMinMorphWeight = -1.0f;  // range of a weight the game sets
inline constexpr float kMaxMorphWeight = 2.0f;

// One morph weight the game server sets (Animator::set_morph_weights).
struct MorphWeightValue {
  int index = -1;      // into the character's weights (MorphLayout), >= 0
  float value = 0.0f;  // finite, in [kMinMorphWeight, kMaxMorphWeight]
};

inline constexpr int kMaxMontageSections = 64;              // sections per montage
inline constexpr size_t kMaxMontageSectionNameBytes = 256;  // bytes per section name

// A named part of a montage's clip (docs/animation.md, "Montages"): it runs from `start_time`
// to the next section's start (the last one: to the clip's end).
struct MontageSection {
  std::string name{};  // non-empty, at most kMaxMontageSectionNameBytes, unique in the montage
  // Seconds into the clip, in [0, duration): the first section's is 0, each next one's
  // strictly greater than the one before (sections are given in clip order).
  float start_time = 0.0f;
  // The section played when this one ends (its own name or an earlier one's: a loop).
  // Empty: the montage ends with this section (its weight reaches 0 at the section's end).
  std::string next{};
};

// A montage: a clip played once in a slot (an override layer made without a clip), its
// weight ramped in and out (docs/animation.md, "Montages").
struct MontageDesc {
  int clip = -1;            // index into the Animator's clips
  float rate = 1.0f;        // clip seconds per second of character time; finite, > 0
  float blend_in = 0.0f;    // seconds (finite, >= 0): the weight rises linearly to 1
  float blend_out = 0.0f;   // seconds (finite, >= 0): it falls linearly to 0 at the montage's
                            // end (the clip's end, or the end of a section without `next`)
  float start_time = 0.0f;  // seconds into the clip, in [0, duration)
  // At most kMaxMontageSections; empty: the whole clip is one section that ends the montage.
  // The montage starts in the section that holds start_time.
  std::vector<MontageSection> sections{};
};

// Where a slot's montage is.
enum class MontagePhase : uint8_t {
  kNone,      // no montage was played in the slot
  kPlaying,   // blending in, at full weight, or blending out toward the montage's end
  kStopping,  // stop_montage: blending out from the weight it had then
  kEnded,     // its weight reached 0 (the slot is silent)
};

// A slot's montage after the last update (Animator::montage).
struct MontageState {
  int clip = -1;        // -1 while kNone
  float time = 0.0f;    // seconds into the clip, held at its end
  float weight = 0.0f;  // its weight in [0, 1], before the slot's own weight
  MontagePhase phase = MontagePhase::kNone;
  int section = -1;  // the section the playhead is in (index into the desc's sections);
                     // -1 without sections
};

}  // namespace anim

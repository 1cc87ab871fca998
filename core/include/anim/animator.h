#pragma once
// Animator: one character's animation state and its per-tick update.
//
// It plays a base clip, runs a queue of overlapping crossfades, stacks additive layers,
// applies IK goals, and produces the final local pose, model-space matrices and skin palette.
// docs/animation.md describes every feature's semantics.
//
// Threading and memory: an Animator is used by one thread at a time. Commands (play,
// crossfade, add_layer, ...) may allocate; update() never allocates and never locks.
// Determinism: the same sequence of commands and dts gives bit-identical palettes.
// Every command validates its input first and leaves the state unchanged on error.
//
// The skeleton and clips are borrowed: they must outlive the Animator (the server keeps
// assets alive with shared ownership). Clips are named by their index in `clips`.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "anim/asset.h"
#include "anim/ik.h"
#include "anim/joint_mask.h"
#include "anim/palette.h"
#include "anim/pose.h"
#include "anim/sampling_job.h"
#include "anim/status.h"

namespace anim {

struct PlayOptions {
  bool loop = true;         // loop, or clamp on the last frame (reverse: clamp on the first)
  float speed = 1.0f;       // clip playback rate multiplier, finite; negative plays in reverse
  float start_time = 0.0f;  // seconds into the clip, in [0, duration]
};

struct CrossfadeOptions {
  bool loop = true;    // as PlayOptions::loop, for the target clip
  float speed = 1.0f;  // as PlayOptions::speed, for the target clip
  // When true the target starts at the normalized time of the clip it fades from (the
  // previous latest target) and, while the fade runs, keeps following that clip's normalized
  // time (walk <-> run keep the feet in phase). After the fade it runs on its own clock.
  // When false the target starts at time 0 (as three.js crossFadeTo does).
  bool sync_normalized_time = false;
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
  int clip = -1;  // the layer's clip (index into the Animator's clips)
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
};

// What update_layer may change after creation (all three are always applied).
struct AdditiveLayerUpdate {
  float weight = 1.0f;     // 0..1
  float speed = 1.0f;      // finite, may be negative
  float parameter = 0.0f;  // 0..1
};

class Animator {
 public:
  static constexpr int kMaxFades = 8;         // overlapping crossfades; more collapse the oldest
  static constexpr int kMaxLayers = 16;       // additive layers per character
  static constexpr int kMaxIkGoals = 8;       // IK goals per character
  static constexpr int kMaxChainJoints = 32;  // joints per IK chain (root..effector)

  // Starts in the skeleton's rest pose, with no clip; model matrices and palette are valid
  // right away.
  Animator(const Skeleton& skeleton, std::span<const Clip> clips);

  const Skeleton& skeleton() const { return *skeleton_; }
  std::span<const Clip> clips() const { return clips_; }

  // Cuts to `clip` (no fade); clears running crossfades. Layers and IK goals stay.
  Status play(int clip, const PlayOptions& options = {});
  // Fades from the current result to `clip` over `duration` seconds (>= 0, 0 = cut). Fades
  // may overlap (up to kMaxFades; one more collapses the oldest, see docs/animation.md).
  // Asking for the clip that is already the latest target is a no-op (returns OK).
  // Fade time advances with |character speed|.
  Status crossfade(int clip, float duration, const CrossfadeOptions& options = {});
  // Character playback speed (finite, may be negative or 0): multiplies every clip's and
  // layer's own speed and the progress of fades.
  Status set_speed(float speed);
  float speed() const { return speed_; }

  // Returns the new layer's id (> 0). Layers apply in the order they were added.
  Expected<int> add_layer(const AdditiveLayerDesc& desc);
  Status update_layer(int layer_id, const AdditiveLayerUpdate& update);
  Status remove_layer(int layer_id);

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
  // Joint-iterations the goals ask for per update (sum of max_iterations x chain length of
  // the iterative goals; a two-bone goal counts as its chain length).
  uint64_t ik_cost() const;

  // The character's placement in the world (model space -> world space); used for
  // world-space IK targets and reported to clients. Must be finite with non-zero scale.
  Status set_root_transform(const Transform& root);
  const Transform& root_transform() const { return root_; }

  // Advances every clock by dt seconds (>= 0, finite) and recomputes pose, model matrices
  // and palette. No allocation, no lock. A bad dt is rejected and nothing changes.
  Status update(float dt);

  const Pose& local_pose() const { return pose_; }
  // Model-space matrix of every joint (skeleton order), including Skeleton::root_transform
  // but not the Animator's root transform.
  std::span<const glm::mat4> model_matrices() const { return model_; }
  std::span<const PaletteMatrix> palette() const { return palette_; }

  // Introspection for queries and tests.
  int current_clip() const;         // the latest target clip, -1 before the first play
  float current_clip_time() const;  // its time in seconds
  int num_active_fades() const { return num_fades_; }
  int num_layers() const { return static_cast<int>(layers_.size()); }
  int num_ik_goals() const { return static_cast<int>(goals_.size()); }

 private:
  // One clip playing on its own clock.
  struct Player {
    int clip = -1;       // -1: the rest pose (before the first play)
    float time = 0.0f;   // seconds, inside [0, duration]
    float speed = 1.0f;  // own rate; the character speed multiplies it
    bool loop = true;
    // Where the last sample found its keys (a cache only: see sampling_job.h).
    mutable SamplingCursor cursor;
  };
  // One crossfade: `player` fades in over everything below it in the queue.
  struct Fade {
    Player player;
    float duration = 0.0f;  // > 0
    float elapsed = 0.0f;   // seconds of fade time so far; weight = elapsed / duration
    bool sync = false;      // player follows the normalized time of the player below
  };
  struct Layer {
    int id = 0;
    AdditiveLayerDesc desc;            // weight/speed/parameter kept current by update_layer
    float time = 0.0f;                 // the layer clip's time, seconds
    std::vector<Transform> reference;  // precomputed reference pose, num_joints entries
    SamplingCursor cursor;             // for the layer clip (a cache only)
  };
  // One IK goal with its chain and every scratch buffer its solver needs, sized when the
  // goal is set so that update() never allocates.
  struct Goal {
    int id = 0;
    IkGoalDesc desc;                     // validated; constraints' hinge axes normalized
    std::vector<int> joints;             // chain, root..effector; joints[k-1] = parent
    std::vector<glm::vec3> positions;    // model-space joint origins
    std::vector<glm::vec3> solved;       // FABRIK / two-bone solved positions
    std::vector<glm::quat> rotations;    // model-space joint rotations
    std::vector<glm::quat> rest_locals;  // rest local rotations (constraint frames)
    std::vector<glm::vec3> bone_dirs;    // rest direction to the next chain joint, local
  };

  Status check_clip(int clip, const char* what) const;
  const Player& latest() const { return num_fades_ > 0 ? fades_[num_fades_ - 1].player : base_; }
  void advance_player(Player& p, float dt) const;
  void sample_player(const Player& p, std::span<Transform> out) const;
  void evaluate();
  void apply_layers();
  void apply_ik();
  void recompute_model_from(int first_joint);
  float wrap(const Player& p, float time) const;

  const Skeleton* skeleton_;
  std::span<const Clip> clips_;
  Transform root_;
  float speed_ = 1.0f;

  Player base_;
  std::array<Fade, kMaxFades> fades_{};
  int num_fades_ = 0;

  std::vector<Layer> layers_;
  int next_layer_id_ = 1;
  std::vector<Goal> goals_;
  int next_goal_id_ = 1;
  float ik_iteration_scale_ = 1.0f;

  Pose pose_;
  std::vector<Transform> scratch_;  // one clip sample, num_joints entries
  std::vector<glm::mat4> model_;
  std::vector<PaletteMatrix> palette_;
};

}  // namespace anim

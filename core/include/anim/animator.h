#pragma once
// Animator: one character's animation state and its per-tick update.
//
// It plays a base clip, runs a queue of overlapping crossfades, stacks additive layers,
// applies IK goals, and produces the final local pose, model-space matrices and skin palette.
//
// Threading and memory: an Animator is used by one thread at a time. Commands (play,
// crossfade, add_layer, ...) may allocate; update() never allocates and never locks.
// Determinism: the same sequence of commands and dts gives bit-identical palettes.
// Every command validates its input first and leaves the state unchanged on error.
//
// The skeleton and clips are borrowed: they must outlive the Animator (the server keeps
// assets alive with shared ownership).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "anim/asset.h"
#include "anim/ik.h"
#include "anim/joint_mask.h"
#include "anim/palette.h"
#include "anim/pose.h"
#include "anim/status.h"

namespace anim {

struct PlayOptions {
  bool loop = true;          // loop, or clamp on the last frame
  float speed = 1.0f;        // clip playback rate multiplier; negative plays in reverse
  float start_time = 0.0f;   // seconds into the clip
};

struct CrossfadeOptions {
  bool loop = true;
  float speed = 1.0f;
  // When true the target starts at the source's normalized time and both clips advance in
  // normalized time during the fade (walk <-> run keep the feet in phase).
  bool sync_normalized_time = false;
};

enum class LayerTimeSource : uint8_t {
  kOwnClock,       // the layer clip advances by dt * layer speed, looping
  kBaseNormalized, // the layer clip follows the base clip's normalized time
  kParameter,      // the caller sets a normalized time 0..1 (aim / lean amount)
};

struct AdditiveLayerDesc {
  int clip = -1;                   // the additive clip (index into the asset's clips)
  // Reference pose subtracted from the clip: a clip (default: the same clip) at a time.
  int reference_clip = -1;         // -1: the layer's own clip
  float reference_time = 0.0f;     // seconds into the reference clip
  float weight = 1.0f;             // 0..1
  JointMask mask;                  // empty: all joints
  LayerTimeSource time_source = LayerTimeSource::kOwnClock;
  float speed = 1.0f;              // for kOwnClock; negative plays in reverse
  float parameter = 0.0f;          // for kParameter, 0..1
};

// What update_layer may change after creation.
struct AdditiveLayerUpdate {
  float weight = 1.0f;
  float speed = 1.0f;
  float parameter = 0.0f;
};

class Animator {
 public:
  Animator(const Skeleton& skeleton, std::span<const Clip> clips);

  const Skeleton& skeleton() const { return *skeleton_; }

  // Cuts to `clip` (no fade); clears running crossfades.
  Status play(int clip, const PlayOptions& options = {});
  // Fades from the current result to `clip` over `duration` seconds (>= 0, 0 = cut). Fades
  // may overlap. Asking for the clip that is already the latest target is a no-op.
  Status crossfade(int clip, float duration, const CrossfadeOptions& options = {});
  // Character playback speed, multiplies every clip's and layer's own speed (may be < 0).
  Status set_speed(float speed);

  // Returns the new layer's id (> 0). Layers apply in the order they were added.
  Expected<int> add_layer(const AdditiveLayerDesc& desc);
  Status update_layer(int layer_id, const AdditiveLayerUpdate& update);
  Status remove_layer(int layer_id);

  // Returns the new goal's id (> 0). Goals are solved in the order they were added.
  Expected<int> set_ik_goal(const IkGoalDesc& goal);
  // Replaces the target (and weight) of an existing goal without re-validating the chain.
  Status update_ik_target(int goal_id, const glm::vec3& target, float weight);
  Status clear_ik_goal(int goal_id);

  // The character's placement in the world; used for world-space IK targets and reported to
  // clients. Must be finite with non-zero scale.
  Status set_root_transform(const Transform& root);
  const Transform& root_transform() const { return root_; }

  // Advances every clock by dt seconds (>= 0, finite) and recomputes pose, model matrices
  // and palette. No allocation, no lock.
  void update(float dt);

  const Pose& local_pose() const { return pose_; }
  std::span<const glm::mat4> model_matrices() const { return model_; }
  std::span<const PaletteMatrix> palette() const { return palette_; }

  // Introspection for queries and tests.
  int current_clip() const;          // the latest target clip, -1 before the first play
  float current_clip_time() const;   // its time in seconds
  int num_active_fades() const;
  int num_layers() const;
  int num_ik_goals() const;

 private:
  // Filled in by the implementation (see animator.cpp). Everything update() touches is
  // sized when commands arrive, never inside update().
  const Skeleton* skeleton_;
  std::span<const Clip> clips_;
  Transform root_;
  Pose pose_;
  std::vector<glm::mat4> model_;
  std::vector<PaletteMatrix> palette_;
};

}  // namespace anim

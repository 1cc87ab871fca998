// Animator: clocks, the crossfade queue, pose evaluation and the update pipeline.
// Additive layers live in animator_layers.cpp, IK goals in animator_ik.cpp.
#include "anim/animator.h"

#include "anim/sampling_job.h"

#include <cmath>
#include <string>

#include "anim/blend.h"
#include "anim/clip_time.h"

namespace anim {

namespace {

std::string num(float v) {
  return std::to_string(v);
}

// Built once at start-up so that update() can refuse a bad dt without allocating: copying a
// Status shares its message. (The dt value is not in the message: the caller passed it.)
const Status kBadDt = invalid_argument(
    "update: dt must be finite and >= 0 (NaN, infinity "
    "and negative values are refused)");

}  // namespace

Animator::Animator(const Skeleton& skeleton, std::span<const Clip> clips)
    : skeleton_(&skeleton), clips_(clips) {
  const int n = skeleton.num_joints();
  pose_.locals.resize(n);
  scratch_.sample.resize(n);
  model_.resize(n);
  palette_.resize(n);
  // The rest pose, evaluated as any update is (inputs_ holds no clip): evaluated_inputs()
  // reproduces it.
  evaluate_pose(skeleton, clips_, inputs_, nullptr, scratch_, {pose_.locals, model_});
  build_palette(skeleton, model_, palette_);
}

Status Animator::rebind(const Skeleton& skeleton, std::span<const Clip> clips) {
  if (skeleton.names != skeleton_->names || skeleton.parents != skeleton_->parents)
    return failed_precondition("rebind: the new skeleton's joints differ from the current one's");
  if (clips.size() < clips_.size())
    return failed_precondition("rebind: " + std::to_string(clips.size()) +
                               " clips, fewer than the " + std::to_string(clips_.size()) +
                               " in use");
  for (size_t i = 0; i < clips_.size(); ++i)
    if (clips[i].name != clips_[i].name || clips[i].joints.size() != clips_[i].joints.size() ||
        clips[i].duration != clips_[i].duration)
      return failed_precondition("rebind: clip " + std::to_string(i) + " is '" + clips[i].name +
                                 "', not '" + clips_[i].name + "' as before");
  skeleton_ = &skeleton;
  clips_ = clips;
  // The cursors name the clip objects they cached keys for: start them afresh on the copies.
  base_.cursor = SamplingCursor{};
  for (Fade& f : fades_) f.player.cursor = SamplingCursor{};
  for (Layer& l : layers_) l.cursor = SamplingCursor{};
  return Status::ok();
}

Status Animator::check_clip(int clip, const char* what) const {
  if (clip < 0 || clip >= static_cast<int>(clips_.size()))
    return not_found(std::string(what) + " clip index " + std::to_string(clip) +
                     " does not exist (the character has " + std::to_string(clips_.size()) +
                     " clips)");
  if (static_cast<int>(clips_[clip].joints.size()) != skeleton_->num_joints())
    return failed_precondition(std::string(what) + " clip '" + clips_[clip].name +
                               "' was made for a skeleton with " +
                               std::to_string(clips_[clip].joints.size()) + " joints, not " +
                               std::to_string(skeleton_->num_joints()));
  return Status::ok();
}

Status Animator::play(int clip, const PlayOptions& options) {
  if (Status s = check_clip(clip, "play:"); !s) return s;
  const Clip& c = clips_[clip];
  if (!std::isfinite(options.speed))
    return invalid_argument("play '" + c.name + "': speed " + num(options.speed) +
                            " is not finite");
  if (!std::isfinite(options.start_time) || options.start_time < 0.0f ||
      options.start_time > c.duration)
    return invalid_argument("play '" + c.name + "': start_time " + num(options.start_time) +
                            " is outside [0, " + num(c.duration) + "]");
  base_ = Player{clip, 0.0f, options.speed, options.loop, {}};
  base_.time = wrap(base_, options.start_time);
  num_fades_ = 0;
  return Status::ok();
}

Status Animator::crossfade(int clip, float duration, const CrossfadeOptions& options) {
  if (Status s = check_clip(clip, "crossfade:"); !s) return s;
  const Clip& c = clips_[clip];
  if (!std::isfinite(duration) || duration < 0.0f)
    return invalid_argument("crossfade to '" + c.name + "': duration " + num(duration) +
                            " must be finite and >= 0");
  if (!std::isfinite(options.speed))
    return invalid_argument("crossfade to '" + c.name + "': speed " + num(options.speed) +
                            " is not finite");
  if (latest().clip == clip) return Status::ok();  // already the latest target: no-op

  Player target{clip, 0.0f, options.speed, options.loop, {}};
  if (options.sync_normalized_time) {
    const Player& src = latest();
    const float src_duration = src.clip >= 0 ? clips_[src.clip].duration : 0.0f;
    target.time = wrap(target, normalized_time(src.time, src_duration) * c.duration);
  }
  if (duration == 0.0f) {  // a cut
    base_ = target;
    num_fades_ = 0;
    return Status::ok();
  }
  if (num_fades_ == kMaxFades) {
    // The queue is full: the oldest fade completes at once (its clip becomes the base). This
    // jumps only the part of the pose that the seven newer fades have not yet covered.
    base_ = fades_[0].player;
    for (int i = 1; i < num_fades_; ++i) fades_[i - 1] = fades_[i];
    --num_fades_;
  }
  fades_[num_fades_++] = Fade{target, duration, 0.0f, options.sync_normalized_time};
  return Status::ok();
}

Status Animator::set_speed(float speed) {
  if (!std::isfinite(speed))
    return invalid_argument("set_speed: speed " + num(speed) + " is not finite");
  speed_ = speed;
  return Status::ok();
}

Status Animator::set_root_transform(const Transform& root) {
  if (!is_finite(root))
    return invalid_argument("set_root_transform: a component is NaN or infinite");
  if (root.scale.x == 0.0f || root.scale.y == 0.0f || root.scale.z == 0.0f)
    return invalid_argument("set_root_transform: scale has a zero component");
  const float len = glm::length(root.rotation);
  if (!(std::abs(len - 1.0f) < 1e-3f))
    return invalid_argument("set_root_transform: rotation is not a unit quaternion (length " +
                            num(len) + ")");
  root_ = root;
  root_.rotation = glm::normalize(root.rotation);
  return Status::ok();
}

int Animator::current_clip() const {
  return latest().clip;
}
float Animator::current_clip_time() const {
  return latest().time;
}

float Animator::wrap(const Player& p, float time) const {
  if (p.clip < 0) return 0.0f;
  return wrap_clip_time(time, clips_[p.clip].duration, p.loop ? WrapMode::kLoop : WrapMode::kClamp);
}

void Animator::advance_player(Player& p, float dt) const {
  if (p.clip < 0) return;
  p.time = wrap(p, p.time + dt * speed_ * p.speed);
}

Status Animator::update(float dt) {
  if (!std::isfinite(dt) || dt < 0.0f) return kBadDt;

  // 1. Clocks. The base and unsynced fades run on their own clocks; a synced fade follows the
  // normalized time of the player just below it (already advanced: the queue goes upward).
  advance_player(base_, dt);
  const float fade_dt = dt * std::abs(speed_);
  for (int i = 0; i < num_fades_; ++i) {
    Fade& f = fades_[i];
    f.elapsed += fade_dt;
    if (f.sync && f.player.clip >= 0) {
      const Player& below = i == 0 ? base_ : fades_[i - 1].player;
      const float below_duration = below.clip >= 0 ? clips_[below.clip].duration : 0.0f;
      f.player.time = wrap(
          f.player, normalized_time(below.time, below_duration) * clips_[f.player.clip].duration);
    } else {
      advance_player(f.player, dt);
    }
  }
  // 2. A finished fade promotes its clip to the base and removes everything under it.
  int finished = -1;
  for (int i = 0; i < num_fades_; ++i)
    if (fades_[i].elapsed >= fades_[i].duration) finished = i;
  if (finished >= 0) {
    base_ = fades_[finished].player;
    const int keep_from = finished + 1;
    for (int i = keep_from; i < num_fades_; ++i) fades_[i - keep_from] = fades_[i];
    num_fades_ -= keep_from;
  }
  // 3. Layer clocks.
  for (Layer& layer : layers_) {
    const Clip& c = clips_[layer.clip];
    switch (layer.time_source) {
      case LayerTimeSource::kOwnClock:
        layer.time =
            wrap_clip_time(layer.time + dt * speed_ * layer.speed, c.duration, WrapMode::kLoop);
        break;
      case LayerTimeSource::kBaseNormalized: {
        const Player& p = latest();
        const float d = p.clip >= 0 ? clips_[p.clip].duration : 0.0f;
        layer.time = normalized_time(p.time, d) * c.duration;
        break;
      }
      case LayerTimeSource::kParameter:
        layer.time = layer.parameter * c.duration;
        break;
    }
  }
  // 4. The pose, from the inputs gathered now (kept: evaluated_inputs()).
  gather_inputs();
  if (evaluated_setup_ != setup_) evaluated_setup_ = setup_;
  evaluate_pose(*skeleton_, clips_, evaluated_inputs(), evaluated_setup_.get(), scratch_,
                {pose_.locals, model_});
  build_palette(*skeleton_, model_, palette_);
  return Status::ok();
}

void Animator::replace_setup(PoseSetup next) {
  if (next.layers.empty() && next.goals.empty())
    setup_ = nullptr;
  else
    setup_ = std::make_shared<const PoseSetup>(std::move(next));
}

PoseInputs Animator::evaluated_inputs() const {
  PoseInputs in = inputs_;
  in.fades = std::span(fade_inputs_).first(inputs_.fades.size());
  in.layers = std::span(layer_inputs_).first(inputs_.layers.size());
  in.goals = std::span(goal_inputs_).first(inputs_.goals.size());
  return in;
}

void Animator::gather_inputs() {
  inputs_.root = root_;
  inputs_.base = ClipInput{base_.clip, base_.time, &base_.cursor};
  for (int i = 0; i < num_fades_; ++i) {
    const Fade& f = fades_[i];
    fade_inputs_[i] =
        FadeInput{{f.player.clip, f.player.time, &f.player.cursor}, f.elapsed / f.duration};
  }
  inputs_.fades = std::span(fade_inputs_).first(static_cast<size_t>(num_fades_));
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer& l = layers_[i];
    layer_inputs_[i] = LayerInput{l.time, l.weight, &l.cursor};
  }
  inputs_.layers = std::span(layer_inputs_).first(layers_.size());
  for (size_t i = 0; i < goals_.size(); ++i)
    goal_inputs_[i] = GoalInput{goals_[i].target, goals_[i].weight};
  inputs_.goals = std::span(goal_inputs_).first(goals_.size());
  inputs_.ik_iteration_scale = ik_iteration_scale_;
}

}  // namespace anim

// Animator: clocks, the crossfade queue, pose evaluation and the update pipeline.
// Additive layers live in animator_layers.cpp, IK goals in animator_ik.cpp.
#include "anim/animator.h"

#include "anim/sampling_job.h"

#include <algorithm>
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
  base_ = Player{clip, 0.0f, options.speed, options.loop, {}, 0.0f, {}};
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

  Player target{clip, 0.0f, options.speed, options.loop, {}, 0.0f, {}};
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
  root_set_ = true;
  return Status::ok();
}

Status Animator::set_root_motion(const RootMotionOptions& options) {
  if (options.mode != RootMotionMode::kOff && options.mode != RootMotionMode::kExtract)
    return invalid_argument("set_root_motion: unknown mode " +
                            std::to_string(static_cast<int>(options.mode)));
  const int n = skeleton_->num_joints();
  if (options.joint < -1 || options.joint >= n)
    return not_found("set_root_motion: joint index " + std::to_string(options.joint) +
                     " does not exist (the skeleton has " + std::to_string(n) + " joints)");
  if (n == 0) return failed_precondition("set_root_motion: the skeleton has no joints");
  RootMotionOptions next = options;
  if (next.joint < 0) next.joint = 0;  // joints are parents-first: joint 0 is a root joint
  root_motion_ = next;
  motion_input_ = {};
  rest_frame_ = {};
  if (next.mode == RootMotionMode::kExtract) {
    motion_input_ = RootMotionInput{next.joint, next.extract_vertical};
    rest_frame_ = clip_motion_frame(*skeleton_, nullptr, 0.0f, motion_input_);
  }
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
  if (p.clip < 0) {
    p.advance = 0.0f;
    p.motion = {};
    return;
  }
  const float t0 = p.time;
  const float step = dt * speed_ * p.speed;
  p.time = wrap(p, t0 + step);
  track_travel(p, t0, step);
}

void Animator::track_travel(Player& p, float t0, float step) const {
  const Clip& clip = clips_[p.clip];
  const float d = clip.duration;
  // Loop wraps: how many times the playhead crossed the clip's end (< 0: its start), from
  // where the unwrapped time landed against the wrapped one. Far beyond any real tick's
  // count (speeds near the float range) it is capped: the clock itself is meaningless there.
  int64_t wraps = 0;
  if (p.loop && d > 0.0f) {
    constexpr double kMaxWraps = 1099511627776.0;  // 2^40
    double w = std::round((double(t0) + double(step) - double(p.time)) / double(d));
    if (std::isnan(w)) w = 0.0;
    wraps = static_cast<int64_t>(std::clamp(w, -kMaxWraps, kMaxWraps));
  }
  p.advance = static_cast<float>(double(p.time) - double(t0) + double(wraps) * double(d));
  p.motion = motion_input_.joint >= 0
                 ? clip_motion_delta(*skeleton_, clip, motion_input_, t0, p.time, wraps)
                 : RootMotion{};
}

void Animator::apply_root_motion_step() {
  last_root_motion_ = {};
  const bool set = root_set_;
  root_set_ = false;
  if (motion_input_.joint < 0 || set) return;  // off, or a root set for this update wins
  // The players' travels blended with the weights their poses are blended with. Each is in
  // the joint's frame, which the pose pins to the rest frame: into model space through it.
  RootMotion d = base_.motion;
  for (int i = 0; i < num_fades_; ++i)
    d = mix(d, fades_[i].player.motion, fades_[i].elapsed / fades_[i].duration);
  const RootMotion delta = compose(compose(rest_frame_, d), inverse(rest_frame_));
  const Transform moved = anim::apply_root_motion(root_, delta);
  // Absurd speeds times a huge root scale could overflow: the root stays finite, always.
  if (!is_finite(moved)) return;
  last_root_motion_ = delta;
  root_ = moved;
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
      const float duration = clips_[f.player.clip].duration;
      const float t0 = f.player.time;
      f.player.time = wrap(f.player, normalized_time(below.time, below_duration) * duration);
      // Its playhead moved as far, in cycles, as the one it follows.
      const float step = below_duration > 0.0f ? below.advance / below_duration * duration : 0.0f;
      track_travel(f.player, t0, step);
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
  // 3. Root motion: the root moves by the blended travel before the pose is evaluated (so
  // world-space IK targets see where the character is now).
  apply_root_motion_step();
  // 4. Layer clocks.
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
  // 5. The pose, from the inputs gathered now (kept: evaluated_inputs()).
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
  inputs_.root_motion = motion_input_;
}

}  // namespace anim

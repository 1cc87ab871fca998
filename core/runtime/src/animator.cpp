// Animator: clocks, the crossfade queue, pose evaluation and the update pipeline.
// Additive layers live in animator_layers.cpp, IK goals in animator_ik.cpp, clip events in
// animator_events.cpp.
#include "anim/animator.h"

#include "anim/sampling_job.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "anim/blend.h"
#include "anim/clip_time.h"
#include "animator_checks.h"

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
const Status kBadCatchUpDt = invalid_argument(
    "catch_up: dt must be finite and >= 0 (NaN, infinity "
    "and negative values are refused)");

}  // namespace

Animator::Animator(const Skeleton& skeleton, std::span<const Clip> clips, AnimatorBuffers buffers)
    : skeleton_(&skeleton), clips_(clips), events_(ClipEventTable::from_clips(clips)) {
  const int n = skeleton.num_joints();
  if (events_) fired_.make();
  pose_.locals.resize(n);
  // The rest pose, evaluated as any update is (inputs_ holds no clip): evaluated_inputs()
  // reproduces it. Without own buffers, in scratch and matrices that are gone when the
  // constructor returns (freed before the next character's allocations: no idle holes
  // between them).
  const bool lent_only = buffers == AnimatorBuffers::kLentOnly;
  PoseScratch construction_scratch;
  std::vector<glm::mat4> construction_model;
  if (!lent_only) regrow_own_buffers();
  PoseScratch& scratch = lent_only ? construction_scratch : *scratch_;
  std::vector<glm::mat4>& model = lent_only ? construction_model : model_;
  model.resize(n);
  evaluate_pose(skeleton, clips_, inputs_, nullptr, scratch, {pose_.locals, model});
  if (lent_only) {
    model_current_ = false;
    palette_current_ = false;
    return;
  }
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
  if (morph_layout_)
    for (size_t i = clips_.size(); i < clips.size(); ++i)
      if (Status s = morph_layout_->check_clip(clips[i]); !s)
        return failed_precondition("rebind: " + s.message());
  skeleton_ = &skeleton;
  clips_ = clips;
  // The event table needs a list for every clip (fire_events indexes it by clip).
  events_ = ClipEventTable::extend_to(std::move(events_), clips_);
  if (events_) fired_.make();
  // The cursors name the clip objects they cached keys for: start them afresh on the copies.
  main_.base.cursor = SamplingCursor{};
  main_.base.term_cursors = {};
  for (Fade& f : main_.fades) f.player.cursor = SamplingCursor{}, f.player.term_cursors = {};
  for (Layer& l : layers_) {
    l.cursor = SamplingCursor{};
    if (!l.machine) continue;
    Track& t = l.machine->track;
    t.base.cursor = SamplingCursor{};
    t.base.term_cursors = {};
    for (Fade& f : t.fades) f.player.cursor = SamplingCursor{}, f.player.term_cursors = {};
    for (Player& p : l.machine->driver.players) p.cursor = SamplingCursor{}, p.term_cursors = {};
  }
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
  if (Status s = check_no_machine("play"); !s) return s;
  if (Status s = check_clip(clip, "play:"); !s) return s;
  const Clip& c = clips_[clip];
  if (!std::isfinite(options.speed))
    return invalid_argument("play '" + c.name + "': speed " + num(options.speed) +
                            " is not finite");
  if (!std::isfinite(options.start_time) || options.start_time < 0.0f ||
      options.start_time > c.duration)
    return invalid_argument("play '" + c.name + "': start_time " + num(options.start_time) +
                            " is outside [0, " + num(c.duration) + "]");
  main_.base = Player{clip, 0.0f, options.speed, options.loop, {}, 0.0f, {}, 0.0f, 0, true};
  main_.base.time = wrap(main_.base, options.start_time);
  main_.num_fades = 0;
  return Status::ok();
}

Status Animator::crossfade(int clip, float duration, const CrossfadeOptions& options) {
  if (Status s = check_no_machine("crossfade"); !s) return s;
  if (Status s = check_clip(clip, "crossfade:"); !s) return s;
  const Clip& c = clips_[clip];
  if (!std::isfinite(duration) || duration < 0.0f)
    return invalid_argument("crossfade to '" + c.name + "': duration " + num(duration) +
                            " must be finite and >= 0");
  if (!std::isfinite(options.speed))
    return invalid_argument("crossfade to '" + c.name + "': speed " + num(options.speed) +
                            " is not finite");
  if (static_cast<uint8_t>(options.curve) > static_cast<uint8_t>(BlendCurve::kSmoothStep))
    return invalid_argument("crossfade to '" + c.name + "': unknown blend curve");
  // Already the latest target: a no-op.
  if (latest().space < 0 && latest().clip == clip) return Status::ok();
  start_fade(main_, Player{clip, 0.0f, options.speed, options.loop, {}, 0.0f, {}, 0.0f, 0, true},
             duration, options.sync_normalized_time || options.sync_markers, options.curve,
             options.sync_markers);
  return Status::ok();
}

float FadeState::weight() const {
  const float x = elapsed / duration;
  return curve == BlendCurve::kSmoothStep ? x * x * (3.0f - 2.0f * x) : x;
}

void Animator::start_fade(Track& track, const Player& from_start, float duration, bool sync,
                          BlendCurve curve, bool markers) {
  Player target = from_start;
  if (sync) {
    const Player& src = track.latest();
    float placed = 0.0f;
    if (markers && marker_time(src, target, placed))
      target.time = placed;
    else
      target.time = wrap(target, normalized_time(src.time, duration_of(src)) * duration_of(target));
  }
  if (duration == 0.0f) {  // a cut
    track.base = target;
    track.num_fades = 0;
    return;
  }
  if (track.num_fades == kMaxFades) {
    // The queue is full: the oldest fade completes at once (its clip becomes the base). This
    // jumps only the part of the pose that the seven newer fades have not yet covered.
    track.base = track.fades[0].player;
    for (int i = 1; i < track.num_fades; ++i) track.fades[i - 1] = track.fades[i];
    --track.num_fades;
  }
  track.fades[track.num_fades++] = Fade{target, duration, 0.0f, sync, markers, curve};
}

Status Animator::set_speed(float speed) {
  if (!std::isfinite(speed))
    return invalid_argument("set_speed: speed " + num(speed) + " is not finite");
  speed_ = speed;
  return Status::ok();
}

Status Animator::set_root_transform(const Transform& root) {
  if (Status s = animator_checks::check_root_transform("set_root_transform", root); !s) return s;
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

float Animator::duration_of(const Player& p) const {
  if (p.space >= 0) return 1.0f;
  return p.clip >= 0 ? clips_[p.clip].duration : 0.0f;
}

float Animator::wrap(const Player& p, float time) const {
  if (p.clip < 0 && p.space < 0) return 0.0f;
  return wrap_clip_time(time, duration_of(p), p.loop ? WrapMode::kLoop : WrapMode::kClamp);
}

void Animator::advance_player(Player& p, float dt) const {
  if (p.space >= 0) {
    // One phase for all samples, at the weighted blend of their rates (cycles per second):
    // clips of different durations stay in step.
    float rate = 0.0f;
    for (int k = 0; k < p.weights.count; ++k)
      rate += p.weights.weight[static_cast<size_t>(k)] /
              clips_[static_cast<size_t>(term_clip(p, k))].duration;
    const float t0 = p.time;
    const float step = dt * speed_ * p.speed * rate;
    p.time =
        advance_clip_time(t0, p.carry, step, 1.0f, p.loop ? WrapMode::kLoop : WrapMode::kClamp);
    track_travel(p, t0, step);
    return;
  }
  if (p.clip < 0) {
    p.advance = 0.0f;
    p.motion = {};
    p.wraps = 0;
    return;
  }
  const float t0 = p.time;
  const float step = dt * speed_ * p.speed;
  p.time = advance_clip_time(t0, p.carry, step, clips_[static_cast<size_t>(p.clip)].duration,
                             p.loop ? WrapMode::kLoop : WrapMode::kClamp);
  track_travel(p, t0, step);
}

namespace {
// Loop wraps: how many times a playhead that moved from t0 by `step` seconds (unwrapped) to
// t1 (wrapped) crossed the clip's end (< 0: its start), from where the unwrapped time landed
// against the wrapped one. Far beyond any real tick's count (speeds near the float range) it
// is capped: the clock itself is meaningless there.
int64_t count_wraps(float t0, float step, float t1, float duration) {
  if (!(duration > 0.0f)) return 0;
  constexpr double kMaxWraps = 1099511627776.0;  // 2^40
  double w = std::round((double(t0) + double(step) - double(t1)) / double(duration));
  if (std::isnan(w)) w = 0.0;
  return static_cast<int64_t>(std::clamp(w, -kMaxWraps, kMaxWraps));
}
// The playhead's move in seconds with the wraps unrolled.
float unrolled(float t0, float t1, int64_t wraps, float duration) {
  return static_cast<float>(double(t1) - double(t0) + double(wraps) * double(duration));
}
}  // namespace

void Animator::term_span(const Player& p, int k, float& from, int64_t& wraps) const {
  from = term_time_at(p, k, p.from);
  wraps = p.wraps;
  if (!spaces_->spaces[static_cast<size_t>(p.space)]->sync_markers || !p.loop) return;
  // Placed by markers, a sample's wraps are its own: from where it went against how far the
  // phase moved it.
  const float d = clips_[static_cast<size_t>(term_clip(p, k))].duration;
  wraps = count_wraps(from, p.advance * d, term_time(p, k), d);
}

void Animator::track_travel(Player& p, float t0, float step) const {
  if (p.space >= 0) {
    // In phases; the travel is each sample's over the same phase move, blended as the pose.
    const int64_t wraps = p.loop ? count_wraps(t0, step, p.time, 1.0f) : 0;
    p.advance = unrolled(t0, p.time, wraps, 1.0f);
    p.from = t0;
    p.wraps = wraps;
    p.motion = {};
    if (motion_input_.joint < 0) return;
    for (int k = 0; k < p.weights.count; ++k) {
      const Clip& c = clips_[static_cast<size_t>(term_clip(p, k))];
      float from = 0.0f;
      int64_t term_wraps = 0;
      term_span(p, k, from, term_wraps);
      const RootMotion m =
          clip_motion_delta(*skeleton_, c, motion_input_, from, term_time(p, k), term_wraps);
      p.motion = k == 0 ? m : mix(p.motion, m, p.weights.mix[static_cast<size_t>(k)]);
    }
    return;
  }
  const Clip& clip = clips_[p.clip];
  const float d = clip.duration;
  const int64_t wraps = p.loop ? count_wraps(t0, step, p.time, d) : 0;
  p.advance = unrolled(t0, p.time, wraps, d);
  p.from = t0;
  p.wraps = wraps;
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
  RootMotion d = main_.base.motion;
  for (int i = 0; i < main_.num_fades; ++i)
    d = mix(d, main_.fades[i].player.motion, main_.fades[i].weight());
  // A held pose holds the character where it is, as much as it is held.
  if (held_weight_ > 0.0f) d = mix(d, RootMotion{}, held_weight_);
  const RootMotion delta = compose(compose(rest_frame_, d), inverse(rest_frame_));
  const Transform moved = anim::apply_root_motion(root_, delta);
  // Absurd speeds times a huge root scale could overflow: the root stays finite, always.
  if (!is_finite(moved)) return;
  last_root_motion_ = delta;
  root_ = moved;
}

Status Animator::update(float dt, PaletteUpdate palette) {
  if (!std::isfinite(dt) || dt < 0.0f) return kBadDt;
  regrow_own_buffers();
  advance(dt);
  events_held_ = false;
  evaluate(*scratch_, model_);
  model_current_ = true;
  palette_current_ = false;
  if (palette == PaletteUpdate::kBuild) refresh_palette();
  return Status::ok();
}

Status Animator::update(float dt, UpdateBuffers& buffers) {
  if (!std::isfinite(dt) || dt < 0.0f) return kBadDt;
  const size_t n = static_cast<size_t>(skeleton_->num_joints());
  if (buffers.model.size() < n) buffers.model.resize(n);
  advance(dt);
  events_held_ = false;
  buffers.model_written =
      evaluate(buffers.scratch, std::span(buffers.model).first(n), !buffers.want_model);
  model_current_ = false;
  palette_current_ = false;
  return Status::ok();
}

Status Animator::update(float dt, UpdateBuffers& buffers, std::vector<Transform>& previous) {
  if (!std::isfinite(dt) || dt < 0.0f) return kBadDt;
  // What may allocate (and throw) comes before the exchange.
  const size_t n = static_cast<size_t>(skeleton_->num_joints());
  if (buffers.model.size() < n) buffers.model.resize(n);
  if (previous.size() == pose_.locals.size())
    std::swap(previous, pose_.locals);
  else
    previous = pose_.locals;
  return update(dt, buffers);
}

Status Animator::catch_up(float dt) {
  if (!std::isfinite(dt) || dt < 0.0f) return kBadCatchUpDt;
  advance(dt);
  events_held_ = true;
  return Status::ok();
}

bool Animator::evaluate(PoseScratch& scratch, std::span<glm::mat4> model, bool skip_model) {
  gather_inputs();
  if (evaluated_setup_ != setup_) evaluated_setup_ = setup_;
  const bool written = evaluate_pose(*skeleton_, clips_, evaluated_inputs(), evaluated_setup_.get(),
                                     scratch, {pose_.locals, model, &foot_output_, skip_model});
  keep_foot_locks();
  if (morph_layout_) evaluate_morphs(scratch);
  return written;
}

void Animator::advance_track(Track& track, float dt, float rate) {
  // The base and unsynced fades run on their own clocks; a synced fade follows the
  // normalized time of the player just below it (already advanced: the queue goes upward).
  advance_player(track.base, dt * rate);
  const float fade_dt = dt * std::abs(speed_ * rate);
  for (int i = 0; i < track.num_fades; ++i) {
    Fade& f = track.fades[i];
    f.elapsed += fade_dt;
    if (f.sync && (f.player.clip >= 0 || f.player.space >= 0)) {
      const Player& below = i == 0 ? track.base : track.fades[i - 1].player;
      const float below_duration = duration_of(below);
      const float duration = duration_of(f.player);
      const float t0 = f.player.time;
      float placed = 0.0f;
      if (f.markers && marker_time(below, f.player, placed)) {
        f.player.time = placed;
        f.player.carry = 0.0f;
        // It moved the shorter way round to its place.
        float step = placed - t0;
        if (step < -0.5f * duration) step += duration;
        if (step > 0.5f * duration) step -= duration;
        track_travel(f.player, t0, step);
        continue;
      }
      f.player.time = wrap(f.player, normalized_time(below.time, below_duration) * duration);
      f.player.carry = 0.0f;
      // Its playhead moved as far, in cycles, as the one it follows.
      const float step = below_duration > 0.0f ? below.advance / below_duration * duration : 0.0f;
      track_travel(f.player, t0, step);
    } else {
      advance_player(f.player, dt * rate);
    }
  }
  // A finished fade promotes its clip to the base and removes everything under it.
  int finished = -1;
  for (int i = 0; i < track.num_fades; ++i)
    if (track.fades[i].elapsed >= track.fades[i].duration) finished = i;
  if (finished >= 0) {
    track.base = track.fades[finished].player;
    const int keep_from = finished + 1;
    for (int i = keep_from; i < track.num_fades; ++i) track.fades[i - keep_from] = track.fades[i];
    track.num_fades -= keep_from;
  }
}

void Animator::advance(float dt) {
  // 0. Parameters; the machines' transitions (the base's, then the layers' in order); then
  // the samples every blend space uses in this update.
  smooth_parameters(dt);
  step_machine(machine_, main_);
  for (Layer& layer : layers_)
    if (layer.machine) step_machine(layer.machine->driver, layer.machine->track);
  refresh_weights(main_.base);
  for (int i = 0; i < main_.num_fades; ++i) refresh_weights(main_.fades[i].player);
  for (Layer& layer : layers_)
    if (layer.machine) {
      Track& t = layer.machine->track;
      refresh_weights(t.base);
      for (int i = 0; i < t.num_fades; ++i) refresh_weights(t.fades[i].player);
    }

  // 1-2. Clocks and fades.
  advance_track(main_, dt, 1.0f);
  track_machine_time(machine_, main_);
  // 3. A held pose's blend-out (update time: the game's, not animation time), then root
  // motion: the root moves by the blended travel before the pose is evaluated (so
  // world-space IK targets see where the character is now).
  advance_held_pose(dt);
  if (num_morph_overrides_ > 0) advance_morph_overrides(dt);
  apply_root_motion_step();
  // 4. Layer clocks.
  for (Layer& layer : layers_) {
    if (layer.slot) {
      advance_montage(layer, dt);
      continue;
    }
    if (layer.machine) {
      advance_track(layer.machine->track, dt, layer.speed);
      track_machine_time(layer.machine->driver, layer.machine->track);
      continue;
    }
    const Clip& c = clips_[layer.clip];
    const float t0 = layer.time;
    float step = 0.0f;
    switch (layer.time_source) {
      case LayerTimeSource::kOwnClock:
        step = dt * speed_ * layer.speed;
        layer.time = advance_clip_time(t0, layer.carry, step, c.duration, WrapMode::kLoop);
        break;
      case LayerTimeSource::kBaseNormalized: {
        const Player& p = latest();
        const float d = duration_of(p);
        layer.time = normalized_time(p.time, d) * c.duration;
        step = d > 0.0f ? p.advance / d * c.duration : 0.0f;
        break;
      }
      case LayerTimeSource::kParameter:
        layer.time = layer.parameter * c.duration;
        step = layer.time - t0;
        break;
    }
    layer.wraps = layer.loop ? count_wraps(t0, step, layer.time, c.duration) : 0;
    layer.advance = unrolled(t0, layer.time, layer.wraps, c.duration);
    layer.from = t0;
  }
  // 5. Events the playheads crossed.
  fire_events();
  // 6. The feet planted now and their locks' weights (their positions are captured by the
  // evaluation).
  plan_foot_locks(dt);
  // 7. The pose is evaluated next (evaluate()), from the inputs gathered then (kept:
  // evaluated_inputs()).
}

void Animator::refresh_model() {
  if (model_current_) return;
  model_.resize(static_cast<size_t>(skeleton_->num_joints()));
  local_to_model(*skeleton_, pose_.locals, model_);
  model_current_ = true;
}

namespace {
// Prefetches the cache lines [p, p + bytes) touches (bytes > 0), at most kLines of them.
template <size_t kLines>
void prefetch_lines(const void* p, size_t bytes) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{63};
  const uintptr_t last = (reinterpret_cast<uintptr_t>(p) + bytes - 1) & ~uintptr_t{63};
  for (size_t i = 0; i < kLines && first + i * 64 <= last; ++i)
    __builtin_prefetch(reinterpret_cast<const void*>(first + i * 64));
}

// The distance in bytes from `from` to `to`, two members of one object.
size_t bytes_between(const void* from, const void* to) {
  return static_cast<size_t>(static_cast<const char*>(to) - static_cast<const char*>(from));
}
}  // namespace

void Animator::prefetch() const {
  // The members every update checks (to the machine's first line), then the inputs it
  // gathers, the main track's clocks and its first fades.
  prefetch_lines<9>(this, bytes_between(this, &machine_) + 1);
  prefetch_lines<5>(&inputs_, sizeof(inputs_));
  prefetch_lines<4>(&main_, sizeof(main_));
  prefetch_lines<2>(&fade_inputs_, sizeof(fade_inputs_));
}

void Animator::prefetch_state() const {
  prefetch_lines<3>(this, bytes_between(this, &morph_weights_) + sizeof(morph_weights_));
  prefetch_lines<2>(&inputs_.root, sizeof(inputs_.root));
}

void Animator::regrow_own_buffers() {
  const size_t n = static_cast<size_t>(skeleton_->num_joints());
  if (model_.size() < n) model_.resize(n);
  scratch_.make();
  scratch_->reserve(n);
  if (palette_.size() < n) palette_.resize(n);
}

void Animator::refresh_palette() {
  if (palette_current_) return;
  regrow_own_buffers();
  refresh_model();
  build_palette(*skeleton_, model_, palette_);
  palette_current_ = true;
}

void Animator::replace_setup(PoseSetup next) {
  if (next.layers.empty() && next.goals.empty() && !next.aim && !next.feet && !next.held)
    setup_ = nullptr;
  else
    setup_ = std::make_shared<const PoseSetup>(std::move(next));
}

namespace {

// The first n entries of a boxed array (none while it is not made: n is then 0).
template <typename T, size_t N>
std::span<T> first_of(const BoxedCopy<std::array<T, N>>& box, size_t n) {
  return box ? std::span<T>(*box).first(n) : std::span<T>();
}

}  // namespace

PoseInputs Animator::evaluated_inputs() const {
  PoseInputs in = inputs_;
  in.fades = std::span(fade_inputs_).first(inputs_.fades.size());
  in.layers = first_of(layer_inputs_, inputs_.layers.size());
  in.machine_layers = first_of(machine_layer_inputs_, inputs_.machine_layers.size());
  in.goals = first_of(goal_inputs_, inputs_.goals.size());
  return in;
}

ClipInput Animator::clip_input(const Player& p) const {
  if (p.space < 0) return ClipInput{p.clip, p.time, &p.cursor};
  // A blend space: its first sample is the clip, the others its terms.
  ClipInput in{term_clip(p, 0), term_time(p, 0), &p.cursor};
  in.num_terms = p.weights.count - 1;
  for (int k = 1; k < p.weights.count; ++k) {
    const size_t t = static_cast<size_t>(k - 1);
    in.terms[t] = BlendTermInput{term_clip(p, k), term_time(p, k),
                                 p.weights.mix[static_cast<size_t>(k)], &p.term_cursors[t]};
  }
  return in;
}

void Animator::gather_inputs() {
  inputs_.root = root_;
  inputs_.base = clip_input(main_.base);
  for (int i = 0; i < main_.num_fades; ++i) {
    const Fade& f = main_.fades[i];
    fade_inputs_[i] = FadeInput{clip_input(f.player), f.weight()};
  }
  inputs_.fades = std::span(fade_inputs_).first(static_cast<size_t>(main_.num_fades));
  size_t machines = 0;
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer& l = layers_[i];
    (*layer_inputs_)[i] = LayerInput{l.time, layer_weight(l), &l.cursor};
    if (!l.machine) continue;
    const Track& t = l.machine->track;
    MachineLayerInput& in = (*machine_layer_inputs_)[machines++];
    in.source = clip_input(t.base);
    in.num_fades = t.num_fades;
    for (int k = 0; k < t.num_fades; ++k)
      in.fades[static_cast<size_t>(k)] =
          FadeInput{clip_input(t.fades[k].player), t.fades[k].weight()};
  }
  inputs_.layers = first_of(layer_inputs_, layers_.size());
  inputs_.machine_layers = first_of(machine_layer_inputs_, machines);
  for (size_t i = 0; i < goals_.size(); ++i)
    (*goal_inputs_)[i] = GoalInput{goals_[i].target, goals_[i].weight};
  inputs_.goals = first_of(goal_inputs_, goals_.size());
  inputs_.ik_iteration_scale = ik_iteration_scale_;
  inputs_.skip_detail = skip_detail_;
  inputs_.root_motion = motion_input_;
  inputs_.aim = setup_ && setup_->aim ? aim_input_ : AimInput{};
  inputs_.feet = setup_ && setup_->feet ? foot_input_ : FootIkInput{};
  inputs_.held_weight = setup_ && setup_->held ? held_weight_ : 0.0f;
}

}  // namespace anim

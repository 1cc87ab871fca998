// Animator: play, crossfade queue, speed, determinism and rejected commands, on a synthetic
// rig (see anim_test_rig.h).
#include "anim/animator.h"

#include <limits>

#include <gtest/gtest.h>

#include "anim/blend.h"
#include "anim/clip_time.h"
#include "anim_test_rig.h"

namespace anim {
namespace animator_test {

using animtest::axis_angle;
using animtest::kPi;

struct Fixture : animtest::WalkRunRig {
  Fixture() {
    const int n = skeleton.num_joints();
    clips.push_back(animtest::make_swing_clip("idle", n, 2.0f, 0.3f, {0, 1, 0}, 0.0f));
    clips.push_back(animtest::make_swing_clip("wave", n, 1.5f, 1.5f, {1, 1, 0}, 0.0f));
  }
};

constexpr float kDt = 1.0f / 60.0f;

std::vector<Transform> sample(const Fixture& f, int clip, float t) {
  std::vector<Transform> out(f.skeleton.num_joints());
  f.clips[clip].sample(t, f.skeleton.rest_pose, out);
  return out;
}

TEST(Animator, StartsAtRestPoseWithValidPalette) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  EXPECT_EQ(a.current_clip(), -1);
  // Rest pose * inverse bind = identity.
  for (const PaletteMatrix& p : a.palette())
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) EXPECT_NEAR(p.m[r * 4 + c], r == c ? 1.0f : 0.0f, 1e-6f);
}

TEST(Animator, PlaySamplesTheClipAtItsOwnTime) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0, {.loop = true, .speed = 1.0f, .start_time = 0.25f}));
  ASSERT_TRUE(a.update(0.5f));
  EXPECT_FLOAT_EQ(a.current_clip_time(), 0.75f);
  auto expected = sample(f, 0, 0.75f);
  for (int j = 0; j < f.skeleton.num_joints(); ++j)
    EXPECT_TRUE(animtest::same_transform_bits(a.local_pose().locals[j], expected[j])) << j;
  // Looping wraps: 0.75 + 0.5 = 1.25 -> 0.25.
  ASSERT_TRUE(a.update(0.5f));
  EXPECT_NEAR(a.current_clip_time(), 0.25f, 1e-6f);
}

TEST(Animator, ClampAndReverseSpeeds) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0, {.loop = false, .speed = 2.0f}));
  ASSERT_TRUE(a.update(0.75f));
  EXPECT_FLOAT_EQ(a.current_clip_time(), 1.0f);  // clamped at the end
  // Character speed -0.5 times clip speed 2 = -1: one second back in 0.25 s steps.
  ASSERT_TRUE(a.set_speed(-0.5f));
  ASSERT_TRUE(a.update(0.25f));
  EXPECT_FLOAT_EQ(a.current_clip_time(), 0.75f);
  ASSERT_TRUE(a.play(2, {.loop = true, .speed = -1.0f, .start_time = 0.5f}));
  ASSERT_TRUE(a.set_speed(1.0f));
  ASSERT_TRUE(a.update(1.0f));
  EXPECT_FLOAT_EQ(a.current_clip_time(), 1.5f);  // 0.5 - 1 wraps to 1.5 in a 2 s clip
}

TEST(Animator, CrossfadeMidwayIsTheHandComputedBlend) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.update(0.25f));
  ASSERT_TRUE(a.crossfade(1, 0.4f));
  ASSERT_TRUE(a.update(0.1f));
  // Base at 0.35, run at 0.1, weight 0.1 / 0.4 = 0.25.
  auto walk = sample(f, 0, 0.35f);
  auto run = sample(f, 1, 0.1f);
  for (int j = 0; j < f.skeleton.num_joints(); ++j) {
    Transform e = mix(walk[j], run[j], 0.25f);
    const Transform& g = a.local_pose().locals[j];
    EXPECT_LT(animtest::rotation_angle(g.rotation, e.rotation), 1e-5f) << j;
    EXPECT_NEAR(glm::length(g.translation - e.translation), 0.0f, 1e-5f) << j;
  }
  EXPECT_EQ(a.current_clip(), 1);
  EXPECT_EQ(a.num_active_fades(), 1);
}

TEST(Animator, FinishedFadeEqualsAFreshAnimatorPlayingTheTarget) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(a.update(kDt));
  ASSERT_TRUE(a.crossfade(1, 0.3f));
  int steps = 0;
  while (a.num_active_fades() > 0) {
    ASSERT_TRUE(a.update(kDt));
    ++steps;
    ASSERT_LT(steps, 100);
  }
  ASSERT_TRUE(a.update(kDt));
  Animator fresh(f.skeleton, f.clips);
  ASSERT_TRUE(fresh.play(1, {.start_time = a.current_clip_time()}));
  ASSERT_TRUE(fresh.update(0.0f));
  EXPECT_TRUE(animtest::same_palettes(a.palette(), fresh.palette()));
}

TEST(Animator, CrossfadeChangePerTickIsBoundedByTheClipsOwnChange) {
  // During a fade A -> B the pose is slerp(A(t), B(t), w(t)). Between two 60 Hz ticks it can
  // move at most as much as the faster clip moves on its own, plus the weight step times the
  // distance between the two clip poses (the part the fade itself adds).
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(a.update(kDt));
  const float fade = 0.5f;
  float ta = a.current_clip_time(), tb = 0.0f;
  ASSERT_TRUE(a.crossfade(1, fade));
  const int n = f.skeleton.num_joints();
  std::vector<Transform> prev = a.local_pose().locals;
  int ticks = 0;
  while (a.num_active_fades() > 0 || ticks < 40) {
    ASSERT_TRUE(a.update(kDt));
    const float ta1 = std::fmod(ta + kDt, 1.0f), tb1 = std::fmod(tb + kDt, 0.6f);
    auto a0 = sample(f, 0, ta), a1 = sample(f, 0, ta1);
    auto b0 = sample(f, 1, tb), b1 = sample(f, 1, tb1);
    const float w_step = std::min(kDt / fade, std::max(0.0f, 1.0f - ticks * kDt / fade));
    for (int j = 0; j < n; ++j) {
      const float own = std::max(animtest::rotation_angle(a0[j].rotation, a1[j].rotation),
                                 animtest::rotation_angle(b0[j].rotation, b1[j].rotation));
      const float between = animtest::rotation_angle(a1[j].rotation, b1[j].rotation);
      const float change =
          animtest::rotation_angle(prev[j].rotation, a.local_pose().locals[j].rotation);
      EXPECT_LE(change, own + w_step * between + 1e-4f) << "tick " << ticks << " joint " << j;
    }
    prev = a.local_pose().locals;
    ta = ta1;
    tb = tb1;
    ++ticks;
    ASSERT_LT(ticks, 200);
  }
}

// Per-tick continuity with three overlapping fades, against a bound derived from the queue
// (docs/animation.md, "Continuity of overlapping fades"). The pose is a chain of slerps:
//   P_0 = base clip,  P_k = slerp(P_{k-1}, C_k, w_k)  (fade k's clip C_k at weight w_k).
// Between two ticks, with P_{k-1} moving by at most c_{k-1} and C_k by its own change o_k:
//   change(P_k) <= max(c_{k-1}, o_k) / cos(theta_k / 4) + dw_k * theta_k
// where theta_k is the rotation angle between P_{k-1} and C_k after the tick and dw_k fade k's
// weight step. The second term is exact (slerp moves at constant speed in its weight); the
// first is the endpoints' motion, carried through the slerp: 1 in flat space, and at most
// 1 / cos(theta_k / 4) on the unit quaternion sphere (theta_k / 2 apart there), where a
// geodesic between two moving endpoints can bulge. So the bound is "the larger of the clips'
// own changes + the sum of every fade's weight step times the angle it blends across", with
// the curvature factor on the first part.
TEST(Animator, CrossfadeIsContinuousEvenWithOverlappingFades) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.update(kDt));
  const int n = f.skeleton.num_joints();
  // The test's own model of the queue (clip, clip time, fade time), advanced like the
  // Animator's: checked against the Animator's pose every tick.
  struct Level {
    int clip;
    float time;
    float elapsed;  // fade seconds (unused for the base)
    float duration;
    float carry = 0.0f;  // the clock's rounding, kept as the Animator's (advance_clip_time)
  };
  std::vector<Level> queue = {{0, a.current_clip_time(), 0.0f, 0.0f}};
  std::vector<Transform> prev = a.local_pose().locals;
  int max_fades = 0;
  float tightest = 0.0f;  // largest change / bound with >= 2 fades running
  for (int tick = 0; tick < 150; ++tick) {
    for (auto [at, clip] : {std::pair{5, 1}, std::pair{15, 2}, std::pair{25, 3}}) {
      if (tick != at) continue;
      ASSERT_TRUE(a.crossfade(clip, 1.0f));
      queue.push_back({clip, 0.0f, 0.0f, 1.0f});
    }
    const std::vector<Level> before = queue;
    ASSERT_TRUE(a.update(kDt));
    max_fades = std::max(max_fades, a.num_active_fades());
    for (size_t k = 0; k < queue.size(); ++k) {
      queue[k].time = advance_clip_time(queue[k].time, queue[k].carry, kDt,
                                        f.clips[queue[k].clip].duration, WrapMode::kLoop);
      if (k > 0) queue[k].elapsed += kDt;
    }

    // Bound per joint, level by level, with every fade still in the queue (one finishing this
    // tick goes to weight 1 before it is promoted).
    std::vector<float> bound(n), own(n);
    std::vector<Transform> under = sample(f, queue[0].clip, queue[0].time);
    const auto base_before = sample(f, before[0].clip, before[0].time);
    for (int j = 0; j < n; ++j)
      bound[j] = animtest::rotation_angle(base_before[j].rotation, under[j].rotation);
    for (size_t k = 1; k < queue.size(); ++k) {
      const Level& l = queue[k];
      const bool is_new = k >= before.size();
      const auto target = sample(f, l.clip, l.time);
      const auto target_before = is_new ? target : sample(f, l.clip, before[k].time);
      const float w = std::min(1.0f, l.elapsed / l.duration);
      const float w_before = is_new ? 0.0f : before[k].elapsed / before[k].duration;
      for (int j = 0; j < n; ++j) {
        // A new fade's clip starts this tick: it enters only through its weight step.
        const float o =
            is_new ? 0.0f : animtest::rotation_angle(target_before[j].rotation, target[j].rotation);
        const float theta = animtest::rotation_angle(under[j].rotation, target[j].rotation);
        bound[j] = std::max(bound[j], o) / std::cos(theta / 4.0f) + (w - w_before) * theta;
      }
      std::vector<Transform> next(n);
      blend(under, target, w, JointMask{}, next);
      under = std::move(next);
    }
    for (int j = 0; j < n; ++j) {
      ASSERT_LT(animtest::rotation_angle(under[j].rotation, a.local_pose().locals[j].rotation),
                1e-5f)
          << "the test's queue model disagrees with the Animator at tick " << tick;
      const float change =
          animtest::rotation_angle(prev[j].rotation, a.local_pose().locals[j].rotation);
      EXPECT_LE(change, bound[j] + 1e-5f) << "tick " << tick << " joint " << j;
      if (queue.size() >= 3 && bound[j] > 1e-3f) tightest = std::max(tightest, change / bound[j]);
    }
    // A finished fade becomes the base and drops everything under it.
    for (size_t k = queue.size(); k-- > 1;) {
      if (queue[k].elapsed >= queue[k].duration) {
        queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
    }
    ASSERT_EQ(static_cast<int>(queue.size()) - 1, a.num_active_fades()) << "tick " << tick;
    prev = a.local_pose().locals;
  }
  EXPECT_EQ(max_fades, 3);
  EXPECT_EQ(a.num_active_fades(), 0);
  EXPECT_EQ(a.current_clip(), 3);
  // The bound is tight enough to matter: while fades overlap the pose moves by most of it.
  EXPECT_GT(tightest, 0.5f);
}

TEST(Animator, CrossfadeToLatestTargetIsANoOpAndZeroDurationIsACut) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.update(0.1f));
  ASSERT_TRUE(a.crossfade(0, 0.5f));  // already playing: no-op
  EXPECT_EQ(a.num_active_fades(), 0);
  ASSERT_TRUE(a.crossfade(1, 0.5f));
  ASSERT_TRUE(a.update(0.1f));
  const float t = a.current_clip_time();
  ASSERT_TRUE(a.crossfade(1, 0.2f));  // latest target: no-op, keeps its time and fade
  EXPECT_EQ(a.num_active_fades(), 1);
  EXPECT_EQ(a.current_clip_time(), t);
  ASSERT_TRUE(a.crossfade(2, 0.0f));  // a cut
  EXPECT_EQ(a.num_active_fades(), 0);
  EXPECT_EQ(a.current_clip(), 2);
  EXPECT_EQ(a.current_clip_time(), 0.0f);
}

TEST(Animator, FullQueueCollapsesTheOldestFade) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  // Alternate two targets so that none is the latest target when asked again.
  for (int i = 0; i < Animator::kMaxFades + 3; ++i) {
    ASSERT_TRUE(a.crossfade(1 + (i % 3), 10.0f));
    ASSERT_TRUE(a.update(kDt));
    EXPECT_LE(a.num_active_fades(), Animator::kMaxFades);
  }
  EXPECT_EQ(a.num_active_fades(), Animator::kMaxFades);
}

TEST(Animator, FinishedFadeRemovesEverythingUnderItButKeepsNewerFades) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.crossfade(1, 0.2f));
  ASSERT_TRUE(a.update(0.1f));
  ASSERT_TRUE(a.crossfade(2, 1.0f));
  EXPECT_EQ(a.num_active_fades(), 2);
  ASSERT_TRUE(a.update(0.15f));  // the first fade (0.25 >= 0.2) finishes; run is the base
  EXPECT_EQ(a.num_active_fades(), 1);
  EXPECT_EQ(a.current_clip(), 2);
  // The pose is now mix(run, idle, 0.15): run at 0.25, idle at 0.15.
  auto run = sample(f, 1, 0.25f);
  auto idle = sample(f, 2, 0.15f);
  for (int j = 0; j < f.skeleton.num_joints(); ++j) {
    Transform e = mix(run[j], idle[j], 0.15f);
    EXPECT_LT(animtest::rotation_angle(a.local_pose().locals[j].rotation, e.rotation), 1e-5f);
  }
}

TEST(Animator, SyncedCrossfadeKeepsNormalizedTimeInPhase) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.play(0));  // walk, 1.0 s
  ASSERT_TRUE(a.update(0.4f));
  ASSERT_TRUE(a.crossfade(1, 0.5f, {.sync_normalized_time = true}));  // run, 0.6 s
  EXPECT_NEAR(a.current_clip_time(), 0.4f * 0.6f, 1e-6f);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(a.update(0.02f));
    if (a.num_active_fades() == 0) break;
    // Walk has advanced to 0.4 + 0.02 (i + 1); run is at the same phase.
    const float walk_phase = std::fmod(0.4f + 0.02f * (i + 1), 1.0f);
    EXPECT_NEAR(a.current_clip_time() / 0.6f, walk_phase, 1e-5f) << i;
  }
}

TEST(Animator, SameCommandsGiveBitIdenticalPalettes) {
  Fixture f;
  auto script = [&](Animator& a) {
    EXPECT_TRUE(a.play(0));
    for (int i = 0; i < 200; ++i) {
      if (i == 20) {
        EXPECT_TRUE(a.crossfade(1, 0.3f, {.sync_normalized_time = true}));
      }
      if (i == 30) {
        EXPECT_TRUE(a.crossfade(2, 0.5f));
      }
      if (i == 50) {
        EXPECT_TRUE(a.set_speed(-0.7f));
      }
      EXPECT_TRUE(a.update(kDt * (1.0f + 0.01f * (i % 7))));
    }
  };
  Animator a(f.skeleton, f.clips), b(f.skeleton, f.clips);
  script(a);
  script(b);
  EXPECT_TRUE(animtest::same_palettes(a.palette(), b.palette()));
}

// One scripted session with every feature of the update path: overlapping (synced) fades,
// additive layers on all three time sources (one masked to the upper body), IK goals with all
// three solvers (CCD with a hinge and a cone, FABRIK with a cone and a hinge, two-bone with a
// pole), world-space targets, a non-identity root transform and a negative character speed.
// `dt(i)` is tick i's dt. Returns the palette after every 20th tick.
std::vector<std::vector<PaletteMatrix>> run_full_session(const Fixture& f, float (*dt)(int)) {
  const Skeleton& s = f.skeleton;
  Animator a(s, f.clips);
  const Transform root{{1, 0, 2}, axis_angle(0.4f, {0, 1, 0}), {1.2f, 1.2f, 1.2f}};
  EXPECT_TRUE(a.set_root_transform(root));
  const glm::mat4 world = to_matrix(root);
  auto to_world = [&](glm::vec3 p) { return glm::vec3(world * glm::vec4(p, 1.0f)); };
  EXPECT_TRUE(a.play(0));

  AdditiveLayerDesc own;
  own.clip = 3;
  own.weight = 0.6f;
  own.speed = 1.3f;
  own.mask = *JointMask::subtree(s, s.find_joint("chest"));
  AdditiveLayerDesc synced;
  synced.clip = 2;
  synced.weight = 0.5f;
  synced.time_source = LayerTimeSource::kBaseNormalized;
  synced.reference_clip = 0;
  AdditiveLayerDesc param;
  param.clip = 1;
  param.weight = 0.4f;
  param.time_source = LayerTimeSource::kParameter;
  param.parameter = 0.3f;
  int layer_ids[3] = {};
  int k = 0;
  for (const auto& d : {own, synced, param}) {
    Expected<int> id = a.add_layer(d);
    EXPECT_TRUE(id.has_value()) << (id ? "" : id.error().message());
    layer_ids[k++] = id ? *id : 0;
  }

  IkGoalDesc leg = animtest::goal("thigh", "foot", IkSolver::kTwoBone, {-0.1f, -0.6f, 0.3f});
  leg.space = IkSpace::kWorld;
  leg.target = to_world(leg.target);
  leg.has_pole = true;
  leg.pole = to_world({-0.1f, -0.4f, 1.0f});
  leg.soften = 0.9f;
  IkGoalDesc arm = animtest::constrained_arm_goal(to_world({0.4f, 0.8f, 0.3f}));
  IkGoalDesc spine = animtest::goal("spine", "head", IkSolver::kCcd, {0.2f, 1.1f, 0.1f});
  spine.weight = 0.7f;
  spine.joint_weights = {0.5f, 1.0f, 1.0f};
  spine.constraints.resize(3);
  spine.constraints[0].kind = JointConstraint::Kind::kBallSocket;
  spine.constraints[0].cone_angle = 0.6f;
  spine.constraints[1].kind = JointConstraint::Kind::kHinge;
  spine.constraints[1].axis = {1, 0, 0};
  spine.constraints[1].min_angle = -0.5f;
  spine.constraints[1].max_angle = 0.5f;
  int arm_id = 0;
  for (const auto& g : {leg, arm, spine}) {
    Expected<int> id = a.set_ik_goal(g);
    EXPECT_TRUE(id.has_value()) << (id ? "" : id.error().message());
    if (g.solver == IkSolver::kFabrik) arm_id = id ? *id : 0;
  }

  std::vector<std::vector<PaletteMatrix>> out;
  for (int i = 0; i < 240; ++i) {
    if (i == 20) {
      EXPECT_TRUE(a.crossfade(1, 0.3f, {.sync_normalized_time = true}));
    }
    if (i == 30) {
      EXPECT_TRUE(a.crossfade(2, 0.5f));
    }
    if (i == 60) {
      EXPECT_TRUE(a.update_layer(layer_ids[2], {0.8f, 1.0f, 0.7f}));
    }
    if (i == 70) {
      EXPECT_TRUE(a.update_layer(layer_ids[0], {0.3f, -0.5f, 0.0f}));
    }
    if (i == 80) {
      EXPECT_TRUE(a.update_ik_target(arm_id, to_world({0.3f, 0.9f, -0.2f}), 0.8f));
    }
    if (i == 100) {
      EXPECT_TRUE(a.set_speed(-0.7f));
    }
    if (i == 140) {
      EXPECT_TRUE(a.crossfade(3, 0.4f));
    }
    if (i == 180) {
      EXPECT_TRUE(a.set_speed(1.4f));
    }
    EXPECT_TRUE(a.update(dt(i)));
    if (i % 20 == 19) out.emplace_back(a.palette().begin(), a.palette().end());
  }
  return out;
}

TEST(Animator, SameCommandsGiveBitIdenticalPalettesWithEveryFeature) {
  Fixture f;
  auto dt_a = [](int i) { return kDt * (1.0f + 0.01f * static_cast<float>(i % 7)); };
  // A slightly different dt sequence (every tick within 5% of the first one's).
  auto dt_c = [](int i) { return kDt * (1.0f + 0.013f * static_cast<float>(i % 5)); };
  const auto a = run_full_session(f, dt_a);
  const auto b = run_full_session(f, dt_a);
  const auto c = run_full_session(f, dt_c);
  ASSERT_EQ(a.size(), 12u);
  ASSERT_EQ(b.size(), a.size());
  ASSERT_EQ(c.size(), a.size());
  int differing = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(animtest::same_palettes(a[i], b[i])) << "snapshot " << i;
    if (!animtest::same_palettes(a[i], c[i])) ++differing;
  }
  // The comparison can fail: a different dt sequence gives different palettes.
  EXPECT_EQ(differing, static_cast<int>(a.size()));
  EXPECT_FALSE(animtest::same_palettes(a.back(), c.back()));
}

TEST(Animator, RejectedCommandsChangeNothing) {
  Fixture f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Animator ref(f.skeleton, f.clips), a(f.skeleton, f.clips);
  for (Animator* x : {&ref, &a}) {
    ASSERT_TRUE(x->play(0));
    ASSERT_TRUE(x->update(0.1f));
    ASSERT_TRUE(x->crossfade(1, 0.5f));
    ASSERT_TRUE(x->update(0.1f));
  }
  std::vector<Status> bad = {
      a.play(99),
      a.play(-1),
      a.play(0, {.speed = nan}),
      a.play(0, {.start_time = 5.0f}),
      a.crossfade(2, -1.0f),
      a.crossfade(2, nan),
      a.crossfade(7, 0.5f),
      a.crossfade(2, 0.5f, {.speed = inf}),
      a.set_speed(nan),
      a.set_speed(inf),
      a.update(nan),
      a.update(-0.1f),
      a.update(inf),
      a.set_root_transform({{nan, 0, 0}, {1, 0, 0, 0}, {1, 1, 1}}),
      a.set_root_transform({{0, 0, 0}, {1, 0, 0, 0}, {0, 1, 1}}),
  };
  for (const Status& s : bad) {
    EXPECT_FALSE(s.is_ok());
    EXPECT_FALSE(s.message().empty());
  }
  EXPECT_EQ(bad[0].code(), StatusCode::kNotFound);
  EXPECT_NE(bad[4].message().find("duration"), std::string::npos) << bad[4].message();
  EXPECT_NE(bad[6].message().find("7"), std::string::npos) << bad[6].message();
  for (Animator* x : {&ref, &a}) ASSERT_TRUE(x->update(0.1f));
  EXPECT_TRUE(animtest::same_palettes(a.palette(), ref.palette()));
  EXPECT_EQ(a.num_active_fades(), ref.num_active_fades());
}

TEST(Animator, RootTransformDoesNotMoveModelSpace) {
  Fixture f;
  Animator a(f.skeleton, f.clips), b(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_root_transform({{5, 0, 1}, axis_angle(0.5f, {0, 1, 0}), {2, 2, 2}}));
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(b.play(0));
  ASSERT_TRUE(a.update(0.3f));
  ASSERT_TRUE(b.update(0.3f));
  EXPECT_TRUE(animtest::same_palettes(a.palette(), b.palette()));
  EXPECT_EQ(a.root_transform().translation, glm::vec3(5, 0, 1));
}

}  // namespace animator_test
}  // namespace anim

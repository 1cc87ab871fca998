// Blend spaces: definitions (1D order, 2D Delaunay triangulation, refusals), weights at a
// point, and the Animator playing them (exact samples, hand-made blends, one shared phase,
// root motion, events, smoothing, the evaluated inputs), on the synthetic rig.
#include "anim/blend_space.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/blend.h"
#include "anim/palette.h"
#include "anim_test_rig.h"

namespace anim {
namespace blend_space_test {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// idle 2 s, walk 1 s, run 0.6 s: different durations, so a shared phase matters. No root
// travel in the pose (the foot's path must not wrap back at each loop).
// A looping clip whose joints swing out and back (its last frame is its first: no jump at
// the loop), joint j by angle * (j + 1) / n about `axis`.
Clip cyclic_clip(const std::string& name, int n, float duration, float angle, glm::vec3 axis) {
  Clip clip;
  clip.name = name;
  clip.joints.resize(n);
  for (int j = 0; j < n; ++j) {
    QuatChannel ch;
    const float a = angle * static_cast<float>(j + 1) / static_cast<float>(n);
    ch.times = {0.0f, duration * 0.5f, duration};
    ch.values = {glm::quat(1, 0, 0, 0), animtest::axis_angle(a, axis), glm::quat(1, 0, 0, 0)};
    clip.joints[j].rotation = static_cast<int>(clip.quat_channels.size());
    clip.quat_channels.push_back(std::move(ch));
  }
  EXPECT_TRUE(clip.finalize(n).is_ok());
  return clip;
}

struct Fixture {
  Skeleton skeleton = animtest::make_rig();
  std::vector<Clip> clips;
  explicit Fixture(float walk_move = 0.0f, float run_move = 0.0f) {
    const int n = skeleton.num_joints();
    clips.push_back(animtest::make_swing_clip("idle", n, 2.0f, 0.3f, {0, 1, 0}));
    clips.push_back(animtest::make_swing_clip("walk", n, 1.0f, 0.8f, {1, 0, 0}, walk_move));
    clips.push_back(animtest::make_swing_clip("run", n, 0.6f, -1.2f, {0, 0, 1}, run_move));
    clips.push_back(animtest::make_swing_clip("strafe", n, 0.8f, 0.9f, {0, 1, 1}));
  }
  // idle at 0, walk at 1.4, run at 4 (given out of order: the space sorts them).
  BlendSpaceDesc locomotion() const {
    return {"locomotion", {"speed"}, {{2, {4.0f, 0}}, {0, {0, 0}}, {1, {1.4f, 0}}}};
  }
  std::shared_ptr<const BlendSpaceTable> table(std::vector<BlendSpaceDesc> descs) const {
    auto t = std::make_shared<BlendSpaceTable>();
    for (const auto& d : descs) {
      auto s = make_blend_space(d, clips, skeleton.num_joints());
      EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message());
      t->spaces.push_back(std::make_shared<const BlendSpace>(std::move(*s)));
    }
    return t;
  }
  std::vector<Transform> sample(int clip, float t) const {
    std::vector<Transform> out(skeleton.num_joints());
    clips[clip].sample(t, skeleton.rest_pose, out);
    return out;
  }
};

bool same_pose(std::span<const Transform> a, std::span<const Transform> b) {
  if (a.size() != b.size()) return false;
  for (size_t j = 0; j < a.size(); ++j)
    if (!animtest::same_transform_bits(a[j], b[j])) return false;
  return true;
}

BlendSpaceDesc square(float size = 1.0f) {
  // strafe (0,0), idle (1,0), walk (0,1), run (1,1): four points on one circle.
  return {"grid", {"x", "y"}, {{3, {0, 0}}, {0, {size, 0}}, {1, {0, size}}, {2, {size, size}}}};
}

TEST(BlendSpace, OneDimensionSortsAndWeighsTheInterval) {
  Fixture f;
  auto s = make_blend_space(f.locomotion(), f.clips, f.skeleton.num_joints());
  ASSERT_TRUE(s.has_value()) << s.error().message();
  ASSERT_EQ(s->samples.size(), 3u);
  EXPECT_EQ(s->samples[0].clip, 0);
  EXPECT_EQ(s->samples[1].clip, 1);
  EXPECT_EQ(s->samples[2].clip, 2);
  // On a sample: that sample alone.
  BlendWeights w = s->weights_at({1.4f, 0});
  ASSERT_EQ(w.count, 1);
  EXPECT_EQ(w.sample[0], 1);
  EXPECT_EQ(w.weight[0], 1.0f);
  // Midway between idle and walk; a quarter of the way from walk to run.
  w = s->weights_at({0.7f, 0});
  ASSERT_EQ(w.count, 2);
  EXPECT_EQ(w.sample[0], 0);
  EXPECT_EQ(w.sample[1], 1);
  EXPECT_EQ(w.mix[1], 0.5f);
  EXPECT_EQ(w.weight[0], 0.5f);
  w = s->weights_at({2.05f, 0});
  ASSERT_EQ(w.count, 2);
  EXPECT_EQ(w.sample[0], 1);
  EXPECT_NEAR(w.mix[1], 0.25f, 1e-6f);
  // Outside: clamped to the ends; NaN is the first sample.
  EXPECT_EQ(s->weights_at({-3.0f, 0}).sample[0], 0);
  EXPECT_EQ(s->weights_at({-3.0f, 0}).count, 1);
  EXPECT_EQ(s->weights_at({9.0f, 0}).sample[0], 2);
  EXPECT_EQ(s->weights_at({9.0f, 0}).count, 1);
  EXPECT_EQ(s->weights_at({kNaN, 0}).count, 1);
}

TEST(BlendSpace, TwoDimensionsTriangulatesASquareAndWeighsBarycentric) {
  Fixture f;
  auto s = make_blend_space(square(), f.clips, f.skeleton.num_joints());
  ASSERT_TRUE(s.has_value()) << s.error().message();
  // Four points on one circle: two triangles, not four overlapping ones.
  ASSERT_EQ(s->triangles.size(), 2u);
  // (0.25, 0.25) in the triangle (0,0) (1,0) (0,1): weights 0.5, 0.25, 0.25 by hand.
  BlendWeights w = s->weights_at({0.25f, 0.25f});
  ASSERT_EQ(w.count, 3);
  float by_sample[4] = {};
  for (int k = 0; k < w.count; ++k) by_sample[w.sample[k]] = w.weight[k];
  EXPECT_NEAR(by_sample[0], 0.5f, 1e-6f);
  EXPECT_NEAR(by_sample[1], 0.25f, 1e-6f);
  EXPECT_NEAR(by_sample[2], 0.25f, 1e-6f);
  EXPECT_EQ(by_sample[3], 0.0f);
  // Sequential mix factors: w1 / (w0 + w1), then w2.
  EXPECT_NEAR(w.mix[1], w.weight[1] / (w.weight[0] + w.weight[1]), 1e-6f);
  EXPECT_NEAR(w.mix[2], w.weight[2], 1e-6f);
  // (0.75, 0.75) in the other one: (1,1) 0.5, (1,0) and (0,1) 0.25 each.
  w = s->weights_at({0.75f, 0.75f});
  for (float& v : by_sample) v = 0.0f;
  for (int k = 0; k < w.count; ++k) by_sample[w.sample[k]] = w.weight[k];
  EXPECT_NEAR(by_sample[3], 0.5f, 1e-6f);
  EXPECT_NEAR(by_sample[1], 0.25f, 1e-6f);
  EXPECT_NEAR(by_sample[2], 0.25f, 1e-6f);
  // Every corner is its sample alone.
  for (int i = 0; i < 4; ++i) {
    w = s->weights_at(s->samples[i].position);
    ASSERT_EQ(w.count, 1) << i;
    EXPECT_EQ(w.sample[0], i);
  }
  // Outside the hull: the nearest point of it, (1, 0.5): half (1,0), half (1,1).
  w = s->weights_at({2.0f, 0.5f});
  ASSERT_EQ(w.count, 2);
  for (float& v : by_sample) v = 0.0f;
  for (int k = 0; k < w.count; ++k) by_sample[w.sample[k]] = w.weight[k];
  EXPECT_NEAR(by_sample[1], 0.5f, 1e-6f);
  EXPECT_NEAR(by_sample[3], 0.5f, 1e-6f);
  // Beyond a corner: the corner.
  w = s->weights_at({-1.0f, -2.0f});
  ASSERT_EQ(w.count, 1);
  EXPECT_EQ(w.sample[0], 0);
}

TEST(BlendSpace, TwoDimensionsIsDelaunayNotJustATriangulation) {
  Fixture f;
  // A flat rhombus: the short diagonal (2,1)-(2,-1) is Delaunay; the long one (0,0)-(4,0)
  // would make two slivers.
  BlendSpaceDesc d{"rhombus", {"x", "y"}, {{0, {0, 0}}, {1, {4, 0}}, {2, {2, 1}}, {3, {2, -1}}}};
  auto s = make_blend_space(d, f.clips, f.skeleton.num_joints());
  ASSERT_TRUE(s.has_value()) << s.error().message();
  ASSERT_EQ(s->triangles.size(), 2u);
  for (const auto& t : s->triangles) {
    const bool has2 = t[0] == 2 || t[1] == 2 || t[2] == 2;
    const bool has3 = t[0] == 3 || t[1] == 3 || t[2] == 3;
    EXPECT_TRUE(has2 && has3);
  }
  // A 3 x 3 grid (many cocircular squares): 8 triangles tiling it.
  BlendSpaceDesc grid{"grid9", {"x", "y"}, {}};
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x)
      grid.samples.push_back({(x + y) % 4, {static_cast<float>(x), static_cast<float>(y)}});
  auto g = make_blend_space(grid, f.clips, f.skeleton.num_joints());
  ASSERT_TRUE(g.has_value()) << g.error().message();
  EXPECT_EQ(g->triangles.size(), 8u);
  // Every point inside finds weights that rebuild it.
  for (float y = 0.05f; y < 2.0f; y += 0.3f)
    for (float x = 0.05f; x < 2.0f; x += 0.3f) {
      const BlendWeights w = g->weights_at({x, y});
      glm::vec2 p(0.0f);
      float sum = 0.0f;
      for (int k = 0; k < w.count; ++k) {
        p += w.weight[k] * g->samples[w.sample[k]].position;
        sum += w.weight[k];
      }
      EXPECT_NEAR(sum, 1.0f, 1e-5f);
      EXPECT_NEAR(p.x, x, 1e-5f);
      EXPECT_NEAR(p.y, y, 1e-5f);
    }
}

TEST(BlendSpace, DegenerateDefinitionsAreRefusedNamingTheField) {
  Fixture f;
  const int n = f.skeleton.num_joints();
  auto refused = [&](BlendSpaceDesc d, const std::string& needle) {
    auto s = make_blend_space(d, f.clips, n);
    ASSERT_FALSE(s.has_value()) << needle;
    EXPECT_NE(s.error().message().find(needle), std::string::npos) << s.error().message();
  };
  BlendSpaceDesc d = square();
  d.samples[3].position = d.samples[1].position;
  refused(d, "samples[3] is at the same point");
  refused({"line", {"x", "y"}, {{0, {0, 0}}, {1, {1, 1}}, {2, {2, 2}}, {3, {-1, -1}}}},
          "all points are on one line");
  refused({"two", {"x", "y"}, {{0, {0, 0}}, {1, {1, 1}}}}, "samples: a 2D blend space needs 3");
  refused({"one", {"speed"}, {{0, {0, 0}}}}, "samples: a 1D blend space needs 2");
  refused({"dup", {"speed"}, {{0, {1, 0}}, {1, {1, 0}}}}, "samples[1] is at the same point");
  refused({"y", {"speed"}, {{0, {0, 0}}, {1, {1, 2}}}}, "samples[1].y must be 0");
  refused({"nan", {"speed"}, {{0, {0, 0}}, {1, {kNaN, 0}}}}, "samples[1].x");
  refused({"big", {"speed"}, {{0, {0, 0}}, {1, {1e9f, 0}}}}, "samples[1].x");
  refused({"clip", {"speed"}, {{0, {0, 0}}, {7, {1, 0}}}}, "samples[1].clip");
  refused({"clip", {"speed"}, {{0, {0, 0}}, {-1, {1, 0}}}}, "samples[1].clip");
  refused({"axes", {}, {{0, {0, 0}}, {1, {1, 0}}}}, "axes");
  refused({"axes", {"a", "b", "c"}, {{0, {0, 0}}, {1, {1, 0}}}}, "axes");
  refused({"axes", {"a", "a"}, {{0, {0, 0}}, {1, {1, 0}}, {2, {0, 1}}}}, "both axes");
  refused({"axes", {""}, {{0, {0, 0}}, {1, {1, 0}}}}, "axes[0] is empty");
  refused({"", {"speed"}, {{0, {0, 0}}, {1, {1, 0}}}}, "name is empty");
  BlendSpaceDesc many{"many", {"speed"}, {}};
  for (int i = 0; i <= kMaxBlendSpaceSamples; ++i)
    many.samples.push_back({0, {static_cast<float>(i), 0}});
  refused(many, "samples: a 1D blend space needs 2..64");
}

TEST(BlendSpaceAnimator, AtASamplePointTheClipAloneBitForBit) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({f.locomotion()})));
  ASSERT_TRUE(a.set_parameter("speed", 1.4f, 0.0f));
  ASSERT_TRUE(a.play_blend_space(0));
  EXPECT_EQ(a.current_blend_space(), 0);
  EXPECT_EQ(a.current_clip(), -1);
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(a.update(0.13f));
  // Walk alone: its phase rate is walk's, 1 cycle per second.
  const float phase = a.current_clip_time();
  EXPECT_NEAR(phase, std::fmod(7 * 0.13f, 1.0f), 1e-5f);
  EXPECT_TRUE(same_pose(a.local_pose().locals, f.sample(1, phase * 1.0f)));
  Animator b(f.skeleton, f.clips);
  ASSERT_TRUE(b.play(1, {.start_time = phase}));
  ASSERT_TRUE(b.update(0.0f));
  EXPECT_TRUE(animtest::same_palettes(a.palette(), b.palette()));
  // Run alone (beyond the last sample: clamped onto it).
  ASSERT_TRUE(a.set_parameter("speed", 6.0f, 0.0f));
  ASSERT_TRUE(a.update(0.1f));
  EXPECT_TRUE(same_pose(a.local_pose().locals, f.sample(2, a.current_clip_time() * 0.6f)));
}

// The parameter values one float step either side of `v`.
std::array<float, 2> float_steps_around(float v) {
  return {std::nextafter(v, -INFINITY), std::nextafter(v, INFINITY)};
}

// idle 0, walk 1.5, run 4: walk (1 s, so its clip time is the phase bit for bit) between two
// neighbours whose weight a float step off 1.5 would be about 1e-7.
BlendSpaceDesc locomotion_at_1_5() {
  return {"locomotion", {"speed"}, {{0, {0, 0}}, {1, {1.5f, 0}}, {2, {4.0f, 0}}}};
}

// walk (1 s) at the centre (1, 1) of a square of other clips: every parameter a float step
// off the centre, in x, y or both, is inside some triangle bordering it.
BlendSpaceDesc walk_in_the_middle() {
  return {"middle", {"x", "y"}, {{0, {0, 0}}, {2, {2, 0}}, {3, {0, 2}}, {2, {2, 2}}, {1, {1, 1}}}};
}

TEST(BlendSpace, AFloatStepOffASampleIsThatSampleAloneIn1D) {
  Fixture f;
  auto s = make_blend_space(locomotion_at_1_5(), f.clips, f.skeleton.num_joints());
  ASSERT_TRUE(s.has_value()) << s.error().message();
  for (float speed : float_steps_around(1.5f)) {
    const BlendWeights w = s->weights_at({speed, 0});
    ASSERT_EQ(w.count, 1) << speed;
    EXPECT_EQ(w.sample[0], 1) << speed;
    EXPECT_EQ(w.weight[0], 1.0f) << speed;
  }
  // Neither neighbour is negligible a little further off: both stay, summing to 1.
  for (float speed : {1.49f, 1.51f}) {
    const BlendWeights w = s->weights_at({speed, 0});
    ASSERT_EQ(w.count, 2) << speed;
    EXPECT_NEAR(w.weight[0] + w.weight[1], 1.0f, 1e-7f);
    EXPECT_GT(w.weight[0], 0.0f);
    EXPECT_GT(w.weight[1], 0.0f);
  }
}

TEST(BlendSpace, AFloatStepOffASampleIsThatSampleAloneIn2D) {
  Fixture f;
  auto s = make_blend_space(walk_in_the_middle(), f.clips, f.skeleton.num_joints());
  ASSERT_TRUE(s.has_value()) << s.error().message();
  const auto steps = float_steps_around(1.0f);
  for (float x : {steps[0], 1.0f, steps[1]})
    for (float y : {steps[0], 1.0f, steps[1]}) {
      const BlendWeights w = s->weights_at({x, y});
      ASSERT_EQ(w.count, 1) << x << ", " << y;
      EXPECT_EQ(w.sample[0], 4) << x << ", " << y;
      EXPECT_EQ(w.weight[0], 1.0f) << x << ", " << y;
    }
  // On an edge a float step off its line: the third vertex is dropped and the edge's two
  // weights are renormalized to sum 1.
  const BlendWeights w = s->weights_at({0.5f, std::nextafter(0.0f, 1.0f)});
  ASSERT_EQ(w.count, 2);
  float by_sample[5] = {};
  for (int k = 0; k < w.count; ++k) by_sample[w.sample[k]] = w.weight[k];
  EXPECT_NEAR(by_sample[0], 0.75f, 1e-6f);
  EXPECT_NEAR(by_sample[1], 0.25f, 1e-6f);
  EXPECT_NEAR(w.weight[0] + w.weight[1], 1.0f, 1e-7f);
}

// Plays `space` at `at` from phase 0.45 and, beside it, its sample clip `walk` alone from
// 0.45 s (walk lasts 1 s, so clip time and phase agree); over three updates that cross
// walk's step at 0.5 (and every other clip's event at phase 0.5), checks that the space's
// pose and palette are walk's bit for bit and that it fires walk's events alone, at weight 1.
void expect_walk_alone(Fixture& f, const BlendSpaceDesc& space, glm::vec2 at) {
  const std::string where =
      "at (" + std::to_string(at.x) + ", " + std::to_string(at.y) + ") in " + space.name;
  SCOPED_TRACE(where);
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({space})));
  ASSERT_TRUE(a.set_parameter(space.axes[0], at.x, 0.0f));
  if (space.axes.size() == 2) {
    ASSERT_TRUE(a.set_parameter(space.axes[1], at.y, 0.0f));
  }
  ASSERT_TRUE(a.play_blend_space(0, {.start_time = 0.45f}));
  Animator alone(f.skeleton, f.clips);
  ASSERT_TRUE(alone.play(1, {.start_time = 0.45f}));
  size_t fired = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(a.update(0.03f));
    ASSERT_TRUE(alone.update(0.03f));
    EXPECT_EQ(a.current_blend_weights().count, 1);
    // The pose: walk sampled at the space's phase, and a walk player started there.
    const float phase = a.current_clip_time();
    EXPECT_TRUE(same_pose(a.local_pose().locals, f.sample(1, phase * 1.0f))) << i;
    Animator b(f.skeleton, f.clips);
    ASSERT_TRUE(b.play(1, {.start_time = phase}));
    ASSERT_TRUE(b.update(0.0f));
    EXPECT_TRUE(same_pose(a.local_pose().locals, b.local_pose().locals)) << i;
    EXPECT_TRUE(animtest::same_palettes(a.palette(), b.palette())) << i;
    // The events: walk's, as walk alone fires them.
    ASSERT_EQ(a.fired_events().size(), alone.fired_events().size()) << i;
    for (size_t k = 0; k < a.fired_events().size(); ++k) {
      const FiredEvent& e = a.fired_events()[k];
      const FiredEvent& expected = alone.fired_events()[k];
      EXPECT_EQ(e.clip, 1);
      EXPECT_EQ(e.event, expected.event);
      EXPECT_EQ(e.weight, 1.0f);
      EXPECT_EQ(e.reverse, expected.reverse);
      EXPECT_EQ(e.source, EventSource::kBase);
    }
    fired += a.fired_events().size();
  }
  EXPECT_EQ(fired, 1u);  // walk's step, once
}

TEST(BlendSpaceAnimator, AFloatStepOffASamplePlaysThatClipAloneIn1D) {
  Fixture f;
  f.clips[0].events = {{"blink", 1.0f, ""}};  // idle: half way through its 2 s
  f.clips[1].events = {{"step", 0.5f, ""}};   // walk: half way through its 1 s
  f.clips[2].events = {{"push", 0.3f, ""}};   // run: half way through its 0.6 s
  for (float speed : float_steps_around(1.5f))
    expect_walk_alone(f, locomotion_at_1_5(), {speed, 0.0f});
}

TEST(BlendSpaceAnimator, AFloatStepOffASamplePlaysThatClipAloneIn2D) {
  Fixture f;
  f.clips[0].events = {{"blink", 1.0f, ""}};
  f.clips[1].events = {{"step", 0.5f, ""}};
  f.clips[2].events = {{"push", 0.3f, ""}};
  f.clips[3].events = {{"turn", 0.4f, ""}};  // strafe: half way through its 0.8 s
  const auto steps = float_steps_around(1.0f);
  for (float x : {steps[0], steps[1]})
    for (float y : {steps[0], 1.0f, steps[1]}) expect_walk_alone(f, walk_in_the_middle(), {x, y});
  for (float y : {steps[0], steps[1]}) expect_walk_alone(f, walk_in_the_middle(), {1.0f, y});
}

TEST(BlendSpaceAnimator, MidwayIsTheBlendOfTheTwoClipsAtTheSharedPhase) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({f.locomotion()})));
  ASSERT_TRUE(a.set_parameter("speed", 0.7f, 0.0f));  // midway idle (0) .. walk (1.4)
  ASSERT_TRUE(a.play_blend_space(0));
  ASSERT_TRUE(a.update(0.4f));
  // Rate: 0.5 / 2 s + 0.5 / 1 s = 0.75 cycles per second.
  EXPECT_NEAR(a.current_clip_time(), 0.3f, 1e-6f);
  const float phase = a.current_clip_time();
  const auto idle = f.sample(0, phase * 2.0f);
  const auto walk = f.sample(1, phase * 1.0f);
  std::vector<Transform> expected(idle.size());
  blend(idle, walk, 0.5f, JointMask{}, expected);
  EXPECT_TRUE(same_pose(a.local_pose().locals, expected));
  // The chest by hand: halfway along the shortest arc between the two rotations.
  const int chest = f.skeleton.find_joint("chest");
  const glm::quat q0 = idle[chest].rotation, q1 = walk[chest].rotation;
  const glm::quat half = glm::normalize(glm::slerp(q0, glm::dot(q0, q1) < 0 ? -q1 : q1, 0.5f));
  EXPECT_LT(animtest::rotation_angle(a.local_pose().locals[chest].rotation, half), 1e-5f);
  EXPECT_GT(animtest::rotation_angle(q0, q1), 0.05f);  // the two clips do differ there
}

TEST(BlendSpaceAnimator, TwoDimensionalPoseIsTheSequentialBlendOfTheTriangle) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({square()})));
  ASSERT_TRUE(a.set_parameter("x", 0.25f, 0.0f));
  ASSERT_TRUE(a.set_parameter("y", 0.25f, 0.0f));
  ASSERT_TRUE(a.play_blend_space(0, {.start_time = 0.2f}));
  ASSERT_TRUE(a.update(0.05f));
  const BlendWeights w = a.current_blend_weights();
  ASSERT_EQ(w.count, 3);
  const float p = a.current_clip_time();
  // Rate: 0.5 / 0.8 (strafe) + 0.25 / 2 (idle) + 0.25 / 1 (walk) cycles per second.
  EXPECT_NEAR(p, 0.2f + 0.05f * (0.5f / 0.8f + 0.25f / 2.0f + 0.25f / 1.0f), 1e-6f);
  const int clip_of[4] = {3, 0, 1, 2};
  const float dur[4] = {0.8f, 2.0f, 1.0f, 0.6f};
  std::vector<Transform> expected = f.sample(clip_of[w.sample[0]], p * dur[w.sample[0]]);
  for (int k = 1; k < 3; ++k)
    blend(expected, f.sample(clip_of[w.sample[k]], p * dur[w.sample[k]]), w.mix[k], JointMask{},
          expected);
  EXPECT_TRUE(same_pose(a.local_pose().locals, expected));
  // On a corner: that clip alone.
  ASSERT_TRUE(a.set_parameter("x", 1.0f, 0.0f));
  ASSERT_TRUE(a.set_parameter("y", 1.0f, 0.0f));
  ASSERT_TRUE(a.update(0.05f));
  EXPECT_EQ(a.current_blend_weights().count, 1);
  EXPECT_TRUE(same_pose(a.local_pose().locals, f.sample(2, a.current_clip_time() * 0.6f)));
}

TEST(BlendSpaceAnimator, FeetStayInPhaseAcrossASpeedSweep) {
  Fixture f;
  const int n = f.skeleton.num_joints();
  // Clips that loop without a jump, with their step at different times of their cycles.
  f.clips[0] = cyclic_clip("idle", n, 2.0f, 0.3f, {1, 0, 0});
  f.clips[1] = cyclic_clip("walk", n, 1.0f, 0.8f, {1, 0, 0});
  f.clips[2] = cyclic_clip("run", n, 0.6f, 1.2f, {1, 0, 0.3f});
  const int foot = f.skeleton.find_joint("foot");
  constexpr int kTicks = 2400;
  constexpr float kDt = 1.0f / 60.0f;
  const float dur[3] = {2.0f, 1.0f, 0.6f};
  auto speed_at = [](int i) { return 4.0f * static_cast<float>(i) / kTicks; };
  auto foot_of = [&](const BlendWeights& w, float phase) {
    std::vector<Transform> pose = f.sample(w.sample[0], phase * dur[w.sample[0]]);
    if (w.count > 1)
      blend(pose, f.sample(w.sample[1], phase * dur[w.sample[1]]), w.mix[1], {}, pose);
    std::vector<glm::mat4> model(pose.size());
    local_to_model(f.skeleton, pose, model);
    return glm::vec3(model[foot][3]);
  };
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({f.locomotion()})));
  ASSERT_TRUE(a.set_parameter("speed", 0.0f, 0.0f));
  ASSERT_TRUE(a.play_blend_space(0));
  ASSERT_TRUE(a.update(0.0f));
  glm::vec3 last = animtest::joint_position(a, foot);
  float last_phase = a.current_clip_time();
  float max_step = 0.0f, max_at_boundary = 0.0f;
  // A naive blend for comparison: every clip on its own clock, the pose at the phase of the
  // heaviest sample's clock. It jumps where the heaviest sample changes.
  float own[3] = {0, 0, 0};
  glm::vec3 naive_last = foot_of(a.current_blend_weights(), 0.0f);
  float naive_max = 0.0f;
  for (int i = 1; i <= kTicks; ++i) {
    const float s = speed_at(i);
    const bool boundary = speed_at(i - 1) < 1.4f && s >= 1.4f;
    ASSERT_TRUE(a.set_parameter("speed", s, 0.0f));
    ASSERT_TRUE(a.update(kDt));
    // In phase: every sample's clip time is the same fraction of its duration.
    const PoseInputs in = a.evaluated_inputs();
    const float phase = in.base.time / f.clips[in.base.clip].duration;
    for (int k = 0; k < in.base.num_terms; ++k)
      EXPECT_NEAR(in.base.terms[k].time / f.clips[in.base.terms[k].clip].duration, phase, 1e-5f);
    // The phase never jumps: it moves by the blended rate, at most run's 1 / 0.6 per second.
    float dp = a.current_clip_time() - last_phase;
    if (dp < 0.0f) dp += 1.0f;
    EXPECT_LE(dp, kDt / 0.6f + 1e-5f) << i;
    last_phase = a.current_clip_time();
    const glm::vec3 now = animtest::joint_position(a, foot);
    const float step = glm::length(now - last);
    last = now;
    max_step = std::max(max_step, step);
    if (boundary) max_at_boundary = step;
    // The naive one.
    const BlendWeights w = a.current_blend_weights();
    for (int k = 0; k < 3; ++k) own[k] = std::fmod(own[k] + kDt, dur[k]);
    const int heavy = w.count > 1 && w.weight[1] > w.weight[0] ? w.sample[1] : w.sample[0];
    const glm::vec3 naive = foot_of(w, own[heavy] / dur[heavy]);
    naive_max = std::max(naive_max, glm::length(naive - naive_last));
    naive_last = naive;
  }
  // No jump at the sample boundary, nor anywhere: the foot moves as fast as the clips move it
  // (run swings the leg 1.2 rad out and back in 0.6 s: about 0.07 m per tick at the foot).
  EXPECT_GT(max_at_boundary, 0.0f);
  EXPECT_LE(max_at_boundary, max_step);
  EXPECT_LT(max_step, 0.1f);
  // The check can fail: the naive blend's phase jumps, and its foot with it.
  EXPECT_GT(naive_max, 2.0f * max_step) << max_step;
}

TEST(BlendSpaceAnimator, ParameterSmoothingIsACriticallyDampedSpring) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({f.locomotion()})));
  ASSERT_TRUE(a.play_blend_space(0));
  EXPECT_EQ(*a.parameter("speed"), 0.0f);  // made at 0 by play
  ASSERT_TRUE(a.set_parameter("speed", 4.0f, 0.5f));
  EXPECT_EQ(*a.parameter("speed"), 0.0f);  // moves with updates
  ASSERT_TRUE(a.update(0.5f));
  // x(t) = x0 (1 + w t) e^(-w t), w = 4 / 0.5: at t = 0.5, 4 - 4 * 5 e^-4.
  EXPECT_NEAR(*a.parameter("speed"), 4.0f - 20.0f * std::exp(-4.0f), 1e-4f);
  // Small steps follow the same curve (exact solution: the step size does not matter) and
  // never overshoot.
  Animator b(f.skeleton, f.clips);
  ASSERT_TRUE(b.set_blend_spaces(f.table({f.locomotion()})));
  ASSERT_TRUE(b.play_blend_space(0));
  ASSERT_TRUE(b.set_parameter("speed", 4.0f, 0.5f));
  float prev = 0.0f;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(b.update(0.01f));
    EXPECT_GE(*b.parameter("speed"), prev);
    EXPECT_LE(*b.parameter("speed"), 4.0f);
    prev = *b.parameter("speed");
  }
  EXPECT_NEAR(prev, *a.parameter("speed"), 1e-4f);
  // It settles exactly on the target (a sample point gives the clip alone again).
  for (int i = 0; i < 600; ++i) ASSERT_TRUE(b.update(0.01f));
  EXPECT_EQ(*b.parameter("speed"), 4.0f);
  EXPECT_EQ(b.current_blend_weights().count, 1);
}

TEST(BlendSpaceAnimator, RootMotionBlendsTheSamplesTravelWithTheirWeights) {
  Fixture f(1.0f, 2.0f);  // walk travels 1 m per 1 s cycle, run 2 m per 0.6 s cycle
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({f.locomotion()})));
  ASSERT_TRUE(a.set_root_motion({RootMotionMode::kExtract, -1, false}));
  ASSERT_TRUE(a.set_parameter("speed", 2.7f, 0.0f));  // midway walk (1.4) .. run (4)
  ASSERT_TRUE(a.play_blend_space(0));
  ASSERT_TRUE(a.update(0.1f));
  // Phase moved 0.1 * (0.5 / 1 + 0.5 / 0.6); walk covers that many cycles of 1 m, run of 2 m.
  const float dp = 0.1f * (0.5f / 1.0f + 0.5f / 0.6f);
  EXPECT_NEAR(a.root_transform().translation.x, dp * (0.5f * 1.0f + 0.5f * 2.0f), 1e-5f);
  EXPECT_NEAR(a.root_transform().translation.z, 0.0f, 1e-6f);
}

TEST(BlendSpaceAnimator, EventsFireFromEverySampleWithItsWeight) {
  Fixture f;
  f.clips[1].events = {{"step", 0.5f, ""}};  // walk: half way through its 1 s
  f.clips[2].events = {{"step", 0.3f, ""}};  // run: half way through its 0.6 s
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({f.locomotion()})));
  ASSERT_TRUE(a.set_parameter("speed", 2.7f, 0.0f));
  ASSERT_TRUE(a.play_blend_space(0, {.start_time = 0.45f}));
  // The phase moves 0.03 * (0.5 / 1 + 0.5 / 0.6) = 0.04 per update.
  ASSERT_TRUE(a.update(0.03f));  // phase 0.45 -> 0.49: nothing yet
  EXPECT_TRUE(a.fired_events().empty());
  ASSERT_TRUE(a.update(0.03f));  // -> 0.53: both samples cross their half-way step
  ASSERT_EQ(a.fired_events().size(), 2u);
  EXPECT_EQ(a.fired_events()[0].clip, 1);
  EXPECT_EQ(a.fired_events()[1].clip, 2);
  EXPECT_NEAR(a.fired_events()[0].weight, 0.5f, 1e-6f);
  EXPECT_NEAR(a.fired_events()[1].weight, 0.5f, 1e-6f);
  EXPECT_EQ(a.fired_events()[0].source, EventSource::kBase);
}

TEST(BlendSpaceAnimator, CrossfadesInAndOutAndTheEvaluatedInputsReproduceThePose) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  ASSERT_TRUE(a.set_blend_spaces(f.table({f.locomotion(), square()})));
  ASSERT_TRUE(a.set_root_motion({RootMotionMode::kExtract, -1, false}));
  ASSERT_TRUE(a.set_parameter("speed", 0.5f, 0.3f));
  ASSERT_TRUE(a.play(3));
  ASSERT_TRUE(a.crossfade_blend_space(0, 0.5f, {.sync_normalized_time = true}));
  ASSERT_TRUE(a.crossfade_blend_space(0, 0.5f));  // the latest target already: a no-op
  EXPECT_EQ(a.num_active_fades(), 1);
  PoseScratch scratch;
  std::vector<Transform> locals(f.skeleton.num_joints());
  std::vector<glm::mat4> model(f.skeleton.num_joints());
  auto reproduces = [&] {
    PoseInputs in = a.evaluated_inputs();
    evaluate_pose(f.skeleton, f.clips, in, a.evaluated_setup().get(), scratch, {locals, model});
    return same_pose(locals, a.local_pose().locals) &&
           std::memcmp(model.data(), a.model_matrices().data(), model.size() * sizeof(glm::mat4)) ==
               0;
  };
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(a.update(1.0f / 60.0f));
    ASSERT_TRUE(reproduces()) << i;
  }
  EXPECT_GT(a.evaluated_inputs().fades.size(), 0u);
  EXPECT_GT(a.evaluated_inputs().fades[0].source.num_terms, 0);
  // Into the 2D space, then out to a clip, overlapping.
  ASSERT_TRUE(a.set_parameter("x", 0.3f, 0.0f));
  ASSERT_TRUE(a.set_parameter("y", 0.6f, 0.0f));
  ASSERT_TRUE(a.crossfade_blend_space(1, 0.3f));
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(a.update(1.0f / 60.0f));
    ASSERT_TRUE(reproduces()) << i;
  }
  ASSERT_TRUE(a.crossfade(1, 0.3f, {.sync_normalized_time = true}));
  EXPECT_EQ(a.current_blend_space(), -1);
  EXPECT_EQ(a.current_clip(), 1);
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(a.update(1.0f / 60.0f));
    ASSERT_TRUE(reproduces()) << i;
  }
  EXPECT_EQ(a.num_active_fades(), 0);
  EXPECT_TRUE(same_pose(a.local_pose().locals, locals));
}

TEST(BlendSpaceAnimator, BadCommandsAreRefusedAndChangeNothing) {
  Fixture f;
  Animator a(f.skeleton, f.clips);
  EXPECT_EQ(a.play_blend_space(0).code(), StatusCode::kNotFound);  // no table
  ASSERT_TRUE(a.set_blend_spaces(f.table({f.locomotion()})));
  ASSERT_TRUE(a.play(0));
  EXPECT_EQ(a.play_blend_space(1).code(), StatusCode::kNotFound);
  EXPECT_EQ(a.play_blend_space(-1).code(), StatusCode::kNotFound);
  EXPECT_EQ(a.play_blend_space(0, {.start_time = 1.5f}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.play_blend_space(0, {.speed = kNaN}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.crossfade_blend_space(0, -1.0f).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.crossfade_blend_space(0, kNaN).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.current_clip(), 0);
  EXPECT_EQ(a.num_active_fades(), 0);
  EXPECT_EQ(a.parameter("speed").error().code(), StatusCode::kNotFound);  // none made
  EXPECT_EQ(a.set_parameter("speed", kNaN, 0.0f).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.set_parameter("speed", 1.0f, -1.0f).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.set_parameter("speed", 1.0f, kNaN).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.set_parameter("", 1.0f, 0.0f).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.parameter("speed").error().code(), StatusCode::kNotFound);
  for (int i = 0; i < Animator::kMaxParameters; ++i)
    ASSERT_TRUE(a.set_parameter("p" + std::to_string(i), 1.0f, 0.0f));
  EXPECT_EQ(a.set_parameter("one_more", 1.0f, 0.0f).code(), StatusCode::kResourceExhausted);
  // The space needs a "speed" parameter there is no room for.
  EXPECT_EQ(a.play_blend_space(0).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(a.current_clip(), 0);
  // A new table must keep the spaces defined, as the same objects.
  EXPECT_EQ(a.set_blend_spaces(f.table({f.locomotion()})).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.set_blend_spaces(nullptr).code(), StatusCode::kFailedPrecondition);
}

}  // namespace blend_space_test
}  // namespace anim

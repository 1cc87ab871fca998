// Root motion: the motion arithmetic, and the Animator moving its root by what its clips
// travel (loops, wraps within a tick, reverse, speeds, crossfades, synced fades, turns,
// height, a child joint, layers, set_root), with expectations worked out from the clips' keys.
#include "anim/root_motion.h"

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim_test_rig.h"

namespace anim {
namespace root_motion_test {

using animtest::axis_angle;
using animtest::kPi;

constexpr float kDt = 1.0f / 60.0f;

void expect_vec(const glm::vec3& got, const glm::vec3& want, float tol, const char* what) {
  EXPECT_NEAR(got.x, want.x, tol) << what;
  EXPECT_NEAR(got.y, want.y, tol) << what;
  EXPECT_NEAR(got.z, want.z, tol) << what;
}

// Yaw about +Y of a unit quaternion (twist), in (-pi, pi].
float yaw_of(const glm::quat& q) {
  return motion_frame({}, q, false).yaw;
}

struct Key {
  float time;
  glm::vec3 position;
  float yaw;
};

// A clip moving one joint through `keys` (linear translation, slerped rotation: a turn of
// `yaw` about +Y after `tilt`); every other joint keeps its rest pose.
Clip travel_clip(const Skeleton& s, const std::string& name, int joint, std::vector<Key> keys,
                 glm::quat tilt = glm::quat(1, 0, 0, 0)) {
  Clip clip;
  clip.name = name;
  clip.joints.resize(s.num_joints());
  Vec3Channel t;
  QuatChannel r;
  for (const Key& k : keys) {
    t.times.push_back(k.time);
    t.values.push_back(k.position);
    r.times.push_back(k.time);
    r.values.push_back(axis_angle(k.yaw, {0, 1, 0}) * tilt);
  }
  clip.joints[joint].translation = 0;
  clip.joints[joint].rotation = 0;
  clip.vec3_channels.push_back(std::move(t));
  clip.quat_channels.push_back(std::move(r));
  const Status st = clip.finalize(s.num_joints());
  EXPECT_TRUE(st.is_ok()) << st.message();
  return clip;
}

RootMotionOptions extract(int joint = -1, bool vertical = false) {
  return {RootMotionMode::kExtract, joint, vertical};
}

// The rig's walk (root 0 -> +1 x in 1 s, tilting about x) and run (0 -> +2 x in 0.6 s,
// tilting about z): anim_test_rig.h.
struct Walkers : animtest::WalkRunRig {
  Animator animator() const {
    Animator a(skeleton, clips);
    EXPECT_TRUE(a.set_root_motion(extract()));
    return a;
  }
};

void run_ticks(Animator& a, int ticks, float dt = kDt) {
  for (int i = 0; i < ticks; ++i) ASSERT_TRUE(a.update(dt));
}

TEST(RootMotionMath, ComposeInverseAndPowerByHand) {
  const RootMotion a{{1, 0, 0}, kPi / 2};
  // (1,0,0) then, turned a quarter, (1,0,0) again: (1,0,0) + (0,0,-1).
  const RootMotion aa = compose(a, a);
  expect_vec(aa.translation, {1, 0, -1}, 1e-6f, "a*a");
  EXPECT_NEAR(aa.yaw, kPi, 1e-6f);
  // Four quarter turns walk a square back to the start, having turned once around.
  const RootMotion a4 = power(a, 4);
  expect_vec(a4.translation, {0, 0, 0}, 1e-6f, "a^4");
  EXPECT_NEAR(a4.yaw, 2 * kPi, 1e-5f);
  const RootMotion inv = inverse(a);
  expect_vec(inv.translation, {0, 0, -1}, 1e-6f, "a^-1");
  EXPECT_NEAR(inv.yaw, -kPi / 2, 1e-6f);
  const RootMotion back = power(a, -3);
  expect_vec(back.translation, compose(inv, compose(inv, inv)).translation, 1e-6f, "a^-3");
  const RootMotion id = compose(a, inv);
  expect_vec(id.translation, {0, 0, 0}, 1e-6f, "a*a^-1");
  EXPECT_NEAR(id.yaw, 0.0f, 1e-6f);
  EXPECT_EQ(power(a, 0).yaw, 0.0f);
  // relative() takes the short way round: from +3 rad to -3 rad is +0.283, not -6.
  EXPECT_NEAR(relative({{}, 3.0f}, {{}, -3.0f}).yaw, 2 * kPi - 6.0f, 1e-5f);
  // ... and expresses the step in the first frame: facing +90 degrees, a step along +x
  // (world) is a step along +z in that frame.
  expect_vec(relative({{0, 0, 0}, kPi / 2}, {{1, 0, 0}, kPi / 2}).translation, {0, 0, 1}, 1e-6f,
             "relative");
  const RootMotion half = mix({{0, 0, 0}, 0.0f}, {{2, 0, 4}, 1.0f}, 0.25f);
  expect_vec(half.translation, {0.5f, 0, 1}, 1e-6f, "mix");
  EXPECT_NEAR(half.yaw, 0.25f, 1e-6f);
}

TEST(RootMotionMath, MotionFrameIsTheTwistAboutY) {
  const glm::quat q = axis_angle(0.7f, {0, 1, 0}) * axis_angle(0.3f, {1, 0, 0});
  const RootMotion m = motion_frame({1, 2, 3}, q, false);
  EXPECT_NEAR(m.yaw, 0.7f, 1e-6f);
  expect_vec(m.translation, {1, 0, 3}, 0.0f, "horizontal");
  expect_vec(motion_frame({1, 2, 3}, q, true).translation, {1, 2, 3}, 0.0f, "vertical");
  // A pure tilt has no yaw (a Z-up fix is not a turn).
  EXPECT_NEAR(yaw_of(axis_angle(-kPi / 2, {1, 0, 0})), 0.0f, 1e-6f);
}

TEST(RootMotion, WalkLoopAdvancesItsPerCycleDisplacementPerCycle) {
  Walkers w;
  Animator a = w.animator();
  // Placed at (5, 0, 2), turned +90 degrees about y, scale 2: the clip's +1 x per cycle
  // becomes 2 world units along rotY(90)(+x) = -z per cycle.
  const Transform start{{5, 0, 2}, axis_angle(kPi / 2, {0, 1, 0}), {2, 2, 2}};
  ASSERT_TRUE(a.set_root_transform(start));
  const Transform placed = a.root_transform();  // (its rotation normalized)
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.update(kDt));  // the set root wins this update: nothing moves
  EXPECT_TRUE(animtest::same_transform_bits(a.root_transform(), placed));
  ASSERT_TRUE(a.play(0));  // from the start again
  run_ticks(a, 60);
  expect_vec(a.root_transform().translation, {5, 0, 0}, 1e-4f, "one cycle");
  run_ticks(a, 120);
  expect_vec(a.root_transform().translation, {5, 0, -4}, 2e-4f, "three cycles");
  EXPECT_LT(animtest::rotation_angle(a.root_transform().rotation, start.rotation), 1e-6f);
  // The pose is in place: the root joint stays at its rest spot on the ground plane and
  // keeps the clip's tilt about x.
  const float t = a.current_clip_time();
  const Transform& root_joint = a.local_pose().locals[0];
  EXPECT_NEAR(root_joint.translation.x, 0.0f, 1e-6f);
  EXPECT_NEAR(root_joint.translation.z, 0.0f, 1e-6f);
  const Transform sampled = w.clips[0].sample_joint(0, t, w.skeleton.rest_pose[0]);
  EXPECT_LT(animtest::rotation_angle(root_joint.rotation, sampled.rotation), 1e-6f);
}

TEST(RootMotion, LoopWrapsWithinOneTickCountEveryCycle) {
  Walkers w;
  Animator a = w.animator();
  ASSERT_TRUE(a.play(0, {.start_time = 0.5f}));
  // 0.5 + 2.75 = 3.25: the end is crossed three times in one update; the walk covers 1 x
  // per second.
  ASSERT_TRUE(a.update(2.75f));
  EXPECT_NEAR(a.current_clip_time(), 0.25f, 1e-6f);
  expect_vec(a.root_transform().translation, {2.75f, 0, 0}, 1e-5f, "three wraps");
  // Once across the end: 0.25 -> 0.95 -> 0.15.
  ASSERT_TRUE(a.update(0.7f));
  ASSERT_TRUE(a.update(0.2f));
  expect_vec(a.root_transform().translation, {3.65f, 0, 0}, 1e-5f, "one wrap");
  EXPECT_NEAR(a.last_root_motion().translation.x, 0.2f, 1e-5f);
}

TEST(RootMotion, ReversePlayWalksBackwards) {
  Walkers w;
  Animator a = w.animator();
  ASSERT_TRUE(a.play(0, {.speed = -1.0f, .start_time = 0.5f}));
  run_ticks(a, 120);
  expect_vec(a.root_transform().translation, {-2, 0, 0}, 2e-4f, "two cycles back");
  // One reverse tick across the clip's start, twice: 0.5 - 2.25 = -1.75.
  Animator b = w.animator();
  ASSERT_TRUE(b.play(0, {.speed = -1.0f, .start_time = 0.5f}));
  ASSERT_TRUE(b.update(2.25f));
  EXPECT_NEAR(b.current_clip_time(), 0.25f, 1e-6f);
  expect_vec(b.root_transform().translation, {-2.25f, 0, 0}, 1e-5f, "reverse wraps");
  // A negative character speed reverses too.
  Animator c = w.animator();
  ASSERT_TRUE(c.play(0));
  ASSERT_TRUE(c.set_speed(-0.5f));
  run_ticks(c, 60);
  expect_vec(c.root_transform().translation, {-0.5f, 0, 0}, 1e-4f, "character speed -0.5");
}

TEST(RootMotion, SpeedScalesTheTravelPerSecond) {
  Walkers w;
  Animator a = w.animator();
  ASSERT_TRUE(a.play(0, {.speed = 2.0f}));
  run_ticks(a, 60);
  expect_vec(a.root_transform().translation, {2, 0, 0}, 1e-4f, "clip speed 2");
  ASSERT_TRUE(a.set_speed(0.25f));  // 2 x 0.25 = half a cycle a second
  run_ticks(a, 60);
  expect_vec(a.root_transform().translation, {2.5f, 0, 0}, 1e-4f, "character speed 0.25");
  ASSERT_TRUE(a.set_speed(0.0f));  // paused: nothing moves
  const Transform held = a.root_transform();
  run_ticks(a, 10);
  EXPECT_TRUE(animtest::same_transform_bits(a.root_transform(), held));
}

TEST(RootMotion, CrossfadeBlendsTheTravelWithTheFadeWeights) {
  Walkers w;
  Animator a = w.animator();
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.crossfade(1, 1.0f));
  // Four updates of 0.25 s: walk covers 0.25 a tick, run 0.25 x 2 / 0.6; the fade's weight
  // after each is 0.25, 0.5, 0.75, then 1 (promoted).
  const float walk = 0.25f, run = 0.25f * 2.0f / 0.6f;
  float want = 0.0f;
  for (float weight : {0.25f, 0.5f, 0.75f, 1.0f}) {
    ASSERT_TRUE(a.update(0.25f));
    want += walk * (1 - weight) + run * weight;
    EXPECT_NEAR(a.root_transform().translation.x, want, 1e-5f) << "weight " << weight;
  }
  EXPECT_EQ(a.num_active_fades(), 0);
  EXPECT_NEAR(want, 0.375f + 0.625f * 2.0f / 0.6f, 1e-5f);
}

TEST(RootMotion, SyncedCrossfadeTravelsAtTheFollowedPace) {
  Walkers w;
  Animator a = w.animator();
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.crossfade(1, 1.0f, {.sync_normalized_time = true}));
  // Synced, run covers one cycle (2 x) per walk cycle (1 s): 0.5 a tick while it follows;
  // promoted at the fourth update, whose travel it made while still synced.
  float want = 0.0f;
  for (float weight : {0.25f, 0.5f, 0.75f, 1.0f}) {
    ASSERT_TRUE(a.update(0.25f));
    want += 0.25f * (1 - weight) + 0.5f * weight;
  }
  EXPECT_NEAR(a.root_transform().translation.x, 1.625f, 1e-5f);
  EXPECT_NEAR(want, 1.625f, 1e-6f);
  ASSERT_TRUE(a.update(0.3f));  // on its own clock now: 0.3 s of run = 1 x
  EXPECT_NEAR(a.root_transform().translation.x, 2.625f, 1e-5f);
}

TEST(RootMotion, ATurningClipWalksASquare) {
  const Skeleton s = animtest::make_rig();
  // Each cycle: forward 1 along +z while turning a quarter to the left.
  std::vector<Clip> clips{travel_clip(s, "turn", 0, {{0, {0, 0, 0}, 0}, {1, {0, 0, 1}, kPi / 2}})};
  Animator a(s, clips);
  ASSERT_TRUE(a.set_root_motion(extract()));
  ASSERT_TRUE(a.play(0));
  run_ticks(a, 60);
  expect_vec(a.root_transform().translation, {0, 0, 1}, 1e-4f, "one side");
  EXPECT_NEAR(yaw_of(a.root_transform().rotation), kPi / 2, 1e-4f);
  run_ticks(a, 60);
  expect_vec(a.root_transform().translation, {1, 0, 1}, 2e-4f, "two sides");
  EXPECT_NEAR(std::abs(yaw_of(a.root_transform().rotation)), kPi, 2e-4f);
  run_ticks(a, 120);
  expect_vec(a.root_transform().translation, {0, 0, 0}, 4e-4f, "back at the start");
  EXPECT_LT(animtest::rotation_angle(a.root_transform().rotation, glm::quat(1, 0, 0, 0)), 4e-4f);
  // The joint faces the rest direction in the pose: the root carries the heading.
  EXPECT_NEAR(yaw_of(a.local_pose().locals[0].rotation), 0.0f, 1e-5f);
  // Two cycles in one update: the per-cycle turn counted twice.
  Animator b(s, clips);
  ASSERT_TRUE(b.set_root_motion(extract()));
  ASSERT_TRUE(b.play(0));
  ASSERT_TRUE(b.update(2.0f));
  expect_vec(b.root_transform().translation, {1, 0, 1}, 1e-5f, "two sides in one tick");
}

TEST(RootMotion, HeightStaysInThePoseUnlessExtracted) {
  const Skeleton s = animtest::make_rig();
  // A hop: up 0.5 at mid-cycle, forward 1 per cycle.
  std::vector<Clip> clips{
      travel_clip(s, "hop", 0, {{0, {0, 0, 0}, 0}, {0.5f, {0.5f, 0.5f, 0}, 0}, {1, {1, 0, 0}, 0}})};
  Animator flat(s, clips), up(s, clips);
  ASSERT_TRUE(flat.set_root_motion(extract(-1, false)));
  ASSERT_TRUE(up.set_root_motion(extract(-1, true)));
  for (Animator* a : {&flat, &up}) {
    ASSERT_TRUE(a->play(0));
    ASSERT_TRUE(a->update(0.5f));
  }
  expect_vec(flat.root_transform().translation, {0.5f, 0, 0}, 1e-6f, "flat root");
  EXPECT_NEAR(flat.local_pose().locals[0].translation.y, 0.5f, 1e-6f);
  expect_vec(up.root_transform().translation, {0.5f, 0.5f, 0}, 1e-6f, "vertical root");
  EXPECT_NEAR(up.local_pose().locals[0].translation.y, 0.0f, 1e-6f);
  ASSERT_TRUE(up.update(0.5f));  // and down again at the end of the cycle
  expect_vec(up.root_transform().translation, {1, 0, 0}, 1e-6f, "landed");
}

TEST(RootMotion, AChildJointCarriesItsOwnTravel) {
  Walkers w;
  const int spine = w.skeleton.find_joint("spine");
  Animator a(w.skeleton, w.clips);
  ASSERT_TRUE(a.set_root_motion(extract(spine)));
  EXPECT_EQ(a.root_motion().joint, spine);
  ASSERT_TRUE(a.play(0));
  run_ticks(a, 60);
  // The spine rides 0.5 above the root joint, which tilts to 0.08 rad about x at the cycle's
  // end: the spine's cycle travel is (1, 0, 0.5 sin 0.08) on the ground plane.
  expect_vec(a.root_transform().translation, {1, 0, 0.5f * std::sin(0.08f)}, 1e-4f, "spine");
  run_ticks(a, 15);
  // Pinned: the spine's model position is over the rest spot (0, _, 0).
  const glm::vec3 p = animtest::joint_position(a, spine);
  EXPECT_NEAR(p.x, 0.0f, 1e-5f);
  EXPECT_NEAR(p.z, 0.0f, 1e-5f);
}

TEST(RootMotion, TravelIsMeasuredAgainstTheRestFrame) {
  // A root joint whose rest pose is turned +90 degrees: the clip's travel along model +x is
  // the root's travel along +x (not along the joint's own axes).
  Skeleton s = animtest::make_rig();
  s.rest_pose[0].rotation = axis_angle(kPi / 2, {0, 1, 0});
  std::vector<Clip> clips{
      travel_clip(s, "slide", 0, {{0, {0, 0, 0}, kPi / 2}, {1, {1, 0, 0}, kPi / 2}})};
  Animator a(s, clips);
  ASSERT_TRUE(a.set_root_motion(extract()));
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.update(0.5f));
  expect_vec(a.root_transform().translation, {0.5f, 0, 0}, 1e-6f, "slide");
  EXPECT_NEAR(yaw_of(a.root_transform().rotation), 0.0f, 1e-6f);
  EXPECT_NEAR(yaw_of(a.local_pose().locals[0].rotation), kPi / 2, 1e-6f);
  expect_vec(a.local_pose().locals[0].translation, {0, 0, 0}, 1e-6f, "pinned");
}

TEST(RootMotion, LayersMoveNothing) {
  Walkers w;
  Animator plain = w.animator(), layered = w.animator();
  for (Animator* a : {&plain, &layered}) ASSERT_TRUE(a->play(0));
  // The run as an additive layer and as a full-weight override: both travel, neither
  // moves the root.
  AdditiveLayerDesc add;
  add.clip = 1;
  AdditiveLayerDesc over = add;
  over.blend = LayerBlend::kOverride;
  ASSERT_TRUE(layered.add_layer(add).has_value());
  ASSERT_TRUE(layered.add_layer(over).has_value());
  run_ticks(plain, 45);
  run_ticks(layered, 45);
  EXPECT_TRUE(animtest::same_transform_bits(plain.root_transform(), layered.root_transform()));
  EXPECT_NEAR(layered.root_transform().translation.x, 0.75f, 1e-4f);
  // The override layer's pose is in place too: its root joint is at the rest spot.
  EXPECT_NEAR(layered.local_pose().locals[0].translation.x, 0.0f, 1e-6f);
}

TEST(RootMotion, SetRootWinsForItsUpdate) {
  Walkers w;
  Animator a = w.animator();
  ASSERT_TRUE(a.play(0));
  run_ticks(a, 30);
  const Transform placed{{10, 0, 10}, glm::quat(1, 0, 0, 0), {1, 1, 1}};
  ASSERT_TRUE(a.set_root_transform(placed));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_TRUE(animtest::same_transform_bits(a.root_transform(), placed));
  EXPECT_EQ(a.last_root_motion().translation, glm::vec3(0.0f));
  ASSERT_TRUE(a.update(kDt));  // and it moves on from there
  EXPECT_NEAR(a.root_transform().translation.x, 10.0f + kDt, 1e-5f);
}

TEST(RootMotion, OffLeavesTheTravelInThePose) {
  Walkers w;
  Animator a(w.skeleton, w.clips);
  ASSERT_TRUE(a.play(0));
  ASSERT_TRUE(a.update(0.5f));
  EXPECT_EQ(a.root_transform().translation, glm::vec3(0.0f));
  EXPECT_NEAR(a.local_pose().locals[0].translation.x, 0.5f, 1e-6f);
  // Switched on: pinned from the next update, the root moving by that update's travel.
  ASSERT_TRUE(a.set_root_motion(extract()));
  ASSERT_TRUE(a.update(0.25f));
  EXPECT_NEAR(a.local_pose().locals[0].translation.x, 0.0f, 1e-6f);
  EXPECT_NEAR(a.root_transform().translation.x, 0.25f, 1e-6f);
  // And off again: the travel is back in the pose, the root stays where it got to.
  ASSERT_TRUE(a.set_root_motion({}));
  ASSERT_TRUE(a.update(0.0f));
  EXPECT_NEAR(a.local_pose().locals[0].translation.x, 0.75f, 1e-6f);
  EXPECT_NEAR(a.root_transform().translation.x, 0.25f, 1e-6f);
}

TEST(RootMotion, BadSettingsAreRefusedAndChangeNothing) {
  Walkers w;
  Animator a(w.skeleton, w.clips);
  ASSERT_TRUE(a.set_root_motion(extract(3, true)));
  for (int joint : {10, -2, 1000}) {
    const Status st = a.set_root_motion(extract(joint));
    EXPECT_EQ(st.code(), StatusCode::kNotFound) << joint;
    EXPECT_NE(st.message().find("joint index " + std::to_string(joint)), std::string::npos)
        << st.message();
  }
  RootMotionOptions bad = extract();
  bad.mode = static_cast<RootMotionMode>(7);
  const Status st = a.set_root_motion(bad);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("mode"), std::string::npos) << st.message();
  EXPECT_EQ(a.root_motion().joint, 3);
  EXPECT_TRUE(a.root_motion().extract_vertical);
  EXPECT_EQ(a.root_motion().mode, RootMotionMode::kExtract);
}

TEST(RootMotion, SameCommandsGiveBitIdenticalRoots) {
  Walkers w;
  auto drive = [&] {
    Animator a = w.animator();
    EXPECT_TRUE(a.play(0, {.speed = 1.3f}));
    for (int i = 0; i < 200; ++i) {
      Status st;
      if (i == 40) st = a.crossfade(1, 0.4f, {.sync_normalized_time = true});
      if (i == 90) st = a.set_speed(-0.7f);
      if (i == 120) st = a.crossfade(0, 0.3f);
      EXPECT_TRUE(st.is_ok()) << st.message();
      EXPECT_TRUE(a.update(kDt * (1.0f + 0.01f * static_cast<float>(i % 7))));
    }
    return a.root_transform();
  };
  EXPECT_TRUE(animtest::same_transform_bits(drive(), drive()));
}

}  // namespace root_motion_test
}  // namespace anim

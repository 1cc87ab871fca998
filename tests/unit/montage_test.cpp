// Montages (Animator::play_montage / stop_montage) on the built-in character: "wave" played
// once in an upper-body slot over "walk". Expected weights are hand-computed from the ramps
// (docs/animation.md, "Montages"); expected poses are the clips sampled directly and blended
// with blend() at that weight.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/blend.h"
#include "anim/loaders/builtin_character.h"
#include "anim_test_rig.h"
#include "builtin_clips.h"

namespace anim {
namespace montage_test {

using animtest::builtin;

int clip(const char* name) {
  return animtest::builtin_clip(name);
}

std::vector<Transform> sample(int c, float t) {
  return animtest::sample_builtin(c, t);
}

JointMask upper_body() {
  return *JointMask::subtree(builtin().skeleton, builtin().skeleton.find_joint("chest"));
}

// Walk playing, an empty upper-body slot added; returns the slot's id.
int walk_with_slot(Animator& a) {
  EXPECT_TRUE(a.play(clip("walk")));
  AdditiveLayerDesc d;
  d.blend = LayerBlend::kOverride;
  d.mask = upper_body();
  const Expected<int> slot = a.add_layer(d);
  EXPECT_TRUE(slot.has_value()) << (slot ? "" : slot.error().message());
  return slot ? *slot : -1;
}

// Whether two transforms agree within 1e-5 (clocks summed over several updates round
// differently from the expected times written in one sum).
bool near(const Transform& a, const Transform& b) {
  const float tol = 1e-5f;
  for (int i = 0; i < 3; ++i)
    if (std::abs(a.translation[i] - b.translation[i]) > tol ||
        std::abs(a.scale[i] - b.scale[i]) > tol)
      return false;
  return std::abs(std::abs(glm::dot(a.rotation, b.rotation)) - 1.0f) < tol;
}

// The pose walk at `walk_time` (looping) with wave at `wave_time` over the upper body at
// `weight` (0: walk alone).
void expect_pose(const Animator& a, float walk_time, float wave_time, float weight) {
  const float walk_duration = builtin().clips[clip("walk")].duration;
  const auto walk = sample(clip("walk"), std::fmod(walk_time, walk_duration));
  std::vector<Transform> want(walk.size());
  if (weight > 0.0f)
    blend(walk, sample(clip("wave"), wave_time), weight, upper_body(), want);
  else
    want = walk;
  for (size_t j = 0; j < want.size(); ++j)
    EXPECT_TRUE(near(a.local_pose().locals[j], want[j]))
        << builtin().skeleton.names[j] << " (walk " << walk_time << ", wave " << wave_time
        << ", weight " << weight << ")";
}

float wave_duration() {
  return builtin().clips[clip("wave")].duration;
}

TEST(Montage, AnEmptySlotChangesNothing) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.update(0.3f));
  expect_pose(a, 0.3f, 0.0f, 0.0f);
  const Expected<MontageState> state = a.montage(slot);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->phase, MontagePhase::kNone);
  EXPECT_EQ(state->clip, -1);
  EXPECT_EQ(state->weight, 0.0f);
}

TEST(Montage, RampsInHoldsAndRampsOutToTheClipsEndThenFallsSilent) {
  const Asset& asset = builtin();
  const float d = wave_duration();
  ASSERT_GT(d, 1.0f);
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  // rate 2: the clip lasts d / 2 s; blend in over 0.2 s, out over the last 0.25 s.
  ASSERT_TRUE(a.play_montage(slot, {clip("wave"), 2.0f, 0.2f, 0.25f, 0.0f}));
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kPlaying);
  EXPECT_EQ(a.montage(slot)->weight, 0.0f);
  ASSERT_TRUE(a.update(0.05f));  // a quarter of the blend-in
  EXPECT_NEAR(a.montage(slot)->weight, 0.25f, 1e-6f);
  EXPECT_NEAR(a.montage(slot)->time, 0.1f, 1e-6f);
  expect_pose(a, 0.05f, a.montage(slot)->time, a.montage(slot)->weight);
  ASSERT_TRUE(a.update(0.25f));  // t = 0.3: full weight
  EXPECT_EQ(a.montage(slot)->weight, 1.0f);
  expect_pose(a, 0.3f, a.montage(slot)->time, 1.0f);
  // 0.1 s before the end (clip time d - 0.2): 0.1 / 0.25 of the blend-out left.
  const float end = d / 2.0f;
  ASSERT_TRUE(a.update(end - 0.1f - 0.3f));
  EXPECT_NEAR(a.montage(slot)->weight, 0.4f, 1e-4f);
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kPlaying);
  ASSERT_TRUE(a.update(0.2f));  // past the end: held at the last frame, weight 0
  const MontageState ended = *a.montage(slot);
  EXPECT_EQ(ended.phase, MontagePhase::kEnded);
  EXPECT_EQ(ended.weight, 0.0f);
  EXPECT_EQ(ended.time, d);
  EXPECT_EQ(ended.clip, clip("wave"));
  expect_pose(a, end + 0.1f, 0.0f, 0.0f);
  // Ended, it stays silent and still.
  ASSERT_TRUE(a.update(1.0f));
  EXPECT_EQ(a.montage(slot)->time, d);
  expect_pose(a, end + 1.1f, 0.0f, 0.0f);
}

TEST(Montage, StopBlendsOutFromTheWeightItHadThen) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.play_montage(slot, {clip("wave"), 1.0f, 0.4f, 0.0f, 0.0f}));
  ASSERT_TRUE(a.update(0.3f));  // 3/4 in
  ASSERT_NEAR(a.montage(slot)->weight, 0.75f, 1e-6f);
  ASSERT_TRUE(a.stop_montage(slot, 0.5f));
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kStopping);
  ASSERT_TRUE(a.update(0.1f));  // a fifth of the way out: 0.75 * 0.8
  EXPECT_NEAR(a.montage(slot)->weight, 0.6f, 1e-6f);
  EXPECT_NEAR(a.montage(slot)->time, 0.4f, 1e-6f);  // the clip goes on meanwhile
  expect_pose(a, 0.4f, a.montage(slot)->time, a.montage(slot)->weight);
  ASSERT_TRUE(a.update(0.4f));
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kEnded);
  expect_pose(a, 0.8f, 0.0f, 0.0f);
  // Stopping what ended is refused; a stop with no blend-out is silent at the next update.
  EXPECT_EQ(a.stop_montage(slot, 0.1f).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(a.play_montage(slot, {clip("wave"), 1.0f, 0.0f, 0.0f, 0.0f}));
  ASSERT_TRUE(a.update(0.1f));
  EXPECT_EQ(a.montage(slot)->weight, 1.0f);
  ASSERT_TRUE(a.stop_montage(slot, 0.0f));
  ASSERT_TRUE(a.update(0.1f));
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kEnded);
  expect_pose(a, 1.0f, 0.0f, 0.0f);
}

TEST(Montage, AReplacingMontageBlendsInFromTheWeightOfTheOneItReplaces) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.play_montage(slot, {clip("wave"), 1.0f, 1.0f, 0.0f, 0.0f}));
  ASSERT_TRUE(a.update(0.4f));  // weight 0.4
  ASSERT_TRUE(a.play_montage(slot, {clip("wave"), 1.0f, 0.5f, 0.0f, 0.2f}));
  EXPECT_NEAR(a.montage(slot)->weight, 0.4f, 1e-6f);
  EXPECT_EQ(a.montage(slot)->time, 0.2f);
  ASSERT_TRUE(a.update(0.25f));  // halfway from 0.4 to 1
  EXPECT_NEAR(a.montage(slot)->weight, 0.7f, 1e-6f);
  EXPECT_NEAR(a.montage(slot)->time, 0.45f, 1e-6f);
}

TEST(Montage, RunsForwardAtTheCharactersSpeedWhateverItsSign) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.set_speed(-0.5f));
  ASSERT_TRUE(a.play_montage(slot, {clip("wave"), 2.0f, 0.2f, 0.0f, 0.0f}));
  ASSERT_TRUE(a.update(0.2f));  // 0.1 s of character time
  EXPECT_NEAR(a.montage(slot)->time, 0.2f, 1e-6f);
  EXPECT_NEAR(a.montage(slot)->weight, 0.5f, 1e-6f);
}

TEST(Montage, BadRequestsAreRefusedNamingTheFieldAndChangeNothing) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  AdditiveLayerDesc own;
  own.clip = clip("wave");
  own.blend = LayerBlend::kOverride;
  const int clip_layer = *a.add_layer(own);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int wave = clip("wave");
  struct Case {
    int slot;
    MontageDesc desc;
    StatusCode code;
    const char* names;
  };
  const Case cases[] = {
      {999, {wave}, StatusCode::kNotFound, "no layer with id 999"},
      {clip_layer, {wave}, StatusCode::kFailedPrecondition, "plays its own clip"},
      {slot, {999}, StatusCode::kNotFound, "999"},
      {slot, {wave, 0.0f}, StatusCode::kInvalidArgument, "rate"},
      {slot, {wave, -1.0f}, StatusCode::kInvalidArgument, "rate"},
      {slot, {wave, nan}, StatusCode::kInvalidArgument, "rate"},
      {slot, {wave, 1.0f, nan}, StatusCode::kInvalidArgument, "blend_in"},
      {slot, {wave, 1.0f, 0.0f, -0.1f}, StatusCode::kInvalidArgument, "blend_out"},
      {slot, {wave, 1.0f, 0.0f, 0.0f, wave_duration()}, StatusCode::kInvalidArgument, "start_time"},
      {slot, {wave, 1.0f, 0.0f, 0.0f, -1.0f}, StatusCode::kInvalidArgument, "start_time"},
  };
  for (const Case& c : cases) {
    const Status s = a.play_montage(c.slot, c.desc);
    EXPECT_EQ(s.code(), c.code) << c.names << ": " << s.message();
    EXPECT_NE(s.message().find(c.names), std::string::npos) << s.message();
  }
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kNone);
  EXPECT_EQ(a.stop_montage(slot, 0.2f).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.stop_montage(clip_layer, 0.2f).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.montage(clip_layer).error().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.montage(12345).error().code(), StatusCode::kNotFound);
  ASSERT_TRUE(a.play_montage(slot, {wave}));
  EXPECT_EQ(a.stop_montage(slot, nan).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.montage(slot)->phase, MontagePhase::kPlaying);
  // A slot takes its time from its montages: no other time source.
  AdditiveLayerDesc param_slot;
  param_slot.blend = LayerBlend::kOverride;
  param_slot.time_source = LayerTimeSource::kParameter;
  const Expected<int> refused = a.add_layer(param_slot);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message().find("time source"), std::string::npos);
  // An additive layer still needs a clip.
  AdditiveLayerDesc additive;
  EXPECT_EQ(a.add_layer(additive).error().code(), StatusCode::kNotFound);
}

TEST(Montage, RemovingTheSlotRemovesItsMontage) {
  const Asset& asset = builtin();
  Animator a(asset.skeleton, asset.clips);
  const int slot = walk_with_slot(a);
  ASSERT_TRUE(a.play_montage(slot, {clip("wave"), 1.0f, 0.0f, 0.0f, 0.0f}));
  ASSERT_TRUE(a.update(0.2f));
  ASSERT_TRUE(a.remove_layer(slot));
  ASSERT_TRUE(a.update(0.1f));
  expect_pose(a, 0.3f, 0.0f, 0.0f);
  EXPECT_EQ(a.montage(slot).error().code(), StatusCode::kNotFound);
}

}  // namespace montage_test
}  // namespace anim

// Morph weights in the Animator (morph_evaluation.h, docs/animation.md "Morph targets"): the
// clips' weights blended as their poses are (fades, override and additive layers, morph
// masks), the game's overrides with their blend times, and the refusals. Hand-computed on
// copies of the built-in character's idle clip given morph channels: "face" animates set Face
// (smile, blink) linearly from (0, 0) at 0 s to (1, 0.5) at the clip's end, "body" holds set
// Body's bulge at 1 (STEP), "plain" animates none. Defaults: smile 0.1, blink 0.2, bulge 0.5.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/clip.h"
#include "anim/morph_layout.h"
#include "builtin_clips.h"

namespace anim {
namespace morph_blend_test {

constexpr float kTol = 1e-6f;

MorphSet morph_set(const char* name, std::vector<const char*> targets,
                   std::vector<float> defaults) {
  MorphSet s;
  s.name = name;
  for (const char* t : targets) s.targets.push_back(MorphTarget{t, {}, {}, {}});
  s.default_weights = std::move(defaults);
  return s;
}

struct Rig {
  std::vector<Clip> clips;
  std::shared_ptr<const MorphLayout> layout;
  float duration = 0.0f;
  int face = 0, body = 1, plain = 2;

  Rig() {
    const Asset& a = animtest::builtin();
    const Clip& idle = a.clips[static_cast<size_t>(animtest::builtin_clip("idle"))];
    duration = idle.duration;
    const auto copy = [&](const char* name) {
      Clip c = idle;
      c.name = name;
      return c;
    };
    Clip face_clip = copy("face");
    MorphWeightChannel fc;
    fc.set = 0;
    fc.num_targets = 2;
    fc.times = {0.0f, duration};
    fc.values = {0.0f, 0.0f, 1.0f, 0.5f};
    face_clip.morph_channels.push_back(fc);
    Clip body_clip = copy("body");
    MorphWeightChannel bc;
    bc.set = 1;
    bc.num_targets = 1;
    bc.interpolation = Interpolation::kStep;
    bc.times = {0.0f, duration};
    bc.values = {1.0f, 0.0f};
    body_clip.morph_channels.push_back(bc);
    clips = {face_clip, body_clip, copy("plain")};
    for (Clip& c : clips) EXPECT_TRUE(c.finalize(a.skeleton.num_joints()));
    SkinnedMesh mesh;
    mesh.morph_sets = {morph_set("Face", {"smile", "blink"}, {0.1f, 0.2f}),
                       morph_set("Body", {"bulge"}, {0.5f})};
    layout = std::make_shared<const MorphLayout>(make_morph_layout(mesh));
  }

  Animator animator() const {
    Animator a(animtest::builtin().skeleton, clips);
    EXPECT_TRUE(a.set_morph_layout(layout));
    return a;
  }
  // Plays `clip` frozen at `t` seconds.
  void hold(Animator& a, int clip, float t) const {
    ASSERT_TRUE(a.play(clip, {.loop = true, .speed = 0.0f, .start_time = t}));
  }
};

void expect_weights(const Animator& a, std::vector<float> want) {
  ASSERT_EQ(a.morph_weights().size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(a.morph_weights()[i], want[i], kTol) << i;
}

TEST(MorphLayoutTest, NamesEveryTargetOfEverySetInOrder) {
  const Rig rig;
  const MorphLayout& l = *rig.layout;
  EXPECT_EQ(l.num_weights(), 3);
  EXPECT_EQ(l.set_first, (std::vector<int>{0, 2}));
  EXPECT_EQ(l.set_count, (std::vector<int>{2, 1}));
  EXPECT_EQ(l.names, (std::vector<std::string>{"Face/smile", "Face/blink", "Body/bulge"}));
  EXPECT_EQ(*l.find("blink"), 1);
  EXPECT_EQ(*l.find("Body/bulge"), 2);
  EXPECT_EQ(l.find("frown").error().code(), StatusCode::kNotFound);
  EXPECT_EQ(*l.resolve("Face"), (std::vector<int>{0, 1}));
}

TEST(MorphLayoutTest, RefusesABareNameSeveralSetsShare) {
  SkinnedMesh mesh;
  mesh.morph_sets = {morph_set("Head", {"open"}, {0.0f}), morph_set("Jaw", {"open"}, {0.0f})};
  const MorphLayout l = make_morph_layout(mesh);
  const Expected<int> r = l.find("open");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("'Head/open', 'Jaw/open'"), std::string::npos)
      << r.error().message();
  EXPECT_EQ(*l.find("Jaw/open"), 1);
}

TEST(MorphBlend, StartsAtTheDefaultsAndPlaysAClipsChannels) {
  const Rig rig;
  Animator a = rig.animator();
  expect_weights(a, {0.1f, 0.2f, 0.5f});
  rig.hold(a, rig.face, rig.duration / 2);
  ASSERT_TRUE(a.update(0.0f));
  expect_weights(a, {0.5f, 0.25f, 0.5f});  // Body: not animated by "face", its default
}

TEST(MorphBlend, CrossfadesLerpWithTheFadesWeight) {
  const Rig rig;
  Animator a = rig.animator();
  rig.hold(a, rig.face, rig.duration / 2);
  ASSERT_TRUE(a.crossfade(rig.body, 1.0f));
  ASSERT_TRUE(a.update(0.25f));
  // "body" gives Face its defaults (0.1, 0.2) and bulge 1; the fade's weight is 0.25.
  expect_weights(a, {0.5f + (0.1f - 0.5f) * 0.25f, 0.25f + (0.2f - 0.25f) * 0.25f,
                     0.5f + (1.0f - 0.5f) * 0.25f});
}

TEST(MorphBlend, AnOverrideLayerReachesOnlyTheSetsItsClipAnimates) {
  const Rig rig;
  Animator a = rig.animator();
  rig.hold(a, rig.face, rig.duration / 2);
  AdditiveLayerDesc d;
  d.clip = rig.body;
  d.blend = LayerBlend::kOverride;
  d.weight = 0.5f;
  ASSERT_TRUE(a.add_layer(d));
  ASSERT_TRUE(a.update(0.0f));
  expect_weights(a, {0.5f, 0.25f, 0.75f});
}

TEST(MorphBlend, AnAdditiveLayerAddsItsDeltaAgainstTheReference) {
  const Rig rig;
  Animator a = rig.animator();
  rig.hold(a, rig.plain, 0.0f);
  AdditiveLayerDesc d;
  d.clip = rig.face;
  d.blend = LayerBlend::kAdditive;
  d.reference_clip = rig.face;
  d.reference_time = 0.0f;
  d.start_time = rig.duration / 2;
  d.speed = 0.0f;
  d.weight = 0.5f;
  ASSERT_TRUE(a.add_layer(d));
  ASSERT_TRUE(a.update(0.0f));
  // Face: default + 0.5 x ((0.5, 0.25) - (0, 0)); Body untouched.
  expect_weights(a, {0.1f + 0.25f, 0.2f + 0.125f, 0.5f});
}

TEST(MorphBlend, AMorphMaskKeepsOnlyTheNamedTargets) {
  const Rig rig;
  Animator a = rig.animator();
  rig.hold(a, rig.plain, 0.0f);
  AdditiveLayerDesc d;
  d.clip = rig.face;
  d.blend = LayerBlend::kOverride;
  d.start_time = rig.duration / 2;
  d.speed = 0.0f;
  d.morph_targets = {"blink"};
  ASSERT_TRUE(a.add_layer(d));
  ASSERT_TRUE(a.update(0.0f));
  expect_weights(a, {0.1f, 0.25f, 0.5f});

  d.morph_targets = {"Face"};  // a set's name: all its targets
  Animator b = rig.animator();
  rig.hold(b, rig.plain, 0.0f);
  ASSERT_TRUE(b.add_layer(d));
  ASSERT_TRUE(b.update(0.0f));
  expect_weights(b, {0.5f, 0.25f, 0.5f});
}

TEST(MorphBlend, ALayerNamingAnUnknownTargetIsRefused) {
  const Rig rig;
  Animator a = rig.animator();
  AdditiveLayerDesc d;
  d.clip = rig.face;
  d.blend = LayerBlend::kOverride;
  d.morph_targets = {"frown"};
  const Expected<int> r = a.add_layer(d);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), StatusCode::kNotFound);
  EXPECT_EQ(a.num_layers(), 0);

  Animator bare(animtest::builtin().skeleton, rig.clips);  // no layout
  d.morph_targets = {"smile"};
  EXPECT_EQ(bare.add_layer(d).error().code(), StatusCode::kFailedPrecondition);
}

TEST(MorphBlend, SetWeightsBlendFromTheShownValueThenHold) {
  const Rig rig;
  Animator a = rig.animator();
  rig.hold(a, rig.face, rig.duration / 2);
  ASSERT_TRUE(a.update(0.0f));
  const MorphWeightValue smile{0, 1.0f};
  ASSERT_TRUE(a.set_morph_weights(std::span(&smile, 1), 1.0f));
  EXPECT_EQ(a.num_morph_overrides(), 1);
  ASSERT_TRUE(a.update(0.5f));
  expect_weights(a, {0.75f, 0.25f, 0.5f});
  ASSERT_TRUE(a.update(0.5f));
  expect_weights(a, {1.0f, 0.25f, 0.5f});
  ASSERT_TRUE(a.update(1.0f));
  expect_weights(a, {1.0f, 0.25f, 0.5f});

  const int index = 0;
  ASSERT_TRUE(a.clear_morph_weights(std::span(&index, 1), 1.0f));
  ASSERT_TRUE(a.update(0.5f));
  expect_weights(a, {0.75f, 0.25f, 0.5f});  // halfway back to the clip's 0.5
  ASSERT_TRUE(a.update(0.5f));
  expect_weights(a, {0.5f, 0.25f, 0.5f});
  EXPECT_EQ(a.num_morph_overrides(), 0);
  EXPECT_FALSE(a.morph_overridden(0));
}

TEST(MorphBlend, ZeroBlendTimeSetsAtTheNextUpdateAndClearAllReleasesEverything) {
  const Rig rig;
  Animator a = rig.animator();
  rig.hold(a, rig.face, rig.duration / 2);
  const std::vector<MorphWeightValue> set{{1, -0.5f}, {2, 2.0f}};
  ASSERT_TRUE(a.set_morph_weights(set, 0.0f));
  ASSERT_TRUE(a.update(0.0f));
  expect_weights(a, {0.5f, -0.5f, 2.0f});
  ASSERT_TRUE(a.clear_morph_weights({}, 0.0f));
  EXPECT_EQ(a.num_morph_overrides(), 0);
  ASSERT_TRUE(a.update(0.0f));
  expect_weights(a, {0.5f, 0.25f, 0.5f});
}

TEST(MorphBlend, BadCommandsAreRefusedAndChangeNothing) {
  const Rig rig;
  Animator a = rig.animator();
  rig.hold(a, rig.face, rig.duration / 2);
  ASSERT_TRUE(a.update(0.0f));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto code = [&](std::vector<MorphWeightValue> w, float blend) {
    return a.set_morph_weights(w, blend).code();
  };
  EXPECT_EQ(code({{3, 1.0f}}, 0.0f), StatusCode::kNotFound);
  EXPECT_EQ(code({{0, nan}}, 0.0f), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{0, 2.5f}}, 0.0f), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{0, 1.0f}, {0, 0.5f}}, 0.0f), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{0, 1.0f}}, -1.0f), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{0, 1.0f}}, nan), StatusCode::kInvalidArgument);
  // A good weight beside a bad one is not applied either.
  EXPECT_EQ(code({{1, 1.0f}, {0, nan}}, 0.0f), StatusCode::kInvalidArgument);
  const int bad = 7;
  EXPECT_EQ(a.clear_morph_weights(std::span(&bad, 1), 0.0f).code(), StatusCode::kNotFound);
  EXPECT_EQ(a.num_morph_overrides(), 0);
  ASSERT_TRUE(a.update(0.0f));
  expect_weights(a, {0.5f, 0.25f, 0.5f});

  Animator bare(animtest::builtin().skeleton, rig.clips);
  EXPECT_TRUE(bare.morph_weights().empty());
  EXPECT_EQ(bare.set_morph_weights(std::vector<MorphWeightValue>{{0, 1.0f}}, 0.0f).code(),
            StatusCode::kFailedPrecondition);
}

TEST(MorphBlend, TheLayoutIsSetBeforeLayersAndMustFitTheClips) {
  const Rig rig;
  Animator a(animtest::builtin().skeleton, rig.clips);
  AdditiveLayerDesc d;
  d.clip = rig.face;
  ASSERT_TRUE(a.add_layer(d));
  EXPECT_EQ(a.set_morph_layout(rig.layout).code(), StatusCode::kFailedPrecondition);

  SkinnedMesh one;
  one.morph_sets = {morph_set("Face", {"smile"}, {0.0f})};  // "face" animates 2 targets
  Animator b(animtest::builtin().skeleton, rig.clips);
  const Status s = b.set_morph_layout(std::make_shared<const MorphLayout>(make_morph_layout(one)));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("clip 'face'"), std::string::npos) << s.message();
  EXPECT_EQ(b.morph_layout(), nullptr);
}

TEST(MorphBlend, CopiesCarryOverridesAndUpdateAlike) {
  const Rig rig;
  Animator a = rig.animator();
  ASSERT_TRUE(a.play(rig.face));
  ASSERT_TRUE(a.set_morph_weights(std::vector<MorphWeightValue>{{2, 0.0f}}, 0.3f));
  ASSERT_TRUE(a.update(0.1f));
  Animator b = a;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(a.update(1.0f / 60));
    ASSERT_TRUE(b.update(1.0f / 60));
    for (size_t k = 0; k < 3; ++k) ASSERT_EQ(a.morph_weights()[k], b.morph_weights()[k]);
  }
}

}  // namespace morph_blend_test
}  // namespace anim

// Animator::capture_state / restore_state (animator_state.h): a restored Animator goes on
// exactly as the one it was captured from. Every case runs the original and the restored copy
// side by side through the same commands and dts and compares the palettes bit for bit at
// every update (and the fired events, morph weights and introspection); refusals leave the
// Animator as it was.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/blend_space.h"
#include "anim/morph_layout.h"
#include "anim/state_machine.h"
#include "builtin_clips.h"
#include "every_feature_animator.h"

namespace anim {
namespace animator_state_test {

// The dt of update k: not constant, so that a clock restored with a wrong carry or phase
// shows.
float dt_of(int k) {
  return 1.0f / 60.0f + 0.003f * static_cast<float>(k % 5);
}

::testing::AssertionResult same_output(const Animator& a, const Animator& b) {
  const auto pa = a.palette(), pb = b.palette();
  if (pa.size() != pb.size()) return ::testing::AssertionFailure() << "palette sizes differ";
  if (std::memcmp(pa.data(), pb.data(), pa.size_bytes()) != 0)
    return ::testing::AssertionFailure() << "palettes differ";
  const auto ea = a.fired_events(), eb = b.fired_events();
  if (ea.size() != eb.size())
    return ::testing::AssertionFailure() << ea.size() << " events against " << eb.size();
  for (size_t i = 0; i < ea.size(); ++i)
    if (ea[i].clip != eb[i].clip || ea[i].event != eb[i].event || ea[i].weight != eb[i].weight ||
        ea[i].source != eb[i].source || ea[i].layer_id != eb[i].layer_id)
      return ::testing::AssertionFailure() << "event " << i << " differs";
  const auto ma = a.morph_weights(), mb = b.morph_weights();
  if (ma.size() != mb.size() ||
      (!ma.empty() && std::memcmp(ma.data(), mb.data(), ma.size_bytes()) != 0))
    return ::testing::AssertionFailure() << "morph weights differ";
  const Transform ra = a.root_transform(), rb = b.root_transform();
  if (std::memcmp(&ra, &rb, sizeof ra) != 0) return ::testing::AssertionFailure() << "roots differ";
  return ::testing::AssertionSuccess();
}

// Restores `a`'s state into a fresh Animator made by `make` and runs both for `ticks`
// updates, calling `command(animator, k)` on both before update k.
template <typename Make, typename Command>
void expect_same_future(Animator& a, Make make, int ticks, Command command) {
  const AnimatorState state = a.capture_state();
  Animator b = make();
  ASSERT_TRUE(b.restore_state(state)) << b.restore_state(state).message();
  EXPECT_EQ(a.num_layers(), b.num_layers());
  EXPECT_EQ(a.num_ik_goals(), b.num_ik_goals());
  EXPECT_EQ(a.current_clip(), b.current_clip());
  EXPECT_EQ(a.current_clip_time(), b.current_clip_time());
  for (int k = 0; k < ticks; ++k) {
    command(a, k);
    command(b, k);
    ASSERT_TRUE(a.update(dt_of(k)));
    ASSERT_TRUE(b.update(dt_of(k)));
    ASSERT_TRUE(same_output(a, b)) << "update " << k;
  }
}

TEST(AnimatorState, EveryFeatureGoesOnBitForBitAfterARestore) {
  animtest::EveryFeatureRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(a));
  for (int k = 0; k < 37; ++k) ASSERT_TRUE(a.update(dt_of(k)));
  ASSERT_GT(a.num_active_fades(), 0);  // captured in the middle of fades
  expect_same_future(
      a, [&] { return Animator(rig.skeleton, rig.clips); }, 300,
      [&](Animator& x, int k) {
        // Commands on both, as a game server would send them.
        if (k == 40) {
          ASSERT_TRUE(x.crossfade(0, 0.5f, {.sync_markers = true}));
        }
        if (k == 90) {
          ASSERT_TRUE(x.update_layer(1, {0.3f, -1.5f, 0.0f}));
        }
        if (k == 120) {
          ASSERT_TRUE(x.update_ik_target(2, {0.3f, 0.7f, 0.2f}, 0.8f));
        }
        if (k == 150) {
          ASSERT_TRUE(x.set_root_transform({{0, 0, 1}, {1, 0, 0, 0}, {1, 1, 1}}));
        }
        if (k == 200) {
          ASSERT_TRUE(x.stop_montage(4, 0.3f));
        }
        if (k == 230) {
          ASSERT_TRUE(x.set_speed(-0.7f));
        }
      });
}

// The built-in character: a blend space with a smoothed parameter fading into a state
// machine, a montage with looping sections, foot IK on a ground and aim IK.
struct BuiltinRig {
  const Asset& asset = animtest::builtin();
  std::shared_ptr<const BlendSpaceTable> spaces;
  std::shared_ptr<const StateMachine> machine;

  BuiltinRig() {
    auto table = std::make_shared<BlendSpaceTable>();
    BlendSpaceDesc d{"locomotion",
                     {"speed"},
                     {{animtest::builtin_clip("idle"), {0, 0}},
                      {animtest::builtin_clip("walk"), {1.4f, 0}},
                      {animtest::builtin_clip("run"), {4.0f, 0}}}};
    auto space = make_blend_space(d, asset.clips, asset.skeleton.num_joints());
    EXPECT_TRUE(space.has_value());
    if (space) table->spaces.push_back(std::make_shared<const BlendSpace>(std::move(*space)));
    spaces = table;
    StateMachineDesc m;
    m.name = "moves";
    m.states = {{"move", "locomotion"}, {"wave", "wave", 1.0f, false}};
    TransitionDesc go;
    go.from = "move";
    go.to = "wave";
    go.duration = 0.3f;
    go.conditions = {{"hello", ConditionOp::kTrigger, 0.0f}};
    TransitionDesc back = go;
    back.from = "wave";
    back.to = "move";
    back.conditions = {};
    back.exit_time = 0.9f;
    m.transitions = {go, back};
    auto made = make_state_machine(m, asset.clips, asset.skeleton.num_joints(), spaces.get());
    EXPECT_TRUE(made.has_value()) << (made ? "" : made.error().message());
    if (made) machine = std::make_shared<const StateMachine>(std::move(*made));
  }

  Animator make() const {
    Animator a(asset.skeleton, asset.clips);
    EXPECT_TRUE(a.set_blend_spaces(spaces));
    return a;
  }
};

TEST(AnimatorState, MachineBlendSpaceMontageAndFeetGoOnBitForBit) {
  BuiltinRig rig;
  ASSERT_TRUE(rig.machine);
  Animator a = rig.make();
  ASSERT_TRUE(animtest::set_up_foot_and_aim(a));
  ASSERT_TRUE(a.set_ground({GroundDesc::Kind::kPlane, {0, 0.02f, 0}, {0.1f, 1, 0}}));
  ASSERT_TRUE(a.update_aim_target({1, 1.5f, 2}, 0.7f));
  ASSERT_TRUE(a.set_parameter("speed", 2.5f, 0.4f));
  ASSERT_TRUE(a.start_state_machine(rig.machine));
  AdditiveLayerDesc slot;
  slot.blend = LayerBlend::kOverride;
  const auto slot_id = a.add_layer(slot);
  ASSERT_TRUE(slot_id);
  MontageDesc m;
  m.clip = animtest::builtin_clip("wave");
  m.blend_in = 0.2f;
  m.blend_out = 0.2f;
  m.sections = {{"start", 0.0f, "loop"}, {"loop", 0.5f, "loop"}, {"end", 1.5f, ""}};
  ASSERT_TRUE(a.play_montage(*slot_id, m));
  for (int k = 0; k < 20; ++k) ASSERT_TRUE(a.update(dt_of(k)));
  ASSERT_TRUE(a.set_trigger("hello"));
  for (int k = 0; k < 5; ++k) ASSERT_TRUE(a.update(dt_of(k)));  // mid-transition
  expect_same_future(
      a, [&] { return rig.make(); }, 300,
      [&](Animator& x, int k) {
        if (k == 30) {
          ASSERT_TRUE(x.set_parameter("speed", 0.5f, 0.2f));
        }
        if (k == 60) {
          ASSERT_TRUE(x.jump_to_section(*slot_id, "end"));
        }
        if (k == 100) {
          ASSERT_TRUE(x.set_trigger("hello"));
        }
        if (k == 150) {
          ASSERT_TRUE(x.set_ground({GroundDesc::Kind::kPlane, {0, -0.05f, 0}, {0, 1, 0}}));
        }
      });
}

TEST(AnimatorState, MorphOverridesGoOnBitForBit) {
  // A layout of three weights and no clip channels: the defaults, then the game's overrides.
  MorphSet face;
  face.name = "Face";
  face.targets = {MorphTarget{"smile", {}, {}, {}}, MorphTarget{"blink", {}, {}, {}}};
  face.default_weights = {0.1f, 0.2f};
  MorphSet body;
  body.name = "Body";
  body.targets = {MorphTarget{"bulge", {}, {}, {}}};
  body.default_weights = {0.5f};
  SkinnedMesh mesh;
  mesh.morph_sets = {face, body};
  auto layout = std::make_shared<const MorphLayout>(make_morph_layout(mesh));
  const Asset& asset = animtest::builtin();
  auto make = [&] {
    Animator x(asset.skeleton, asset.clips);
    EXPECT_TRUE(x.set_morph_layout(layout));
    return x;
  };
  Animator a = make();
  ASSERT_TRUE(a.play(animtest::builtin_clip("walk")));
  const MorphWeightValue set[] = {{0, 1.0f}, {2, -0.5f}};
  ASSERT_TRUE(a.set_morph_weights(set, 0.5f));
  for (int k = 0; k < 10; ++k) ASSERT_TRUE(a.update(dt_of(k)));
  expect_same_future(a, make, 120, [&](Animator& x, int k) {
    if (k == 40) {
      const int clear[] = {0};
      ASSERT_TRUE(x.clear_morph_weights(clear, 0.25f));
    }
  });
}

TEST(AnimatorState, CapturingARestoredAnimatorGivesTheSameState) {
  animtest::EveryFeatureRig rig;
  Animator a(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(a));
  for (int k = 0; k < 12; ++k) ASSERT_TRUE(a.update(dt_of(k)));
  const AnimatorState s = a.capture_state();
  Animator b(rig.skeleton, rig.clips);
  ASSERT_TRUE(b.restore_state(s));
  const AnimatorState t = b.capture_state();
  EXPECT_EQ(s.layers.size(), t.layers.size());
  EXPECT_EQ(s.goal_descs.size(), t.goal_descs.size());
  EXPECT_EQ(s.next_layer_id, t.next_layer_id);
  EXPECT_EQ(s.next_goal_id, t.next_goal_id);
  for (size_t i = 0; i < s.layers.size(); ++i) {
    EXPECT_EQ(s.layers[i].id, t.layers[i].id);
    EXPECT_EQ(s.layers[i].time, t.layers[i].time);
    EXPECT_EQ(s.layer_configs[i].reference_clip, t.layer_configs[i].reference_clip);
    EXPECT_EQ(s.layer_configs[i].mask.weights, t.layer_configs[i].mask.weights);
  }
  for (size_t i = 0; i < s.goal_descs.size(); ++i)
    for (size_t k = 0; k < s.goal_descs[i].constraints.size(); ++k) {
      const glm::vec3 u = s.goal_descs[i].constraints[k].axis;
      const glm::vec3 v = t.goal_descs[i].constraints[k].axis;
      EXPECT_EQ(std::memcmp(&u, &v, sizeof u), 0);
    }
  ASSERT_TRUE(s.held_pose && t.held_pose);
  EXPECT_EQ(std::memcmp(s.held_pose->data(), t.held_pose->data(),
                        s.held_pose->size() * sizeof(Transform)),
            0);
}

// Each corruption is refused with a message naming the field, and the Animator it was given
// to goes on as before (compared with a copy that was never asked).
TEST(AnimatorState, CorruptStatesAreRefusedAndChangeNothing) {
  animtest::EveryFeatureRig rig;
  Animator source(rig.skeleton, rig.clips);
  ASSERT_TRUE(rig.set_up(source));
  for (int k = 0; k < 8; ++k) ASSERT_TRUE(source.update(dt_of(k)));
  const AnimatorState good = source.capture_state();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    const char* field;  // in the message
    void (*corrupt)(AnimatorState&);
  };
  const Case cases[] = {
      {"main.base.clip", [](AnimatorState& s) { s.main.base.clip = 99; }},
      {"main.base.time", [](AnimatorState& s) { s.main.base.time = -1.0f; }},
      {"main.fades[0].duration", [](AnimatorState& s) { s.main.fades[0].duration = 0.0f; }},
      {"main.num_fades", [](AnimatorState& s) { s.main.num_fades = 9; }},
      {"layers[0].time",
       [](AnimatorState& s) { s.layers[0].time = std::numeric_limits<float>::infinity(); }},
      {"layers[1].id", [](AnimatorState& s) { s.layers[1].id = s.layers[0].id; }},
      {"layer_configs", [](AnimatorState& s) { s.layer_configs.pop_back(); }},
      {"layers[3].montage.section", [](AnimatorState& s) { s.layers[3].montage.section = 5; }},
      {"goals[0].weight", [](AnimatorState& s) { s.goals[0].weight = 2.0f; }},
      {"goal_descs[1]", [](AnimatorState& s) { s.goal_descs[1].effector_joint = "nope"; }},
      {"held_weight", [](AnimatorState& s) { s.held_weight = -0.5f; }},
      {"root",
       [](AnimatorState& s) {
         s.root.scale = {0, 1, 1};
       }},
      {"speed", [](AnimatorState& s) { s.speed = std::numeric_limits<float>::quiet_NaN(); }},
      {"morph_weights", [](AnimatorState& s) { s.morph_weights = {0.5f}; }},
      {"parameters", [](AnimatorState& s) { s.parameters.assign(17, ParameterState{"p"}); }},
      {"layers[4].machine.driver.run.state",
       [](AnimatorState& s) { s.layers[4].machine->driver.run.state = 7; }},
  };
  (void)nan;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    AnimatorState bad = good;
    c.corrupt(bad);
    Animator a(rig.skeleton, rig.clips);
    ASSERT_TRUE(rig.set_up(a));
    Animator untouched = a;
    const Status s = a.restore_state(bad);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find(c.field), std::string::npos) << s.message();
    for (int k = 0; k < 5; ++k) {
      ASSERT_TRUE(a.update(dt_of(k)));
      ASSERT_TRUE(untouched.update(dt_of(k)));
      ASSERT_TRUE(same_output(a, untouched));
    }
  }
}

}  // namespace animator_state_test
}  // namespace anim

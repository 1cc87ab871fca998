// Machine layers (Animator::add_machine_layer) on the built-in character: a state machine
// running in a layer is the same machine as on the base, blended as a layer. Checked bit for
// bit against the base's machine (an override layer at weight 1 over every joint), against a
// clip layer (an additive machine of one state), and joint by joint under a mask.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/state_machine.h"
#include "state_machine_rig.h"

namespace anim {
namespace machine_layer_test {

using animtest::animator;
using namespace animtest;  // state_machine_rig.h
constexpr float kDt = 0.125f;

TransitionDesc go(const std::string& from, const std::string& to, ConditionDesc condition,
                  float duration) {
  TransitionDesc t;
  t.from = from;
  t.to = to;
  t.conditions = {condition};
  t.duration = duration;
  return t;
}

// idle -> walk (speed > 0.5), walk -> run (speed > 2, synced), run -> idle (speed < 0.5), and
// a wave from any state on the trigger `trigger`.
std::shared_ptr<const StateMachine> locomotion(const std::string& name,
                                               const std::string& trigger) {
  StateMachineDesc d;
  d.name = name;
  d.states = {{"idle", "idle"}, {"walk", "walk"}, {"run", "run"}, {"wave", "wave"}};
  d.transitions = {go("idle", "walk", {"speed", ConditionOp::kGreater, 0.5f}, 0.25f),
                   go("walk", "run", {"speed", ConditionOp::kGreater, 2.0f}, 0.5f),
                   go("run", "idle", {"speed", ConditionOp::kLess, 0.5f}, 0.375f)};
  d.transitions[1].sync = TransitionSync::kNormalized;
  TransitionDesc wave;
  wave.any_state = true;
  wave.to = "wave";
  wave.conditions = {{trigger, ConditionOp::kTrigger, 0.0f}};
  wave.duration = 0.25f;
  d.transitions.push_back(wave);
  auto m = make_state_machine(d, builtin().clips, builtin().skeleton.num_joints(), nullptr);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().message());
  return m ? std::make_shared<const StateMachine>(std::move(*m)) : nullptr;
}

std::string state_name(const StateMachine& m, const MachineStatus& s) {
  return s.running ? m.states[static_cast<size_t>(s.state)].name : "";
}

// The speed parameter over the timeline: idle, walk, run, back to idle.
float speed_at(int update) {
  return update < 4 ? 0.0f : update < 12 ? 1.0f : update < 24 ? 3.0f : 0.0f;
}

TEST(MachineLayer, OverrideAtFullWeightIsTheBaseMachineBitForBit) {
  const auto m = locomotion("upper", "wave");
  Animator layered = animator();
  ASSERT_TRUE(layered.play(clip("wave")));  // under the layer: covered entirely
  MachineLayerDesc desc;
  desc.machine = m;
  auto id = layered.add_machine_layer(desc);
  ASSERT_TRUE(id.has_value()) << id.error().message();
  Animator based = animator();
  ASSERT_TRUE(based.start_state_machine(m));

  std::vector<std::string> visited;
  for (int u = 0; u < 40; ++u) {
    for (Animator* a : {&layered, &based}) ASSERT_TRUE(a->set_parameter("speed", speed_at(u), 0));
    if (u == 30) {
      for (Animator* a : {&layered, &based}) ASSERT_TRUE(a->set_trigger("wave"));
    }
    ASSERT_TRUE(layered.update(kDt));
    ASSERT_TRUE(based.update(kDt));
    expect_same_palette(layered, based, u);
    auto s = layered.machine_layer_status(*id);
    ASSERT_TRUE(s.has_value());
    const MachineStatus b = based.machine_status();
    EXPECT_EQ(s->state, b.state) << u;
    EXPECT_EQ(s->state_time, b.state_time) << u;
    EXPECT_EQ(s->transition, b.transition) << u;
    EXPECT_EQ(s->transition_elapsed, b.transition_elapsed) << u;
    if (visited.empty() || visited.back() != state_name(*m, *s))
      visited.push_back(state_name(*m, *s));
  }
  EXPECT_EQ(visited, (std::vector<std::string>{"idle", "walk", "run", "idle", "wave"}));
  EXPECT_EQ(layered.machine_layer_ids(), std::vector<int>{*id});
  EXPECT_EQ(layered.machine_layer_machine(*id), m);
}

TEST(MachineLayer, AdditiveMachineOfOneStateIsAClipLayerBitForBit) {
  StateMachineDesc d;
  d.name = "breathe";
  d.states = {{"lean", "wave"}};
  auto made = make_state_machine(d, builtin().clips, builtin().skeleton.num_joints(), nullptr);
  ASSERT_TRUE(made.has_value());
  Animator with_machine = animator();
  Animator with_clip = animator();
  for (Animator* a : {&with_machine, &with_clip}) ASSERT_TRUE(a->play(clip("walk")));
  MachineLayerDesc m;
  m.machine = std::make_shared<const StateMachine>(std::move(*made));
  m.blend = LayerBlend::kAdditive;
  m.weight = 0.7f;
  m.speed = 1.5f;
  m.reference_time = 0.5f;
  ASSERT_TRUE(with_machine.add_machine_layer(m).has_value());
  AdditiveLayerDesc l;
  l.clip = clip("wave");
  l.weight = 0.7f;
  l.speed = 1.5f;
  l.reference_time = 0.5f;
  ASSERT_TRUE(with_clip.add_layer(l).has_value());
  for (int u = 0; u < 30; ++u) {
    ASSERT_TRUE(with_machine.update(kDt));
    ASSERT_TRUE(with_clip.update(kDt));
    expect_same_palette(with_machine, with_clip, u);
  }
}

TEST(MachineLayer, MaskKeepsTheBaseOutsideAndTheMachineInside) {
  const auto m = locomotion("upper", "wave");
  const Skeleton& s = builtin().skeleton;
  const int n = s.num_joints();
  // Every other joint in the layer.
  std::vector<float> weights(static_cast<size_t>(n), 0.0f);
  for (int j = 0; j < n; j += 2) weights[static_cast<size_t>(j)] = 1.0f;
  auto mask = JointMask::per_joint(s, weights);
  ASSERT_TRUE(mask.has_value());
  Animator layered = animator();
  Animator base_only = animator();
  Animator machine_only = animator();
  for (Animator* a : {&layered, &base_only}) ASSERT_TRUE(a->play(clip("wave")));
  MachineLayerDesc desc;
  desc.machine = m;
  desc.mask = *mask;
  ASSERT_TRUE(layered.add_machine_layer(desc).has_value());
  ASSERT_TRUE(machine_only.start_state_machine(m));
  for (int u = 0; u < 24; ++u) {
    for (Animator* a : {&layered, &machine_only})
      ASSERT_TRUE(a->set_parameter("speed", speed_at(u), 0));
    for (Animator* a : {&layered, &base_only, &machine_only}) ASSERT_TRUE(a->update(kDt));
    for (int j = 0; j < n; ++j) {
      const Transform& got = layered.local_pose().locals[static_cast<size_t>(j)];
      const Transform& want =
          (j % 2 == 0 ? machine_only : base_only).local_pose().locals[static_cast<size_t>(j)];
      ASSERT_EQ(got.rotation, want.rotation) << "update " << u << " joint " << j;
      ASSERT_EQ(got.translation, want.translation) << "update " << u << " joint " << j;
    }
  }
}

TEST(MachineLayer, TriggerGoesToTheBaseMachineFirstThenTheLayers) {
  const auto m = locomotion("both", "wave");
  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  MachineLayerDesc desc;
  desc.machine = m;
  desc.weight = 0.5f;
  auto id = a.add_machine_layer(desc);
  ASSERT_TRUE(id.has_value());
  ASSERT_TRUE(a.set_trigger("wave"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_name(*m, a.machine_status()), "wave");
  EXPECT_EQ(state_name(*m, *a.machine_layer_status(*id)), "idle");
  EXPECT_FALSE(*a.trigger("wave"));
  ASSERT_TRUE(a.set_trigger("wave"));  // the base is in wave: not to itself; the layer takes it
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_name(*m, *a.machine_layer_status(*id)), "wave");
  EXPECT_FALSE(*a.trigger("wave"));
}

TEST(MachineLayer, WeightSpeedAndRemoval) {
  const auto m = locomotion("upper", "wave");
  Animator layered = animator();
  Animator plain = animator();
  for (Animator* a : {&layered, &plain}) ASSERT_TRUE(a->play(clip("walk")));
  MachineLayerDesc desc;
  desc.machine = m;
  auto id = layered.add_machine_layer(desc);
  ASSERT_TRUE(id.has_value());
  ASSERT_TRUE(layered.update_layer(*id, {0.0f, 2.0f, 0.0f}));  // weight 0: the pose untouched
  for (int u = 0; u < 4; ++u) {
    ASSERT_TRUE(layered.update(kDt));
    ASSERT_TRUE(plain.update(kDt));
    expect_same_palette(layered, plain, u);
  }
  // Speed 2: its clock ran twice as fast (idle is 3 s long: 4 updates of 1/8 s = 1/3 cycle).
  EXPECT_FLOAT_EQ(layered.machine_layer_status(*id)->state_time, 4 * 2 * kDt / 3.0f);
  ASSERT_TRUE(layered.remove_layer(*id));
  EXPECT_TRUE(layered.machine_layer_ids().empty());
  EXPECT_EQ(layered.machine_layer_status(*id).error().code(), StatusCode::kNotFound);
  ASSERT_TRUE(layered.update(kDt));
  ASSERT_TRUE(plain.update(kDt));
  expect_same_palette(layered, plain, 99);
}

TEST(MachineLayer, CopiesRunOnTheirOwn) {
  const auto m = locomotion("upper", "wave");
  Animator a = animator();
  MachineLayerDesc desc;
  desc.machine = m;
  desc.weight = 0.8f;
  ASSERT_TRUE(a.add_machine_layer(desc).has_value());
  ASSERT_TRUE(a.set_parameter("speed", 1.0f, 0));
  for (int u = 0; u < 3; ++u) ASSERT_TRUE(a.update(kDt));
  Animator b = a;
  for (int u = 0; u < 10; ++u) {
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
    expect_same_palette(a, b, u);
  }
  {
    Animator c = a;  // destroyed: a and b go on
    ASSERT_TRUE(c.update(kDt));
  }
  ASSERT_TRUE(a.update(kDt));
  ASSERT_TRUE(b.update(kDt));
  expect_same_palette(a, b, 10);
}

TEST(MachineLayer, RefusalsNameTheProblemAndChangeNothing) {
  const auto m = locomotion("upper", "wave");
  Animator a = animator();
  ASSERT_TRUE(a.play(clip("walk")));
  auto code = [&](const MachineLayerDesc& d) {
    auto r = a.add_machine_layer(d);
    return r ? StatusCode::kOk : r.error().code();
  };
  MachineLayerDesc none;
  EXPECT_EQ(code(none), StatusCode::kInvalidArgument);
  MachineLayerDesc bad_state;
  bad_state.machine = m;
  bad_state.state = "swim";
  auto r = a.add_machine_layer(bad_state);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kNotFound);
  EXPECT_NE(r.error().message().find("swim"), std::string::npos) << r.error().message();
  MachineLayerDesc heavy;
  heavy.machine = m;
  heavy.weight = 1.5f;
  EXPECT_EQ(code(heavy), StatusCode::kInvalidArgument);
  MachineLayerDesc nan_speed;
  nan_speed.machine = m;
  nan_speed.speed = std::nanf("");
  EXPECT_EQ(code(nan_speed), StatusCode::kInvalidArgument);
  MachineLayerDesc far_ref;
  far_ref.machine = m;
  far_ref.blend = LayerBlend::kAdditive;
  far_ref.reference_time = 100.0f;
  EXPECT_EQ(code(far_ref), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.num_layers(), 0);
  EXPECT_EQ(a.num_parameters(), 0) << "a refused layer made no parameter";

  MachineLayerDesc ok;
  ok.machine = m;
  std::vector<int> ids;
  for (int k = 0; k < kMaxMachineLayers; ++k) {
    auto id = a.add_machine_layer(ok);
    ASSERT_TRUE(id.has_value());
    ids.push_back(*id);
  }
  EXPECT_EQ(code(ok), StatusCode::kResourceExhausted);
  EXPECT_EQ(a.num_layers(), kMaxMachineLayers);
  // A machine layer is not a montage slot, and a clip layer has no machine.
  EXPECT_EQ(a.play_montage(ids[0], {clip("wave")}).code(), StatusCode::kFailedPrecondition);
  AdditiveLayerDesc plain;
  plain.clip = clip("wave");
  auto plain_id = a.add_layer(plain);
  ASSERT_TRUE(plain_id.has_value());
  EXPECT_EQ(a.machine_layer_status(*plain_id).error().code(), StatusCode::kInvalidArgument);
  // The base refuses play while its own machine runs, not because of layers.
  EXPECT_TRUE(a.crossfade(clip("run"), 0.2f));
}

}  // namespace machine_layer_test
}  // namespace anim

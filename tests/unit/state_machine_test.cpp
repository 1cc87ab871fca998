// State machines (make_state_machine, Animator::start_state_machine / set_trigger) on the
// built-in character (idle 3 s, walk 1 s, run 0.7 s, wave 2 s). Timelines are hand-computed
// with dt = 1/8 s (exact in binary): a transition is tried at the start of each update with
// the state's time after the update before, so one that can fire after update k starts in
// update k + 1. The poses are checked against the same clips driven by crossfade commands
// sent at those ticks: a machine is such commands, bit for bit.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/state_machine.h"
#include "state_machine_rig.h"

namespace anim {
namespace state_machine_test {

using animtest::animator;
using namespace animtest;  // state_machine_rig.h
constexpr float kDt = 0.125f;

StateMachineDesc locomotion(std::vector<TransitionDesc> transitions) {
  StateMachineDesc d;
  d.name = "locomotion";
  d.states = {{"idle", "idle"}, {"walk", "walk"}, {"run", "run"}, {"wave", "wave", 1.0f, false}};
  d.transitions = std::move(transitions);
  return d;
}

// --- definitions ---------------------------------------------------------------------------

Status refusal(const StateMachineDesc& d) {
  auto m = make_state_machine(d, builtin().clips, builtin().skeleton.num_joints(), nullptr);
  return m ? Status::ok() : m.error();
}

TEST(StateMachineDefinition, ResolvesNamesAndOrdersCandidatesByPriority) {
  StateMachineDesc d =
      locomotion({go("idle", "walk", {when("speed", ConditionOp::kGreater, 0.5f)}),
                  from_any("wave", {when("hit", ConditionOp::kTrigger)}),
                  go("walk", "run", {when("speed", ConditionOp::kGreater, 2.0f)})});
  d.transitions[2].priority = 3;
  d.entry = "walk";
  auto m = make(d);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry, 1);
  EXPECT_EQ(m->states[1].clip, clip("walk"));
  EXPECT_EQ(m->parameters, std::vector<std::string>{"speed"});
  EXPECT_EQ(m->triggers, std::vector<std::string>{"hit"});
  // idle: its own, then the any-state one; walk: run first (priority 3); wave: not itself.
  auto from = [&](int s) {
    return std::vector<int>(m->candidates.begin() + m->candidate_begin[static_cast<size_t>(s)],
                            m->candidates.begin() + m->candidate_begin[static_cast<size_t>(s) + 1]);
  };
  EXPECT_EQ(from(0), (std::vector<int>{0, 1}));
  EXPECT_EQ(from(1), (std::vector<int>{2, 1}));
  EXPECT_EQ(from(3), std::vector<int>{});
}

TEST(StateMachineDefinition, RefusesBadDescriptionsNamingTheField) {
  struct Case {
    StateMachineDesc desc;
    StatusCode code;
    std::string field;
  };
  std::vector<Case> cases;
  const auto speed_up = std::vector<ConditionDesc>{when("speed", ConditionOp::kGreater, 0.5f)};
  {
    StateMachineDesc d = locomotion({});
    d.states[1].motion = "wlak";
    cases.push_back({d, StatusCode::kNotFound, "states[1].motion"});
  }
  {
    StateMachineDesc d = locomotion({go("idle", "rnu", speed_up)});
    cases.push_back({d, StatusCode::kNotFound, "transitions[0].to"});
  }
  {
    StateMachineDesc d = locomotion({go("idle", "walk", speed_up), go("idel", "walk", speed_up)});
    cases.push_back({d, StatusCode::kNotFound, "transitions[1].from"});
  }
  cases.push_back({locomotion({go("idle", "walk", {})}), StatusCode::kInvalidArgument,
                   "transitions[0]: a transition needs a condition or an exit time"});
  cases.push_back({locomotion({go("idle", "walk",
                                  {when("speed", ConditionOp::kLess,
                                        std::numeric_limits<float>::quiet_NaN())})}),
                   StatusCode::kInvalidArgument, "transitions[0].conditions[0].value"});
  {
    TransitionDesc t = go("wave", "idle", {});
    t.exit_time = 1.5f;  // wave does not loop
    cases.push_back({locomotion({t}), StatusCode::kInvalidArgument, "transitions[0].exit_time"});
  }
  {
    TransitionDesc t = go("idle", "walk", speed_up);
    t.duration = -1.0f;
    cases.push_back({locomotion({t}), StatusCode::kInvalidArgument, "transitions[0].duration"});
  }
  {
    StateMachineDesc d = locomotion({});
    d.states[2].name = "walk";
    cases.push_back({d, StatusCode::kInvalidArgument, "states[2].name"});
  }
  {
    StateMachineDesc d = locomotion({});
    d.entry = "jog";
    cases.push_back({d, StatusCode::kNotFound, "entry"});
  }
  {
    StateMachineDesc d = locomotion({});
    d.states.clear();
    cases.push_back({d, StatusCode::kInvalidArgument, "states"});
  }
  cases.push_back({locomotion({go("idle", "walk", {when("go", ConditionOp::kTrigger)}),
                               go("walk", "idle", {when("go", ConditionOp::kTrue)})}),
                   StatusCode::kInvalidArgument, "transitions[1].conditions[0].parameter"});
  {
    StateMachineDesc d = locomotion({});
    d.states[0].speed = std::numeric_limits<float>::infinity();
    cases.push_back({d, StatusCode::kInvalidArgument, "states[0].speed"});
  }
  for (const Case& c : cases) {
    const Status s = refusal(c.desc);
    EXPECT_EQ(s.code(), c.code) << s.message();
    EXPECT_EQ(s.message().rfind(c.field, 0), 0u) << s.message() << " should start with " << c.field;
  }
}

// --- running -------------------------------------------------------------------------------

TEST(StateMachine, StartsInTheEntryStateAndRefusesDirectPlayWhileRunning) {
  auto m = make(locomotion({go("idle", "walk", {when("speed", ConditionOp::kGreater, 0.5f)})}));
  Animator a = animator();
  ASSERT_TRUE(a.play(clip("run")));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(a.start_state_machine(m, "jog").code(), StatusCode::kNotFound);
  EXPECT_FALSE(a.machine_status().running);  // unchanged
  EXPECT_EQ(a.current_clip(), clip("run"));

  ASSERT_TRUE(a.start_state_machine(m));
  EXPECT_EQ(state_of(a), "idle");
  EXPECT_EQ(a.current_clip(), clip("idle"));
  EXPECT_EQ(*a.parameter("speed"), 0.0f);  // created by the machine
  for (Status s : {a.play(clip("walk")), a.crossfade(clip("walk"), 0.2f)}) {
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(s.message().find("locomotion"), std::string::npos) << s.message();
  }
  EXPECT_EQ(a.current_clip(), clip("idle"));
  a.stop_state_machine();
  EXPECT_FALSE(a.machine_status().running);
  EXPECT_EQ(a.current_clip(), clip("idle"));  // keeps playing what it played
  EXPECT_TRUE(a.crossfade(clip("walk"), 0.2f));
}

TEST(StateMachine, ExitTimeFiresInTheUpdateAfterItIsReachedAndMatchesCrossfades) {
  TransitionDesc t = go("walk", "idle", {}, 0.25f);
  t.exit_time = 0.5f;
  StateMachineDesc d = locomotion({t});
  d.entry = "walk";
  auto m = make(d);
  Animator a = animator(), b = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  ASSERT_TRUE(b.play(clip("walk")));
  // walk's time after update k is k/8 s = k/8 cycles: 0.5 after update 4, so the fade starts
  // in update 5 and ends in update 6 (0.25 s = two updates).
  for (int k = 1; k <= 8; ++k) {
    if (k == 5) {
      ASSERT_TRUE(b.crossfade(clip("idle"), 0.25f));
    }
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
    const MachineStatus s = a.machine_status();
    if (k < 5) {
      EXPECT_EQ(state_of(a), "walk") << k;
      EXPECT_FLOAT_EQ(s.state_time, k * kDt) << k;
      EXPECT_EQ(s.transition, -1) << k;
    } else {
      EXPECT_EQ(state_of(a), "idle") << k;
      EXPECT_FLOAT_EQ(s.state_time, (k - 4) * kDt / 3.0f) << k;  // idle is 3 s
    }
    if (k == 5) {
      EXPECT_EQ(s.transition, 0);
      EXPECT_EQ(s.from_state, 1);
      EXPECT_FLOAT_EQ(s.transition_elapsed, kDt);
      EXPECT_FLOAT_EQ(s.transition_duration, 0.25f);
    }
    if (k >= 6) {
      EXPECT_EQ(s.transition, -1) << k;
    }
    expect_same_palette(a, b, k);
  }
}

TEST(StateMachine, ParameterConditionFiresInTheNextUpdate) {
  auto m =
      make(locomotion({go("idle", "walk", {when("speed", ConditionOp::kGreater, 0.5f)}, 0.5f),
                       go("walk", "idle", {when("speed", ConditionOp::kLessEqual, 0.5f)}, 0.5f)}));
  Animator a = animator(), b = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  ASSERT_TRUE(b.play(clip("idle")));
  for (int k = 1; k <= 12; ++k) {
    if (k == 3) {
      ASSERT_TRUE(a.set_parameter("speed", 1.0f, 0.0f));
      ASSERT_TRUE(b.crossfade(clip("walk"), 0.5f));
    }
    if (k == 9) {
      ASSERT_TRUE(a.set_parameter("speed", 0.0f, 0.0f));
      ASSERT_TRUE(b.crossfade(clip("idle"), 0.5f));
    }
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
    EXPECT_EQ(state_of(a), k < 3 ? "idle" : k < 9 ? "walk" : "idle") << k;
    expect_same_palette(a, b, k);
  }
  // A NaN parameter is refused and changes nothing.
  EXPECT_EQ(a.set_parameter("speed", std::numeric_limits<float>::quiet_NaN(), 0.0f).code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "idle");
  EXPECT_EQ(*a.parameter("speed"), 0.0f);
}

TEST(StateMachine, TriggerIsConsumedOnce) {
  auto m = make(locomotion({go("idle", "walk", {when("go", ConditionOp::kTrigger)}),
                            go("walk", "idle", {when("go", ConditionOp::kTrigger)})}));
  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  EXPECT_FALSE(*a.trigger("go"));  // created clear by the machine
  ASSERT_TRUE(a.set_trigger("go"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "walk");
  EXPECT_FALSE(*a.trigger("go"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "walk");  // walk -> idle needed it again
  ASSERT_TRUE(a.set_trigger("go"));
  ASSERT_TRUE(a.set_trigger("go", false));  // cleared before any update saw it
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "walk");
  ASSERT_TRUE(a.set_trigger("go"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "idle");
  // A trigger no transition tests stays set.
  ASSERT_TRUE(a.set_trigger("unused"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_TRUE(*a.trigger("unused"));
  EXPECT_EQ(a.set_trigger("").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.trigger("never").error().code(), StatusCode::kNotFound);
}

TEST(StateMachine, PriorityDecidesBetweenTransitionsThatCanFireTogether) {
  // Both walk -> run (priority 0) and any -> wave (priority 10) can fire: wave wins. Equal
  // priorities go in the order given (walk -> idle before the any-state one).
  TransitionDesc to_wave = from_any("wave", {when("hit", ConditionOp::kTrigger)});
  to_wave.priority = 10;
  StateMachineDesc d =
      locomotion({go("walk", "run", {when("speed", ConditionOp::kGreater, 1.0f)}), to_wave,
                  go("walk", "idle", {when("stop", ConditionOp::kTrue)})});
  d.entry = "walk";
  auto m = make(d);
  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  ASSERT_TRUE(a.set_parameter("speed", 2.0f, 0.0f));
  ASSERT_TRUE(a.set_trigger("hit"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "wave");
  EXPECT_FALSE(*a.trigger("hit"));

  Animator b = animator();
  ASSERT_TRUE(b.start_state_machine(m));
  ASSERT_TRUE(b.set_parameter("speed", 2.0f, 0.0f));
  ASSERT_TRUE(b.set_parameter("stop", 1.0f, 0.0f));
  ASSERT_TRUE(b.update(kDt));
  EXPECT_EQ(state_of(b), "run");  // both priority 0: walk -> run is given first

  // The any-state transition does not fire from its own target (wave -> wave).
  ASSERT_TRUE(a.set_trigger("hit"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "wave");
  EXPECT_TRUE(*a.trigger("hit"));  // not consumed
}

TEST(StateMachine, NonInterruptibleTransitionHoldsTheMachineUntilItCompletes) {
  auto run = [](bool interruptible) {
    TransitionDesc first = go("idle", "walk", {when("go", ConditionOp::kTrigger)}, 0.5f);
    first.interruptible = interruptible;
    auto m = make(locomotion(
        {first, go("walk", "run", {when("speed", ConditionOp::kGreater, 0.5f)}, 0.25f)}));
    Animator a = animator();
    EXPECT_TRUE(a.start_state_machine(m));
    EXPECT_TRUE(a.set_trigger("go"));
    EXPECT_TRUE(a.set_parameter("speed", 1.0f, 0.0f));
    std::vector<std::string> states;
    std::vector<int> fades;
    for (int k = 1; k <= 6; ++k) {
      EXPECT_TRUE(a.update(kDt));
      states.push_back(state_of(a));
      fades.push_back(a.num_active_fades());
    }
    return std::make_pair(states, fades);
  };
  // Not interruptible: idle -> walk runs updates 1-4 (0.5 s); walk -> run starts in update 5.
  const auto held = run(false);
  EXPECT_EQ(held.first, (std::vector<std::string>{"walk", "walk", "walk", "walk", "run", "run"}));
  EXPECT_EQ(held.second, (std::vector<int>{1, 1, 1, 0, 1, 0}));
  // Interruptible: walk -> run starts in update 2, over the fade still running; one
  // transition per update.
  const auto cut_in = run(true);
  EXPECT_EQ(cut_in.first, (std::vector<std::string>{"walk", "run", "run", "run", "run", "run"}));
  EXPECT_EQ(cut_in.second, (std::vector<int>{1, 2, 0, 0, 0, 0}));
}

TEST(StateMachine, ZeroDurationCycleMovesOneStatePerUpdate) {
  // idle <-> walk, both always true, both cuts: bounded, one transition per update.
  auto m =
      make(locomotion({go("idle", "walk", {when("speed", ConditionOp::kGreaterEqual, 0.0f)}),
                       go("walk", "idle", {when("speed", ConditionOp::kGreaterEqual, 0.0f)})}));
  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  for (int k = 1; k <= 6; ++k) {
    ASSERT_TRUE(a.update(kDt));
    EXPECT_EQ(state_of(a), k % 2 == 1 ? "walk" : "idle") << k;
    EXPECT_EQ(a.num_active_fades(), 0);
    for (const PaletteMatrix& p : a.palette())
      for (float v : p.m) ASSERT_TRUE(std::isfinite(v));
  }
}

TEST(StateMachine, NormalizedSyncEntersAtTheSourcePhase) {
  TransitionDesc t = go("walk", "run", {when("speed", ConditionOp::kGreater, 1.0f)}, 0.25f);
  t.sync = TransitionSync::kNormalized;
  StateMachineDesc d = locomotion({t});
  d.entry = "walk";
  auto m = make(d);
  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(a.update(kDt));  // walk at 0.375 cycles
  ASSERT_TRUE(a.set_parameter("speed", 2.0f, 0.0f));
  ASSERT_TRUE(a.update(kDt));
  // Run entered at 0.375 and followed walk (0.5) while fading.
  EXPECT_EQ(state_of(a), "run");
  EXPECT_FLOAT_EQ(a.machine_status().state_time, 0.5f);
  EXPECT_NEAR(a.current_clip_time(), 0.5f * builtin().clips[clip("run")].duration, 1e-6);
}

TEST(StateMachine, SmoothStepCurveShapesTheFadeWeight) {
  TransitionDesc t = go("idle", "walk", {when("speed", ConditionOp::kGreater, 0.5f)}, 0.5f);
  t.curve = BlendCurve::kSmoothStep;
  auto m = make(locomotion({t}));
  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  ASSERT_TRUE(a.set_parameter("speed", 1.0f, 0.0f));
  ASSERT_TRUE(a.update(kDt));  // x = 0.25: 0.0625 * 2.5
  ASSERT_EQ(a.evaluated_inputs().fades.size(), 1u);
  EXPECT_FLOAT_EQ(a.evaluated_inputs().fades[0].weight, 0.15625f);
  ASSERT_TRUE(a.update(kDt));  // x = 0.5
  EXPECT_FLOAT_EQ(a.evaluated_inputs().fades[0].weight, 0.5f);
  ASSERT_TRUE(a.update(kDt));  // x = 0.75: 0.5625 * 1.5
  EXPECT_FLOAT_EQ(a.evaluated_inputs().fades[0].weight, 0.84375f);
}

TEST(StateMachine, StartRefusesMachinesOfAnotherAssetAndTooManyTriggers) {
  // A machine whose clip index the character does not have.
  StateMachine foreign = *make(locomotion({}));
  foreign.states[0].clip = 99;
  Animator a = animator();
  ASSERT_TRUE(a.play(clip("walk")));
  EXPECT_EQ(a.start_state_machine(std::make_shared<const StateMachine>(foreign)).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_FALSE(a.machine_status().running);
  EXPECT_EQ(a.current_clip(), clip("walk"));
  // Triggers fill up: the machine's own would not fit.
  for (int i = 0; i < kMaxTriggers; ++i) {
    std::string name = std::to_string(i);
    name += "_t";
    ASSERT_TRUE(a.set_trigger(name));
  }
  EXPECT_EQ(a.set_trigger("one_more").code(), StatusCode::kResourceExhausted);
  auto m = make(locomotion({go("idle", "walk", {when("go", ConditionOp::kTrigger)})}));
  EXPECT_EQ(a.start_state_machine(m).code(), StatusCode::kResourceExhausted);
  EXPECT_FALSE(a.machine_status().running);
}

}  // namespace state_machine_test
}  // namespace anim

// Nested state machines (anim/state_machine.h, "Nested machines"): make_state_machine
// flattens a state that holds a machine into its leaves, named by their paths; entering it
// enters its entry leaf; its transitions fire from every leaf under it, the outer level's
// before the inner one's. On the built-in character (idle 3 s, walk 1 s, run 0.7 s, wave
// 2 s, jump 1.2 s) with dt = 1/8 s: a transition that can fire after update k starts in
// update k + 1, and the poses equal the same clips driven by crossfade commands, bit for bit.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/state_machine.h"
#include "state_machine_rig.h"

namespace anim {
namespace state_machine_nested_test {

using animtest::animator;
using namespace animtest;  // state_machine_rig.h
constexpr float kDt = 0.125f;

StateDesc holding(const std::string& name, StateMachineDesc machine) {
  StateDesc s;
  s.name = name;
  s.machine.push_back(std::move(machine));
  return s;
}

// Ground (idle <-> walk on speed; walk -> idle at priority 5) and Air (jump, once): Ground ->
// Air on the trigger jump, Air -> Ground at half the jump; every fade 0.25 s.
StateMachineDesc hero() {
  StateMachineDesc ground;
  ground.states = {{"idle", "idle"}, {"walk", "walk"}};
  ground.transitions = {go("idle", "walk", {when("speed", ConditionOp::kGreater, 0.5f)}, 0.25f),
                        go("walk", "idle", {when("speed", ConditionOp::kLessEqual, 0.5f)}, 0.25f)};
  ground.transitions[1].priority = 5;
  StateMachineDesc d;
  d.name = "hero";
  d.states = {holding("Ground", ground), {"Air", "jump", 1.0f, false}};
  TransitionDesc land = go("Air", "Ground", {}, 0.25f);
  land.exit_time = 0.5f;
  d.transitions = {go("Ground", "Air", {when("jump", ConditionOp::kTrigger)}, 0.25f), land};
  return d;
}

Status refusal(const StateMachineDesc& d) {
  auto m = make_state_machine(d, builtin().clips, builtin().skeleton.num_joints(), nullptr);
  return m ? Status::ok() : m.error();
}

std::vector<int> candidates_of(const StateMachine& m, int s) {
  return std::vector<int>(m.candidates.begin() + m.candidate_begin[static_cast<size_t>(s)],
                          m.candidates.begin() + m.candidate_begin[static_cast<size_t>(s) + 1]);
}

// --- flattening ----------------------------------------------------------------------------

TEST(NestedStateMachine, FlattensIntoLeavesNamedByTheirPaths) {
  auto m = make(hero());
  ASSERT_TRUE(m);
  ASSERT_EQ(m->states.size(), 3u);
  EXPECT_EQ(m->states[0].name, "Ground/idle");
  EXPECT_EQ(m->states[1].name, "Ground/walk");
  EXPECT_EQ(m->states[2].name, "Air");
  EXPECT_EQ(m->states[1].clip, clip("walk"));
  EXPECT_FALSE(m->states[2].loop);
  EXPECT_EQ(m->entry, 0);
  ASSERT_EQ(m->composites.size(), 1u);
  EXPECT_EQ(m->composites[0].name, "Ground");
  EXPECT_EQ(m->composites[0].entry, 0);
  EXPECT_EQ(m->composites[0].first_leaf, 0);
  EXPECT_EQ(m->composites[0].end_leaf, 2);
  // Depth-first: the outer machine's transitions, then Ground's.
  ASSERT_EQ(m->transitions.size(), 4u);
  EXPECT_EQ(m->transitions[0].from, -1);  // Ground -> Air
  EXPECT_EQ(m->transitions[0].from_composite, 0);
  EXPECT_EQ(m->transitions[0].to, 2);
  EXPECT_EQ(m->transitions[1].from, 2);  // Air -> Ground: its entry leaf
  EXPECT_EQ(m->transitions[1].from_composite, -1);
  EXPECT_EQ(m->transitions[1].to, 0);
  EXPECT_EQ(m->transitions[2].from, 0);  // Ground's idle -> walk
  EXPECT_EQ(m->transitions[2].to, 1);
  EXPECT_EQ(m->transitions[3].from, 1);  // Ground's walk -> idle
  EXPECT_EQ(m->transitions[3].to, 0);
  // The outer level first, whatever the inner priorities.
  EXPECT_EQ(candidates_of(*m, 0), (std::vector<int>{0, 2}));
  EXPECT_EQ(candidates_of(*m, 1), (std::vector<int>{0, 3}));
  EXPECT_EQ(candidates_of(*m, 2), (std::vector<int>{1}));
  EXPECT_EQ(m->parameters, std::vector<std::string>{"speed"});
  EXPECT_EQ(m->triggers, std::vector<std::string>{"jump"});
  // A leaf by its path; a composite by its path enters its entry leaf.
  EXPECT_EQ(m->find_state("Ground/walk"), 1);
  EXPECT_EQ(m->find_state("Ground"), 0);
  EXPECT_EQ(m->find_state("Air"), 2);
  EXPECT_EQ(m->find_state("walk"), -1);
  EXPECT_EQ(m->find_state("Ground/"), -1);
}

TEST(NestedStateMachine, EnteringAMachineEntersItsEntryDownToALeaf) {
  // Top: Move (entry Legs; Legs holds run, jog with entry jog) and Rest.
  StateMachineDesc legs;
  legs.entry = "jog";
  legs.states = {{"run", "run"}, {"jog", "walk"}};
  StateMachineDesc move;
  move.name = "Move";  // a nested machine may be named after its state
  move.entry = "Legs";
  move.states = {{"stand", "idle"}, holding("Legs", legs)};
  StateMachineDesc d;
  d.name = "deep";
  d.entry = "Move";
  d.states = {{"Rest", "idle"}, holding("Move", move)};
  d.transitions = {go("Rest", "Move", {when("go", ConditionOp::kTrue)}),
                   go("Move", "Rest", {when("go", ConditionOp::kFalse)})};
  auto m = make(d);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->states.size(), 4u);
  EXPECT_EQ(m->states[0].name, "Rest");
  EXPECT_EQ(m->states[1].name, "Move/stand");
  EXPECT_EQ(m->states[2].name, "Move/Legs/run");
  EXPECT_EQ(m->states[3].name, "Move/Legs/jog");
  EXPECT_EQ(m->entry, 3);
  EXPECT_EQ(m->transitions[0].to, 3);
  EXPECT_EQ(m->find_state("Move"), 3);
  EXPECT_EQ(m->find_state("Move/Legs"), 3);
  ASSERT_EQ(m->composites.size(), 2u);
  EXPECT_EQ(m->composites[1].name, "Move/Legs");
  EXPECT_EQ(m->composites[0].first_leaf, 1);
  EXPECT_EQ(m->composites[0].end_leaf, 4);
  // Move -> Rest fires from all three leaves under Move.
  for (int s = 1; s < 4; ++s) EXPECT_EQ(candidates_of(*m, s), std::vector<int>{1}) << s;

  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  EXPECT_EQ(state_of(a), "Move/Legs/jog");
  ASSERT_TRUE(a.update(kDt));  // go is 0: Move -> Rest
  EXPECT_EQ(state_of(a), "Rest");
  ASSERT_TRUE(a.set_parameter("go", 1.0f, 0.0f));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "Move/Legs/jog");
  EXPECT_EQ(a.current_clip(), clip("walk"));
}

// --- running -------------------------------------------------------------------------------

TEST(NestedStateMachine, StartsInTheEntryLeafOrTheLeafOfAPath) {
  auto m = make(hero());
  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  EXPECT_EQ(state_of(a), "Ground/idle");
  EXPECT_EQ(a.current_clip(), clip("idle"));
  ASSERT_TRUE(a.start_state_machine(m, "Ground/walk"));
  EXPECT_EQ(state_of(a), "Ground/walk");
  ASSERT_TRUE(a.start_state_machine(m, "Air"));
  EXPECT_EQ(state_of(a), "Air");
  ASSERT_TRUE(a.start_state_machine(m, "Ground"));
  EXPECT_EQ(state_of(a), "Ground/idle");
  EXPECT_EQ(a.start_state_machine(m, "walk").code(), StatusCode::kNotFound);
  EXPECT_EQ(state_of(a), "Ground/idle");
}

TEST(NestedStateMachine, OuterTransitionsWinAndLandingEntersTheEntryLeafAsCrossfadesDo) {
  auto m = make(hero());
  Animator a = animator(), b = animator();
  ASSERT_TRUE(a.start_state_machine(m));
  ASSERT_TRUE(b.play(clip("idle")));
  CrossfadeOptions once;
  once.loop = false;
  // 3: speed 1, idle -> walk (updates 3-4). 6: jump, and speed 0 so that walk -> idle (priority
  // 5) could fire too: Ground -> Air, the outer level's, fires. Air's time after update k is
  // (k - 5) / 8 s of 1.2 s: 0.52 after update 10, so Air -> Ground fires in update 11 and
  // enters Ground's entry, idle (updates 11-12).
  for (int k = 1; k <= 14; ++k) {
    if (k == 3) {
      ASSERT_TRUE(a.set_parameter("speed", 1.0f, 0.0f));
      ASSERT_TRUE(b.crossfade(clip("walk"), 0.25f));
    }
    if (k == 6) {
      ASSERT_TRUE(a.set_trigger("jump"));
      ASSERT_TRUE(a.set_parameter("speed", 0.0f, 0.0f));
      ASSERT_TRUE(b.crossfade(clip("jump"), 0.25f, once));
    }
    if (k == 11) {
      ASSERT_TRUE(b.crossfade(clip("idle"), 0.25f));
    }
    ASSERT_TRUE(a.update(kDt));
    ASSERT_TRUE(b.update(kDt));
    const MachineStatus s = a.machine_status();
    EXPECT_EQ(state_of(a), k < 3    ? "Ground/idle"
                           : k < 6  ? "Ground/walk"
                           : k < 11 ? "Air"
                                    : "Ground/idle")
        << k;
    if (k == 3) {
      EXPECT_EQ(s.transition, 2);
      EXPECT_EQ(s.from_state, 0);
    }
    if (k == 6) {
      EXPECT_EQ(s.transition, 0);
      EXPECT_EQ(s.from_state, 1);
      EXPECT_FALSE(*a.trigger("jump"));
    }
    if (k == 11) {
      EXPECT_EQ(s.transition, 1);
      EXPECT_EQ(s.from_state, 2);
      EXPECT_FLOAT_EQ(s.transition_duration, 0.25f);
    }
    expect_same_palette(a, b, k);
  }
}

TEST(NestedStateMachine, AnyStateTransitionsStayInTheirMachineAndOutOfTheirTarget) {
  // Ground: any -> wave on hit (inner). Outer: any -> Ground on land, Ground -> Air on jump.
  StateMachineDesc ground;
  ground.states = {{"idle", "idle"}, {"walk", "walk"}, {"wave", "wave", 1.0f, false}};
  ground.transitions = {from_any("wave", {when("hit", ConditionOp::kTrigger)})};
  StateMachineDesc d;
  d.name = "any";
  d.states = {holding("Ground", ground), {"Air", "jump", 1.0f, false}};
  d.transitions = {from_any("Ground", {when("land", ConditionOp::kTrigger)}),
                   go("Ground", "Air", {when("jump", ConditionOp::kTrigger)})};
  auto m = make(d);
  ASSERT_TRUE(m);
  // Leaves Ground/idle, Ground/walk, Ground/wave, Air; transitions: any -> Ground (0),
  // Ground -> Air (1), Ground's any -> wave (2).
  EXPECT_EQ(candidates_of(*m, 0), (std::vector<int>{1, 2}));
  EXPECT_EQ(candidates_of(*m, 2), std::vector<int>{1});
  EXPECT_EQ(candidates_of(*m, 3), std::vector<int>{0});

  Animator a = animator();
  ASSERT_TRUE(a.start_state_machine(m, "Ground/walk"));
  // The outer any-state transition does not fire from the leaves under its own target.
  ASSERT_TRUE(a.set_trigger("land"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "Ground/walk");
  EXPECT_TRUE(*a.trigger("land"));
  ASSERT_TRUE(a.set_trigger("land", false));
  // The inner one fires from a sibling, not from its target.
  ASSERT_TRUE(a.set_trigger("hit"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "Ground/wave");
  ASSERT_TRUE(a.set_trigger("hit"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "Ground/wave");
  EXPECT_TRUE(*a.trigger("hit"));  // not consumed
  // Nor from outside its machine.
  ASSERT_TRUE(a.set_trigger("jump"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "Air");
  EXPECT_TRUE(*a.trigger("hit"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "Air");
  // The outer any-state one fires from Air into Ground's entry.
  ASSERT_TRUE(a.set_trigger("land"));
  ASSERT_TRUE(a.update(kDt));
  EXPECT_EQ(state_of(a), "Ground/idle");
}

// --- refusals ------------------------------------------------------------------------------

// A machine `levels` deep: each level's state "s" holds the next, the innermost plays idle.
StateMachineDesc nest(int levels) {
  StateMachineDesc d;
  d.states = {{"s", "idle"}};
  for (int i = 1; i < levels; ++i) {
    StateMachineDesc outer;
    outer.states = {holding("s", d)};
    d = outer;
  }
  d.name = "nest";
  return d;
}

TEST(NestedStateMachineDefinition, NestsUpToTheDepthLimit) {
  auto m = make(nest(kMaxMachineDepth));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->states[0].name, "s/s/s/s");
  EXPECT_EQ(m->find_state("s"), 0);
  const Status s = refusal(nest(kMaxMachineDepth + 1));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "states[0].machine.states[0].machine.states[0].machine.states[0].machine: machines "
            "nest more than 4 deep");
}

TEST(NestedStateMachineDefinition, RefusesBadDescriptionsNamingTheField) {
  struct Case {
    StateMachineDesc desc;
    StatusCode code;
    std::string message;
  };
  std::vector<Case> cases;
  {
    StateMachineDesc d = hero();
    d.states[0].motion = "idle";
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[0].machine: the state also plays motion 'idle' (a state plays a "
                     "motion or holds a machine, not both)"});
  }
  {
    StateMachineDesc d = hero();
    d.states[1].motion.clear();
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[1].motion is empty and the state holds no machine (a state plays "
                     "a clip or a blend space, or holds a machine)"});
  }
  {
    StateMachineDesc d = hero();
    d.states[0].machine.push_back(d.states[0].machine[0]);
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[0].machine: 2 machines; a state holds at most one"});
  }
  {
    StateMachineDesc d = hero();
    d.states[1].name = "Air/borne";
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[1].name: 'Air/borne' contains '/', which joins the names of a "
                     "nested state's path"});
  }
  {
    StateMachineDesc d = hero();
    d.states[0].machine[0].states[1].name = "walk/slow";
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[0].machine.states[1].name: 'walk/slow' contains '/', which joins "
                     "the names of a nested state's path"});
  }
  {
    StateMachineDesc d = hero();
    d.transitions[0].exit_time = 0.5f;
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "transitions[0].exit_time: state 'Ground' holds a machine; its transitions "
                     "fire on conditions only"});
  }
  {
    StateMachineDesc d = hero();
    d.states[0].machine[0].transitions[0].to = "rnu";
    cases.push_back(
        {d, StatusCode::kNotFound, "states[0].machine.transitions[0].to: no state named 'rnu'"});
  }
  {
    // A transition names its own machine's states only.
    StateMachineDesc d = hero();
    d.states[0].machine[0].transitions[0].to = "Air";
    cases.push_back(
        {d, StatusCode::kNotFound, "states[0].machine.transitions[0].to: no state named 'Air'"});
  }
  {
    StateMachineDesc d = hero();
    d.transitions[1].to = "Ground/walk";
    cases.push_back({d, StatusCode::kNotFound, "transitions[1].to: no state named 'Ground/walk'"});
  }
  {
    StateMachineDesc d = hero();
    d.states[0].machine[0].entry = "run";
    cases.push_back({d, StatusCode::kNotFound, "states[0].machine.entry: no state named 'run'"});
  }
  {
    StateMachineDesc d = hero();
    d.states[0].machine[0].states.clear();
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[0].machine.states: a machine needs at least one state"});
  }
  {
    StateMachineDesc d = hero();
    d.states[0].machine[0].states[1].motion = "wlak";
    cases.push_back({d, StatusCode::kNotFound,
                     "states[0].machine.states[1].motion: the asset has no clip or blend space "
                     "named 'wlak'"});
  }
  {
    StateMachineDesc d = hero();
    d.states[0].machine[0].name = "Grund";
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[0].machine.name: 'Grund' is not its state's name 'Ground' (a nested "
                     "machine is its state's: leave it empty)"});
  }
  {
    StateMachineDesc d = hero();
    d.states[0].speed = 2.0f;
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[0].speed: 2.000000 on state 'Ground', which holds a machine (its "
                     "states have their own speeds)"});
  }
  {
    // A name is a trigger or a parameter in the whole machine.
    StateMachineDesc d = hero();
    d.states[0].machine[0].transitions[0].conditions[0] = when("jump", ConditionOp::kTrue);
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[0].machine.transitions[0].conditions[0].parameter: 'jump' is a "
                     "trigger elsewhere in the machine, not a parameter"});
  }
  {
    // Two machines of 40 leaves each: 65 leaves at the 25th of the second.
    StateMachineDesc wide;
    for (int i = 0; i < 40; ++i) {
      std::string name = std::to_string(i);
      name += "s";
      wide.states.push_back({name, "idle"});
    }
    StateMachineDesc d;
    d.name = "wide";
    d.states = {holding("a", wide), holding("b", wide)};
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[1].machine.states[24]: more than 64 states play a motion in the "
                     "machine (nested machines' included)"});
  }
  {
    // 200 transitions in each of two machines: the 257th is refused.
    StateMachineDesc busy;
    busy.states = {{"x", "idle"}, {"y", "walk"}};
    for (int i = 0; i < 200; ++i) busy.transitions.push_back(go("x", "y", {}, 0.0f));
    for (TransitionDesc& t : busy.transitions) t.exit_time = 1.0f;
    StateMachineDesc d;
    d.name = "busy";
    d.states = {holding("a", busy), holding("b", busy)};
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[1].machine.transitions[56]: more than 256 transitions in the "
                     "machine (nested machines' included)"});
  }
  {
    // A leaf's path fits in a name.
    StateMachineDesc inner;
    inner.states = {{std::string(200, 'b'), "idle"}};
    StateMachineDesc d;
    d.name = "long";
    d.states = {holding(std::string(100, 'a'), inner)};
    cases.push_back({d, StatusCode::kInvalidArgument,
                     "states[0].machine.states[0].name: the state's path '" +
                         std::string(100, 'a') + "/" + std::string(200, 'b') +
                         "' is longer than 256 bytes"});
  }
  for (const Case& c : cases) {
    const Status s = refusal(c.desc);
    EXPECT_EQ(s.code(), c.code) << s.message();
    EXPECT_EQ(s.message(), c.message);
  }
}

}  // namespace state_machine_nested_test
}  // namespace anim

// The state machine converters (request_convert_state_machine.h): a definition keeps every
// value and gets the defaults ("*" an any-state transition); malformed ones are refused
// naming the field; get_state's answer becomes its reply; and `.animgraph.json` text is read
// with its errors naming the machine's field, the JSON path, or the line and column.
#include "protocol/request_convert_state_machine.h"

#include <cmath>
#include <limits>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include "animjson/json_message.h"
#include "protocol/request_convert.h"
#include "protocol/request_convert_caps.h"
#include "session/command_table.h"

namespace animd {
namespace request_convert_state_machine_test {

using anim::v1::Request;

Request two_states() {
  Request r;
  auto* d = r.mutable_define_state_machine();
  d->set_asset("builtin");
  auto* m = d->mutable_machine();
  m->set_name("loco");
  m->set_entry("walk");
  auto* idle = m->add_states();
  idle->set_name("idle");
  idle->set_motion("idle");
  auto* walk = m->add_states();
  walk->set_name("walk");
  walk->set_motion("walk");
  walk->set_speed(-1.5f);
  walk->set_loop(false);
  auto* t = m->add_transitions();
  t->set_from("idle");
  t->set_to("walk");
  t->set_duration(0.25f);
  t->set_curve(anim::v1::BLEND_CURVE_SMOOTH_STEP);
  t->set_sync(anim::v1::TRANSITION_SYNC_NORMALIZED);
  t->set_priority(3);
  t->set_interruptible(true);
  auto* c = t->add_conditions();
  c->set_parameter("speed");
  c->set_op(anim::v1::CONDITION_GREATER_EQUAL);
  c->set_value(0.5f);
  auto* any = m->add_transitions();
  any->set_from("*");
  any->set_to("idle");
  any->set_exit_time(0.75f);
  return r;
}

TEST(StateMachineConvert, ADefinitionKeepsEveryValueAndGetsTheDefaults) {
  const auto converted = to_world_request(two_states());
  ASSERT_TRUE(converted) << converted.error().message();
  const auto& d = std::get<DefineStateMachine>(*converted);
  EXPECT_EQ(d.asset, "builtin");
  const anim::StateMachineDesc& m = d.machine;
  EXPECT_EQ(m.name, "loco");
  EXPECT_EQ(m.entry, "walk");
  ASSERT_EQ(m.states.size(), 2u);
  EXPECT_EQ(m.states[0].motion, "idle");
  EXPECT_EQ(m.states[0].speed, 1.0f);  // unset
  EXPECT_TRUE(m.states[0].loop);       // unset
  EXPECT_EQ(m.states[1].speed, -1.5f);
  EXPECT_FALSE(m.states[1].loop);
  ASSERT_EQ(m.transitions.size(), 2u);
  const anim::TransitionDesc& t = m.transitions[0];
  EXPECT_EQ(t.from, "idle");
  EXPECT_FALSE(t.any_state);
  EXPECT_EQ(t.to, "walk");
  EXPECT_EQ(t.exit_time, -1.0f);  // unset: none
  EXPECT_EQ(t.duration, 0.25f);
  EXPECT_EQ(t.curve, anim::BlendCurve::kSmoothStep);
  EXPECT_EQ(t.sync, anim::TransitionSync::kNormalized);
  EXPECT_EQ(t.priority, 3);
  EXPECT_TRUE(t.interruptible);
  ASSERT_EQ(t.conditions.size(), 1u);
  EXPECT_EQ(t.conditions[0].parameter, "speed");
  EXPECT_EQ(t.conditions[0].op, anim::ConditionOp::kGreaterEqual);
  EXPECT_EQ(t.conditions[0].value, 0.5f);
  EXPECT_TRUE(m.transitions[1].any_state);
  EXPECT_EQ(m.transitions[1].from, "");
  EXPECT_EQ(m.transitions[1].exit_time, 0.75f);
  EXPECT_EQ(m.transitions[1].curve, anim::BlendCurve::kLinear);

  Request start;
  start.mutable_start_state_machine()->set_character_id(4);
  start.mutable_start_state_machine()->set_machine("loco");
  const auto s = std::get<StartStateMachine>(*to_world_request(start));
  EXPECT_EQ(s.character, 4u);
  EXPECT_EQ(s.machine, "loco");
  EXPECT_EQ(s.state, "");
  Request clear;
  clear.mutable_set_trigger()->set_character_id(4);
  clear.mutable_set_trigger()->set_name("jump");
  clear.mutable_set_trigger()->set_clear(true);
  const auto t2 = std::get<SetTrigger>(*to_world_request(clear));
  EXPECT_EQ(t2.name, "jump");
  EXPECT_FALSE(t2.value);
}

TEST(StateMachineConvert, MalformedDefinitionsAreRefusedNamingTheField) {
  auto refused = [](void (*edit)(Request&), const std::string& message) {
    Request r = two_states();
    edit(r);
    const auto converted = to_world_request(r);
    ASSERT_FALSE(converted) << message;
    EXPECT_EQ(converted.error().code(), anim::StatusCode::kInvalidArgument);
    EXPECT_EQ(converted.error().message(), message);
  };
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()->mutable_machine()->mutable_states(1)->set_speed(
            std::numeric_limits<float>::quiet_NaN());
      },
      "define_state_machine.machine.states[1].speed is NaN");
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()->mutable_machine()->mutable_states(0)->set_name("*");
      },
      "define_state_machine.machine.states[0].name '*' is reserved (a transition's `from` "
      "for any state)");
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()->mutable_machine()->mutable_transitions(1)->set_exit_time(
            -1.0f);
      },
      "define_state_machine.machine.transitions[1].exit_time is negative (unset: no exit time)");
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()->mutable_machine()->mutable_transitions(0)->set_duration(
            -0.1f);
      },
      "define_state_machine.machine.transitions[0].duration is negative");
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()->mutable_machine()->mutable_transitions(0)->set_curve(
            static_cast<anim::v1::BlendCurve>(5));
      },
      "define_state_machine.machine.transitions[0].curve has an unknown value 5 "
      "(BLEND_CURVE_LINEAR = 0, BLEND_CURVE_SMOOTH_STEP = 1)");
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()->mutable_machine()->mutable_transitions(0)->set_sync(
            static_cast<anim::v1::TransitionSync>(-2));
      },
      "define_state_machine.machine.transitions[0].sync has an unknown value -2 "
      "(TRANSITION_SYNC_NONE = 0 .. TRANSITION_SYNC_MARKERS = 2)");
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()
            ->mutable_machine()
            ->mutable_transitions(0)
            ->mutable_conditions(0)
            ->set_value(std::numeric_limits<float>::infinity());
      },
      "define_state_machine.machine.transitions[0].conditions[0].value is infinite");
  refused(
      [](Request& r) {
        auto* t = r.mutable_define_state_machine()->mutable_machine()->mutable_transitions(1);
        for (int i = 0; i < 9; ++i) t->add_conditions()->set_parameter("p");
      },
      "define_state_machine.machine.transitions[1].conditions has 9 conditions, more than 8 (a "
      "transition's limit)");
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()
            ->mutable_machine()
            ->mutable_transitions(0)
            ->mutable_conditions(0)
            ->set_op(anim::v1::CONDITION_UNSPECIFIED);
      },
      "define_state_machine.machine.transitions[0].conditions[0].op is unset (CONDITION_GREATER "
      "= 1 .. CONDITION_TRIGGER = 9)");
  refused(
      [](Request& r) {
        r.mutable_define_state_machine()
            ->mutable_machine()
            ->mutable_transitions(0)
            ->mutable_conditions(0)
            ->set_op(static_cast<anim::v1::ConditionOp>(10));
      },
      "define_state_machine.machine.transitions[0].conditions[0].op has an unknown value 10 "
      "(CONDITION_GREATER = 1 .. CONDITION_TRIGGER = 9)");
  refused([](Request& r) { r.mutable_start_state_machine()->set_machine(std::string(257, 'm')); },
          "start_state_machine.machine is longer than 256 bytes");
  refused([](Request& r) { r.mutable_set_trigger()->set_character_id(1); },
          "set_trigger.name is empty");
}

// two_states() with idle replaced by a state "Ground" holding a machine (idle, walk).
Request nested() {
  Request r = two_states();
  auto* ground = r.mutable_define_state_machine()->mutable_machine()->mutable_states(0);
  ground->set_name("Ground");
  ground->clear_motion();
  auto* inner = ground->mutable_machine();
  inner->set_entry("walk");
  for (const char* name : {"idle", "walk"}) {
    auto* s = inner->add_states();
    s->set_name(name);
    s->set_motion(name);
  }
  auto* t = inner->add_transitions();
  t->set_from("idle");
  t->set_to("walk");
  auto* c = t->add_conditions();
  c->set_parameter("speed");
  c->set_op(anim::v1::CONDITION_LESS);
  c->set_value(2.0f);
  return r;
}

// A machine `levels` deep: each level's state "s" holds the next; the innermost plays idle.
void nest(anim::v1::StateMachineDef* m, int levels) {
  for (int i = 1; i < levels; ++i) {
    auto* s = m->add_states();
    s->set_name("s");
    m = s->mutable_machine();
  }
  auto* leaf = m->add_states();
  leaf->set_name("s");
  leaf->set_motion("idle");
}

TEST(StateMachineConvert, ANestedMachineConvertsWithItsStatesAndTransitions) {
  const auto converted = to_world_request(nested());
  ASSERT_TRUE(converted) << converted.error().message();
  const anim::StateMachineDesc& m = std::get<DefineStateMachine>(*converted).machine;
  ASSERT_EQ(m.states.size(), 2u);
  EXPECT_EQ(m.states[0].name, "Ground");
  EXPECT_EQ(m.states[0].motion, "");
  ASSERT_EQ(m.states[0].machine.size(), 1u);
  EXPECT_TRUE(m.states[1].machine.empty());
  const anim::StateMachineDesc& inner = m.states[0].machine[0];
  EXPECT_EQ(inner.name, "");
  EXPECT_EQ(inner.entry, "walk");
  ASSERT_EQ(inner.states.size(), 2u);
  EXPECT_EQ(inner.states[1].name, "walk");
  EXPECT_EQ(inner.states[1].motion, "walk");
  ASSERT_EQ(inner.transitions.size(), 1u);
  EXPECT_EQ(inner.transitions[0].from, "idle");
  EXPECT_EQ(inner.transitions[0].conditions[0].op, anim::ConditionOp::kLess);
  EXPECT_EQ(inner.transitions[0].conditions[0].value, 2.0f);

  // A machine exactly at the depth limit converts.
  Request deep;
  deep.mutable_define_state_machine()->mutable_machine()->set_name("deep");
  nest(deep.mutable_define_state_machine()->mutable_machine(), anim::kMaxMachineDepth);
  const auto at_limit = to_world_request(deep);
  ASSERT_TRUE(at_limit) << at_limit.error().message();
  EXPECT_EQ(std::get<DefineStateMachine>(*at_limit)
                .machine.states[0]
                .machine[0]
                .states[0]
                .machine[0]
                .states[0]
                .machine[0]
                .states[0]
                .motion,
            "idle");
}

TEST(StateMachineConvert, NestedMachinesAreRefusedNamingTheFieldPath) {
  auto refused = [](const Request& r, const std::string& message) {
    // The caps (the session runs them before routing), then the converter.
    const anim::Status caps = check_repeated_field_caps(r);
    const auto converted = to_world_request(r);
    ASSERT_FALSE(converted) << message;
    EXPECT_EQ(converted.error().code(), anim::StatusCode::kInvalidArgument);
    EXPECT_EQ(converted.error().message(), message);
    if (!caps) {
      EXPECT_EQ(caps.message(), message);
    }
  };
  {
    Request r = nested();
    r.mutable_define_state_machine()
        ->mutable_machine()
        ->mutable_states(0)
        ->mutable_machine()
        ->mutable_transitions(0)
        ->mutable_conditions(0)
        ->clear_op();
    refused(r,
            "define_state_machine.machine.states[0].machine.transitions[0].conditions[0].op is "
            "unset (CONDITION_GREATER = 1 .. CONDITION_TRIGGER = 9)");
  }
  {
    Request r = nested();
    r.mutable_define_state_machine()
        ->mutable_machine()
        ->mutable_states(0)
        ->mutable_machine()
        ->mutable_states(1)
        ->set_speed(std::numeric_limits<float>::quiet_NaN());
    refused(r, "define_state_machine.machine.states[0].machine.states[1].speed is NaN");
  }
  {
    // One level over the limit: refused by the caps, before the deepest machine is read.
    Request r;
    r.mutable_define_state_machine()->mutable_machine()->set_name("deep");
    nest(r.mutable_define_state_machine()->mutable_machine(), anim::kMaxMachineDepth + 1);
    refused(r,
            "define_state_machine.machine.states[0].machine.states[0].machine.states[0].machine."
            "states[0].machine: machines nest more than 4 deep");
  }
  {
    // 45 machines deep (92 levels of messages; protobuf parses at most 100): refused the same
    // way, the walk going no deeper than the limit.
    Request r;
    nest(r.mutable_define_state_machine()->mutable_machine(), 45);
    Request parsed;
    ASSERT_TRUE(parsed.ParseFromString(r.SerializeAsString()));
    refused(parsed,
            "define_state_machine.machine.states[0].machine.states[0].machine.states[0].machine."
            "states[0].machine: machines nest more than 4 deep");
  }
  {
    // The lists of a nested machine have the caps of the outermost's.
    Request r = nested();
    auto* inner =
        r.mutable_define_state_machine()->mutable_machine()->mutable_states(0)->mutable_machine();
    for (int i = 0; i < anim::kMaxMachineStates - 1; ++i) inner->add_states()->set_motion("idle");
    refused(r,
            "define_state_machine.machine.states[0].machine.states has 65 states, more than 64 (a "
            "state machine's limit)");
  }
  {
    // And the whole: 62 + 2 leaves under Ground, and walk beside it.
    Request r = nested();
    auto* inner =
        r.mutable_define_state_machine()->mutable_machine()->mutable_states(0)->mutable_machine();
    for (int i = 0; i < anim::kMaxMachineStates - 2; ++i) inner->add_states()->set_motion("idle");
    refused(r,
            "define_state_machine.machine.states[1]: more than 64 states play a motion in the "
            "machine (nested machines' included)");
  }
  {
    Request r = nested();
    auto* inner =
        r.mutable_define_state_machine()->mutable_machine()->mutable_states(0)->mutable_machine();
    for (int i = 0; i < anim::kMaxMachineTransitions - 2; ++i)
      *inner->add_transitions() = inner->transitions(0);
    // 2 outer + 255 inner: the inner machine's 255th (index 254) is the 257th.
    refused(r,
            "define_state_machine.machine.states[0].machine.transitions[254]: more than 256 "
            "transitions in the machine (nested machines' included)");
  }
}

TEST(StateMachineConvert, TheStateBecomesGetStateReply) {
  auto machine = std::make_shared<anim::StateMachine>();
  machine->name = "loco";
  machine->states.resize(2);
  machine->states[0].name = "idle";
  machine->states[1].name = "walk";
  anim::MachineStatus s;
  s.running = true;
  s.state = 1;
  s.state_time = 0.25f;
  s.transition = 3;
  s.from_state = 0;
  s.transition_elapsed = 0.05f;
  s.transition_duration = 0.2f;
  MachineStateAnswer answer{machine, s, {}, {{"speed", 1.5f}}, {{"jump", true}, {"hit", false}}};
  anim::MachineStatus layer_status = s;
  layer_status.state = 0;
  layer_status.transition = -1;
  answer.layers.push_back({7, machine, layer_status});
  const auto reply = to_reply(WorldResult(answer));
  ASSERT_TRUE(reply.has_get_state());
  const auto& g = reply.get_state();
  EXPECT_EQ(g.machine(), "loco");
  EXPECT_EQ(g.state(), "walk");
  EXPECT_EQ(g.state_time(), 0.25f);
  ASSERT_TRUE(g.has_transition());
  EXPECT_EQ(g.transition().from(), "idle");
  EXPECT_EQ(g.transition().to(), "walk");
  EXPECT_EQ(g.transition().elapsed(), 0.05f);
  EXPECT_EQ(g.transition().duration(), 0.2f);
  EXPECT_EQ(g.transition().index(), 3u);
  // The machine layers, parameters and triggers, in order.
  ASSERT_EQ(g.layers_size(), 1);
  EXPECT_EQ(g.layers(0).layer_id(), 7u);
  EXPECT_EQ(g.layers(0).machine(), "loco");
  EXPECT_EQ(g.layers(0).state(), "idle");
  EXPECT_EQ(g.layers(0).state_time(), 0.25f);
  EXPECT_FALSE(g.layers(0).has_transition());
  ASSERT_EQ(g.parameters_size(), 1);
  EXPECT_EQ(g.parameters(0).name(), "speed");
  EXPECT_EQ(g.parameters(0).value(), 1.5f);
  ASSERT_EQ(g.triggers_size(), 2);
  EXPECT_EQ(g.triggers(0).name(), "jump");
  EXPECT_TRUE(g.triggers(0).set());
  EXPECT_FALSE(g.triggers(1).set());
  s.transition = -1;
  EXPECT_FALSE(to_reply(WorldResult(MachineStateAnswer{machine, s, {}, {}, {}}))
                   .get_state()
                   .has_transition());
  // No machine: a get_state reply with nothing set.
  const auto none =
      to_reply(WorldResult(MachineStateAnswer{nullptr, anim::MachineStatus{}, {}, {}, {}}));
  ASSERT_TRUE(none.has_get_state());
  EXPECT_EQ(none.get_state().machine(), "");
  EXPECT_FALSE(none.get_state().has_transition());
}

TEST(StateMachineFile, AGoodFileGivesItsMachines) {
  const auto machines = state_machine_file_from_json(R"({
    "state_machines": [
      {"name": "a", "states": [{"name": "s", "motion": "idle"}]},
      {"name": "b", "entry": "t",
       "states": [{"name": "s", "motion": "idle"}, {"name": "t", "motion": "walk", "loop": false}],
       "transitions": [{"from": "*", "to": "s", "exitTime": 1,
                        "conditions": [{"parameter": "jump", "op": "CONDITION_TRIGGER"}]}]}
    ]
  })");
  ASSERT_TRUE(machines) << machines.error().message();
  ASSERT_EQ(machines->size(), 2u);
  EXPECT_EQ((*machines)[1].entry, "t");
  EXPECT_FALSE((*machines)[1].states[1].loop);
  ASSERT_EQ((*machines)[1].transitions.size(), 1u);
  EXPECT_TRUE((*machines)[1].transitions[0].any_state);
  EXPECT_EQ((*machines)[1].transitions[0].exit_time, 1.0f);
  EXPECT_EQ((*machines)[1].transitions[0].conditions[0].op, anim::ConditionOp::kTrigger);
  const auto empty = state_machine_file_from_json("{}");
  ASSERT_TRUE(empty) << empty.error().message();
  EXPECT_TRUE(empty->empty());
}

TEST(StateMachineFile, ABadFileSaysWhereAndWhat) {
  auto error_of = [](const std::string& json) {
    const auto machines = state_machine_file_from_json(json);
    EXPECT_FALSE(machines) << json;
    if (machines) return std::string();
    EXPECT_EQ(machines.error().code(), anim::StatusCode::kInvalidArgument);
    return machines.error().message();
  };
  // Syntax: the line and column where parsing stopped.
  EXPECT_EQ(error_of("{\n  \"state_machines\": [\n    {\"name\": \"x\",, }\n  ]\n}\n")
                .rfind("line 3, column 18: ", 0),
            0u)
      << error_of("{\n  \"state_machines\": [\n    {\"name\": \"x\",, }\n  ]\n}\n");
  EXPECT_NE(error_of("{\"state_machines\": [").find("line 1, column "), std::string::npos);
  // A bad value: its path.
  const std::string curve = error_of(
      R"({"state_machines": [{"name": "m", "transitions": [{}, {"curve": "BLEND_CURVE_WOBBLY"}]}]})");
  EXPECT_EQ(curve.rfind("state_machines[0].transitions[1].curve: ", 0), 0u) << curve;
  // An unknown field: named.
  EXPECT_EQ(error_of(R"({"state_machines": [{"name": "m", "trasitions": []}]})"),
            "state_machines[0].trasitions: Cannot find field.");
  EXPECT_EQ(error_of(R"({"machines": []})"), "machines: Cannot find field.");
  // A machine's form: its field after state_machines[i].
  EXPECT_EQ(error_of(R"({"state_machines": [{"name": "m"},
      {"name": "n", "states": [{"name": "s", "speed": "NaN"}]}]})"),
            "state_machines[1].states[0].speed is NaN");
  std::string many = R"({"state_machines": [)";
  for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + R"({"name": "m"})";
  many += "]}";
  EXPECT_EQ(error_of(many), "state_machines has 65 machines, more than 64 (an asset's limit)");
  std::string wide = R"({"state_machines": [{"name": "m", "states": [)";
  for (int i = 0; i < 65; ++i) wide += std::string(i ? "," : "") + R"({"name": "s"})";
  wide += "]}]}";
  EXPECT_EQ(error_of(wide),
            "state_machines[0].states has 65 states, more than 64 (a state machine's limit)");
  EXPECT_EQ(error_of(std::string(kMaxStateMachineFileBytes + 1, ' ')).rfind("the file has ", 0),
            0u);
  // A nested machine: its fields under the state's `machine`.
  EXPECT_EQ(error_of(R"({"state_machines": [{"name": "m", "states": [{"name": "g", "machine":
      {"states": [{"name": "s", "motion": "idle"}], "transitions": [{"from": "s", "to": "s",
      "conditions": [{"parameter": "p"}]}]}}]}]})"),
            "state_machines[0].states[0].machine.transitions[0].conditions[0].op is unset "
            "(CONDITION_GREATER = 1 .. CONDITION_TRIGGER = 9)");
  std::string deep = R"({"state_machines": [{"name": "m", "states": [)";
  for (int i = 0; i < 5; ++i) deep += R"({"name": "s", "machine": {"states": [)";
  deep += R"({"name": "s", "motion": "idle"})";
  for (int i = 0; i < 5; ++i) deep += "]}}";
  deep += "]}]}";
  EXPECT_EQ(error_of(deep),
            "state_machines[0].states[0].machine.states[0].machine.states[0].machine.states[0]."
            "machine: machines nest more than 4 deep");
}

TEST(JsonPlace, LinesAndColumnsCountFromOne) {
  const std::string text = "ab\ncd\n\nef";
  EXPECT_EQ(animjson::place_of(text, 0).line, 1);
  EXPECT_EQ(animjson::place_of(text, 0).column, 1);
  EXPECT_EQ(animjson::place_of(text, 2).column, 3);  // the newline itself
  EXPECT_EQ(animjson::place_of(text, 3).line, 2);
  EXPECT_EQ(animjson::place_of(text, 3).column, 1);
  EXPECT_EQ(animjson::place_of(text, 7).line, 4);
  EXPECT_EQ(animjson::place_of(text, 8).column, 2);
  EXPECT_EQ(animjson::place_of(text, 100).line, 4);  // past the end: its end
}

}  // namespace request_convert_state_machine_test
}  // namespace animd

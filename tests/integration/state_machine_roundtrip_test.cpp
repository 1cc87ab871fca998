// State machines through the real daemon on the built-in character: define_state_machine
// (idle -> walk on speed > 0.5, walk -> idle on speed < 0.5, any state -> wave on the trigger
// `wave`, wave -> idle at its end), start_state_machine, set_parameter and set_trigger driving
// it at scheduled ticks, get_state reporting the state and the transition in progress, and
// every refusal naming its field and changing nothing. Then `.animgraph.json` files beside
// assets under --assets: a good one defines its machines at start-up; a bad one is logged
// naming the file and the field (or the line and column) and defines none.
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "integration_support.h"
#include "send_async.h"

namespace animtest {
namespace state_machine_roundtrip_test {

using anim::v1::Request;

Request at(Request r, uint64_t tick) {
  r.set_at_tick(tick);
  return r;
}

void add_state(anim::v1::StateMachineDef* m, const std::string& name, const std::string& motion,
               float speed = 1.0f, bool loop = true) {
  auto* s = m->add_states();
  s->set_name(name);
  s->set_motion(motion);
  if (speed != 1.0f) s->set_speed(speed);
  if (!loop) s->set_loop(false);
}

anim::v1::MachineTransitionDef* add_transition(anim::v1::StateMachineDef* m,
                                               const std::string& from, const std::string& to,
                                               float duration) {
  auto* t = m->add_transitions();
  t->set_from(from);
  t->set_to(to);
  t->set_duration(duration);
  return t;
}

void add_condition(anim::v1::MachineTransitionDef* t, const std::string& parameter,
                   anim::v1::ConditionOp op, float value = 0.0f) {
  auto* c = t->add_conditions();
  c->set_parameter(parameter);
  c->set_op(op);
  c->set_value(value);
}

// The machine of the test, on the built-in clips. wave plays at 4x: it ends 0.5 s in.
Request define_locomotion(const std::string& asset = "builtin", const std::string& name = "loco") {
  Request r;
  auto* d = r.mutable_define_state_machine();
  d->set_asset(asset);
  auto* m = d->mutable_machine();
  m->set_name(name);
  add_state(m, "idle", "idle");
  add_state(m, "walk", "walk");
  add_state(m, "wave", "wave", 4.0f, false);
  add_condition(add_transition(m, "idle", "walk", 0.2f), "speed", anim::v1::CONDITION_GREATER,
                0.5f);
  add_condition(add_transition(m, "walk", "idle", 0.2f), "speed", anim::v1::CONDITION_LESS, 0.5f);
  add_condition(add_transition(m, "*", "wave", 0.1f), "wave", anim::v1::CONDITION_TRIGGER);
  add_transition(m, "wave", "idle", 0.1f)->set_exit_time(1.0f);
  return r;
}

Request start(uint32_t id, const std::string& machine, const std::string& state = "") {
  Request r;
  r.mutable_start_state_machine()->set_character_id(id);
  r.mutable_start_state_machine()->set_machine(machine);
  r.mutable_start_state_machine()->set_state(state);
  return r;
}

Request get_state(uint32_t id) {
  Request r;
  r.mutable_get_state()->set_character_id(id);
  return r;
}

Request set_speed_parameter(uint32_t id, float value) {
  Request r;
  r.mutable_set_parameter()->set_character_id(id);
  r.mutable_set_parameter()->set_name("speed");
  r.mutable_set_parameter()->set_value(value);
  return r;
}

Request trigger(uint32_t id, const std::string& name, bool clear = false) {
  Request r;
  r.mutable_set_trigger()->set_character_id(id);
  r.mutable_set_trigger()->set_name(name);
  r.mutable_set_trigger()->set_clear(clear);
  return r;
}

Request spawn(const std::string& asset, const std::string& clip) {
  Request r;
  r.mutable_spawn()->set_asset(asset);
  r.mutable_spawn()->set_clip(clip);
  return r;
}

TEST(StateMachines, DrivenByParametersAndTriggersThroughTheDaemon) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto& c = *client;
  const uint32_t id = call_ok(c, spawn("builtin", "run")).spawn().character_id();

  // Before any machine: get_state answers, with no machine.
  const auto none = call_ok(c, get_state(id));
  ASSERT_TRUE(none.has_get_state());
  EXPECT_EQ(none.get_state().machine(), "");
  EXPECT_EQ(none.get_state().state(), "");
  EXPECT_FALSE(none.get_state().has_transition());

  call_ok(c, define_locomotion());
  call_ok(c, start(id, "loco"));
  const auto started = call_ok(c, get_state(id)).get_state();
  EXPECT_EQ(started.machine(), "loco");
  EXPECT_EQ(started.state(), "idle");
  EXPECT_FALSE(started.has_transition());
  // The machine drives the base: list_characters shows its clip.
  Request list;
  list.mutable_list_characters();
  const auto listed = call_ok(c, list);
  for (const auto& ch : listed.list_characters().characters())
    if (ch.character_id() == id) {
      EXPECT_EQ(ch.clip(), "idle");
    }

  // speed 1 at tick x: the update of tick x starts idle -> walk (0.2 s = 12 ticks at 60 Hz).
  const uint64_t x = current_tick(c) + 20;
  auto set = send_async(c, at(set_speed_parameter(id, 1.0f), x));
  auto fading = send_async(c, at(get_state(id), x + 3));
  auto settled = send_async(c, at(get_state(id), x + 30));
  ASSERT_EQ(set.get().status().code(), anim::v1::STATUS_OK);
  const auto mid = fading.get();
  ASSERT_EQ(mid.status().code(), anim::v1::STATUS_OK) << mid.status().message();
  EXPECT_EQ(mid.tick(), x + 3);
  const auto& s = mid.get_state();
  EXPECT_EQ(s.machine(), "loco");
  EXPECT_EQ(s.state(), "walk");
  ASSERT_TRUE(s.has_transition());
  EXPECT_EQ(s.transition().from(), "idle");
  EXPECT_EQ(s.transition().to(), "walk");
  EXPECT_EQ(s.transition().index(), 0u);
  EXPECT_FLOAT_EQ(s.transition().duration(), 0.2f);
  EXPECT_GT(s.transition().elapsed(), 0.0f);
  EXPECT_LT(s.transition().elapsed(), 0.1f);
  EXPECT_GT(s.state_time(), 0.0f);
  const auto after = settled.get();
  ASSERT_EQ(after.status().code(), anim::v1::STATUS_OK) << after.status().message();
  EXPECT_EQ(after.get_state().state(), "walk");
  EXPECT_FALSE(after.get_state().has_transition());

  // Back to idle, then the trigger at tick y: any state -> wave, once. wave ends 0.5 s in and
  // goes back to idle, where the consumed trigger does not fire again.
  const uint64_t y = current_tick(c) + 20;
  auto slow = send_async(c, at(set_speed_parameter(id, 0.0f), y));
  auto fire = send_async(c, at(trigger(id, "wave"), y + 30));
  auto waving = send_async(c, at(get_state(id), y + 32));
  auto back = send_async(c, at(get_state(id), y + 100));
  auto still = send_async(c, at(get_state(id), y + 130));
  ASSERT_EQ(slow.get().status().code(), anim::v1::STATUS_OK);
  ASSERT_EQ(fire.get().status().code(), anim::v1::STATUS_OK);
  const auto waved = waving.get().get_state();
  EXPECT_EQ(waved.state(), "wave");
  ASSERT_TRUE(waved.has_transition());
  EXPECT_EQ(waved.transition().from(), "idle");
  EXPECT_EQ(waved.transition().index(), 2u);
  EXPECT_EQ(back.get().get_state().state(), "idle");
  const auto quiet = still.get().get_state();
  EXPECT_EQ(quiet.state(), "idle");
  EXPECT_FALSE(quiet.has_transition());

  // Set and cleared before the tick's update: nothing fires.
  const uint64_t z = current_tick(c) + 20;
  auto set_it = send_async(c, at(trigger(id, "wave"), z));
  auto clear_it = send_async(c, at(trigger(id, "wave", true), z));
  auto calm = send_async(c, at(get_state(id), z + 5));
  ASSERT_EQ(set_it.get().status().code(), anim::v1::STATUS_OK);
  ASSERT_EQ(clear_it.get().status().code(), anim::v1::STATUS_OK);
  EXPECT_EQ(calm.get().get_state().state(), "idle");

  // Started again in a given state: walk, which speed 0 leaves at once (the update of the
  // start's tick fades to idle). Stopped, the base keeps what it plays.
  const uint64_t w = current_tick(c) + 20;
  auto restart = send_async(c, at(start(id, "loco", "walk"), w));
  auto leaving = send_async(c, at(get_state(id), w + 1));
  ASSERT_EQ(restart.get().status().code(), anim::v1::STATUS_OK);
  const auto left = leaving.get().get_state();
  EXPECT_EQ(left.state(), "idle");
  ASSERT_TRUE(left.has_transition());
  EXPECT_EQ(left.transition().from(), "walk");
  EXPECT_EQ(left.transition().index(), 1u);
  Request stop;
  stop.mutable_stop_state_machine()->set_character_id(id);
  call_ok(c, stop);
  EXPECT_EQ(call_ok(c, get_state(id)).get_state().machine(), "");
  call_ok(c, stop);  // nothing to stop: still OK
  Request crossfade;
  crossfade.mutable_crossfade()->set_character_id(id);
  crossfade.mutable_crossfade()->set_clip("run");
  crossfade.mutable_crossfade()->set_duration(0.2f);
  call_ok(c, crossfade);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

Request add_machine_layer(uint32_t id, const std::string& machine, const std::string& state = "") {
  Request r;
  auto* l = r.mutable_add_layer();
  l->set_character_id(id);
  l->set_state_machine(machine);
  l->set_state(state);
  l->set_blend(anim::v1::LAYER_BLEND_OVERRIDE);
  return r;
}

// A machine in an override layer at full weight over every joint is the same machine on the
// base: two characters, one of each, started at the same tick and driven by the same
// parameter, have the same poses at every past tick query_pose answers; get_state reports
// the layer's machine, the parameters and the triggers.
TEST(StateMachines, MachineLayersRunAsTheBaseMachineDoesThroughTheDaemon) {
  DaemonProcess daemon({"--history-seconds", "5"});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto& c = *client;
  call_ok(c, define_locomotion());
  const uint32_t layered = call_ok(c, spawn("builtin", "run")).spawn().character_id();
  const uint32_t based = call_ok(c, spawn("builtin", "idle")).spawn().character_id();

  const uint64_t t0 = current_tick(c) + 20;
  auto added = send_async(c, at(add_machine_layer(layered, "loco"), t0));
  auto started = send_async(c, at(start(based, "loco"), t0));
  std::vector<std::future<anim::v1::Reply>> sets;
  for (uint32_t id : {layered, based}) {
    sets.push_back(send_async(c, at(set_speed_parameter(id, 1.0f), t0 + 10)));
    sets.push_back(send_async(c, at(trigger(id, "wave"), t0 + 40)));
  }
  auto fading = send_async(c, at(get_state(layered), t0 + 13));
  const auto layer_reply = added.get();
  ASSERT_EQ(layer_reply.status().code(), anim::v1::STATUS_OK) << layer_reply.status().message();
  const uint32_t layer_id = layer_reply.add_layer().layer_id();
  ASSERT_EQ(started.get().status().code(), anim::v1::STATUS_OK);
  for (auto& f : sets) ASSERT_EQ(f.get().status().code(), anim::v1::STATUS_OK);
  const auto mid = fading.get();
  ASSERT_EQ(mid.status().code(), anim::v1::STATUS_OK) << mid.status().message();
  const auto& s = mid.get_state();
  EXPECT_EQ(s.machine(), "") << "no machine on the layered character's base";
  ASSERT_EQ(s.layers_size(), 1);
  EXPECT_EQ(s.layers(0).layer_id(), layer_id);
  EXPECT_EQ(s.layers(0).machine(), "loco");
  EXPECT_EQ(s.layers(0).state(), "walk");
  ASSERT_TRUE(s.layers(0).has_transition());
  EXPECT_EQ(s.layers(0).transition().from(), "idle");
  ASSERT_EQ(s.parameters_size(), 1);
  EXPECT_EQ(s.parameters(0).name(), "speed");
  EXPECT_EQ(s.parameters(0).value(), 1.0f);
  ASSERT_EQ(s.triggers_size(), 1);
  EXPECT_EQ(s.triggers(0).name(), "wave");
  EXPECT_FALSE(s.triggers(0).set());

  // Wait until the wave played out, then compare the two characters' past poses.
  while (current_tick(c) < t0 + 90) std::this_thread::sleep_for(20ms);
  int compared = 0;
  for (uint64_t t = t0; t <= t0 + 80; t += 4) {
    const auto a = pose_at(c, layered, t);
    const auto b = pose_at(c, based, t);
    ASSERT_EQ(a.joints_size(), b.joints_size());
    for (int j = 0; j < a.joints_size(); ++j)
      for (int k = 0; k < a.joints(j).matrix_size(); ++k)
        ASSERT_EQ(a.joints(j).matrix(k), b.joints(j).matrix(k)) << "tick " << t << " joint " << j;
    ++compared;
  }
  EXPECT_EQ(compared, 21);

  // Refusals name the field and add nothing.
  expect_status(c, add_machine_layer(layered, "swim"), anim::v1::STATUS_NOT_FOUND,
                "add_layer.state_machine");
  expect_status(c, add_machine_layer(layered, "loco", "fly"), anim::v1::STATUS_NOT_FOUND, "fly");
  Request with_clip = add_machine_layer(layered, "loco");
  with_clip.mutable_add_layer()->set_clip("walk");
  expect_status(c, with_clip, anim::v1::STATUS_INVALID_ARGUMENT, "add_layer.clip");
  Request state_only = add_machine_layer(layered, "");
  state_only.mutable_add_layer()->set_state("walk");
  expect_status(c, state_only, anim::v1::STATUS_INVALID_ARGUMENT, "add_layer.state");
  EXPECT_EQ(call_ok(c, get_state(layered)).get_state().layers_size(), 1);
  // Removed like any layer.
  Request remove;
  remove.mutable_remove_layer()->set_character_id(layered);
  remove.mutable_remove_layer()->set_layer_id(layer_id);
  call_ok(c, remove);
  EXPECT_EQ(call_ok(c, get_state(layered)).get_state().layers_size(), 0);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(StateMachines, RefusalsNameTheFieldAndChangeNothing) {
  DaemonProcess daemon;
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto& c = *client;
  const uint32_t id = call_ok(c, spawn("builtin", "walk")).spawn().character_id();
  const uint32_t bystander = call_ok(c, spawn("builtin", "walk")).spawn().character_id();

  expect_status(c, define_locomotion("nobody"), anim::v1::STATUS_NOT_FOUND,
                "define_state_machine.asset: unknown asset 'nobody'");
  Request moonwalk = define_locomotion("builtin", "broken");
  moonwalk.mutable_define_state_machine()->mutable_machine()->mutable_states(1)->set_motion(
      "moonwalk");
  expect_status(c, moonwalk, anim::v1::STATUS_NOT_FOUND,
                "define_state_machine.machine.states[1].motion: the asset has no clip or blend "
                "space named 'moonwalk'");
  Request typo = define_locomotion("builtin", "broken");
  typo.mutable_define_state_machine()->mutable_machine()->mutable_transitions(1)->set_to("rnu");
  expect_status(c, typo, anim::v1::STATUS_NOT_FOUND,
                "define_state_machine.machine.transitions[1].to: no state named 'rnu'");
  Request nan = define_locomotion("builtin", "broken");
  nan.mutable_define_state_machine()->mutable_machine()->mutable_transitions(0)->set_duration(NAN);
  expect_status(c, nan, anim::v1::STATUS_INVALID_ARGUMENT,
                "define_state_machine.machine.transitions[0].duration is NaN");
  Request op = define_locomotion("builtin", "broken");
  op.mutable_define_state_machine()
      ->mutable_machine()
      ->mutable_transitions(0)
      ->mutable_conditions(0)
      ->set_op(static_cast<anim::v1::ConditionOp>(42));
  expect_status(c, op, anim::v1::STATUS_INVALID_ARGUMENT,
                "define_state_machine.machine.transitions[0].conditions[0].op has an unknown "
                "value 42");
  // None of them was defined.
  expect_status(c, start(id, "broken"), anim::v1::STATUS_NOT_FOUND,
                "start_state_machine.machine: asset 'builtin' has no state machine named "
                "'broken'");

  call_ok(c, define_locomotion());
  Request again = define_locomotion();
  again.mutable_define_state_machine()->mutable_machine()->set_entry("walk");
  expect_status(c, again, anim::v1::STATUS_FAILED_PRECONDITION,
                "define_state_machine.machine.name: asset 'builtin' already has a state machine "
                "named 'loco'");
  // The first definition stands: its entry is idle.
  expect_status(c, start(id, "loco", "fly"), anim::v1::STATUS_NOT_FOUND, "no state named 'fly'");
  EXPECT_EQ(call_ok(c, get_state(id)).get_state().machine(), "");
  call_ok(c, start(id, "loco"));
  EXPECT_EQ(call_ok(c, get_state(id)).get_state().state(), "idle");

  // While the machine runs, play and crossfade are refused; it keeps running.
  Request crossfade;
  crossfade.mutable_crossfade()->set_character_id(id);
  crossfade.mutable_crossfade()->set_clip("run");
  crossfade.mutable_crossfade()->set_duration(0.2f);
  expect_status(c, crossfade, anim::v1::STATUS_FAILED_PRECONDITION, "state machine 'loco'");
  Request play;
  play.mutable_play()->set_character_id(id);
  play.mutable_play()->set_clip("run");
  expect_status(c, play, anim::v1::STATUS_FAILED_PRECONDITION, "state machine 'loco'");
  const auto running = call_ok(c, get_state(id)).get_state();
  EXPECT_EQ(running.machine(), "loco");
  EXPECT_EQ(running.state(), "idle");

  expect_status(c, start(id, "moonwalk"), anim::v1::STATUS_NOT_FOUND,
                "start_state_machine.machine: asset 'builtin' has no state machine named "
                "'moonwalk'");
  expect_status(c, start(id, ""), anim::v1::STATUS_INVALID_ARGUMENT,
                "start_state_machine.machine is empty");
  expect_status(c, start(9999, "loco"), anim::v1::STATUS_NOT_FOUND,
                "start_state_machine.character_id: unknown character 9999");
  expect_status(c, trigger(id, ""), anim::v1::STATUS_INVALID_ARGUMENT, "set_trigger.name is empty");
  expect_status(c, trigger(id, std::string(300, 't')), anim::v1::STATUS_INVALID_ARGUMENT,
                "set_trigger.name is longer than 256 bytes");
  expect_status(c, get_state(9999), anim::v1::STATUS_NOT_FOUND,
                "get_state.character_id: unknown character 9999");
  EXPECT_EQ(call_ok(c, get_state(id)).get_state().machine(), "loco");
  // A character without a machine: an empty answer.
  const auto other = call_ok(c, get_state(bystander)).get_state();
  EXPECT_EQ(other.machine(), "");
  EXPECT_FALSE(other.has_transition());
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Two frames of a two-joint capture: the clip lasts one frame time, so states can play it.
const char* kCapture = R"(HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Spine
  {
    OFFSET 0 2 0
    CHANNELS 3 Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 0 0 0 0 0 0 0 0
0 0 0 0 0 0 0 30 0
)";

// A graph file with one machine on the capture's clip (named after its file stem), whose
// only transition goes to `to`.
std::string graph_json(const std::string& clip, const std::string& to) {
  return R"({
  "state_machines": [
    {
      "name": "sway",
      "states": [
        {"name": "still", "motion": ")" +
         clip + R"(", "speed": 0.5},
        {"name": "moving", "motion": ")" +
         clip + R"("}
      ],
      "transitions": [
        {"from": "still", "to": ")" +
         to + R"(", "conditions": [{"parameter": "go", "op": "CONDITION_TRUE"}],
         "duration": 0.1, "curve": "BLEND_CURVE_SMOOTH_STEP"}
      ]
    }
  ]
}
)";
}

TEST(StateMachines, AnimgraphFilesBesideAssetsAreDefinedAtStartUpOrLoggedAndSkipped) {
  TempDir dir("animd-animgraph");
  ASSERT_TRUE(dir.ok());
  const auto& root = dir.path();
  for (const char* stem : {"Hero", "Bad", "Broken"})
    write_text_file(root / (std::string(stem) + ".bvh"), kCapture);
  write_text_file(root / "Hero.animgraph.json", graph_json("Hero", "moving"));
  write_text_file(root / "Bad.animgraph.json", graph_json("Bad", "rnu"));
  // A syntax error on line 3: a comma with nothing after it.
  write_text_file(root / "Broken.animgraph.json",
                  "{\n  \"state_machines\": [\n    {\"name\": \"x\",, }\n  ]\n}\n");
  write_text_file(root / "Nobody.animgraph.json", graph_json("Nobody", "moving"));

  DaemonProcess daemon({"--assets", root.string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  auto& c = *client;
  const std::string log = daemon.log();
  EXPECT_NE(log.find("asset 'Hero': 1 state machine(s) defined from Hero.animgraph.json"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("Bad.animgraph.json: state_machines[0].transitions[0].to: no state named "
                     "'rnu' (none of its state machines defined"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("Broken.animgraph.json: line 3, column 18: "), std::string::npos) << log;
  EXPECT_NE(log.find("Nobody.animgraph.json not read"), std::string::npos) << log;

  // Hero's machine runs; the bad files defined nothing, and their assets loaded.
  const uint32_t hero = call_ok(c, spawn("Hero", "Hero")).spawn().character_id();
  call_ok(c, start(hero, "sway"));
  const auto s = call_ok(c, get_state(hero)).get_state();
  EXPECT_EQ(s.machine(), "sway");
  EXPECT_EQ(s.state(), "still");
  for (const char* asset : {"Bad", "Broken"}) {
    SCOPED_TRACE(asset);
    const uint32_t id = call_ok(c, spawn(asset, asset)).spawn().character_id();
    expect_status(c, start(id, "sway"), anim::v1::STATUS_NOT_FOUND,
                  "start_state_machine.machine: asset '" + std::string(asset) +
                      "' has no state machine named 'sway'");
  }
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace state_machine_roundtrip_test
}  // namespace animtest

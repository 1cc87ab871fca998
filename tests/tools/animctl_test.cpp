// animctl against a real animd on 127.0.0.1: outputs (--json parsed), exit codes, messages.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include "anim/loaders/builtin_character.h"

#include "daemon_process.h"
#include "run_process.h"
#include "tool_paths.h"

namespace {

using animtest::ProcessResult;
using nlohmann::json;

class Animctl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    daemon_ = std::make_unique<animtest::DaemonProcess>();
    if (!daemon_->start()) {
      start_error_ = daemon_->error() + "\n" + daemon_->log_tail();
      daemon_.reset();
    }
  }
  static void TearDownTestSuite() {
    if (daemon_) {
      EXPECT_EQ(daemon_->stop(), 0) << daemon_->log_tail();
    }
    daemon_.reset();
  }
  void SetUp() override { ASSERT_TRUE(daemon_) << "animd did not start: " << start_error_; }

  // Runs animctl against the daemon with `args` after the connection options.
  static ProcessResult ctl(std::vector<std::string> args) {
    std::vector<std::string> argv = {animtest::animctl_binary(), "--port",
                                     std::to_string(daemon_->port())};
    argv.insert(argv.end(), args.begin(), args.end());
    return animtest::run_process(argv);
  }
  // Runs animctl with --json and parses stdout; fails the test on a non-zero exit.
  static json ctl_json(std::vector<std::string> args) {
    args.insert(args.begin(), "--json");
    const ProcessResult r = ctl(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    try {
      return json::parse(r.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not JSON: " << r.out << " (" << e.what() << ")";
      return json::object();
    }
  }
  static std::string spawn(const std::string& clip = "walk") {
    const json j = ctl_json({"spawn", "builtin", "--clip", clip});
    EXPECT_EQ(j["status"]["code"], "STATUS_OK");
    const uint32_t id = j["spawn"]["character_id"].get<uint32_t>();
    EXPECT_GT(id, 0u);
    return std::to_string(id);
  }

  static std::unique_ptr<animtest::DaemonProcess> daemon_;
  static std::string start_error_;
};

std::unique_ptr<animtest::DaemonProcess> Animctl::daemon_;
std::string Animctl::start_error_;

TEST_F(Animctl, SpawnPlayCrossfadeAndListCharacters) {
  const std::string id = spawn("walk");
  EXPECT_EQ(ctl_json({"play", id, "run", "--speed", "1.5"})["status"]["code"], "STATUS_OK");
  EXPECT_EQ(ctl_json({"crossfade", id, "idle", "0.25", "--sync"})["status"]["code"], "STATUS_OK");
  EXPECT_EQ(ctl_json({"speed", id, "-1"})["status"]["code"], "STATUS_OK");
  EXPECT_EQ(ctl_json({"root", id, "--pos", "2,0,-3", "--rot-deg", "90"})["status"]["code"],
            "STATUS_OK");

  const json list = ctl_json({"characters"});
  bool found = false;
  for (const auto& c : list["list_characters"]["characters"]) {
    if (std::to_string(c["character_id"].get<uint32_t>()) != id) continue;
    found = true;
    EXPECT_EQ(c["asset"], "builtin");
    EXPECT_EQ(c["clip"], "idle");  // the latest target clip
    EXPECT_FLOAT_EQ(c["root"]["translation"]["x"].get<float>(), 2.0f);
    EXPECT_FLOAT_EQ(c["root"]["translation"]["z"].get<float>(), -3.0f);
    // Yaw 90 degrees about +Y: (0, sin 45, 0, cos 45).
    EXPECT_NEAR(c["root"]["rotation"]["y"].get<float>(), std::sqrt(0.5f), 1e-5);
    EXPECT_NEAR(c["root"]["rotation"]["w"].get<float>(), std::sqrt(0.5f), 1e-5);
  }
  EXPECT_TRUE(found) << list.dump();

  // Human output names the character and its tick.
  const ProcessResult human = ctl({"play", id, "walk"});
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("ok: play (tick "), std::string::npos) << human.out;
  EXPECT_EQ(ctl_json({"despawn", id})["status"]["code"], "STATUS_OK");
}

TEST_F(Animctl, RootMotionOnAndOff) {
  const std::string id = spawn("walk");
  EXPECT_EQ(ctl_json({"root-motion", id, "on", "--joint", "hips", "--vertical"})["status"]["code"],
            "STATUS_OK");
  const ProcessResult human = ctl({"root-motion", id, "off"});
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("ok: root-motion (tick "), std::string::npos) << human.out;
  // An unknown joint: the daemon's NOT_FOUND naming it, exit code 1.
  const ProcessResult bad = ctl({"root-motion", id, "on", "--joint", "tail"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("set_root_motion.joint: unknown joint 'tail' in asset 'builtin'"),
            std::string::npos)
      << bad.err;
  ctl({"despawn", id});
}

TEST_F(Animctl, ClipEventsAreAddedListedAndWatched) {
  // Its own clip: the daemon is shared by this suite's tests.
  const ProcessResult added = ctl({"events", "builtin", "run", "--replace", "--add",
                                   "push@0.3:right foot", "--add", "plant@0.05"});
  EXPECT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.out.find("2 event(s) on the clip (tick "), std::string::npos) << added.out;
  EXPECT_NE(added.out.find("  0.0500  plant\n  0.3000  push  right foot\n"), std::string::npos)
      << added.out;
  const std::string id = spawn("run");
  const ProcessResult watched = ctl({"watch", id, "--events", "--frames", "90"});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_NE(watched.out.find("| event char " + id + " run:push [right foot] w=1.00"),
            std::string::npos)
      << watched.out;
  EXPECT_NE(watched.out.find("| event char " + id + " run:plant w=1.00"), std::string::npos)
      << watched.out;
  const ProcessResult late = ctl({"events", "builtin", "run", "--add", "late@99"});
  EXPECT_EQ(late.exit_code, 1);
  EXPECT_NE(late.err.find("add_clip_events.events[0].time 99.000000 is outside"), std::string::npos)
      << late.err;
  EXPECT_EQ(ctl_json({"events", "builtin", "run", "--replace"})["status"]["code"], "STATUS_OK");
  ctl({"despawn", id});
}

TEST_F(Animctl, BlendSpaceDefinedPlayedAndDriven) {
  const ProcessResult defined =
      ctl({"blend-space", "builtin", "ctl_move", "--axis", "speed", "--sample", "idle@0",
           "--sample", "walk@1.4", "--sample", "run@4"});
  EXPECT_EQ(defined.exit_code, 0) << defined.err;
  EXPECT_NE(defined.out.find("defined (tick "), std::string::npos) << defined.out;
  const ProcessResult grid =
      ctl({"blend-space", "builtin", "ctl_dir", "--axis", "turn", "--axis", "speed", "--sample",
           "idle@0,0", "--sample", "walk@-1,1.4", "--sample", "run@1,1.4"});
  EXPECT_EQ(grid.exit_code, 0) << grid.err;
  EXPECT_NE(grid.out.find("defined (1 triangles)"), std::string::npos) << grid.out;
  const ProcessResult synced = ctl({"blend-space", "builtin", "ctl_gait", "--axis", "speed",
                                    "--sample", "walk@1", "--sample", "run@3", "--sync-markers"});
  EXPECT_EQ(synced.exit_code, 0) << synced.err;
  const std::string id = spawn("idle");
  EXPECT_EQ(ctl_json({"param", id, "speed", "0.7", "--smoothing", "0.25"})["status"]["code"],
            "STATUS_OK");
  EXPECT_EQ(ctl_json({"crossfade", id, "ctl_move", "0.2"})["status"]["code"], "STATUS_OK");
  const ProcessResult list = ctl({"characters"});
  EXPECT_NE(list.out.find(id + "  asset=builtin  clip=-  blend_space=ctl_move"), std::string::npos)
      << list.out;
  // The daemon's refusals, naming the field: exit code 1.
  const ProcessResult clash = ctl({"blend-space", "builtin", "walk", "--axis", "speed", "--sample",
                                   "idle@0", "--sample", "run@1"});
  EXPECT_EQ(clash.exit_code, 1);
  EXPECT_NE(clash.err.find("define_blend_space.name: asset 'builtin' has a clip named 'walk'"),
            std::string::npos)
      << clash.err;
  const ProcessResult unknown = ctl({"blend-space", "builtin", "ctl_bad", "--axis", "speed",
                                     "--sample", "idle@0", "--sample", "moonwalk@1"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("define_blend_space.samples[1].clip: unknown clip 'moonwalk'"),
            std::string::npos)
      << unknown.err;
  ctl({"despawn", id});
}

TEST_F(Animctl, AdditiveLayerAddUpdateRemove) {
  const std::string id = spawn("walk");
  const json added = ctl_json(
      {"additive", id, "add", "lean", "--weight", "0.5", "--mask-root", "spine", "--time", "own"});
  const uint32_t layer = added["add_layer"]["layer_id"].get<uint32_t>();
  EXPECT_GT(layer, 0u);
  EXPECT_EQ(ctl_json({"additive", id, "update", std::to_string(layer), "--weight",
                      "0.2"})["status"]["code"],
            "STATUS_OK");
  EXPECT_EQ(ctl_json({"additive", id, "remove", std::to_string(layer)})["status"]["code"],
            "STATUS_OK");
  // Removing it again: the daemon's NOT_FOUND, exit code 1.
  const ProcessResult again = ctl({"additive", id, "remove", std::to_string(layer)});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("NOT_FOUND"), std::string::npos) << again.err;
  ctl({"despawn", id});
}

TEST_F(Animctl, MontageSlotPlayAndStop) {
  const std::string id = spawn("walk");
  const json added = ctl_json({"montage", id, "slot", "--mask-root", "chest"});
  const uint32_t slot = added["add_layer"]["layer_id"].get<uint32_t>();
  EXPECT_GT(slot, 0u);
  const ProcessResult played = ctl({"montage", id, "play", std::to_string(slot), "wave", "--rate",
                                    "0.5", "--blend-in", "0.2", "--blend-out", "0.3"});
  EXPECT_EQ(played.exit_code, 0) << played.err;
  EXPECT_NE(played.out.find("playing (tick "), std::string::npos) << played.out;
  EXPECT_EQ(ctl_json({"montage", id, "stop", std::to_string(slot), "--blend-out",
                      "0.25"})["status"]["code"],
            "STATUS_OK");
  // A clip the asset does not have: the daemon's NOT_FOUND naming the field, exit code 1.
  const ProcessResult unknown = ctl({"montage", id, "play", std::to_string(slot), "moonwalk"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("play_montage.clip: unknown clip 'moonwalk'"), std::string::npos)
      << unknown.err;
  // An override layer with its own clip is not a slot.
  const json over = ctl_json({"additive", id, "add", "wave", "--blend", "override"});
  const ProcessResult not_slot =
      ctl({"montage", id, "play", std::to_string(over["add_layer"]["layer_id"].get<uint32_t>()),
           "wave"});
  EXPECT_EQ(not_slot.exit_code, 1);
  EXPECT_NE(not_slot.err.find("FAILED_PRECONDITION"), std::string::npos) << not_slot.err;
  ctl({"despawn", id});
}

TEST_F(Animctl, PoseHoldFromAFileAndRelease) {
  animtest::TempDir dir("animctl-pose");
  ASSERT_TRUE(dir.ok());
  const std::string id = spawn("walk");
  const int joints = anim::make_builtin_character().skeleton.num_joints();
  std::string rest, short_one;
  for (int j = 0; j < joints; ++j) rest += "0 0 0  0 0 0 1  1 1 1\n";
  const std::string good = (dir.path() / "rest.txt").string();
  const std::string bad = (dir.path() / "short.txt").string();
  std::ofstream(good) << rest;
  std::ofstream(bad) << rest.substr(rest.find('\n') + 1);
  const ProcessResult held = ctl({"hold", id, good});
  EXPECT_EQ(held.exit_code, 0) << held.err;
  EXPECT_NE(held.out.find("holding (tick "), std::string::npos) << held.out;
  EXPECT_EQ(ctl_json({"release", id, "--over", "0.2"})["status"]["code"], "STATUS_OK");
  // A joint short: the daemon's refusal naming the field, exit code 1.
  const ProcessResult refused = ctl({"hold", id, bad});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("set_pose.locals: "), std::string::npos) << refused.err;
  // Not 10 numbers per joint: a usage error before anything is sent.
  std::ofstream(bad) << "1 2 3";
  const ProcessResult odd = ctl({"hold", id, bad});
  EXPECT_NE(odd.exit_code, 0);
  EXPECT_NE(odd.err.find("not 10 per joint"), std::string::npos) << odd.err;
  ctl({"despawn", id});
}

TEST_F(Animctl, MontageSectionsAndJump) {
  const std::string id = spawn("walk");
  const std::string slot = std::to_string(
      ctl_json({"montage", id, "slot", "--mask-root", "chest"})["add_layer"]["layer_id"]
          .get<uint32_t>());
  const ProcessResult played =
      ctl({"montage", id, "play", slot, "wave", "--blend-out", "0.25", "--section", "intro:0:loop",
           "--section", "loop:0.5:loop", "--section", "outro:1.25"});
  EXPECT_EQ(played.exit_code, 0) << played.err;
  EXPECT_NE(played.out.find("playing (tick "), std::string::npos) << played.out;
  const ProcessResult jumped = ctl({"montage", id, "jump", slot, "outro"});
  EXPECT_EQ(jumped.exit_code, 0) << jumped.err;
  EXPECT_NE(jumped.out.find("jumped (tick "), std::string::npos) << jumped.out;
  // A section the montage does not have: the daemon's NOT_FOUND, exit code 1.
  const ProcessResult unknown = ctl({"montage", id, "jump", slot, "bridge"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("section 'bridge' is not a section of the montage"), std::string::npos)
      << unknown.err;
  // Sections the core refuses: named by field.
  const ProcessResult bad = ctl({"montage", id, "play", slot, "wave", "--section", "a:0:nowhere"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("sections[0].next 'nowhere' names no section"), std::string::npos)
      << bad.err;
  ctl({"despawn", id});
}

// The example graph of the built-in character (examples/builtin.animgraph.json), driven as
// its users would: nested locomotion on the base (Ground/idle -> Ground/walk on speed, jump
// on a trigger) and the upper-body machine in a layer waving on another trigger.
TEST_F(Animctl, TheExampleGraphDrivesTheBuiltInCharacter) {
  const std::string file = std::string(ANIMD_SOURCE_DIR) + "/examples/builtin.animgraph.json";
  const ProcessResult defined = ctl({"machine", "define", "builtin", file});
  ASSERT_EQ(defined.exit_code, 0) << defined.err;
  EXPECT_NE(defined.out.find("defined state machine 'locomotion'"), std::string::npos);
  EXPECT_NE(defined.out.find("defined state machine 'upper_body'"), std::string::npos);
  const std::string id = spawn("idle");
  ASSERT_EQ(ctl({"machine", "start", id, "locomotion"}).exit_code, 0);
  auto state = [&] { return ctl_json({"state", id})["get_state"]; };
  EXPECT_EQ(state()["state"], "Ground/idle");
  ASSERT_EQ(ctl({"param", id, "speed", "1"}).exit_code, 0);
  EXPECT_EQ(state()["state"], "Ground/walk");
  ASSERT_EQ(ctl({"trigger", id, "jump"}).exit_code, 0);
  EXPECT_EQ(state()["state"], "jump");
  const ProcessResult layer = ctl({"machine", "layer", id, "upper_body", "--mask-root", "spine"});
  ASSERT_EQ(layer.exit_code, 0) << layer.err;
  EXPECT_EQ(state()["layers"][0]["state"], "rest");
  ASSERT_EQ(ctl({"trigger", id, "wave"}).exit_code, 0);
  EXPECT_EQ(state()["layers"][0]["state"], "wave");
  ctl({"despawn", id});
}

// A state machine file with the given machines, each idle <-> walk on `speed` and any state
// -> wave on the trigger `wave`.
std::string machine_file(const std::vector<std::string>& names) {
  std::string json = R"({"state_machines": [)";
  for (size_t i = 0; i < names.size(); ++i)
    json += std::string(i ? "," : "") + R"({"name": ")" + names[i] + R"(",
      "states": [{"name": "idle", "motion": "idle"}, {"name": "walk", "motion": "walk"},
                 {"name": "wave", "motion": "wave", "loop": false}],
      "transitions": [
        {"from": "idle", "to": "walk", "duration": 0.2,
         "conditions": [{"parameter": "speed", "op": "CONDITION_GREATER", "value": 0.5}]},
        {"from": "walk", "to": "idle", "duration": 0.2,
         "conditions": [{"parameter": "speed", "op": "CONDITION_LESS", "value": 0.5}]},
        {"from": "*", "to": "wave", "duration": 0.1,
         "conditions": [{"parameter": "wave", "op": "CONDITION_TRIGGER"}]}]})";
  return json + "]}";
}

TEST_F(Animctl, StateMachinesDefineFromAFileStartTriggerAndStop) {
  animtest::TempDir dir("animctl-machine");
  ASSERT_TRUE(dir.ok());
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = (dir.path() / name).string();
    std::ofstream(path) << text;
    return path;
  };
  const std::string two = write("two.animgraph.json", machine_file({"ctl_loco", "ctl_other"}));
  const ProcessResult defined = ctl({"machine", "define", "builtin", two});
  EXPECT_EQ(defined.exit_code, 0) << defined.err;
  EXPECT_NE(defined.out.find("defined state machine 'ctl_loco' (tick "), std::string::npos)
      << defined.out;
  EXPECT_NE(defined.out.find("defined state machine 'ctl_other' (tick "), std::string::npos)
      << defined.out;
  // One machine per request: the first is defined, the second (already there) refused.
  const std::string mixed = write("mixed.animgraph.json", machine_file({"ctl_new", "ctl_loco"}));
  const ProcessResult partly = ctl({"--json", "machine", "define", "builtin", mixed});
  EXPECT_EQ(partly.exit_code, 1);
  EXPECT_NE(partly.out.find("STATUS_OK"), std::string::npos) << partly.out;
  EXPECT_NE(partly.err.find("machine define 'ctl_loco' failed: FAILED_PRECONDITION: "
                            "define_state_machine.machine.name: asset 'builtin' already has a "
                            "state machine named 'ctl_loco'"),
            std::string::npos)
      << partly.err;

  const std::string id = spawn("walk");
  const ProcessResult started = ctl({"machine", "start", id, "ctl_loco"});
  EXPECT_EQ(started.exit_code, 0) << started.err;
  EXPECT_NE(started.out.find("started (tick "), std::string::npos) << started.out;
  const ProcessResult state = ctl({"state", id});
  EXPECT_EQ(state.exit_code, 0) << state.err;
  EXPECT_NE(state.out.find("machine ctl_loco: state idle (normalized time "), std::string::npos)
      << state.out;
  EXPECT_EQ(ctl_json({"state", id})["get_state"]["machine"], "ctl_loco");
  EXPECT_NE(ctl({"trigger", id, "wave"}).out.find("set (tick "), std::string::npos);
  EXPECT_NE(ctl({"trigger", id, "wave", "--clear"}).out.find("cleared (tick "), std::string::npos);
  const ProcessResult crossfade = ctl({"crossfade", id, "run", "0.2"});
  EXPECT_EQ(crossfade.exit_code, 1);
  EXPECT_NE(crossfade.err.find("FAILED_PRECONDITION"), std::string::npos) << crossfade.err;
  const ProcessResult unknown = ctl({"machine", "start", id, "moonwalk"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("start_state_machine.machine: asset 'builtin' has no state machine "
                             "named 'moonwalk'"),
            std::string::npos)
      << unknown.err;
  EXPECT_NE(ctl({"machine", "stop", id}).out.find("stopped (tick "), std::string::npos);
  EXPECT_NE(ctl({"state", id}).out.find("no state machine runs"), std::string::npos);

  // A machine in a layer on the upper body: listed by `state` with the parameters and
  // triggers, removed as any layer.
  const ProcessResult layer = ctl({"machine", "layer", id, "ctl_other", "--state", "walk",
                                   "--mask-root", "spine", "--weight", "0.5"});
  EXPECT_EQ(layer.exit_code, 0) << layer.err;
  EXPECT_NE(layer.out.find("added machine layer "), std::string::npos) << layer.out;
  const ProcessResult layered = ctl({"state", id});
  EXPECT_NE(layered.out.find("no state machine runs on the base"), std::string::npos)
      << layered.out;
  EXPECT_NE(layered.out.find(": machine ctl_other: state "), std::string::npos) << layered.out;
  EXPECT_NE(layered.out.find("parameter speed = "), std::string::npos) << layered.out;
  EXPECT_NE(layered.out.find("trigger wave clear"), std::string::npos) << layered.out;
  const auto layer_json = ctl_json({"state", id})["get_state"]["layers"];
  ASSERT_EQ(layer_json.size(), 1u) << layered.out;
  const std::string layer_id = std::to_string(layer_json[0]["layer_id"].get<int>());
  EXPECT_EQ(ctl({"additive", id, "remove", layer_id}).exit_code, 0);
  EXPECT_TRUE(ctl_json({"state", id})["get_state"]["layers"].empty());
  const ProcessResult bad_blend = ctl({"machine", "layer", id, "ctl_other", "--blend", "mix"});
  EXPECT_EQ(bad_blend.exit_code, 2);

  // A file that cannot be read or parsed is a usage error: nothing is sent.
  const std::string broken =
      write("broken.animgraph.json", "{\"state_machines\": [{\"name\": 1,, }]}");
  const ProcessResult syntax = ctl({"machine", "define", "builtin", broken});
  EXPECT_EQ(syntax.exit_code, 2);
  EXPECT_NE(syntax.err.find("broken.animgraph.json: line 1, column "), std::string::npos)
      << syntax.err;
  const std::string typo = write("typo.animgraph.json", R"({"state_machines": [{"nmae": "x"}]})");
  const ProcessResult field = ctl({"machine", "define", "builtin", typo});
  EXPECT_EQ(field.exit_code, 2);
  EXPECT_NE(field.err.find("nmae"), std::string::npos) << field.err;
  const ProcessResult missing =
      ctl({"machine", "define", "builtin", (dir.path() / "none.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.err;
  const ProcessResult empty =
      ctl({"machine", "define", "builtin", write("empty.animgraph.json", "{}")});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("has no state_machines"), std::string::npos) << empty.err;
  ctl({"despawn", id});
}

TEST_F(Animctl, IkGoalMovesTheHandToTheTargetAndClears) {
  const std::string id = spawn("idle");
  const json set = ctl_json({"ik", id, "set", "--chain", "upper_arm_l..hand_l", "--solver",
                             "two-bone", "--target", "0.3,1.0,0.1"});
  const uint32_t goal = set["set_ik_goal"]["goal_id"].get<uint32_t>();
  EXPECT_GT(goal, 0u);
  // The goal is in effect from the tick its reply names; a pose query comes after it.
  const json pose = ctl_json({"pose", id, "--joints", "hand_l"});
  ASSERT_EQ(pose["query_pose"]["joints"].size(), 1u) << pose.dump();
  const json& hand = pose["query_pose"]["joints"][0];
  EXPECT_EQ(hand["name"], "hand_l");
  // Reachable target (0.22 m from the shoulder, arm 0.53 m): two-bone IK at weight 1 hits it.
  EXPECT_NEAR(hand["position"]["x"].get<double>(), 0.3, 1e-3);
  EXPECT_NEAR(hand["position"]["y"].get<double>(), 1.0, 1e-3);
  EXPECT_NEAR(hand["position"]["z"].get<double>(), 0.1, 1e-3);
  EXPECT_EQ(ctl_json({"ik", id, "clear", std::to_string(goal)})["status"]["code"], "STATUS_OK");
  ctl({"despawn", id});
}

TEST_F(Animctl, FootIkStandsOnAStepAndAimTurnsTheHead) {
  const json spawned = ctl_json({"spawn", "builtin"});  // the rest pose
  const std::string id = std::to_string(spawned["spawn"]["character_id"].get<uint32_t>());
  EXPECT_EQ(ctl_json({"feet", id, "set"})["status"]["code"], "STATUS_OK");
  EXPECT_EQ(ctl_json({"feet", id, "ground", "--heights", "0,-0.1"})["status"]["code"], "STATUS_OK");
  EXPECT_EQ(ctl_json({"aim", id, "set", "--chain", "spine..head", "--target", "0,1.6,3",
                      "--max-angles", "0.5,0.5,0.5,0.5"})["status"]["code"],
            "STATUS_OK");
  EXPECT_EQ(ctl_json({"aim", id, "move", "--target", "0,1.6,4", "--weight", "1"})["status"]["code"],
            "STATUS_OK");
  const json pose = ctl_json({"pose", id, "--joints", "hips,foot_r"});
  ASSERT_EQ(pose["query_pose"]["joints"].size(), 2u) << pose.dump();
  EXPECT_NEAR(pose["query_pose"]["joints"][0]["position"]["y"].get<double>(), 0.85, 1e-3);
  EXPECT_NEAR(pose["query_pose"]["joints"][1]["position"]["y"].get<double>(), -0.01, 1e-3);
  const ProcessResult bad = ctl({"feet", id, "ground", "--point", "0,0,0", "--normal", "0,-1,0"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("set_ground.plane.normal must face up"), std::string::npos) << bad.err;
  EXPECT_EQ(ctl_json({"aim", id, "clear"})["status"]["code"], "STATUS_OK");
  EXPECT_EQ(ctl_json({"feet", id, "clear"})["status"]["code"], "STATUS_OK");
  ctl({"despawn", id});
}

TEST_F(Animctl, PoseReportsRequestedJointsAndTheWholePalette) {
  const std::string id = spawn("walk");
  const json pose = ctl_json({"pose", id, "--joints", "head,hand_l", "--world"});
  const json& q = pose["query_pose"];
  ASSERT_EQ(q["joints"].size(), 2u);
  EXPECT_EQ(q["joints"][0]["name"], "head");
  EXPECT_EQ(q["joints"][1]["name"], "hand_l");
  EXPECT_EQ(q["joints"][0]["matrix"].size(), 12u);
  EXPECT_EQ(q["palette"].size(), 22u * 12u);  // the built-in rig has 22 joints

  const ProcessResult human = ctl({"pose", id, "--joints", "head"});
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("head"), std::string::npos);
  EXPECT_NE(human.out.find("palette: 22 joints"), std::string::npos) << human.out;
  ctl({"despawn", id});
}

TEST_F(Animctl, StatsAssetsAndMesh) {
  const json stats = ctl_json({"stats"});
  EXPECT_DOUBLE_EQ(stats["stats"]["tick_rate_hz"].get<double>(), 60.0);

  const json assets = ctl_json({"assets"});
  bool builtin = false;
  for (const auto& a : assets["list_assets"]["assets"]) {
    if (a["name"] != "builtin") continue;
    builtin = true;
    EXPECT_EQ(a["num_joints"], 22);
    std::vector<std::string> clips;
    for (const auto& c : a["clips"]) clips.push_back(c["name"]);
    EXPECT_NE(std::find(clips.begin(), clips.end(), "walk"), clips.end());
    EXPECT_NE(std::find(clips.begin(), clips.end(), "lean"), clips.end());
  }
  EXPECT_TRUE(builtin) << assets.dump();

  const json mesh = ctl_json({"mesh", "builtin"});
  EXPECT_EQ(mesh["num_joints"], 22);
  EXPECT_EQ(mesh["joints"][0]["parent"], -1);
  EXPECT_GT(mesh["num_vertices"].get<int>(), 0);
  EXPECT_GT(mesh["num_triangles"].get<int>(), 0);
  // Bytes per array follow from the vertex count (float3 positions, uint16x4 joints).
  EXPECT_EQ(mesh["bytes"]["positions"].get<int>(), mesh["num_vertices"].get<int>() * 12);
  EXPECT_EQ(mesh["bytes"]["joints"].get<int>(), mesh["num_vertices"].get<int>() * 8);
}

TEST_F(Animctl, WatchNearARegionShowsOnlyTheCharactersInIt) {
  const std::string id = spawn("walk");  // at the origin
  ProcessResult r = ctl({"watch", "--near", "0,0,0", "--radius", "5", "--frames", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("char " + id + " root"), std::string::npos) << r.out;
  r = ctl({"watch", "--near", "100,0,0", "--radius", "5", "--frames", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("char " + id + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tick "), std::string::npos) << r.out;  // frames arrive, empty
  // Usage errors: --near alone, two ways at once, a radius that is not > 0.
  EXPECT_EQ(ctl({"watch", "--near", "0,0,0"}).exit_code, 2);
  EXPECT_EQ(ctl({"watch", "--all", "--near", "0,0,0", "--radius", "1"}).exit_code, 2);
  EXPECT_EQ(ctl({"watch", "--near", "0,0,0", "--radius", "0"}).exit_code, 2);
  ctl({"despawn", id});
}

TEST_F(Animctl, WatchPrintsTheRequestedNumberOfFrames) {
  const std::string id = spawn("walk");
  const ProcessResult human = ctl({"watch", id, "--frames", "3"});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  std::istringstream lines(human.out);
  std::string line;
  int frames = 0;
  while (std::getline(lines, line))
    if (line.rfind("tick ", 0) == 0) {
      ++frames;
      EXPECT_NE(line.find("char " + id + " root"), std::string::npos) << line;
    }
  EXPECT_EQ(frames, 3) << human.out;

  const ProcessResult js = ctl({"--json", "subscribe", id, "--frames", "2"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  std::istringstream json_lines(js.out);
  int parsed = 0;
  uint64_t previous_tick = 0;
  while (std::getline(json_lines, line)) {
    const json frame = json::parse(line);
    ASSERT_EQ(frame["characters"].size(), 1u);
    EXPECT_EQ(std::to_string(frame["characters"][0]["character_id"].get<uint32_t>()), id);
    EXPECT_EQ(frame["characters"][0]["palette"].size(), 22u * 12u);
    const uint64_t tick = std::stoull(frame["tick"].get<std::string>());  // uint64 is a JSON string
    EXPECT_GT(tick, previous_tick);
    previous_tick = tick;
    ++parsed;
  }
  EXPECT_EQ(parsed, 2);
  ctl({"despawn", id});
}

TEST_F(Animctl, RaycastOverlapAndHitVolumes) {
  const json spawned = ctl_json({"spawn", "builtin", "--clip", "idle", "--at", "50,0,50"});
  const std::string id = std::to_string(spawned["spawn"]["character_id"].get<uint32_t>());
  // Straight down onto the head; the character's first pose may not be published yet.
  json ray;
  for (int i = 0; i < 50; ++i) {
    ray = ctl_json({"raycast", "--from", "50,5,50", "--dir", "0,-1,0", "--max-distance", "10"});
    if (ray["raycast"]["hit"].get<bool>()) break;
  }
  ASSERT_TRUE(ray["raycast"]["hit"].get<bool>()) << ray.dump();
  EXPECT_EQ(std::to_string(ray["raycast"]["character_id"].get<uint32_t>()), id);
  EXPECT_EQ(ray["raycast"]["joint_name"], "head");
  const std::string tick = ray["raycast"]["tick"].get<std::string>();  // uint64: a JSON string

  // The character leaves; at that tick the head was still there.
  EXPECT_EQ(ctl_json({"root", id, "--pos", "80,0,80"})["status"]["code"], "STATUS_OK");
  const ProcessResult past =
      ctl({"raycast", "--from", "50,5,50", "--dir", "0,-1,0", "--tick", tick});
  EXPECT_EQ(past.exit_code, 0) << past.err;
  EXPECT_NE(past.out.find("hit character " + id + " joint 5 (head)"), std::string::npos)
      << past.out;
  const ProcessResult ignored =
      ctl({"raycast", "--from", "50,5,50", "--dir", "0,-1,0", "--tick", tick, "--ignore", id});
  EXPECT_NE(ignored.out.find("no hit (tick " + tick + ")"), std::string::npos) << ignored.out;
  const ProcessResult overlap =
      ctl({"overlap", "--center", "50,1.7,50", "--radius", "0.2", "--tick", tick});
  EXPECT_EQ(overlap.exit_code, 0) << overlap.err;
  EXPECT_NE(overlap.out.find("character " + id + ":"), std::string::npos) << overlap.out;
  EXPECT_NE(overlap.out.find(" head (5)"), std::string::npos) << overlap.out;

  const ProcessResult shown = ctl({"hit-volumes", "builtin"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("21 capsules (fitted at load)"), std::string::npos) << shown.out;
  EXPECT_EQ(
      ctl_json({"hit-volumes", "builtin", "--capsule", "#5:0,0,0:0,0.2,0:0.15"})["status"]["code"],
      "STATUS_OK");
  const json set = ctl_json({"hit-volumes", "builtin"});
  EXPECT_FALSE(set["hit_volumes"]["fitted"].get<bool>()) << set.dump();
  const ProcessResult unknown =
      ctl({"hit-volumes", "builtin", "--capsule", "tail:0,0,0:0,1,0:0.1"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown joint 'tail'"), std::string::npos) << unknown.err;
  EXPECT_EQ(ctl_json({"hit-volumes", "builtin", "--reset"})["status"]["code"], "STATUS_OK");
  EXPECT_TRUE(ctl_json({"hit-volumes", "builtin"})["hit_volumes"]["fitted"].get<bool>());
  ctl({"despawn", id});
}

TEST_F(Animctl, BadInputExitsWithCode2AndSaysWhy) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"play", "abc", "walk"}, "'abc' is not a non-negative integer"},
      {{"play", "0", "walk"}, "is not an id"},
      {{"spawn", "builtin", "--at", "1,2"}, "'1,2' is not x,y,z"},
      {{"spawn", "builtin", "--at", "1,nan,2"}, "'nan' is not a finite number"},
      {{"speed", "3", "abc"}, "'abc' is not a number"},
      {{"crossfade", "3", "run", "-1"}, "outside"},
      {{"additive", "3", "add", "lean", "--weight", "1.5"}, "outside"},
      {{"additive", "3", "add", "lean", "--time", "later"}, "not one of own, base, param"},
      {{"additive", "3", "add", "lean", "--blend", "mix"}, "--blend: additive or override"},
      {{"montage", "3", "play", "1", "wave", "--rate", "fast"}, "'fast' is not a number"},
      {{"montage", "3", "play", "x", "wave"}, "'x' is not a non-negative integer"},
      {{"montage", "3", "play", "1", "wave", "--section", "intro"},
       "--section: 'intro' is not NAME:START[:NEXT]"},
      {{"montage", "3", "play", "1", "wave", "--section", "intro:soon"}, "'soon' is not a number"},
      {{"montage", "3", "jump", "1"}, "section is required"},
      {{"machine", "start", "x", "loco"}, "'x' is not a non-negative integer"},
      {{"machine", "stop"}, "id is required"},
      {{"trigger", "3"}, "name is required"},
      {{"state", "0"}, "is not an id"},
      {{"ik", "3", "set", "--chain", "hand_l", "--target", "0,0,0"}, "is not ROOT..EFFECTOR"},
      {{"ik", "3", "set", "--chain", "a..b", "--target", "0,0,0", "--solver", "magic"},
       "not one of fabrik"},
      {{"play", "3"}, "clip is required"},
      {{"root-motion", "3", "sideways"}, "mode must be on or off, not 'sideways'"},
      {{"events", "builtin", "walk", "--add", "step"}, "'step' is not NAME@TIME[:PAYLOAD]"},
      {{"events", "builtin", "walk", "--add", "step@soon"}, "'soon' is not a number"},
      {{"watch", "3", "--min-weight", "0.5"}, "--min-weight needs --events"},
      {{"watch", "3", "--events", "--min-weight", "2"}, "outside"},
      {{"root-motion", "3", "off", "--vertical"}, "takes neither --joint nor --vertical"},
      {{"blend-space", "builtin", "m", "--axis", "speed", "--sample", "walk"},
       "'walk' is not CLIP@X or CLIP@X,Y"},
      {{"blend-space", "builtin", "m", "--axis", "speed", "--sample", "walk@fast"},
       "'fast' is not a number"},
      {{"blend-space", "builtin", "m", "--axis", "a", "--axis", "b", "--axis", "c", "--sample",
        "walk@1"},
       "at most two --axis"},
      {{"param", "3", "speed", "quick"}, "'quick' is not a number"},
      {{"param", "3", "speed", "1", "--smoothing", "7200"}, "outside"},
      {{"raycast", "--from", "0,0,0", "--dir", "0,0,0"}, "--dir: must not be 0,0,0"},
      {{"raycast", "--from", "0,0,0", "--dir", "0,0,1", "--max-distance", "-1"},
       "--max-distance: must be > 0"},
      {{"overlap", "--center", "0,0,0", "--radius", "-1"}, "outside"},
      {{"hit-volumes", "builtin", "--capsule", "head:0,0,0:0,1"}, "is not JOINT:ax,ay,az"},
      {{"hit-volumes", "builtin", "--capsule", "head:0,0,0:0,1,0:-2"}, "outside"},
      {{"--port", "70000", "stats"}, "--port"},
      {{"aim", "3", "set", "--chain", "head", "--target", "0,0,0"}, "is not ROOT..EFFECTOR"},
      {{"aim", "3", "set", "--chain", "a..b", "--target", "0,0,0", "--up", "0,1,0"},
       "--up: needs --pole"},
      {{"feet", "3", "set", "--left", "a,b"}, "expected HIP,KNEE,ANKLE"},
      {{"feet", "3", "ground"}, "give --point/--normal or --heights"},
      {{"feet", "3", "ground", "--heights", "0"}, "expected LEFT,RIGHT"},
      {{"feet", "3", "set", "--max-tilt", "3"}, "outside"},
  };
  for (const Case& c : cases) {
    const ProcessResult r = ctl(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "stderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST_F(Animctl, UnknownCharacterGivesTheServersMessageAndExit1) {
  const ProcessResult r = ctl({"play", "4000000000", "walk"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("play failed: NOT_FOUND"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("4000000000"), std::string::npos) << r.err;
}

TEST_F(Animctl, HelpForEachCommand) {
  for (const char* command :
       {"spawn",       "play",    "crossfade", "additive",    "ik",      "pose",
        "watch",       "load",    "mesh",      "root-motion", "raycast", "overlap",
        "hit-volumes", "aim",     "feet",      "blend-space", "param",   "montage",
        "machine",     "trigger", "state",     "hold",        "release"}) {
    const ProcessResult r = animtest::run_process({animtest::animctl_binary(), command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << command << ": " << r.out;
  }
}

TEST(AnimctlOffline, UnreachableDaemonExitsWith3AndNamesTheAddress) {
  // A port nobody listens on: bind an ephemeral one, then let it go.
  uint16_t port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    ::close(fd);
  }
  const ProcessResult r =
      animtest::run_process({animtest::animctl_binary(), "--port", std::to_string(port), "stats"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("connect 127.0.0.1:" + std::to_string(port) + ": Connection refused"),
            std::string::npos)
      << r.err;
}

}  // namespace

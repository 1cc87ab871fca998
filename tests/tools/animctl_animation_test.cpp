// animctl's animation commands against a real animd on 127.0.0.1: blend spaces, layers,
// montages, held poses and state machines (the example graph included).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "anim/loaders/builtin_character.h"
#include "animctl_fixture.h"
#include "daemon_process.h"
#include "shared_assets.h"

namespace animctl_animation_test {

using animctl_test::json;
using animctl_test::ProcessResult;

class AnimctlAnimation : public animctl_test::Animctl {};

TEST_F(AnimctlAnimation, BlendSpaceDefinedPlayedAndDriven) {
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

TEST_F(AnimctlAnimation, AdditiveLayerAddUpdateRemove) {
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

TEST_F(AnimctlAnimation, MontageSlotPlayAndStop) {
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

TEST_F(AnimctlAnimation, PoseHoldFromAFileAndRelease) {
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

TEST_F(AnimctlAnimation, MontageSectionsAndJump) {
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
TEST_F(AnimctlAnimation, TheExampleGraphDrivesTheBuiltInCharacter) {
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

TEST_F(AnimctlAnimation, StateMachinesDefineFromAFileStartTriggerAndStop) {
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

TEST_F(AnimctlAnimation, MorphWeightsSetPrintedAndReleased) {
  // The built-in character has no morph targets: refused, naming why.
  const std::string plain = spawn("walk");
  const ProcessResult none = ctl({"morph", plain, "Surprised=1"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("has no morph targets"), std::string::npos) << none.err;
  // Usage errors before anything is sent.
  EXPECT_NE(ctl({"morph", plain}).exit_code, 0);
  EXPECT_NE(ctl({"morph", plain, "Surprised"}).err.find("is not NAME=VALUE"), std::string::npos);
  EXPECT_NE(ctl({"morph", plain, "--clear", "Sad=1"}).err.find("name targets only"),
            std::string::npos);
  ctl({"despawn", plain});

  const std::string robot = animtest::shared_path("assets/RobotExpressive/RobotExpressive.glb");
  if (!std::filesystem::exists(robot)) GTEST_SKIP() << "../shared is absent: " << robot;
  ASSERT_EQ(ctl_json({"load", robot, "--upload", "--name", "robot_morph"})["status"]["code"],
            "STATUS_OK");
  const std::string id =
      std::to_string(ctl_json({"spawn", "robot_morph"})["spawn"]["character_id"].get<uint32_t>());
  const ProcessResult set = ctl({"morph", id, "Surprised=1", "Head/Sad=0.5", "0=0.25"});
  EXPECT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.out.find("morph weights set (tick "), std::string::npos) << set.out;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const ProcessResult pose = ctl({"pose", id});
  EXPECT_NE(pose.out.find("morph weights: 0.2500 1.0000 0.5000"), std::string::npos) << pose.out;
  const ProcessResult unknown = ctl({"morph", id, "Grin=1"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no morph target named 'Grin'"), std::string::npos) << unknown.err;
  EXPECT_EQ(ctl_json({"morph", id, "--clear", "--over", "0"})["status"]["code"], "STATUS_OK");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_NE(ctl({"pose", id}).out.find("morph weights: 0.0000 0.0000 0.0000"), std::string::npos);
  ctl({"despawn", id});
}

}  // namespace animctl_animation_test

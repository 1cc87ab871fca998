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

#include "animctl_fixture.h"
#include "daemon_process.h"
#include "run_process.h"
#include "tool_paths.h"

namespace animctl_test {

using animtest::ProcessResult;
using nlohmann::json;

using animctl_test::Animctl;

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

}  // namespace animctl_test

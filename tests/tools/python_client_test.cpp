// The installed Python client (the animd-client distribution that `cmake --install` put in
// <build>/test-tmp/install, fixture animd_installed) against a real animd: the console scripts
// animd-py-example and animd-py-load-example run as installed (their #! is /usr/bin/python3),
// with only the installed dist-packages on PYTHONPATH (a temp prefix is not on sys.path).
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "daemon_process.h"
#include "run_process.h"
#include "shared_assets.h"

namespace {

using animtest::ProcessResult;

bool python_with_protobuf() {
  return std::filesystem::exists("/usr/bin/python3") &&
         animtest::run_process({"/usr/bin/python3", "-c", "import google.protobuf"}).exit_code == 0;
}

const std::string kPythonPath = std::string("PYTHONPATH=") + ANIMD_PYTHON_MODULE_DIR;

ProcessResult run_script(const std::string& script, std::vector<std::string> args) {
  std::vector<std::string> argv = {std::string(ANIMD_PYTHON_BIN_DIR) + "/" + script};
  argv.insert(argv.end(), args.begin(), args.end());
  return animtest::run_process(argv, {kPythonPath});
}

// Every test needs /usr/bin/python3 with python3-protobuf; without them it is skipped.
class PythonClient : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!python_with_protobuf())
      GTEST_SKIP() << "skipped: /usr/bin/python3 with python3-protobuf not available";
  }

  // Runs `script` (python3 -c) with the installed distribution on the path; its sys.argv[1]
  // is the daemon's port, then `args`.
  static ProcessResult run_python(const std::string& script, const animtest::DaemonProcess& daemon,
                                  const std::vector<std::string>& args = {}) {
    std::vector<std::string> argv = {"/usr/bin/python3", "-c", script,
                                     std::to_string(daemon.port())};
    argv.insert(argv.end(), args.begin(), args.end());
    return animtest::run_process(argv, {kPythonPath});
  }
};

TEST_F(PythonClient, InstalledDistributionIsTheOneImported) {
  const ProcessResult r = animtest::run_process(
      {"/usr/bin/python3", "-c",
       "import importlib.metadata as m, animd_client, anim.v1.envelope_pb2 as e\n"
       "print(m.version('animd-client'))\n"
       "print(animd_client.__file__)\n"
       "print(e.__file__)\n"
       "print(sorted(p.name for p in m.entry_points(group='console_scripts')\n"
       "             if p.module.startswith('animd_client')))\n"},
      {kPythonPath});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string dir = ANIMD_PYTHON_MODULE_DIR;
  EXPECT_EQ(r.out, std::string(ANIMD_PROJECT_VERSION) + "\n" + dir + "/animd_client.py\n" + dir +
                       "/anim/v1/envelope_pb2.py\n"
                       "['animd-py-example', 'animd-py-load-example']\n");
}

TEST_F(PythonClient, ExampleSpawnsPlaysAndPrintsFrames) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const ProcessResult r =
      run_script("animd-py-example", {"--port", std::to_string(daemon.port()), "--frames", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("spawned character "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("crossfading to run at tick "), std::string::npos) << r.out;
  size_t frames = 0;
  for (size_t at = r.out.find("\ntick "); at != std::string::npos;
       at = r.out.find("\ntick ", at + 1))
    ++frames;
  EXPECT_EQ(frames, 4u) << r.out;
  EXPECT_NE(r.out.find("22 joints"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(PythonClient, ExampleDecodesTheCompactStream) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const ProcessResult r = run_script(
      "animd-py-example",
      {"--port", std::to_string(daemon.port()), "--frames", "6", "--encoding", "compact"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  size_t frames = 0;
  for (size_t at = r.out.find("\ntick "); at != std::string::npos;
       at = r.out.find("\ntick ", at + 1))
    ++frames;
  EXPECT_EQ(frames, 6u) << r.out;
  // Decoded to full palettes: 22 joints each, the hips at walking height (~1 m).
  EXPECT_NE(r.out.find("22 joints"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("palette[1].t (0.000, 0.000, 0.000)"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(PythonClient, LoadExampleReportsFramesAndNoErrors) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const ProcessResult r =
      run_script("animd-py-load-example", {"--port", std::to_string(daemon.port()), "--connections",
                                           "2", "--characters", "2", "--seconds", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("frames/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("errors: 0"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Interest management from Python: a region subscription sees the character inside, then the
// one moved in, and names the one moved out in `left`; update_subscription moves the region.
TEST_F(PythonClient, RegionSubscriptionFollowsMovingCharacters) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client
c = Client(port=int(sys.argv[1]), timeout=20.0)
a = c.spawn("builtin", "walk", at=(0, 0, 0))
b = c.spawn("builtin", "walk", at=(10, 0, 0))
sub = c.subscribe(region=Client.sphere_region((0, 0, 0), 3.0))
def until(tick):
    members, left = set(), []
    while True:
        f = c.next_frame()
        if f is None: sys.exit("no frame")
        left += list(f.left)
        members = {ch.character_id for ch in f.characters}
        if f.tick >= tick: return members, left
m, _ = until(c.stats().tick + 2)
print("first", sorted(m) == [a])
t = max(c.set_root(a, (20, 0, 0)), c.set_root(b, (1, 0, 0)))
m, left = until(t + 2)
print("moved", sorted(m) == [b], left.count(a) == 1)
c.update_subscription(sub, Client.box_region((15, -1, -1), (25, 1, 1)))
m, left = until(c.stats().tick + 2)
print("box", sorted(m) == [a], left.count(b) == 1)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("first True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("moved True True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("box True True"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// A subscription's camera from Python: under a budget it makes the character in front of it
// significant (list_characters says so), follows update_subscription with the camera alone,
// is cleared, and a bad one comes back as a ServerError naming the field.
TEST_F(PythonClient, SubscriptionCameraSetsSignificance) {
  animtest::DaemonProcess daemon({"--anim-budget-ms", "0.1", "--max-update-interval", "4"});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import math, sys, time
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
front = c.spawn("builtin", "walk", at=(0, 0, 20))
def camera(dz):
    return Client.camera((0, 0, 30), (0, 0, dz), math.pi / 2, 16 / 9)
sub = c.subscribe(region=Client.sphere_region((0, 0, 500), 1.0), camera=camera(-1))
def until(pred):
    for _ in range(2000):
        s = [ch.significance for ch in c.list_characters() if ch.character_id == front][0]
        if pred(s): return s
        time.sleep(0.01)
    sys.exit("significance stayed " + str(s))
print("front", until(lambda s: s == 1.0))
c.update_subscription(sub, camera=camera(1))
print("turned", until(lambda s: s < 1.0))
try:
    bad = camera(-1)
    bad.aspect = 0.0
    c.update_subscription(sub, camera=bad)
except ServerError as e:
    print("refused", "update_subscription.camera.aspect" in str(e))
c.update_subscription(sub, clear_camera=True)
print("cleared", until(lambda s: s < 0.1) < 0.1)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("front 1.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("turned 0.25"), std::string::npos) << r.out;  // 0.5 / (1 + 10 / 10)
  EXPECT_NE(r.out.find("refused True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cleared True"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Foot and aim IK from Python: the typed helpers reach the daemon, the pose shows them, a
// bad value comes back as a ServerError naming the field.
TEST_F(PythonClient, FootAndAimIk) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys, time
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
a = c.spawn("builtin")
c.set_foot_ik(a)
c.set_ground(a, heights=(0.0, -0.1))
t = c.set_aim_ik(a, "spine", "head", (1.0, 1.6, 2.0), world=True, max_angles=(0.5,) * 4)
while c.stats().tick <= t:
    time.sleep(0.01)
p = c.query_pose(a, joints=("hips", "foot_r"), tick=t + 1, world=True)
print("feet", round(p.joints[0].position.y, 3), round(p.joints[1].position.y, 3))
c.move_aim_target(a, (0.0, 1.6, 3.0), weight=0.5)
c.set_ground(a, point=(0, 0, 0), normal=(0, 1, 0), weight=0.0)
try:
    c.set_ground(a, heights=(0.0, float("nan")))
except ServerError as e:
    print("refused", "set_ground.feet.right.height" in str(e))
c.clear_aim_ik(a)
c.clear_foot_ik(a)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("feet 0.85 -0.01"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused True"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// BVH from Python: a file under the asset root as its own asset, and uploaded text
// retargeted onto the built-in character.
TEST_F(PythonClient, LoadsAndAttachesBvh) {
  const std::string bvh =
      "HIERARCHY\nROOT root\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition Zposition "
      "Zrotation Xrotation Yrotation\nJOINT hips\n{\nOFFSET 0 95 0\nCHANNELS 3 Zrotation "
      "Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 12 0\n}\n}\n}\nMOTION\nFrames: 2\n"
      "Frame Time: 0.5\n0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 30 0 0\n";
  animtest::TempDir root("python-bvh");
  std::ofstream(root.path() / "hips.bvh") << bvh;
  animtest::DaemonProcess daemon({"--assets", root.path().string()});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
a = c.load_asset("hips.bvh", "scaled", bvh_scale=0.01)
print("asset", a.name, a.num_joints, a.num_vertices, [k.name for k in a.clips])
text = open(sys.argv[2]).read()
b = c.upload_bvh(text, attach_to="builtin", clip_name="sway")
print("attached", b.name, b.clips[-1].name, round(b.clips[-1].duration, 3))
try:
    c.upload_bvh(text, attach_to="builtin", clip_name="sway")
except ServerError as e:
    print("refused", "already has a clip named 'sway'" in str(e))
)";
  const ProcessResult r = run_python(script, daemon, {(root.path() / "hips.bvh").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("asset scaled 3 0 ['hips']"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("attached builtin sway 0.5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused True"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Root motion from Python: switched on from a named joint and off; an unknown joint is a
// ServerError carrying the daemon's NOT_FOUND and message.
TEST_F(PythonClient, RootMotionOnOffAndAnUnknownJoint) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client, ServerError
from anim.v1 import types_pb2
c = Client(port=int(sys.argv[1]), timeout=20.0)
a = c.spawn("builtin", "walk")
print("on", c.set_root_motion(a, joint="hips", vertical=True) > 0)
try:
    c.set_root_motion(a, joint="tail")
    print("accepted")
except ServerError as e:
    print("refused", e.code == types_pb2.STATUS_NOT_FOUND, e.status_message)
print("off", c.set_root_motion(a, on=False) > 0)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("on True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused True set_root_motion.joint: unknown joint 'tail' in asset "
                       "'builtin'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("off True"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Blend spaces from Python: defined on the built-in asset (a 2D one answers its triangles),
// played by name, driven by a smoothed parameter, listed; bad input is a ServerError.
TEST_F(PythonClient, BlendSpacesDefinedPlayedAndDriven) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
print("1d", c.define_blend_space("builtin", "move", "speed", [("idle", 0), ("walk", 1.4), ("run", 4)]))
print("2d", c.define_blend_space("builtin", "dir", ["turn", "speed"],
                                 [("idle", 0, 0), ("walk", -1, 1.4), ("run", 1, 1.4), ("walk", 0, 3)]))
print("synced", c.define_blend_space("builtin", "gait", "speed", [("walk", 1), ("run", 3)],
                                     sync_markers=True))
try:
    c.define_blend_space("builtin", "line", ["x", "y"], [("idle", 0, 0), ("walk", 1, 1), ("run", 2, 2)])
    print("accepted")
except ServerError as e:
    print("refused", e.status_message)
a = c.spawn("builtin", "idle")
print("param", c.set_parameter(a, "speed", 2.0, smoothing=0.3) > 0)
print("play", c.crossfade(a, "move", 0.2, sync=True) > 0)
try:
    c.set_parameter(a, "speed", float("nan"))
    print("accepted")
except ServerError as e:
    print("refused", e.status_message)
print("listed", [ch.blend_space for ch in c.list_characters() if ch.character_id == a])
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1d 0\n2d 2\nsynced 0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused define_blend_space.samples: all points are on one line"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("param True\nplay True\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused set_parameter.value is NaN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("listed ['move']"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Montages from Python: a slot on the upper body, a clip played once in it and stopped;
// a bad rate is a ServerError naming the field.
TEST_F(PythonClient, MontagesPlayAndStopInASlot) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
a = c.spawn("builtin", "walk")
slot = c.add_montage_slot(a, mask_root="chest")
print("slot", slot > 0)
print("play", c.play_montage(a, slot, "wave", rate=2.0, blend_in=0.1, blend_out=0.2) > 0)
print("stop", c.stop_montage(a, slot, blend_out=0.3) > 0)
try:
    c.play_montage(a, slot, "wave", rate=0.0)
    print("accepted")
except ServerError as e:
    print("refused", e.status_message)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("slot True\nplay True\nstop True\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused play_montage.rate 0.000000 is not a finite number > 0"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Montage sections from Python: a sectioned montage subscribed with events, its loop left to
// run, a jump to the section that ends it; montage_started and, after the jump,
// montage_ended arrive as EVENT_SOURCE_MONTAGE events; an unknown section is a ServerError.
TEST_F(PythonClient, MontageSectionsJumpAndLifecycleEvents) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client, ServerError
from anim.v1 import stream_pb2
c = Client(port=int(sys.argv[1]), timeout=20.0)
a = c.spawn("builtin", "walk")
slot = c.add_montage_slot(a, mask_root="chest")
c.subscribe([a], events=True)
started = c.play_montage(a, slot, "wave", blend_out=0.1,
                         sections=[("intro", 0.0, "loop"), ("loop", 0.5, "loop"), ("outro", 1.75)])
print("jump", c.jump_to_section(a, slot, "outro") >= started)
seen = []
for frame in c.frames(timeout=20.0):
    for e in frame.events:
        if e.source == stream_pb2.EVENT_SOURCE_MONTAGE:
            seen.append((e.name, e.clip, e.layer_id == slot))
    if ("montage_ended", "wave", True) in seen:
        break
print("events", seen)
try:
    c.play_montage(a, slot, "wave", sections=[("intro", 0.0)])
    c.jump_to_section(a, slot, "bridge")
    print("accepted")
except ServerError as e:
    print("refused", e.status_message)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("jump True\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("events [('montage_started', 'wave', True), ('montage_blending_out', "
                       "'wave', True), ('montage_ended', 'wave', True)]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("refused jump_to_section (slot "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("section 'bridge' is not a section of the montage"), std::string::npos)
      << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// State machines from Python: one defined from a dict (its JSON form), started, its state
// read, a trigger set, stopped; an unknown clip in a state is a ServerError naming the field.
TEST_F(PythonClient, StateMachinesDefineStartAndReport) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
machine = {
    "name": "loco",
    "states": [{"name": "idle", "motion": "idle"}, {"name": "wave", "motion": "wave", "loop": False}],
    "transitions": [{"from": "*", "to": "wave", "duration": 0.1,
                     "conditions": [{"parameter": "wave", "op": "CONDITION_TRIGGER"}]}],
}
print("defined", c.define_state_machine("builtin", machine) > 0)
a = c.spawn("builtin", "walk")
print("none", repr(c.get_state(a).machine))
print("started", c.start_state_machine(a, "loco") > 0)
s = c.get_state(a)
print("state", s.machine, s.state, s.HasField("transition"))
print("trigger", c.set_trigger(a, "wave") > 0, c.set_trigger(a, "wave", clear=True) > 0)
print("stopped", c.stop_state_machine(a) > 0, repr(c.get_state(a).machine))
layer = c.add_machine_layer(a, "loco", mask_root="spine", weight=0.5)
s = c.get_state(a)
print("layer", [(l.layer_id == layer, l.machine, l.state) for l in s.layers],
      [(t.name, t.set) for t in s.triggers])
c.remove_layer(a, layer)
print("removed", len(c.get_state(a).layers))
machine["name"] = "broken"
machine["states"][0]["motion"] = "moonwalk"
try:
    c.define_state_machine("builtin", machine)
    print("accepted")
except ServerError as e:
    print("refused", e.status_message)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("defined True\nnone ''\nstarted True\nstate loco idle False\n"
                       "trigger True True\nstopped True ''\n"
                       "layer [(True, 'loco', 'idle')] [('wave', False)]\nremoved 0\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("refused define_state_machine.machine.states[0].motion: the asset has no "
                       "clip or blend space named 'moonwalk'"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Held poses from Python: the rest pose of the built-in character (from get_asset_data's
// joint count) held and blended out; a pose with a joint short is a ServerError naming the
// field, as is blending out with nothing held.
TEST_F(PythonClient, HeldPosesHoldAndBlendOut) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
a = c.spawn("builtin", "walk")
n = len(c.query_pose(a).joints)
identity = [(0, 0, 0, 0, 0, 0, 1, 1, 1, 1)] * n
print("held", c.set_pose(a, identity) > 0)
print("released", c.blend_out_pose(a, 0.0) > 0)
for call in (lambda: c.set_pose(a, identity[1:]), lambda: c.blend_out_pose(a, -1.0)):
    try:
        call()
        print("accepted")
    except ServerError as e:
        print("refused", e.status_message)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("held True\nreleased True\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused set_pose.locals: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused blend_out_pose.duration"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Animation events from Python: added to the built-in walk, streamed on a subscription
// that asks for them (name, payload, weight); a bad time is a ServerError.
TEST_F(PythonClient, ClipEventsStreamToAnEventSubscription) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
print("listed", c.add_clip_events("builtin", "walk", [("step_r", 0.75), ("step_l", 0.25, "left")]))
try:
    c.add_clip_events("builtin", "walk", [("late", 7.0)])
    print("accepted")
except ServerError as e:
    print("refused", e.status_message)
a = c.spawn("builtin", "walk")
c.subscribe([a], events=True, event_min_weight=0.5)
seen = []
for f in c.frames(count=120):
    seen += [(e.name, e.payload, e.weight, e.clip) for e in f.events]
    if len(seen) >= 2: break
print("events", seen[:2])
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("listed [('step_l', 0.25, 'left'), ('step_r', 0.75, '')]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("refused add_clip_events.events[0].time 7.000000 is outside [0, "
                       "1.000000] of clip 'walk'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("events [('step_l', 'left', 1.0, 'walk'), ('step_r', '', 1.0, 'walk')]"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Hit queries from Python: a ray straight down onto the head at the tick it was there, after
// the character moved away; overlap_sphere; hit volumes set, shown and refused.
TEST_F(PythonClient, HitQueriesAtAPastTick) {
  animtest::DaemonProcess daemon({"--history-seconds", "20"});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const std::string script = R"(
import sys, time
from animd_client import Client, ServerError
c = Client(port=int(sys.argv[1]), timeout=20.0)
cid = c.spawn("builtin", "idle", at=(0, 0, 0))
deadline = time.monotonic() + 20
while True:
    r = c.raycast((0, 5, 0), (0, -1, 0), max_distance=10)
    if r.hit or time.monotonic() > deadline: break
print("hit", r.hit, r.character_id == cid, r.joint_name)
then = r.tick
c.set_root(cid, (10, 0, 0))
while c.raycast((0, -50, 0), (0, -1, 0), max_distance=1).tick < then + 3: time.sleep(0.01)
print("now", c.raycast((0, 5, 0), (0, -1, 0)).hit)
past = c.raycast((0, 5, 0), (0, -1, 0), tick=then)
print("past", past.hit, past.joint_name, past.tick == then)
print("ignored", c.raycast((0, 5, 0), (0, -1, 0), tick=then, ignore=[cid]).hit)
o = c.overlap_sphere((0, 1.7, 0), 0.2, tick=then)
print("overlap", [ch.character_id == cid for ch in o.characters], "head" in [j.name for j in o.characters[0].joints])
c.set_hit_volumes("builtin", {"head": ((0, 0, 0), (0, 0.2, 0), 0.15), 1: ((0, 0, 0), (0, 0, 0), 0)})
v = c.get_hit_volumes("builtin")
print("volumes", v.fitted, [j.capsule.radius for j in v.joints if j.name == "head"], "hips" in [j.name for j in v.joints])
try:
    c.set_hit_volumes("builtin", {"tail": ((0, 0, 0), (0, 1, 0), 0.1)})
except ServerError as e:
    print("refused", e.message)
try:
    c.raycast((0, 5, 0), (0, 0, 0))
except ServerError as e:
    print("refused", e.message)
c.set_hit_volumes("builtin", reset=True)
print("reset", c.get_hit_volumes("builtin").fitted)
)";
  const ProcessResult r = run_python(script, daemon);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("hit True True head"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("now False"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("past True head True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ignored False"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("overlap [True] True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("volumes False [0.15"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused NOT_FOUND: set_hit_volumes.joints[0].joint_name: unknown joint "
                       "'tail'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("refused INVALID_ARGUMENT: raycast.direction is zero"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("reset True"), std::string::npos) << r.out;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Morph targets from get_asset_data decoded by the installed client and drawn by its CPU
// reference (morph, then skin with query_pose's palette) against three.js: every scenario of
// ../shared/golden/MorphArm.morphs.json and RobotExpressive.morphs.json within 1e-4
// (python_morph_golden.py).
TEST_F(PythonClient, MorphTargetsDecodeAndDrawLikeThreeJs) {
  ANIMD_REQUIRE_SHARED();
  animtest::TempDir tmp("python-morph");
  ASSERT_TRUE(tmp.ok());
  const std::filesystem::path assets = tmp.path() / "assets";
  std::filesystem::create_directories(assets);
  for (const char* file : {"MorphArm/MorphArm.glb", "RobotExpressive/RobotExpressive.glb"}) {
    const std::filesystem::path src = animtest::shared_dir() / "assets" / file;
    ASSERT_TRUE(std::filesystem::exists(src)) << src;
    std::filesystem::create_symlink(src, assets / src.filename());
  }
  animtest::DaemonProcess daemon({"--assets", assets.string()});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const ProcessResult r = animtest::run_process(
      {"/usr/bin/python3", std::string(ANIMD_SOURCE_DIR) + "/tests/tools/python_morph_golden.py",
       std::to_string(daemon.port()), animtest::shared_dir().string()},
      {kPythonPath});
  std::printf("%s", r.out.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  size_t scenarios = 0;
  for (size_t at = r.out.find("max vertex error"); at != std::string::npos;
       at = r.out.find("max vertex error", at + 1))
    ++scenarios;
  EXPECT_EQ(scenarios, 6u) << r.out;  // three per asset
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST_F(PythonClient, UnreachableDaemonIsAClearErrorAndExit1) {
  // Port 1 on loopback: nothing listens there without root.
  const ProcessResult r = run_script("animd-py-example", {"--port", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("connect 127.0.0.1:1: Connection refused"), std::string::npos) << r.err;
}

}  // namespace

// animctl load / mesh against a real animd whose asset root is a folder of ../shared (Fox).
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "daemon_process.h"
#include "run_process.h"
#include "shared_assets.h"
#include "tool_paths.h"

namespace animctl_assets_test {

using animtest::ProcessResult;
using nlohmann::json;

ProcessResult ctl(const animtest::DaemonProcess& daemon, std::vector<std::string> args) {
  std::vector<std::string> argv = {animtest::animctl_binary(), "--port",
                                   std::to_string(daemon.port())};
  argv.insert(argv.end(), args.begin(), args.end());
  return animtest::run_process(argv);
}

TEST(AnimctlAssets, LoadUploadAndMeshOfTheFox) {
  ANIMD_REQUIRE_SHARED();
  animtest::DaemonProcess daemon({"--assets", animtest::shared_path("assets/Fox")});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();

  // A path under the daemon's asset root, under a new name.
  ProcessResult r = ctl(daemon, {"--json", "load", "glTF-Binary/Fox.glb", "--name", "FoxB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["load_asset"]["asset"]["name"], "FoxB");
  EXPECT_EQ(j["load_asset"]["asset"]["num_joints"], 24);
  std::vector<std::string> clips;
  for (const auto& c : j["load_asset"]["asset"]["clips"]) clips.push_back(c["name"]);
  EXPECT_EQ(clips, (std::vector<std::string>{"Survey", "Walk", "Run"}));

  // The same file's bytes sent from here.
  r = ctl(daemon, {"load", animtest::shared_path("assets/Fox/glTF-Binary/Fox.glb"), "--upload",
                   "--name", "FoxU"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("loaded FoxU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("24 joints"), std::string::npos) << r.out;

  // Paths that leave the root are the daemon's INVALID_ARGUMENT, exit 1.
  r = ctl(daemon, {"load", "../CesiumMan/glTF-Binary/CesiumMan.glb"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("load failed: INVALID_ARGUMENT"), std::string::npos) << r.err;
  // --upload needs a readable local file and a name: usage errors before anything is sent.
  r = ctl(daemon, {"load", "/nonexistent/x.glb", "--upload", "--name", "X"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot read '/nonexistent/x.glb'"), std::string::npos) << r.err;

  r = ctl(daemon, {"--json", "mesh", "FoxB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["num_joints"], 24);
  EXPECT_EQ(j["num_vertices"], 1728);
  EXPECT_EQ(j["num_triangles"], 576);
  EXPECT_EQ(j["joints"].size(), 24u);
  EXPECT_TRUE(j["has_uvs"].get<bool>());

  // Unknown asset: the daemon's NOT_FOUND.
  r = ctl(daemon, {"mesh", "NoSuchAsset"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("NOT_FOUND"), std::string::npos) << r.err;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// Three of the built-in character's joints (centimetres), one frame: the hips turned.
const char* kBuiltinHips = R"(HIERARCHY
ROOT root
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT hips
  {
    OFFSET 0 95 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT spine
    {
      OFFSET 0 12 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      End Site
      {
        OFFSET 0 18 0
      }
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.0333333
0 0 0 0 0 0 20 0 0 0 0 0
)";

TEST(AnimctlAssets, LoadsAndAttachesBvh) {
  animtest::TempDir root("animctl-bvh");
  std::ofstream(root.path() / "hips.bvh") << kBuiltinHips;
  animtest::DaemonProcess daemon({"--assets", root.path().string()});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();

  // A new, mesh-less asset, scaled.
  ProcessResult r =
      ctl(daemon, {"--json", "load", "hips.bvh", "--name", "small", "--bvh-scale", "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["load_asset"]["asset"]["name"], "small");
  EXPECT_EQ(j["load_asset"]["asset"]["num_joints"], 4);
  EXPECT_EQ(j["load_asset"]["asset"]["num_vertices"], 0);
  // Attached to the built-in character, by path and by upload (named after the local file).
  r = ctl(daemon, {"load", "hips.bvh", "--attach-to", "builtin", "--clip-name", "lean_mocap"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("loaded builtin"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" lean_mocap 0.000s"), std::string::npos) << r.out;
  r = ctl(daemon,
          {"load", (root.path() / "hips.bvh").string(), "--upload", "--attach-to", "builtin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" hips 0.000s"), std::string::npos) << r.out;
  // The daemon's refusals are exit 1 with its status: the clip name is taken.
  r = ctl(daemon, {"load", "hips.bvh", "--attach-to", "builtin", "--clip-name", "hips"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("FAILED_PRECONDITION"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("already has a clip named 'hips'"), std::string::npos) << r.err;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(AnimloadAssets, MixedAssetsRunWithoutErrors) {
  ANIMD_REQUIRE_SHARED();
  animtest::DaemonProcess daemon({"--assets", animtest::shared_path("assets/Fox")});
  ASSERT_TRUE(daemon.start()) << daemon.error() << daemon.log_tail();
  const auto out = daemon.temp_dir() / "mixed.json";
  const ProcessResult r = animtest::run_process({animtest::animload_binary(),
                                                 "--port",
                                                 std::to_string(daemon.port()),
                                                 "--connections",
                                                 "2",
                                                 "--characters-per-connection",
                                                 "4",
                                                 "--assets",
                                                 "builtin,Fox",
                                                 "--duration",
                                                 "1",
                                                 "--play-rate",
                                                 "2",
                                                 "--crossfade-rate",
                                                 "2",
                                                 "--additive-rate",
                                                 "2",
                                                 "--ik-rate",
                                                 "2",
                                                 "--quiet",
                                                 "--json-out",
                                                 out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << daemon.log_tail();
  std::ifstream file(out);
  json j;
  file >> j;
  EXPECT_EQ(j["characters"]["spawned"], 8);
  EXPECT_EQ(j["errors"]["total"], 0) << j["errors"].dump();
  EXPECT_GT(j["stream"]["frames"].get<uint64_t>(), 0u);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace animctl_assets_test

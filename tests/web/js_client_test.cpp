// The animd-client npm package (client/js) in Node, from its build-tree copy installed by
// `npm ci` (the ctest fixture js_client_install): its compact decoder against the C++ codec
// (the same frames, the same integers, palettes to float precision, as the Python decoder's
// cross-language test), a bounded fuzz run of its decoders on random and mutated bytes, its
// TypeScript declarations compiled with tsc (and a misuse refused), a subscription's camera
// set and cleared against a real daemon, and `npm pack` from the repository. Skips, saying
// why, without node or without the installed package.
#include <cmath>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "js_support.h"
#include "run_process.h"
#include "ws_support.h"

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

#define SKIP_WITHOUT_PACKAGE()                                           \
  do {                                                                   \
    if (const std::string why = jstest::package_missing(); !why.empty()) \
      GTEST_SKIP() << "skipped: " << why;                                \
  } while (0)

fs::path tmp(const std::string& name) {
  return fs::path(ANIMD_TEST_TMP_DIR) / "js-client" / name;
}

TEST(JsClient, DecoderMatchesTheCodec) {
  SKIP_WITHOUT_PACKAGE();
  const fs::path chunks = tmp("codec_frames.bin");
  const jstest::CodecFrames frames = jstest::write_codec_frames(chunks);
  ASSERT_EQ(frames.poses.size(), 40u);
  const auto r = animtest::run_process(
      {jstest::node(), (jstest::package_dir() / "test" / "decode-frames.mjs").string(),
       chunks.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  ASSERT_EQ(out.size(), frames.poses.size());
  const animcodec::Skeleton& s = frames.skeleton;
  std::vector<animcodec::Trs> locals(s.layout.num_joints());
  std::vector<glm::mat4> model(s.layout.num_joints());
  std::vector<float> palette(12 * s.layout.num_joints());
  for (size_t f = 0; f < frames.poses.size(); ++f) {
    const auto& jf = out[f];
    ASSERT_EQ(jf["joints"].size(), frames.poses[f].size());
    for (size_t j = 0; j < frames.poses[f].size(); ++j) {
      const auto& q = frames.poses[f][j];
      const auto& p = jf["joints"][j];
      EXPECT_EQ(p[0].get<std::vector<int>>(), std::vector<int>(q.r.begin(), q.r.end()))
          << f << " " << j;
      EXPECT_EQ(p[1].get<int>(), q.largest);
      EXPECT_EQ(p[2].get<std::vector<int>>(), std::vector<int>(q.t.begin(), q.t.end()));
      EXPECT_EQ(p[3].get<std::vector<int>>(), std::vector<int>(q.s.begin(), q.s.end()));
    }
    const auto& root = frames.roots[f];
    EXPECT_EQ(jf["root"][0].get<std::vector<int64_t>>(),
              std::vector<int64_t>(root.t.begin(), root.t.end()));
    EXPECT_EQ(jf["root"][2].get<int>(), root.largest);
    animcodec::build_palette(s, frames.poses[f], locals, model, palette);
    const auto js = jf["palette"].get<std::vector<double>>();
    const auto streamed = jf["stream_palette"].get<std::vector<double>>();
    ASSERT_EQ(js.size(), palette.size());
    ASSERT_EQ(streamed.size(), palette.size());
    for (size_t i = 0; i < palette.size(); ++i) {
      EXPECT_NEAR(js[i], palette[i], 2e-5) << f << " " << i;
      EXPECT_NEAR(streamed[i], palette[i], 2e-5) << f << " " << i;
    }
    // The stream's root in metres: the quantized translation in steps of 2^-14 m.
    for (int k = 0; k < 3; ++k)
      EXPECT_DOUBLE_EQ(jf["stream_root"][0][k].get<double>(), double(root.t[k]) / 16384.0);
  }
  EXPECT_EQ(out[0]["kind"].get<int>(), 0);
  EXPECT_EQ(out[2]["kind"].get<int>(), 2);
  EXPECT_EQ(out[20]["kind"].get<int>(), 0);
}

// Five seconds of random and mutated input (client/js/test/fuzz.mjs): refusals only as
// CompactError, accepted frames give finite palettes, and some mutated frames are accepted.
TEST(JsClient, DecodersRefuseRandomBytes) {
  SKIP_WITHOUT_PACKAGE();
  const fs::path chunks = tmp("fuzz_frames.bin");
  ASSERT_EQ(jstest::write_codec_frames(chunks).poses.size(), 40u);
  const auto r =
      animtest::run_process({jstest::node(), (jstest::package_dir() / "test" / "fuzz.mjs").string(),
                             chunks.string(), "5"},
                            {}, 120s);
  std::printf("%s", r.out.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"accepted\":"), std::string::npos) << r.out;
}

std::string tsc() {
  return (jstest::package_dir() / "node_modules/typescript/bin/tsc").string();
}

// The .d.ts files compile under `strict` with a page's use of the package (test/types-usage.ts),
// and a misuse (a number for the URL, an unknown encoding) is refused by the same check.
TEST(JsClient, DeclarationsTypeCheck) {
  SKIP_WITHOUT_PACKAGE();
  const fs::path dir = jstest::package_dir();
  const auto ok = animtest::run_process(
      {jstest::node(), tsc(), "-p", (dir / "tsconfig.json").string()}, {}, 120s);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;

  std::ofstream(dir / "test" / "types-misuse.ts") << "import { connect } from \"animd-client\";\n"
                                                     "export async function f() {\n"
                                                     "  const c = await connect(42);\n"
                                                     "  await c.subscribe({ encoding: \"png\" });\n"
                                                     "}\n";
  std::ofstream(dir / "tsconfig.misuse.json")
      << R"({"extends": "./tsconfig.json", "files": ["src/index.d.ts", "test/types-misuse.ts"]})";
  const auto bad = animtest::run_process(
      {jstest::node(), tsc(), "-p", (dir / "tsconfig.misuse.json").string()}, {}, 120s);
  EXPECT_NE(bad.exit_code, 0) << bad.out;
  EXPECT_NE(bad.out.find("types-misuse.ts(3,"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("types-misuse.ts(4,"), std::string::npos) << bad.out;
}

// `npm pack` from the repository's package (after `npm ci`): offline, the descriptor made from
// proto/, the sources and declarations in, tests, examples and node_modules out.
// A subscription's camera through the package against a real daemon (its /ws, update rates
// on by default): the significances list_characters reports follow the camera at once, from
// what it sees to what it sees when turned round, to the far region alone when cleared. The
// expected values are lod/significance.h's rules worked out for these positions.
TEST(JsClient, ACameraSetAndClearedAtRunTimeMovesTheSignificances) {
  SKIP_WITHOUT_PACKAGE();
  const auto probe =
      animtest::run_process({jstest::node(), "--experimental-websocket", "-e",
                             "process.exit(typeof WebSocket === 'function' ? 0 : 3)"});
  if (probe.exit_code != 0)
    GTEST_SKIP()
        << "skipped: this node has no WebSocket (node >= 20.10 with --experimental-websocket)";
  wstest::WebDaemon daemon;
  ASSERT_TRUE(daemon.start()) << daemon.process().error() << daemon.process().log_tail();
  const std::string port = std::to_string(daemon.http_port());
  const auto r = animtest::run_process(
      {jstest::node(), "--experimental-websocket",
       (jstest::package_dir() / "test" / "camera.mjs").string(), "ws://127.0.0.1:" + port + "/ws"},
      {}, 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err << daemon.process().log_tail();
  const json out = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(out.is_object()) << r.out;
  const std::string ahead = std::to_string(out["ahead"].get<int>());
  const std::string behind = std::to_string(out["behind"].get<int>());
  // The eye at (0, 1, 10); `ahead` at (0, 0, -5), 15.03 m away; `behind` at (0, 0, 40),
  // 30.02 m away; the region a sphere of 1 m at (1000, 0, 0).
  const double d_ahead = std::sqrt(1.0 + 15.0 * 15.0), d_behind = std::sqrt(1.0 + 30.0 * 30.0);
  const double region_ahead = 0.6 / (1.0 + (std::sqrt(1000.0 * 1000.0 + 25.0) - 1.0) / 20.0);
  const double region_behind = 0.6 / (1.0 + (std::sqrt(1000.0 * 1000.0 + 1600.0) - 1.0) / 20.0);
  // Looking at `ahead`: on screen within 20 m (1); `behind` off screen (0.5 / (1 + d / 10)).
  EXPECT_NEAR(out["before"][ahead].get<double>(), 1.0, 1e-4) << r.out;
  EXPECT_NEAR(out["before"][behind].get<double>(), 0.5 / (1.0 + d_behind / 10.0), 1e-4) << r.out;
  // Turned round: `behind` on screen beyond 20 m (20 / d), `ahead` off screen.
  EXPECT_NEAR(out["turned"][ahead].get<double>(), 0.5 / (1.0 + d_ahead / 10.0), 1e-4) << r.out;
  EXPECT_NEAR(out["turned"][behind].get<double>(), 20.0 / d_behind, 1e-4) << r.out;
  // Cleared: the far region alone (0.6 / (1 + distance / 20)).
  EXPECT_NEAR(out["cleared"][ahead].get<double>(), region_ahead, 1e-4) << r.out;
  EXPECT_NEAR(out["cleared"][behind].get<double>(), region_behind, 1e-4) << r.out;
  EXPECT_EQ(daemon.process().stop(), 0) << daemon.process().log_tail();
}

TEST(JsClient, PacksFromTheRepository) {
  SKIP_WITHOUT_PACKAGE();
  const std::string npm = jstest::find_on_path({"npm"});
  if (npm.empty()) GTEST_SKIP() << "skipped: no npm on PATH";
  const fs::path out = tmp("pack");
  fs::remove_all(out);
  fs::create_directories(out);
  const fs::path dir = jstest::package_dir();
  const auto r = animtest::run_process(
      {"/bin/sh", "-c",
       "cd '" + dir.string() + "' && '" + npm + "' pack --json --offline --pack-destination '" +
           out.string() + "'"},
      {"ANIMD_PROTO_DIR=" + std::string(ANIMD_SOURCE_DIR) + "/proto"}, 120s);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json packed = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(packed.is_array() && packed.size() == 1) << r.out;
  EXPECT_EQ(packed[0]["name"], "animd-client");
  EXPECT_TRUE(fs::exists(out / packed[0]["filename"].get<std::string>()));
  std::set<std::string> files;
  for (const auto& f : packed[0]["files"]) files.insert(f["path"].get<std::string>());
  for (const char* need :
       {"package.json", "README.md", "src/index.js", "src/index.d.ts", "src/compact.js",
        "src/compact.d.ts", "src/descriptor.js", "src/three.js", "src/three.d.ts", "src/morph.js"})
    EXPECT_TRUE(files.count(need)) << need << " is not in the package";
  for (const std::string& f : files)
    EXPECT_TRUE(f.rfind("node_modules/", 0) != 0 && f.rfind("test/", 0) != 0 &&
                f.rfind("example/", 0) != 0)
        << f << " should not be in the package";
}

}  // namespace

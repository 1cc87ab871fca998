// The animd-client package's three.js example (client/js/example) in headless Chromium,
// drawing characters streamed from a real animd on 127.0.0.1: the built-in character, built
// from get_asset_data, and (with ../shared) RobotExpressive from the page's own copy of the
// glTF, bones matched by name. The page is served by the package's static server
// (test/serve.mjs, the build-tree copy after `npm ci`) with three and protobuf.js from its
// node_modules. Checked: the characters cover a sane share of the frame and two moments
// differ; frozen on a frame, three's own bounding box of each skinned mesh equals the box of
// the daemon's query_pose at that tick (root x palette x the asset's vertices, skinned here)
// within 1 cm; a morph weight set on the daemon reaches morphTargetInfluences; a truncated
// mesh is refused with an error, not built.
#include <gtest/gtest.h>

#include "anim/loaders/gltf_loader.h"
#include "anim/skinned_mesh.h"
#include "devtools_support.h"
#include "js_support.h"
#include "shared_assets.h"

namespace {

using namespace browsertest;

// The box of `mesh` posed by a query_pose answer (palette rows, root t/r/s, morph weights).
std::pair<glm::vec3, glm::vec3> daemon_box(const anim::Asset& asset, const json& q) {
  const auto pal = q["palette"].get<std::vector<float>>();
  const auto t = q["root"][0].get<std::vector<float>>();
  const auto r = q["root"][1].get<std::vector<float>>();
  const auto s = q["root"][2].get<std::vector<float>>();
  const glm::mat4 root = glm::translate(glm::mat4(1.0f), glm::vec3(t[0], t[1], t[2])) *
                         glm::mat4_cast(glm::quat(r[3], r[0], r[1], r[2])) *
                         glm::scale(glm::mat4(1.0f), glm::vec3(s[0], s[1], s[2]));
  std::vector<glm::vec3> positions = asset.mesh.positions;
  const auto weights = q["morph_weights"].get<std::vector<float>>();
  size_t k = 0;
  for (const anim::MorphSet& set : asset.mesh.morph_sets) {
    if (k + set.targets.size() > weights.size()) break;
    anim::apply_morph_positions(set, std::span(weights).subspan(k, set.targets.size()), positions);
    k += set.targets.size();
  }
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (size_t v = 0; v < positions.size(); ++v) {
    glm::vec3 p(0.0f);
    for (int c = 0; c < 4; ++c) {
      const float* m = &pal[12 * asset.mesh.joints[v][c]];
      const glm::vec3 x = positions[v];
      p += asset.mesh.weights[v][c] * glm::vec3(m[0] * x.x + m[1] * x.y + m[2] * x.z + m[3],
                                                m[4] * x.x + m[5] * x.y + m[6] * x.z + m[7],
                                                m[8] * x.x + m[9] * x.y + m[10] * x.z + m[11]);
    }
    p = glm::vec3(root * glm::vec4(p, 1.0f));
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  return {lo, hi};
}

TEST(ThreeExample, DrawsStreamedCharactersWhereTheDaemonPutsThem) {
  if (const std::string why = jstest::package_missing(); !why.empty())
    GTEST_SKIP() << "skipped: " << why;
  const std::string chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "skipped: no chromium on PATH (Debian package chromium; "
                    "deploy/install-deps.sh installs it) and ANIMD_CHROMIUM unset";
  const bool robot = animtest::shared_available();
  const std::string robot_dir = robot ? animtest::shared_path("assets/RobotExpressive") : "";

  animtest::TempDir dir("three-example");
  jstest::StaticServer server(robot ? fs::path(robot_dir) : dir.path(), dir.path() / "serve.log");
  ASSERT_NE(server.port(), 0) << "the package's static server did not start";
  const std::string origin = "http://127.0.0.1:" + std::to_string(server.port());
  std::vector<std::string> args = {"--ws-allowed-origin", origin};
  if (robot) args.insert(args.end(), {"--assets", robot_dir});
  wstest::WebDaemon daemon(args);
  ASSERT_TRUE(daemon.start()) << daemon.process().log_tail();

  Browser browser(chromium, dir.path());
  ASSERT_TRUE(browser.ok()) << "chromium did not open its DevTools port:\n" << browser.log();
  DevTools dt(browser.port(), browser.path());
  ASSERT_TRUE(dt.ok());
  std::string url = origin +
                    "/example/index.html?ws=ws://127.0.0.1:" + std::to_string(daemon.http_port()) +
                    "/ws";
  if (robot) url += "&gltf=RobotExpressive:/assets/RobotExpressive.glb";
  auto target = dt.call("Target.createTarget", {{"url", url}});
  ASSERT_FALSE(target.is_null()) << dt.last_error();
  auto attached =
      dt.call("Target.attachToTarget", {{"targetId", target["targetId"]}, {"flatten", true}});
  ASSERT_FALSE(attached.is_null()) << dt.last_error();
  Page page(dt, attached["sessionId"].get<std::string>());
  const std::string status = "JSON.stringify(window.example ? example.status() : null)";
  auto wait_for = [&](const std::function<bool(const json&)>& done, json* last) {
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    while (std::chrono::steady_clock::now() < deadline) {
      *last = page.evaluate(status);
      if (last->is_object() && done(*last)) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  };
  json s;
  ASSERT_TRUE(wait_for([](const json& st) { return st.value("connected", false); }, &s))
      << s.dump() << "\n"
      << page.last_error() << "\nchromium:\n"
      << browser.log();

  // Spawned through the page's client (request/reply over the package's protocol).
  const json ids = page.evaluate(std::string(R"((async () => {
    const c = example.client, ids = {};
    ids.builtin = (await c.request({ spawn: { asset: 'builtin', clip: 'walk',
      root: { translation: { x: -0.6 } } } })).spawn.character_id;
    if ()") + (robot ? "true" : "false") +
                                 R"()
      ids.robot = (await c.request({ spawn: { asset: 'RobotExpressive', clip: 'Walking',
        root: { translation: { x: 0.8 }, scale: { x: 0.4, y: 0.4, z: 0.4 } } } })).spawn.character_id;
    try { await c.request({ play: { character_id: 999999, clip: 'walk' } }); ids.refused = '';
    } catch (e) { ids.refused = e.codeName; }
    return JSON.stringify(ids);
  })())");
  ASSERT_TRUE(ids.is_object()) << page.last_error();
  EXPECT_EQ(ids.value("refused", "?"), "STATUS_NOT_FOUND");
  const int expected = robot ? 2 : 1;
  ASSERT_TRUE(wait_for(
      [&](const json& st) {
        return st.value("objects", 0) == expected && st.value("frames", 0) >= 20;
      },
      &s))
      << s.dump();
  EXPECT_EQ(s.value("decodeErrors", -1), 0) << s.dump();
  EXPECT_TRUE(s["errors"].empty()) << s.dump();

  // Two moments, the camera on the characters as drawn (posed by the render loop).
  auto drawn_after = [&](int more) {
    const int then = page.evaluate(status).value("drawn", 0);
    return wait_for([&](const json& st) { return st.value("drawn", 0) >= then + more; }, &s);
  };
  ASSERT_TRUE(drawn_after(3)) << "the page's render loop does not run: " << s.dump();
  ASSERT_EQ(page.evaluate("JSON.stringify(example.frame())"), json(true));
  ASSERT_TRUE(drawn_after(3)) << "the page's render loop stopped: " << s.dump();
  const Image first = page.screenshot();
  ASSERT_GT(first.width, 0) << dt.last_error();
  const int frames_then = page.evaluate(status).value("frames", 0);
  ASSERT_TRUE(
      wait_for([&](const json& st) { return st.value("frames", 0) >= frames_then + 20; }, &s));
  ASSERT_TRUE(drawn_after(3)) << "the page's render loop stopped: " << s.dump();
  const Image second = page.screenshot();
  ASSERT_EQ(second.width, first.width);
  const size_t pixels = size_t(first.width) * first.height;
  auto drawn = [](const Image& im, size_t i) {  // the background is black
    return std::max({im.rgb[3 * i], im.rgb[3 * i + 1], im.rgb[3 * i + 2]}) > 24;
  };
  size_t covered = 0, changed = 0;
  for (size_t i = 0; i < pixels; ++i) {
    covered += drawn(first, i);
    changed += drawn(first, i) != drawn(second, i);
  }
  const json view = page.evaluate("JSON.stringify(example.view())");
  std::printf("[three example] characters cover %.1f %% of the frame; %zu pixels changed; %s\n",
              100.0 * double(covered) / double(pixels), changed, view.dump().c_str());
  EXPECT_GT(double(covered) / double(pixels), 0.01) << view.dump();
  EXPECT_LT(double(covered) / double(pixels), 0.6) << view.dump();
  EXPECT_GT(changed, pixels / 1000) << view.dump();
  ASSERT_TRUE(view.is_object()) << page.last_error();
  EXPECT_EQ(view["canvas"], json::array({first.width, first.height})) << view.dump();

  // Frozen on each character's newest frame: three's box against the daemon's pose then.
  const json boxes = page.evaluate(R"((async () => {
    const ticks = example.characters.freeze(), out = {};
    for (const [id, tick] of Object.entries(ticks)) {
      const q = (await example.client.request({ query_pose: { character_id: Number(id), tick,
        space: 'SPACE_WORLD' } })).query_pose;
      const r = q.root || {}, t = r.translation || {}, o = r.rotation || {}, s = r.scale;
      const box = example.box(example.characters.object(Number(id)));
      out[id] = { tick, palette: Array.from(q.palette), morph_weights: Array.from(q.morph_weights || []),
        root: [[t.x || 0, t.y || 0, t.z || 0], (o.x || o.y || o.z || o.w) ? [o.x || 0, o.y || 0, o.z || 0, o.w || 0] : [0, 0, 0, 1],
               s ? [s.x || 0, s.y || 0, s.z || 0] : [1, 1, 1]],
        box: [box.min.toArray(), box.max.toArray()] };
    }
    example.characters.thaw();
    return JSON.stringify(out);
  })())");
  ASSERT_TRUE(boxes.is_object()) << page.last_error();
  ASSERT_EQ(boxes.size(), size_t(expected)) << boxes.dump().substr(0, 500);
  anim::Asset builtin = anim::make_builtin_character();
  std::optional<anim::Asset> robot_asset;
  if (robot) {
    auto loaded = anim::load_gltf(robot_dir + "/RobotExpressive.glb");
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message();
    robot_asset = std::move(*loaded);
  }
  for (const auto& [id, q] : boxes.items()) {
    const bool is_robot = robot && std::stoi(id) == ids.value("robot", -1);
    const auto [lo, hi] = daemon_box(is_robot ? *robot_asset : builtin, q);
    const auto got_lo = q["box"][0].get<std::vector<float>>();
    const auto got_hi = q["box"][1].get<std::vector<float>>();
    std::printf(
        "[three example] character %s (%s) at tick %lld: daemon box (%.3f %.3f %.3f)"
        "..(%.3f %.3f %.3f), three.js (%.3f %.3f %.3f)..(%.3f %.3f %.3f)\n",
        id.c_str(), is_robot ? "RobotExpressive, the page's glTF" : "builtin, built",
        q["tick"].get<long long>(), lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, got_lo[0], got_lo[1],
        got_lo[2], got_hi[0], got_hi[1], got_hi[2]);
    EXPECT_GT(hi.y - lo.y, 0.3f) << "a degenerate box";
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(got_lo[k], lo[k], 0.01) << "character " << id << " axis " << k;
      EXPECT_NEAR(got_hi[k], hi[k], 0.01) << "character " << id << " axis " << k;
    }
  }

  // Bad input: a truncated mesh is refused, with the field named.
  const json refused = page.evaluate(R"((async () => {
    const { buildSkinnedMesh } = await import('animd-client/three');
    const data = await example.client.assetData('builtin');
    try {
      buildSkinnedMesh({ ...data, mesh: { ...data.mesh, positions: data.mesh.positions.subarray(0, 10) } });
      return JSON.stringify('built');
    } catch (e) { return JSON.stringify(e.message); }
  })())");
  EXPECT_NE(refused.dump().find("positions is 10 bytes"), std::string::npos) << refused.dump();

  if (!robot) return;
  // A morph weight set on the daemon reaches three's influences of that target.
  const int robot_id = ids.value("robot", -1);
  ASSERT_TRUE(page.evaluate("(async () => { await example.client.request({ set_morph_weights: {"
                            " character_id: " +
                            std::to_string(robot_id) +
                            ", weights: [{ name: 'Surprised', value: 1 }] } });"
                            " return JSON.stringify(true); })()")
                  .is_boolean())
      << page.last_error();
  const std::string surprised =
      "JSON.stringify((() => { let w = -1;"
      " example.characters.object(" +
      std::to_string(robot_id) +
      ").traverse((o) => { const d = o.morphTargetDictionary;"
      " if (d && 'Surprised' in d) w = o.morphTargetInfluences[d.Surprised]; });"
      " return w; })())";
  double weight = -1;
  for (int i = 0; i < 600 && weight < 0.99; ++i) {
    const json w = page.evaluate(surprised);
    weight = w.is_number() ? w.get<double>() : -1;
    if (weight < 0.99) std::this_thread::sleep_for(100ms);
  }
  EXPECT_GT(weight, 0.99) << "Surprised never reached the page's mesh";
}

}  // namespace

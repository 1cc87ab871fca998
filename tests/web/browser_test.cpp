// The web viewer in a real browser: headless Chromium (Debian `chromium`, WebGL2 through
// SwiftShader) loads /view from the real animd on 127.0.0.1, driven over the DevTools
// protocol (a Beast WebSocket client: no node, no driver). The page must connect, fetch the
// asset, decode the compact stream and draw: the screenshots show the character covering a
// sane share of the frame, and two moments of its walk differ. Then the daemon goes away and
// comes back on the same port, and the page reconnects by itself. The page's renderer draws
// RobotExpressive's morph targets on the GPU: "Surprised" changes the face and nothing else.
//
// Skips (with the reason) without chromium, or when the build has no protobuf.js.

#include <gtest/gtest.h>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "anim/loaders/gltf_loader.h"
#include "anim/v1/assets.pb.h"
#include "codec_harness.h"
#include "devtools_support.h"
#include "shared_assets.h"
#include "skeleton_message.h"

namespace {

using codectest::skeleton_data;
using namespace browsertest;

// A browser on the viewer page of a daemon (for tests that need the page's scripts).
struct ViewerPage {
  explicit ViewerPage(const std::string& chromium, std::vector<std::string> daemon_args = {})
      : daemon(std::move(daemon_args)) {
    if (!daemon.start()) {
      error = "daemon: " + daemon.process().log_tail();
      return;
    }
    browser.emplace(chromium, dir.path());
    if (!browser->ok()) {
      error = "chromium did not open its DevTools port:\n" + browser->log();
      return;
    }
    devtools.emplace(browser->port(), browser->path());
    const std::string url = "http://127.0.0.1:" + std::to_string(daemon.http_port()) + "/view";
    auto target = devtools->call("Target.createTarget", {{"url", url}});
    if (target.is_null()) {
      error = "createTarget: " + devtools->last_error();
      return;
    }
    auto attached = devtools->call("Target.attachToTarget",
                                   {{"targetId", target["targetId"]}, {"flatten", true}});
    if (attached.is_null()) {
      error = "attachToTarget: " + devtools->last_error();
      return;
    }
    page.emplace(*devtools, attached["sessionId"].get<std::string>());
  }
  wstest::WebDaemon daemon;
  animtest::TempDir dir{"browser"};
  std::optional<Browser> browser;
  std::optional<DevTools> devtools;
  std::optional<Page> page;
  std::string error;
};

// Skips the test when the browser tests cannot run here, saying why.
#define SKIP_WITHOUT_BROWSER(chromium)                                                        \
  do {                                                                                        \
    if (!ANIMD_WEB_PROTOBUFJS)                                                                \
      GTEST_SKIP() << "this build has no protobuf.js (configure could not fetch it; see "     \
                      "ANIMD_PROTOBUFJS_TARBALL in docs/web-viewer.md)";                      \
    if ((chromium).empty())                                                                   \
      GTEST_SKIP() << "no chromium on PATH (Debian package chromium; deploy/install-deps.sh " \
                      "installs it) and ANIMD_CHROMIUM unset";                                \
  } while (0)

// The page's JavaScript decoder (the npm package's compact.js, served as /view/compact.js) and the
// C++ codec decode the same bytes to the same integers: the built-in character walking with an
// additive layer and root motion, a key frame, first- and second-order deltas, and a key frame
// again; palettes agree to float precision (JavaScript computes them in doubles).
TEST(Browser, PageDecoderMatchesTheCodec) {
  const std::string chromium = find_chromium();
  SKIP_WITHOUT_BROWSER(chromium);
  ViewerPage v(chromium);
  ASSERT_TRUE(v.error.empty()) << v.error;
  json s;
  ASSERT_TRUE(v.page->wait_for([](const json& st) { return st.value("connected", false); }, &s))
      << s.dump();

  const anim::Asset asset = anim::make_builtin_character();
  const anim::v1::SkeletonData data =
      skeleton_data(asset.skeleton, codectest::codec_skeleton(asset).layout);
  animcodec::Skeleton sk;
  ASSERT_EQ(animcodec::skeleton_from_proto(data, sk), "");
  anim::Animator animator(asset.skeleton, asset.clips);
  ASSERT_TRUE(animator.play(asset.find_clip("walk")).is_ok());
  anim::AdditiveLayerDesc lean;
  lean.clip = asset.find_clip("lean");
  lean.weight = 0.5f;
  ASSERT_TRUE(animator.add_layer(lean));
  json chunks = json::array({base64(data.SerializeAsString())});
  codectest::Stream stream(sk);
  std::vector<std::vector<animcodec::QJoint>> poses;
  std::vector<animcodec::QRoot> roots;
  std::vector<animcodec::QJoint> pose;
  for (int f = 0; f < 40; ++f) {
    ASSERT_TRUE(animator.update(1.0f / 60.0f).is_ok());
    codectest::quantize_pose(sk.layout, animator.local_pose().locals, pose);
    const animcodec::QRoot root = animcodec::quantize_root(
        {0.02f * f, 0.0f, -0.5f}, glm::angleAxis(0.01f * f, glm::vec3(0, 1, 0)), {1, 1, 1});
    const size_t n = stream.push(pose, root, f == 20);
    chunks.push_back(base64(std::string(reinterpret_cast<const char*>(stream.buffer.data()), n)));
    poses.push_back(stream.recv[0]);
    roots.push_back(stream.recv_root[0]);
  }

  const std::string script = R"((async () => {
    const c = await import('/view/compact.js');
    const SD = animdViewer.protocol.lookupType('anim.v1.SkeletonData');
    const chunks = )" + chunks.dump() +
                             R"(.map((b) => Uint8Array.from(atob(b), (ch) => ch.charCodeAt(0)));
    const sk = new c.Skeleton(SD.decode(chunks[0]));
    let held = [];
    const out = [];
    for (const bytes of chunks.slice(1)) {
      const [kind] = c.readHeader(bytes);
      const two = kind === c.DELTA2;
      const [pose, root] = kind === c.KEY ? c.decodeFrame(sk, bytes)
          : c.decodeFrame(sk, bytes, held[0].pose, held[0].root, two ? held[1].pose : null,
                          two ? held[1].root : null);
      held = [{ pose, root }, ...held].slice(0, 2);
      out.push({ kind, joints: pose.map((q) => [q.r, q.largest, q.t, q.s]),
                 root: [root.t, root.r, root.largest, root.s],
                 palette: Array.from(c.buildPalette(sk, pose)) });
    }
    return JSON.stringify(out);
  })())";
  const json out = v.page->evaluate(script);
  ASSERT_TRUE(out.is_array()) << v.page->last_error();
  ASSERT_EQ(out.size(), poses.size());
  std::vector<animcodec::Trs> locals(sk.layout.num_joints());
  std::vector<glm::mat4> model(sk.layout.num_joints());
  std::vector<float> palette(12 * sk.layout.num_joints());
  for (size_t f = 0; f < poses.size(); ++f) {
    const auto& jf = out[f];
    ASSERT_EQ(jf["joints"].size(), poses[f].size());
    for (size_t j = 0; j < poses[f].size(); ++j) {
      const auto& q = poses[f][j];
      const auto& p = jf["joints"][j];
      EXPECT_EQ(p[0].get<std::vector<int>>(), std::vector<int>(q.r.begin(), q.r.end()))
          << f << " " << j;
      EXPECT_EQ(p[1].get<int>(), q.largest);
      EXPECT_EQ(p[2].get<std::vector<int>>(), std::vector<int>(q.t.begin(), q.t.end()));
      EXPECT_EQ(p[3].get<std::vector<int>>(), std::vector<int>(q.s.begin(), q.s.end()));
    }
    EXPECT_EQ(jf["root"][0].get<std::vector<int64_t>>(),
              std::vector<int64_t>(roots[f].t.begin(), roots[f].t.end()));
    EXPECT_EQ(jf["root"][2].get<int>(), roots[f].largest);
    animcodec::build_palette(sk, poses[f], locals, model, palette);
    const auto js = jf["palette"].get<std::vector<double>>();
    ASSERT_EQ(js.size(), palette.size());
    for (size_t i = 0; i < palette.size(); ++i)
      EXPECT_NEAR(js[i], palette[i], 2e-5) << f << " " << i;
  }
  EXPECT_EQ(out[0]["kind"].get<int>(), 0);
  EXPECT_EQ(out[2]["kind"].get<int>(), 2);
  EXPECT_EQ(out[20]["kind"].get<int>(), 0);
}

// Several daemons (shards of one world) on one page: ws= lists both endpoints; the second
// daemon allows the first's origin. Characters of both are drawn, keyed by (daemon, id).
TEST(Browser, ViewerDrawsSeveralDaemonsTogether) {
  const std::string chromium = find_chromium();
  SKIP_WITHOUT_BROWSER(chromium);

  wstest::WebDaemon first({"--spawn-builtin", "1"});
  ASSERT_TRUE(first.start()) << first.process().log_tail();
  const std::string page_origin = "http://127.0.0.1:" + std::to_string(first.http_port());
  wstest::WebDaemon second({"--spawn-builtin", "2", "--ws-allowed-origin", page_origin});
  ASSERT_TRUE(second.start()) << second.process().log_tail();
  animtest::TempDir dir("browser");
  Browser browser(chromium, dir.path());
  ASSERT_TRUE(browser.ok()) << "chromium did not open its DevTools port:\n" << browser.log();
  DevTools dt(browser.port(), browser.path());
  ASSERT_TRUE(dt.ok());

  const std::string url = page_origin +
                          "/view?ws=ws://127.0.0.1:" + std::to_string(first.http_port()) +
                          "/ws,ws://127.0.0.1:" + std::to_string(second.http_port()) + "/ws";
  auto target = dt.call("Target.createTarget", {{"url", url}});
  ASSERT_FALSE(target.is_null()) << dt.last_error();
  auto attached =
      dt.call("Target.attachToTarget", {{"targetId", target["targetId"]}, {"flatten", true}});
  ASSERT_FALSE(attached.is_null()) << dt.last_error();
  Page page(dt, attached["sessionId"].get<std::string>());

  json s;
  ASSERT_TRUE(page.wait_for(
      [](const json& st) {
        return st.value("connected", false) && st.value("characters", 0) == 3 &&
               st.value("drawn", 0) >= 3;
      },
      &s))
      << "page status: " << s.dump() << "\nchromium:\n"
      << browser.log();
  EXPECT_EQ(s.value("decodeErrors", -1), 0) << s.dump();
  ASSERT_TRUE(s["daemons"].is_array()) << s.dump();
  ASSERT_EQ(s["daemons"].size(), 2u) << s.dump();
  EXPECT_EQ(s["daemons"][0].value("characters", 0), 1) << s.dump();
  EXPECT_EQ(s["daemons"][1].value("characters", 0), 2) << s.dump();
}

TEST(Browser, ViewerDrawsTheStreamedCharacterAndReconnects) {
  const std::string chromium = find_chromium();
  SKIP_WITHOUT_BROWSER(chromium);

  wstest::WebDaemon daemon({"--spawn-builtin", "1"});
  ASSERT_TRUE(daemon.start()) << daemon.process().log_tail();
  animtest::TempDir dir("browser");
  Browser browser(chromium, dir.path());
  ASSERT_TRUE(browser.ok()) << "chromium did not open its DevTools port:\n" << browser.log();
  DevTools dt(browser.port(), browser.path());
  ASSERT_TRUE(dt.ok());

  const std::string url = "http://127.0.0.1:" + std::to_string(daemon.http_port()) + "/view";
  auto target = dt.call("Target.createTarget", {{"url", url}});
  ASSERT_FALSE(target.is_null()) << dt.last_error();
  auto attached =
      dt.call("Target.attachToTarget", {{"targetId", target["targetId"]}, {"flatten", true}});
  ASSERT_FALSE(attached.is_null()) << dt.last_error();
  Page page(dt, attached["sessionId"].get<std::string>());

  // Connected, the asset fetched, frames decoded, the character drawn.
  json s;
  ASSERT_TRUE(page.wait_for(
      [](const json& st) { return st.value("drawn", 0) >= 1 && st.value("frames", 0) >= 10; }, &s))
      << "page status: " << s.dump() << "\nchromium:\n"
      << browser.log();
  EXPECT_EQ(s.value("decodeErrors", -1), 0) << s.dump();
  EXPECT_EQ(s.value("characters", 0), 1) << s.dump();

  const Image first = page.screenshot();
  ASSERT_GT(first.width, 0) << "no screenshot: " << dt.last_error();
  const int frames_then = s.value("frames", 0);
  ASSERT_TRUE(
      page.wait_for([&](const json& st) { return st.value("frames", 0) >= frames_then + 20; }, &s))
      << s.dump();
  const Image second = page.screenshot();
  ASSERT_EQ(second.width, first.width);
  ASSERT_EQ(second.height, first.height);

  // A sane share of the frame: a walking figure framed by the viewer covers some percent of
  // an 800 x 600 view, not a speck and not the whole screen.
  const size_t pixels = size_t(first.width) * first.height;
  size_t covered = 0, changed = 0;
  for (size_t i = 0; i < pixels; ++i) {
    covered += first.character(i);
    changed += first.character(i) != second.character(i);
  }
  const double share = double(covered) / double(pixels);
  std::printf("character covers %.1f %% of the frame; %zu pixels of its silhouette changed\n",
              100.0 * share, changed);
  EXPECT_GT(share, 0.01) << covered << " of " << pixels << " pixels";
  EXPECT_LT(share, 0.6) << covered << " of " << pixels << " pixels";
  // Two moments of the walk: the limbs moved (its silhouette differs by some pixels).
  EXPECT_GT(changed, pixels / 1000)
      << "the silhouettes of two moments differ by " << changed << " pixels";

  // The daemon goes away: the page says so; a daemon on the same HTTP port: it is back.
  const uint16_t http_port = daemon.http_port();
  EXPECT_EQ(daemon.process().stop(), 0);
  ASSERT_TRUE(page.wait_for([](const json& st) { return !st.value("connected", true); }, &s))
      << s.dump();
  wstest::WebDaemon again({"--spawn-builtin", "1", "--http-port", std::to_string(http_port)});
  ASSERT_TRUE(again.start()) << again.process().log_tail();
  EXPECT_TRUE(page.wait_for(
      [](const json& st) {
        return st.value("connected", false) && st.value("drawn", 0) >= 1 &&
               st.value("closes", 0) >= 1;
      },
      &s))
      << s.dump();
}

// RobotExpressive drawn by the page's renderer (renderer.js with morph.js), its mesh fetched
// by the page from the daemon (get_asset_data over /ws, decoded by protobuf.js), posed with
// core's palette of Idle at t = 0, seen from the front of its head: with every morph weight 0,
// with none given (the defaults, all 0 in the file), and with "Surprised" at 1. The Surprised
// picture differs inside the screen box of the triangles "Surprised" moves (computed here on
// the CPU, projected by the page's camera) and nowhere else; the defaults give the neutral
// picture. A mesh whose morph data is malformed is drawn without its targets, with a reason.
TEST(Browser, MorphTargetsMoveTheFaceOnTheGpuAndNothingElse) {
  ANIMD_REQUIRE_SHARED();
  const std::string chromium = find_chromium();
  SKIP_WITHOUT_BROWSER(chromium);
  const std::string file = animtest::shared_path("assets/RobotExpressive/RobotExpressive.glb");
  anim::Expected<anim::Asset> loaded = anim::load_gltf(file);
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message();
  const anim::Asset& a = *loaded;
  anim::Animator animator(a.skeleton, a.clips);
  ASSERT_TRUE(animator.play(a.find_clip("Idle")).is_ok());
  ASSERT_TRUE(animator.update(0.0f).is_ok());
  std::vector<glm::mat4> palette;
  json palette_json = json::array();
  for (const anim::PaletteMatrix& m : animator.palette()) {
    palette.push_back(m.to_mat4());
    for (float v : m.m) palette_json.push_back(v);
  }
  // Flat weights with "Surprised" at 1; the vertices it moves; the morphed positions.
  std::vector<float> surprised;
  std::vector<bool> moved(a.mesh.positions.size(), false);
  for (const anim::MorphSet& set : a.mesh.morph_sets)
    for (const anim::MorphTarget& t : set.targets) {
      surprised.push_back(t.name == "Surprised" ? 1.0f : 0.0f);
      if (t.name == "Surprised")
        for (uint32_t v : t.vertices) moved[v] = true;
    }
  ASSERT_FALSE(surprised.empty());
  std::vector<glm::vec3> morphed = a.mesh.positions;
  size_t k = 0;
  for (const anim::MorphSet& set : a.mesh.morph_sets) {
    anim::apply_morph_positions(set, std::span(surprised).subspan(k, set.targets.size()), morphed);
    k += set.targets.size();
  }
  auto skin = [&](const std::vector<glm::vec3>& positions, size_t v) {
    glm::vec4 p(0.0f);
    for (int c = 0; c < 4; ++c)
      p += a.mesh.weights[v][c] * (palette[a.mesh.joints[v][c]] * glm::vec4(positions[v], 1.0f));
    return glm::vec3(p);
  };
  // The head (every vertex of a morph set) framed from the side its face is on.
  glm::vec3 lo(1e30f), hi(-1e30f), head_sum(0.0f), face_sum(0.0f);
  size_t head_n = 0, face_n = 0;
  for (const anim::MorphSet& set : a.mesh.morph_sets)
    for (const anim::VertexRange& r : set.ranges)
      for (uint32_t v = r.first_vertex; v < r.first_vertex + r.vertex_count; ++v) {
        const glm::vec3 p = skin(a.mesh.positions, v);
        lo = glm::min(lo, p);
        hi = glm::max(hi, p);
        head_sum += p;
        ++head_n;
        if (moved[v]) {
          face_sum += p;
          ++face_n;
        }
      }
  ASSERT_GT(face_n, 0u);
  const glm::vec3 facing = face_sum / float(face_n) - head_sum / float(head_n);
  const glm::vec3 centre = (lo + hi) * 0.5f;
  const float radius = glm::length(hi - lo) * 0.5f;
  const json camera = {{"target", {centre.x, centre.y, centre.z}},
                       {"yaw", std::atan2(facing.x, facing.z)},
                       {"pitch", 0.0},
                       {"distance", 1.15 * radius / std::tan(std::acos(-1.0) / 8)}};
  // Where the pictures may differ: every vertex of a triangle with a moved vertex, both states.
  json face = json::array();
  const std::vector<glm::vec3>* states[] = {&a.mesh.positions, &morphed};
  for (size_t t = 0; t + 2 < a.mesh.indices.size(); t += 3) {
    const uint32_t tri[3] = {a.mesh.indices[t], a.mesh.indices[t + 1], a.mesh.indices[t + 2]};
    if (!moved[tri[0]] && !moved[tri[1]] && !moved[tri[2]]) continue;
    for (uint32_t v : tri)
      for (const std::vector<glm::vec3>* positions : states) {
        const glm::vec3 p = skin(*positions, v);
        face.push_back({p.x, p.y, p.z});
      }
  }

  ViewerPage v(chromium, {"--assets", animtest::shared_path("assets/RobotExpressive")});
  ASSERT_TRUE(v.error.empty()) << v.error;
  json s;
  ASSERT_TRUE(v.page->wait_for([](const json& st) { return st.value("connected", false); }, &s))
      << s.dump();
  const std::string script = R"((async () => {
    const r = await import('/view/renderer.js');
    const P = animdViewer.protocol;
    const Req = P.lookupType('anim.v1.Request'), Msg = P.lookupType('anim.v1.ServerMessage');
    const ws = new WebSocket(`ws://${location.host}/ws`);
    ws.binaryType = 'arraybuffer';
    await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
    const reply = await new Promise((ok) => {
      ws.onmessage = (e) => {
        const m = Msg.decode(new Uint8Array(e.data));
        if (m.reply && Number(m.reply.request_id) === 7) ok(m.reply);
      };
      ws.send(Req.encode(Req.fromObject({ request_id: 7,
        get_asset_data: { asset: 'RobotExpressive' } })).finish());
    });
    ws.close();
    if (reply.status && reply.status.code) return JSON.stringify({ error: reply.status.message });
    const data = reply.get_asset_data;
    const size = 512;
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const renderer = new r.Renderer(canvas);
    const mesh = renderer.uploadMesh(data.mesh);
    if (!mesh.morph) return JSON.stringify({ error: 'no morphs: ' + mesh.morphError });
    const camera = new r.OrbitCamera();
    Object.assign(camera, )" +
                             camera.dump() + R"();
    const palette = Float32Array.from()" +
                             palette_json.dump() + R"();
    const root = Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const gl = renderer.gl;
    const render = (morphWeights) => {
      renderer.draw([{ mesh, palette, root, colorIndex: 1, morphWeights }], camera);
      const px = new Uint8Array(size * size * 4);
      gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, px);
      return px;
    };
    const surprised = Float32Array.from()" +
                             json(surprised).dump() + R"();
    const neutral = render(new Float32Array(surprised.length));
    const defaults = render(null);
    const surprise = render(surprised);
    // The face box in readPixels rows (bottom row first), widened by 2 pixels.
    const vp = camera.viewProj(1);
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const [x, y, z] of )" +
                             face.dump() + R"() {
      const c = [0, 1, 2, 3].map((i) => vp[i] * x + vp[4 + i] * y + vp[8 + i] * z + vp[12 + i]);
      const px = (c[0] / c[3] * 0.5 + 0.5) * size, py = (c[1] / c[3] * 0.5 + 0.5) * size;
      x0 = Math.min(x0, px); x1 = Math.max(x1, px); y0 = Math.min(y0, py); y1 = Math.max(y1, py);
    }
    x0 -= 2; x1 += 2; y0 -= 2; y1 += 2;
    let inside = 0, differInside = 0, differOutside = 0, differDefaults = 0, drawn = 0;
    for (let y = 0; y < size; ++y)
      for (let x = 0; x < size; ++x) {
        const i = 4 * (y * size + x);
        const differ = neutral[i] !== surprise[i] || neutral[i + 1] !== surprise[i + 1] ||
                       neutral[i + 2] !== surprise[i + 2];
        const inFace = x + 0.5 >= x0 && x + 0.5 <= x1 && y + 0.5 >= y0 && y + 0.5 <= y1;
        inside += inFace;
        if (differ) inFace ? ++differInside : ++differOutside;
        if (neutral[i] !== defaults[i] || neutral[i + 1] !== defaults[i + 1] ||
            neutral[i + 2] !== defaults[i + 2]) ++differDefaults;
        if (neutral[i + 2] - neutral[i] > 30) ++drawn;
      }
    // Malformed morph data: the mesh is drawn without its targets, and says why.
    const bad = P.lookupType('anim.v1.MeshData').decode(P.lookupType('anim.v1.MeshData').encode(data.mesh).finish());
    const t = bad.morph_sets[0].targets[0];
    t.position_deltas = t.position_deltas.subarray(0, t.position_deltas.length - 4);
    const badMesh = renderer.uploadMesh(bad);
    return JSON.stringify({ inside, differInside, differOutside, differDefaults, drawn,
                            box: [x0, x1, y0, y1], badMorph: badMesh.morph !== null,
                            badError: badMesh.morphError });
  })())";
  const json out = v.page->evaluate(script);
  ASSERT_TRUE(out.is_object()) << v.page->last_error();
  ASSERT_FALSE(out.contains("error")) << out.dump();
  std::printf(
      "[browser morph] face box %s: %d pixels, %d differ; %d differ outside it; the "
      "character covers %d pixels of 512 x 512\n",
      out["box"].dump().c_str(), out["inside"].get<int>(), out["differInside"].get<int>(),
      out["differOutside"].get<int>(), out["drawn"].get<int>());
  EXPECT_GT(out["drawn"].get<int>(), 512 * 512 / 10) << "the head does not fill the view";
  EXPECT_LT(out["inside"].get<int>(), 512 * 512 / 2) << "the face box is most of the view";
  EXPECT_GT(out["differInside"].get<int>(), 200) << "Surprised = 1 barely changes the face";
  EXPECT_EQ(out["differOutside"].get<int>(), 0) << "pixels changed away from the moved triangles";
  EXPECT_EQ(out["differDefaults"].get<int>(), 0) << "no weights should draw the defaults (0)";
  EXPECT_FALSE(out["badMorph"].get<bool>());
  EXPECT_NE(out["badError"].get<std::string>().find("position_deltas is"), std::string::npos)
      << out["badError"];
}

}  // namespace

// animview end to end, screenshots: a real animd on loopback, characters spawned through
// libanimclient, `xvfb-run -a animview --headless ... --screenshot` run as a process, and the
// PNG checked: characters cover a plausible part of the frame, each requested character is
// drawn, and two screenshots at different ticks differ. Meshes (the built-in character, the
// Fox) and meshless BVH skeletons drawn as bones.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "animview_e2e_support.h"
#include "connected_daemon.h"

namespace animview_e2e_screenshot_test {

using namespace animview_e2e;

TEST_F(AnimviewE2e, DrawsBuiltinAndFoxAndAnimates) {
  // Fox from ../shared when present: a temp asset root with a symlink to it.
  const fs::path assets = tmp_.path() / "assets";
  fs::create_directories(assets);
  const fs::path fox = fs::path(animtest::shared_path("assets/Fox/glTF-Binary/Fox.glb"));
  const bool with_fox = animtest::shared_available() && fs::exists(fox);
  if (with_fox)
    fs::create_symlink(fox, assets / "Fox.glb");
  else
    std::printf("note: %s not found; drawing the built-in character only\n", fox.c_str());

  animtest::ConnectedDaemon served({"--assets", assets.string()});
  ASSERT_TRUE(served.ok()) << served.error();
  auto& daemon = served.daemon();
  auto& c = served.client();

  anim::v1::SpawnRequest walker;
  walker.set_asset("builtin");
  walker.set_clip("walk");
  *walker.mutable_root() = placed(-0.9f, 1.0f, 0.0f);
  auto builtin = c.spawn(walker);
  ASSERT_TRUE(builtin) << builtin.error().to_string();
  uint32_t fox_id = 0;
  if (with_fox) {
    anim::v1::SpawnRequest runner;
    runner.set_asset("Fox");
    runner.set_clip("Run");
    // Fox.glb is in centimetres (about 80 tall): scale to metres, run sideways to the camera.
    *runner.mutable_root() = placed(0.9f, 0.01f, 1.5708f);
    auto r = c.spawn(runner);
    ASSERT_TRUE(r) << r.error().to_string() << "\n" << daemon.log_tail();
    fox_id = r->character_id();
  }

  const std::vector<std::string> common = {"--port",
                                           std::to_string(daemon.port()),
                                           "--headless",
                                           "--frames",
                                           "5",
                                           "--width",
                                           std::to_string(kWidth),
                                           "--height",
                                           std::to_string(kHeight),
                                           "--wait",
                                           "30"};
  auto shot = [&](const std::string& tag, std::vector<std::string> extra, Image& img) {
    std::vector<std::string> args = common;
    const fs::path png = tmp_.path() / (tag + ".png");
    args.insert(args.end(), {"--screenshot", png.string()});
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessRun r = run_animview(args, tmp_.path(), tag);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(load_png(png, img)) << "no PNG at " << png << "\n" << r.output;
    EXPECT_EQ(img.width, kWidth);
    EXPECT_EQ(img.height, kHeight);
    return r;
  };

  Image a;
  ProcessRun ra = shot("all-a", {}, a);
  ASSERT_FALSE(HasFailure());
  const size_t expected = with_fox ? 2 : 1;
  EXPECT_NE(ra.output.find("of " + std::to_string(expected) + " characters (0 skipped)"),
            std::string::npos)
      << ra.output;
  Coverage ca = coverage(a);
  std::printf("both: %.1f%% of pixels not background, %.1f%% character-coloured\n",
              100 * ca.not_background, 100 * ca.character);
  EXPECT_GT(ca.not_background, 0.01) << ra.output;
  EXPECT_LT(ca.not_background, 0.60) << ra.output;
  EXPECT_GT(ca.character, 0.005) << ra.output;

  // Each character on its own (--characters) is drawn too.
  std::vector<uint32_t> ids = {builtin->character_id()};
  if (fox_id) ids.push_back(fox_id);
  for (uint32_t id : ids) {
    Image one;
    ProcessRun r = shot("only-" + std::to_string(id), {"--characters", std::to_string(id)}, one);
    EXPECT_NE(r.output.find("of 1 characters (0 skipped)"), std::string::npos) << r.output;
    Coverage co1 = coverage(one);
    std::printf("character %u alone: %.1f%% not background, %.1f%% character-coloured\n", id,
                100 * co1.not_background, 100 * co1.character);
    EXPECT_GT(co1.character, 0.003) << "character " << id << " alone\n" << r.output;
    EXPECT_LT(co1.not_background, 0.60) << r.output;
  }

  // A later screenshot shows another pose. The walk loops, so a tick distance of a whole
  // cycle would show the same pose again: then take one more (bounded).
  auto stats = c.stats();
  ASSERT_TRUE(stats) << stats.error().to_string();
  double walk_duration = 0;
  auto listed = c.list_assets();
  ASSERT_TRUE(listed) << listed.error().to_string();
  for (const auto& asset : listed->assets())
    if (asset.name() == "builtin")
      for (const auto& clip : asset.clips())
        if (clip.name() == "walk") walk_duration = clip.duration();
  ASSERT_GT(walk_duration, 0.0);
  Image b;
  ProcessRun rb;
  for (int attempt = 0; attempt < 3; ++attempt) {
    rb = shot("all-b" + std::to_string(attempt), {}, b);
    ASSERT_FALSE(HasFailure());
    const double dt =
        (static_cast<double>(tick_of(rb.output)) - tick_of(ra.output)) / stats->tick_rate_hz();
    const double phase = std::fmod(dt, walk_duration) / walk_duration;
    if (dt > 0 && phase > 0.05 && phase < 0.95) break;
  }
  EXPECT_GT(tick_of(rb.output), tick_of(ra.output)) << ra.output << rb.output;
  Coverage cb = coverage(b);
  EXPECT_GT(cb.not_background, 0.01);
  EXPECT_LT(cb.not_background, 0.60);
  const double moved = fraction_differing(a, b);
  std::printf("ticks %llu and %llu: %.2f%% of pixels differ\n",
              static_cast<unsigned long long>(tick_of(ra.output)),
              static_cast<unsigned long long>(tick_of(rb.output)), 100 * moved);
  EXPECT_GT(moved, 0.0005) << "the two screenshots show the same pose";
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// A humanoid in centimetres (1.75 m tall), arms out to the sides, legs down; four frames
// that swing the arms and legs and move the hips forward.
const char* kStickFigure = R"(HIERARCHY
ROOT Hips
{
  OFFSET 0 95 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 20 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT Neck
    {
      OFFSET 0 35 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      JOINT Head
      {
        OFFSET 0 10 0
        CHANNELS 3 Zrotation Xrotation Yrotation
        End Site
        {
          OFFSET 0 15 0
        }
      }
    }
    JOINT LeftArm
    {
      OFFSET 15 30 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      JOINT LeftForeArm
      {
        OFFSET 28 0 0
        CHANNELS 3 Zrotation Xrotation Yrotation
        End Site
        {
          OFFSET 25 0 0
        }
      }
    }
    JOINT RightArm
    {
      OFFSET -15 30 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      JOINT RightForeArm
      {
        OFFSET -28 0 0
        CHANNELS 3 Zrotation Xrotation Yrotation
        End Site
        {
          OFFSET -25 0 0
        }
      }
    }
  }
  JOINT LeftUpLeg
  {
    OFFSET 10 -5 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT LeftLeg
    {
      OFFSET 0 -45 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      End Site
      {
        OFFSET 0 -45 0
      }
    }
  }
  JOINT RightUpLeg
  {
    OFFSET -10 -5 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT RightLeg
    {
      OFFSET 0 -45 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      End Site
      {
        OFFSET 0 -45 0
      }
    }
  }
}
MOTION
Frames: 4
Frame Time: 0.25
0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -70 0 0 0 0 0 70 0 0 0 0 0 0 30 0 0 0 0 0 -30 0 0 0 0
0 0 10 0 0 0 0 0 0 0 0 0 0 0 0 -20 0 0 0 0 0 20 0 0 0 0 0 0 -30 0 0 40 0 0 30 0 0 0 0
0 0 20 0 0 0 0 0 0 0 0 0 0 0 0 -70 0 0 0 0 0 70 0 0 0 0 0 0 30 0 0 0 0 0 -30 0 0 0 0
0 0 30 0 0 0 0 0 0 0 0 0 0 0 0 -20 0 0 0 0 0 20 0 0 0 0 0 0 -30 0 0 40 0 0 30 0 0 0 0
)";

// A .bvh has no mesh: animview draws its bones. The hand-written figure (and, with ../shared,
// the CMU capture 01_01.bvh beside it) stands upright, is drawn without being skipped, and
// moves between two screenshots.
TEST_F(AnimviewE2e, MeshlessBvhIsDrawnAsBones) {
  const fs::path assets = tmp_.path() / "assets";
  fs::create_directories(assets);
  std::ofstream(assets / "stick.bvh") << kStickFigure;
  const fs::path cmu = fs::path(animtest::shared_path("assets/BVH/01_01.bvh"));
  const bool with_cmu = animtest::shared_available() && fs::exists(cmu);
  if (with_cmu)
    fs::create_symlink(cmu, assets / "01_01.bvh");
  else
    std::printf("note: %s not found; drawing the hand-written figure only\n", cmu.c_str());
  animtest::ConnectedDaemon served({"--assets", assets.string()});
  ASSERT_TRUE(served.ok()) << served.error();
  auto& daemon = served.daemon();
  auto& c = served.client();
  anim::v1::SpawnRequest stick;
  stick.set_asset("stick");
  stick.set_clip("stick");
  *stick.mutable_root() = placed(-1.0f, 0.01f, 0.0f);  // centimetres to metres
  auto s = c.spawn(stick);
  ASSERT_TRUE(s) << s.error().to_string() << "\n" << daemon.log_tail();
  if (with_cmu) {
    anim::v1::SpawnRequest capture;
    capture.set_asset("01_01");
    capture.set_clip("01_01");
    // About 27 units tall: scaled to about 1.75 m, placed to the right of the figure.
    *capture.mutable_root() = placed(1.0f, 0.065f, 0.0f);
    auto r = c.spawn(capture);
    ASSERT_TRUE(r) << r.error().to_string() << "\n" << daemon.log_tail();
  }
  const size_t expected = with_cmu ? 2 : 1;
  auto shot = [&](const std::string& tag, Image& img) {
    const fs::path png = tmp_.path() / (tag + ".png");
    ProcessRun r =
        run_animview({"--port", std::to_string(daemon.port()), "--headless", "--frames", "3",
                      "--width", std::to_string(kWidth), "--height", std::to_string(kHeight),
                      "--wait", "30", "--screenshot", png.string()},
                     tmp_.path(), tag);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(load_png(png, img)) << r.output;
    EXPECT_NE(r.output.find("of " + std::to_string(expected) + " characters (0 skipped)"),
              std::string::npos)
        << r.output;
    return r;
  };
  Image a;
  ProcessRun ra = shot("bones-a", a);
  ASSERT_FALSE(HasFailure());
  const Coverage cov = coverage(a);
  std::printf("bones: %.2f%% not background, %.2f%% character-coloured\n", 100 * cov.not_background,
              100 * cov.character);
  EXPECT_GT(cov.character, 0.002);
  EXPECT_LT(cov.not_background, 0.60);
  const std::vector<Figure> f = figures(a);
  for (const Figure& g : f)
    std::printf("  figure at columns %d..%d: %d x %d pixels\n", g.x0, g.x1, g.width(), g.height());
  ASSERT_GE(f.size(), expected);
  // The hand-written figure (on the left) stands upright: taller than wide.
  EXPECT_GT(f[0].height(), f[0].width());
  // A later screenshot (the clip lasts 0.75 s; a tick distance that is a whole number of
  // loops would show the same pose: then take another, bounded).
  auto stats = c.stats();
  ASSERT_TRUE(stats) << stats.error().to_string();
  Image b;
  ProcessRun rb;
  for (int attempt = 0; attempt < 3; ++attempt) {
    rb = shot("bones-b" + std::to_string(attempt), b);
    ASSERT_FALSE(HasFailure());
    const double dt =
        (static_cast<double>(tick_of(rb.output)) - tick_of(ra.output)) / stats->tick_rate_hz();
    const double phase = std::fmod(dt, 0.75) / 0.75;
    if (dt > 0 && phase > 0.05 && phase < 0.95) break;
  }
  const double moved = fraction_differing(a, b);
  std::printf("bones at ticks %llu and %llu: %.2f%% of pixels differ\n",
              static_cast<unsigned long long>(tick_of(ra.output)),
              static_cast<unsigned long long>(tick_of(rb.output)), 100 * moved);
  EXPECT_GT(moved, 0.0005) << "the two screenshots show the same pose";
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace animview_e2e_screenshot_test

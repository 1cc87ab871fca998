// animview end to end: a real animd on loopback, characters spawned through libanimclient,
// `xvfb-run -a animview --headless ... --screenshot` run as a process, and the PNG checked:
// characters cover a plausible part of the frame, each requested character is drawn, and
// two screenshots at different ticks differ. Also: a server that is down gives a clear
// message and a non-zero exit; the window reconnects after the server restarts.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <stb_image.h>

#include "animclient/client.h"
#include "colors.h"
#include "daemon_process.h"
#include "shared_assets.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr int kWidth = 640;
constexpr int kHeight = 360;

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct ProcessRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs animview under xvfb-run with `args`; output captured through a file.
ProcessRun run_animview(const std::vector<std::string>& args, const fs::path& dir,
                        const std::string& tag) {
  const fs::path log = dir / (tag + ".log");
  std::string cmd = quote(XVFB_RUN) + " -a " + quote(ANIMVIEW_BIN);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " > " + quote(log.string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  ProcessRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = read_text(log);
  return r;
}

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
};

bool load_png(const fs::path& path, Image& out) {
  int n = 0;
  unsigned char* data = stbi_load(path.string().c_str(), &out.width, &out.height, &n, 3);
  if (!data) return false;
  out.rgb.assign(data, data + static_cast<size_t>(out.width) * out.height * 3);
  stbi_image_free(data);
  return true;
}

struct Coverage {
  double not_background = 0;  // fraction of pixels away from the clear colour
  double character = 0;       // fraction of warm pixels: only characters are warm (colors.h)
};

Coverage coverage(const Image& img) {
  int bg[3];
  for (int k = 0; k < 3; ++k) bg[k] = static_cast<int>(std::lround(animview::kBackground[k] * 255));
  size_t differs = 0, warm = 0, n = static_cast<size_t>(img.width) * img.height;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = &img.rgb[i * 3];
    bool d = false;
    for (int k = 0; k < 3; ++k) d = d || std::abs(p[k] - bg[k]) > 8;
    differs += d;
    warm += static_cast<int>(p[0]) - static_cast<int>(p[2]) > 30;
  }
  return {static_cast<double>(differs) / n, static_cast<double>(warm) / n};
}

double fraction_differing(const Image& a, const Image& b) {
  size_t n = static_cast<size_t>(a.width) * a.height, differ = 0;
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k)
      if (std::abs(a.rgb[i * 3 + k] - b.rgb[i * 3 + k]) > 8) {
        ++differ;
        break;
      }
  return static_cast<double>(differ) / n;
}

// "... at tick 1234 ..." from animview's summary line; 0 when absent.
uint64_t tick_of(const std::string& output) {
  std::smatch m;
  static const std::regex re("at tick ([0-9]+)");
  return std::regex_search(output, m, re) ? std::stoull(m[1]) : 0;
}

anim::v1::Transform placed(float x, float scale, float yaw) {
  anim::v1::Transform t;
  t.mutable_translation()->set_x(x);
  t.mutable_rotation()->set_y(std::sin(yaw / 2));
  t.mutable_rotation()->set_w(std::cos(yaw / 2));
  t.mutable_scale()->set_x(scale);
  t.mutable_scale()->set_y(scale);
  t.mutable_scale()->set_z(scale);
  return t;
}

// An animd on a fixed port (DaemonProcess always passes --port 0, and CLI11 refuses a second
// --port): for the restart on the same port. Started with fork/exec, stopped with SIGTERM.
class FixedPortDaemon {
 public:
  FixedPortDaemon(uint16_t port, const fs::path& log) {
    const std::string bin = animtest::animd_binary();
    std::vector<std::string> args = {
        bin, "--address", "127.0.0.1", "--port", std::to_string(port), "--spawn-builtin", "1"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~FixedPortDaemon() { stop(); }
  // Waits (bounded) until the port accepts connections.
  bool wait_ready(uint16_t port) {
    animclient::ClientOptions co;
    co.port = port;
    for (auto end = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(50ms))
      if (animclient::Client::connect(co)) return true;
    return false;
  }
  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (auto end = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(10ms)) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return -1;
  }

 private:
  pid_t pid_ = -1;
};

class AnimviewE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(XVFB_RUN).empty())
      GTEST_SKIP() << "skipped: xvfb-run not found (install Debian package xvfb)";
    ASSERT_TRUE(tmp_.ok());
  }
  animtest::TempDir tmp_{"animview-e2e"};
};

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

  animtest::DaemonProcess daemon({"--assets", assets.string()});
  ASSERT_TRUE(daemon.start()) << daemon.error() << "\n" << daemon.log_tail();
  animclient::ClientOptions co;
  co.port = daemon.port();
  auto client = animclient::Client::connect(co);
  ASSERT_TRUE(client) << client.error().to_string();
  auto& c = *client.value();

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

// Character-coloured pixels grouped into runs of columns (gaps of a few columns split runs):
// one run per character when they stand apart along X. Each run's pixel width and height.
struct Figure {
  int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  int width() const { return x1 - x0 + 1; }
  int height() const { return y1 - y0 + 1; }
};

std::vector<Figure> figures(const Image& img) {
  auto warm = [&](int x, int y) {
    const uint8_t* p = &img.rgb[(static_cast<size_t>(y) * img.width + x) * 3];
    return static_cast<int>(p[0]) - static_cast<int>(p[2]) > 30;
  };
  std::vector<Figure> out;
  int gap = 1 << 30;
  for (int x = 0; x < img.width; ++x) {
    int top = -1, bottom = -1;
    for (int y = 0; y < img.height; ++y)
      if (warm(x, y)) {
        if (top < 0) top = y;
        bottom = y;
      }
    if (top < 0) {
      ++gap;
      continue;
    }
    if (gap > 6 || out.empty()) {
      out.push_back({x, x, top, bottom});
    } else {
      Figure& f = out.back();
      f.x1 = x;
      f.y0 = std::min(f.y0, top);
      f.y1 = std::max(f.y1, bottom);
    }
    gap = 0;
  }
  return out;
}

// CesiumMan (1.46 m) and RobotExpressive (4.50 units) spawned unscaled beside the built-in
// character (1.81 m): all three stand upright, in proportion. (Before palettes were in scene
// space CesiumMan lay on its back and RobotExpressive was one hand.)
TEST_F(AnimviewE2e, GltfAssetsStandUprightInProportionBesideTheBuiltin) {
  if (!animtest::shared_available()) GTEST_SKIP() << "skipped: ../shared not found";
  const fs::path assets = tmp_.path() / "assets";
  fs::create_directories(assets);
  fs::create_symlink(animtest::shared_path("assets/CesiumMan/glTF-Binary/CesiumMan.glb"),
                     assets / "CesiumMan.glb");
  fs::create_symlink(animtest::shared_path("assets/RobotExpressive/RobotExpressive.glb"),
                     assets / "RobotExpressive.glb");
  animtest::DaemonProcess daemon({"--assets", assets.string()});
  ASSERT_TRUE(daemon.start()) << daemon.error() << "\n" << daemon.log_tail();
  animclient::ClientOptions co;
  co.port = daemon.port();
  auto client = animclient::Client::connect(co);
  ASSERT_TRUE(client) << client.error().to_string();
  auto& c = *client.value();
  const struct {
    const char* asset;
    float x;
  } placed_at[] = {{"builtin", -2.5f}, {"CesiumMan", 0.0f}, {"RobotExpressive", 3.5f}};
  for (const auto& p : placed_at) {
    anim::v1::SpawnRequest s;
    s.set_asset(p.asset);
    *s.mutable_root() = placed(p.x, 1.0f, 0.0f);
    auto r = c.spawn(s);
    ASSERT_TRUE(r) << p.asset << ": " << r.error().to_string() << "\n" << daemon.log_tail();
  }
  const fs::path png = tmp_.path() / "upright.png";
  ProcessRun r =
      run_animview({"--port", std::to_string(daemon.port()), "--headless", "--frames", "3",
                    "--width", std::to_string(kWidth), "--height", std::to_string(kHeight),
                    "--wait", "30", "--screenshot", png.string()},
                   tmp_.path(), "upright");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Image img;
  ASSERT_TRUE(load_png(png, img)) << r.output;
  const Coverage cov = coverage(img);
  std::printf("upright: %.1f%% not background, %.1f%% character-coloured\n",
              100 * cov.not_background, 100 * cov.character);
  EXPECT_GT(cov.character, 0.02);
  EXPECT_LT(cov.not_background, 0.70);
  const std::vector<Figure> f = figures(img);
  for (const Figure& g : f)
    std::printf("  figure at columns %d..%d: %d x %d pixels\n", g.x0, g.x1, g.width(), g.height());
  ASSERT_EQ(f.size(), 3u) << "expected three separate figures (builtin, CesiumMan, robot)";
  // Upright: taller than wide on screen (the robot's arms and the yawed camera make it
  // nearly square, so only the humans are held to it strictly).
  EXPECT_GT(f[0].height(), f[0].width()) << "built-in";
  EXPECT_GT(f[1].height(), f[1].width()) << "CesiumMan";
  EXPECT_GT(f[2].height(), 0.7 * f[2].width()) << "RobotExpressive";
  // In proportion to the built-in (1.81): CesiumMan 1.46 -> 0.81, robot 4.50 -> 2.5, with
  // room for perspective (the camera is yawed: the robot is nearer; measured 0.90 and 3.48).
  const double cesium = static_cast<double>(f[1].height()) / f[0].height();
  const double robot = static_cast<double>(f[2].height()) / f[0].height();
  std::printf("  height ratios to the built-in: CesiumMan %.2f, RobotExpressive %.2f\n", cesium,
              robot);
  EXPECT_GT(cesium, 0.6);
  EXPECT_LT(cesium, 1.1);
  EXPECT_GT(robot, 1.8);
  EXPECT_LT(robot, 4.2);
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
  animtest::DaemonProcess daemon({"--assets", assets.string()});
  ASSERT_TRUE(daemon.start()) << daemon.error() << "\n" << daemon.log_tail();
  animclient::ClientOptions co;
  co.port = daemon.port();
  auto client = animclient::Client::connect(co);
  ASSERT_TRUE(client) << client.error().to_string();
  auto& c = *client.value();
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

TEST_F(AnimviewE2e, ServerDownGivesAClearMessageAndNonZeroExit) {
  // A port that was just in use and is free now.
  uint16_t port = 0;
  {
    animtest::DaemonProcess daemon;
    ASSERT_TRUE(daemon.start()) << daemon.error();
    port = daemon.port();
    EXPECT_EQ(daemon.stop(), 0);
  }
  ProcessRun r = run_animview({"--port", std::to_string(port), "--headless", "--frames", "1",
                               "--screenshot", (tmp_.path() / "never.png").string()},
                              tmp_.path(), "down");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cannot connect to animd at 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(tmp_.path() / "never.png"));
}

TEST_F(AnimviewE2e, MissingCharacterIsReportedWithNonZeroExit) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error();
  ProcessRun r =
      run_animview({"--port", std::to_string(daemon.port()), "--headless", "--characters", "4242",
                    "--wait", "2", "--screenshot", (tmp_.path() / "none.png").string()},
                   tmp_.path(), "missing");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4242"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp_.path() / "none.png"));
}

// --region: only the characters in the region around the camera's target are streamed, and
// the region follows the camera (here: it starts at --look-at, then the camera frames the
// character it received and the region is moved there).
TEST_F(AnimviewE2e, RegionShowsOnlyItsCharactersAndFollowsTheCamera) {
  animtest::DaemonProcess daemon;
  ASSERT_TRUE(daemon.start()) << daemon.error();
  animclient::ClientOptions co;
  co.port = daemon.port();
  auto client = animclient::Client::connect(co);
  ASSERT_TRUE(client) << client.error().to_string();
  for (float x : {0.0f, 40.0f}) {
    anim::v1::SpawnRequest spawn;
    spawn.set_asset("builtin");
    spawn.set_clip("idle");
    *spawn.mutable_root() = placed(x, 1.0f, 0.0f);
    auto r = client.value()->spawn(spawn);
    ASSERT_TRUE(r) << r.error().to_string();
  }
  ProcessRun r = run_animview({"--port", std::to_string(daemon.port()), "--headless", "--frames",
                               "3", "--region", "6", "--region-margin", "0", "--look-at", "3,1,0"},
                              tmp_.path(), "region");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("of 1 characters"), std::string::npos) << r.output;
  // Framed on the character at the origin: the region moved from x = 3 to about x = 0.
  const size_t at = r.output.find("region centre (");
  ASSERT_NE(at, std::string::npos) << r.output;
  const float x = std::strtof(r.output.c_str() + at + 15, nullptr);
  EXPECT_LT(std::abs(x), 0.6f) << r.output;
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

// The interactive window keeps running while the server restarts and connects again.
TEST_F(AnimviewE2e, WindowReconnectsAfterTheServerRestarts) {
  auto daemon = std::make_unique<animtest::DaemonProcess>();
  ASSERT_TRUE(daemon->start()) << daemon->error();
  const uint16_t port = daemon->port();
  {
    animclient::ClientOptions co;
    co.port = port;
    auto client = animclient::Client::connect(co);
    ASSERT_TRUE(client) << client.error().to_string();
    ASSERT_TRUE(client.value()->spawn("builtin", "idle"));
  }
  ProcessRun window;
  std::jthread viewer([&] {  // joins on every way out of the test
    window = run_animview({"--port", std::to_string(port), "--run-seconds", "25", "--max-fps", "30",
                           "--width", "320", "--height", "240"},
                          tmp_.path(), "window");
  });
  const fs::path log = tmp_.path() / "window.log";
  auto count_receiving = [&] {
    std::string s = read_text(log);
    size_t n = 0;
    for (size_t p = s.find("connected to"); p != std::string::npos;
         p = s.find("connected to", p + 1))
      ++n;
    return n;
  };
  auto wait_for = [&](size_t n) {
    for (auto end = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(50ms))
      if (count_receiving() >= n) return true;
    return false;
  };
  EXPECT_TRUE(wait_for(1)) << read_text(log);
  EXPECT_EQ(daemon->stop(), 0);
  // The window says it lost the server before the server comes back.
  bool said_down = false;
  for (auto end = std::chrono::steady_clock::now() + 30s;
       !said_down && std::chrono::steady_clock::now() < end; std::this_thread::sleep_for(50ms))
    said_down = read_text(log).find("cannot connect to animd at 127.0.0.1:" +
                                    std::to_string(port)) != std::string::npos;
  EXPECT_TRUE(said_down) << read_text(log);
  FixedPortDaemon again(port, tmp_.path() / "animd-again.log");
  EXPECT_TRUE(again.wait_ready(port)) << read_text(tmp_.path() / "animd-again.log");
  EXPECT_TRUE(wait_for(2)) << read_text(log);
  viewer.join();
  EXPECT_EQ(window.exit_code, 0) << window.output;
  EXPECT_EQ(again.stop(), 0) << read_text(tmp_.path() / "animd-again.log");
}

}  // namespace

#pragma once
// Shared by the animview end-to-end tests (animview_e2e_*_test.cpp, one render_e2e_tests
// binary): running `xvfb-run -a animview ...` as a process with its output captured, reading
// the PNG it wrote, measuring how much of it the characters cover and where they stand, and
// the AnimviewE2e fixture (skips without xvfb-run, gives each test a temp directory).
// Everything is inline in a named namespace so that all the test files share one fixture
// class (gtest requires one fixture type per test suite).
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <stb_image.h>

#include "animclient/client.h"
#include "colors.h"
#include "daemon_process.h"
#include "shared_assets.h"

namespace animview_e2e {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr int kWidth = 640;
constexpr int kHeight = 360;

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string read_text(const fs::path& p) {
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
inline ProcessRun run_animview(const std::vector<std::string>& args, const fs::path& dir,
                               const std::string& tag) {
  const fs::path log = dir / (tag + ".log");
  std::string cmd = quote(XVFB_RUN) + " -a " + quote(ANIMVIEW_BIN);
  for (const auto& a : args) {
    // Appended in two steps: GCC 12 warns (-Wrestrict, a false positive) on " " + quote(a).
    cmd += ' ';
    cmd += quote(a);
  }
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

inline bool load_png(const fs::path& path, Image& out) {
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

inline Coverage coverage(const Image& img) {
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

inline double fraction_differing(const Image& a, const Image& b) {
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
inline uint64_t tick_of(const std::string& output) {
  std::smatch m;
  static const std::regex re("at tick ([0-9]+)");
  return std::regex_search(output, m, re) ? std::stoull(m[1]) : 0;
}

inline anim::v1::Transform placed(float x, float scale, float yaw) {
  anim::v1::Transform t;
  t.mutable_translation()->set_x(x);
  t.mutable_rotation()->set_y(std::sin(yaw / 2));
  t.mutable_rotation()->set_w(std::cos(yaw / 2));
  t.mutable_scale()->set_x(scale);
  t.mutable_scale()->set_y(scale);
  t.mutable_scale()->set_z(scale);
  return t;
}

// Character-coloured pixels grouped into runs of columns (gaps of a few columns split runs):
// one run per character when they stand apart along X. Each run's pixel width and height.
struct Figure {
  int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  int width() const { return x1 - x0 + 1; }
  int height() const { return y1 - y0 + 1; }
};

inline std::vector<Figure> figures(const Image& img) {
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

class AnimviewE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(XVFB_RUN).empty())
      GTEST_SKIP() << "skipped: xvfb-run not found (install Debian package xvfb)";
    ASSERT_TRUE(tmp_.ok());
  }
  animtest::TempDir tmp_{"animview-e2e"};
};

}  // namespace animview_e2e

#include "options.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace animview {
namespace {

template <class T>
bool parse_number(const std::string& s, T& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end;
}

bool parse_id_list(const std::string& s, std::vector<uint32_t>& out) {
  out.clear();
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    uint32_t id = 0;
    if (!parse_number(item, id) || id == 0) return false;
    out.push_back(id);
  }
  return !out.empty();
}

bool parse_vec3(const std::string& s, std::array<float, 3>& out) {
  std::stringstream ss(s);
  std::string item;
  size_t n = 0;
  while (std::getline(ss, item, ',')) {
    if (n == 3 || !parse_number(item, out[n]) || !std::isfinite(out[n]) || std::abs(out[n]) > 1e6f)
      return false;
    ++n;
  }
  return n == 3;
}

}  // namespace

bool parse_options(const std::vector<std::string>& args, Options& out, std::string& error) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // Flags taking a value accept "--flag value" and "--flag=value".
    std::string name = a, value;
    bool inline_value = false;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    auto take = [&](std::string& v) {
      if (inline_value) {
        v = value;
        return true;
      }
      if (i + 1 >= args.size()) {
        error = name + " needs a value";
        return false;
      }
      v = args[++i];
      return true;
    };
    auto bad = [&](const std::string& v, const char* what) {
      error = name + ": '" + v + "' is not " + what;
      return false;
    };
    std::string v;
    if (name == "--help" || name == "-h") {
      o.help = true;
    } else if (name == "--host") {
      if (!take(v)) return false;
      if (v.empty()) return bad(v, "a host name");
      o.host = v;
    } else if (name == "--port") {
      if (!take(v)) return false;
      uint16_t p = 0;
      if (!parse_number(v, p) || p == 0) return bad(v, "a port (1-65535)");
      o.port = p;
    } else if (name == "--connect") {
      if (!take(v)) return false;
      const size_t colon = v.rfind(':');
      uint16_t p = 0;
      if (colon == std::string::npos || colon == 0 || !parse_number(v.substr(colon + 1), p) ||
          p == 0)
        return bad(v, "HOST:PORT");
      o.connect.emplace_back(v.substr(0, colon), p);
    } else if (name == "--tls") {
      o.tls = true;
    } else if (name == "--ca" || name == "--cert" || name == "--key" || name == "--server-name") {
      if (!take(v)) return false;
      if (v.empty()) return bad(v, name == "--server-name" ? "a host name" : "a file path");
      (name == "--ca"     ? o.ca_file
       : name == "--cert" ? o.cert_file
       : name == "--key"  ? o.key_file
                          : o.server_name) = v;
    } else if (name == "--characters") {
      if (!take(v)) return false;
      if (!parse_id_list(v, o.characters)) return bad(v, "a list of character ids (e.g. 1,2)");
    } else if (name == "--region" || name == "--region-margin") {
      if (!take(v)) return false;
      float m = 0;
      const bool radius = name == "--region";
      if (!parse_number(v, m) || !(radius ? m > 0.0f : m >= 0.0f) || m > 1e6f)
        return bad(v, radius ? "a radius in metres (0-1e6]" : "a margin in metres [0-1e6]");
      (radius ? o.region_radius : o.region_margin) = m;
    } else if (name == "--look-at") {
      if (!take(v)) return false;
      std::array<float, 3> p{};
      if (!parse_vec3(v, p)) return bad(v, "a point x,y,z in metres (each within 1e6)");
      o.look_at = p;
    } else if (name == "--encoding") {
      if (!take(v)) return false;
      if (v != "compact" && v != "float") return bad(v, "compact or float");
      o.compact = v == "compact";
    } else if (name == "--interpolate") {
      o.interpolate = true;
    } else if (name == "--no-interpolate") {
      o.interpolate = false;
    } else if (name == "--headless") {
      o.headless = true;
    } else if (name == "--frames") {
      if (!take(v)) return false;
      if (!parse_number(v, o.frames) || o.frames < 1) return bad(v, "a frame count >= 1");
    } else if (name == "--screenshot") {
      if (!take(v)) return false;
      if (v.empty()) return bad(v, "a file path");
      o.screenshot = v;
    } else if (name == "--width" || name == "--height") {
      if (!take(v)) return false;
      int n = 0;
      if (!parse_number(v, n) || n < 16 || n > 8192) return bad(v, "a size in pixels (16-8192)");
      (name == "--width" ? o.width : o.height) = n;
    } else if (name == "--wait") {
      if (!take(v)) return false;
      double s = 0;
      if (!parse_number(v, s) || !(s > 0.0) || s > 3600.0) return bad(v, "seconds (0-3600]");
      o.wait_seconds = s;
    } else if (name == "--run-seconds") {
      if (!take(v)) return false;
      double s = 0;
      if (!parse_number(v, s) || !(s > 0.0)) return bad(v, "seconds (> 0)");
      o.run_seconds = s;
    } else if (name == "--max-fps") {
      if (!take(v)) return false;
      double f = 0;
      if (!parse_number(v, f) || !(f >= 0.0) || f > 10000.0) return bad(v, "a rate (0-10000)");
      o.max_fps = f;
    } else if (name == "--samples") {
      if (!take(v)) return false;
      if (!parse_number(v, o.samples) || o.samples < 0 || o.samples > 16)
        return bad(v, "a sample count (0-16)");
    } else {
      error = "unknown argument '" + a + "' (see --help)";
      return false;
    }
  }
  if (!o.tls && (!o.ca_file.empty() || !o.cert_file.empty() || !o.key_file.empty() ||
                 !o.server_name.empty())) {
    error = "--ca, --cert, --key and --server-name need --tls";
    return false;
  }
  if (o.cert_file.empty() != o.key_file.empty()) {
    error = "--cert and --key go together";
    return false;
  }
  if (o.region_radius > 0.0f && !o.characters.empty()) {
    error = "--region and --characters exclude each other (a region picks its own characters)";
    return false;
  }
  if (!o.screenshot.empty() && !o.headless) {
    error = "--screenshot needs --headless";
    return false;
  }
  out = o;
  return true;
}

std::vector<std::pair<std::string, uint16_t>> endpoints(const Options& options) {
  if (!options.connect.empty()) return options.connect;
  return {{options.host, options.port}};
}

std::string usage() {
  return R"(animview: draws the characters animd streams, with GPU skinning.

usage: animview [options]
  --host H              animd host (default 127.0.0.1)
  --port P              animd port (default 7450)
  --connect H:P         a daemon to draw (repeatable: several daemons, e.g. shards of one
                        world, in one scene; replaces --host/--port)
  --tls                 connect with TLS (1.2+), verifying the server's certificate
  --ca FILE             PEM CA the server certificate must chain to (default: system store)
  --cert FILE --key F   PEM client certificate and key (daemons with --tls-client-ca)
  --server-name N       name the server certificate must carry (default: --host)
  --characters 1,2      subscribe to these character ids (default: every character)
  --region R            only the characters within R metres of the camera's target (the
                        region follows the camera); default: every character
  --region-margin M     beyond the region, M more metres at a quarter of the rate (default 3)
  --look-at X,Y,Z       where the camera looks first (default 0,1,0)
  --encoding E          stream encoding: compact (default; quantized, delta-coded) or float
  --interpolate         blend the two newest frames by render time (default)
  --no-interpolate      draw the newest frame as it is
  --width W --height H  framebuffer size in pixels (default 1280 x 720)
  --samples N           multisampling (default 4; 0 = off)
  --headless            hidden window, render offscreen, exit after --frames
  --frames N            headless: frames to render (default 60)
  --screenshot F.png    headless: write the last frame as PNG
  --wait S              headless: wait at most S seconds for the characters (default 10)
  --run-seconds S       window: quit after S seconds (demos, tests); default: until closed
  --max-fps F           window: frame-rate cap where vsync is absent (default 120; 0 = none)

keys (window):
  left mouse drag       orbit          right/middle drag   pan
  wheel                 zoom           W A S D / arrows    pan on the ground
  Q / E                 pan down / up  F                   frame all characters
  I                     toggle interpolation                Esc  quit
)";
}

}  // namespace animview

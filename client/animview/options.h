#pragma once
// animview's command line. Parsing is pure (no GL, no network) so that it is unit-tested.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace animview {

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 7450;  // animd's default port
  // --connect HOST:PORT, repeatable: several daemons (shards of one world) drawn together, one
  // connection each; replaces --host/--port when given.
  std::vector<std::pair<std::string, uint16_t>> connect;
  // TLS (animclient::ClientOptions): --tls, --ca, --cert, --key, --server-name.
  bool tls = false;
  std::string ca_file;      // PEM CAs the server's certificate must chain to (default: system)
  std::string cert_file;    // client certificate, for daemons that verify clients
  std::string key_file;     // its private key
  std::string server_name;  // name the certificate must carry (default: host)
  std::vector<uint32_t> characters;  // empty = subscribe to every character
  // > 0: subscribe by region instead, a sphere of this radius (metres) around the camera's
  // target that follows it as the camera moves (region_follow.h); excludes `characters`.
  float region_radius = 0.0f;
  float region_margin = 3.0f;  // the region's outer zone (Region.outer_margin), metres, >= 0
  // Where the camera looks first (world space, metres; unset: 0, 1, 0), until it frames the
  // characters received. With --region, where the region starts.
  std::optional<std::array<float, 3>> look_at;
  bool compact = true;      // ENCODING_COMPACT (else ENCODING_FLOAT_3X4)
  bool interpolate = true;  // blend the last two frames by render time
  bool headless = false;    // hidden window, render offscreen, exit after frames
  int frames = 60;          // headless: frames to render before the screenshot
  std::string screenshot;   // PNG path written after the last frame (may be empty)
  int width = 1280;         // framebuffer size in pixels
  int height = 720;
  double wait_seconds = 10.0;  // headless: longest wait for the characters' frames
  int samples = 4;             // MSAA samples (0 or 1 = none)
  double max_fps = 120.0;      // window: frame-rate cap when vsync does not hold it (0 = none)
  double run_seconds = 0.0;    // window: quit after this long (0 = until closed)
  bool help = false;
};

// The daemons to draw: `connect`, or host:port alone.
std::vector<std::pair<std::string, uint16_t>> endpoints(const Options& options);

// Parses argv (without argv[0]). On failure returns false and sets `error` to a message
// naming the bad flag or value.
bool parse_options(const std::vector<std::string>& args, Options& out, std::string& error);

// The --help text, keys included.
std::string usage();

}  // namespace animview

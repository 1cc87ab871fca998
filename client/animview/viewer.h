#pragma once
// The viewer application: owns the window, the connection, the stream state, the assets on
// the GPU and the camera, and runs either the interactive loop or the headless
// render-and-screenshot sequence.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "camera.h"
#include "connection.h"
#include "gl_context.h"
#include "options.h"
#include "renderer.h"
#include "stream_state.h"

namespace animview {

// Exit codes of animview.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;     // bad command line
inline constexpr int kExitNoServer = 3;  // cannot connect / subscribe
inline constexpr int kExitNoFrames = 4;  // headless: characters' frames never arrived
inline constexpr int kExitGraphics = 5;  // no window / GL context / shaders / PNG

class Viewer {
 public:
  explicit Viewer(const Options& options);
  ~Viewer();
  int run();

  // Called by the GLFW input callbacks (input.cpp).
  OrbitCamera& camera() { return camera_; }
  void request_frame_all() { frame_pending_ = true; }
  void toggle_interpolation();

 private:
  int run_window();
  int run_headless();
  // Moves received frames into the stream state and fetches assets of new characters.
  void pump(double now);
  void fetch_missing_assets(double now);
  // True when every character (or every requested id) has two frames and its asset.
  bool ready_to_render() const;
  void frame_all(int width, int height);
  void reset_server_state();
  std::string title(double fps) const;

  Options options_;
  std::unique_ptr<GlContext> gl_;
  Renderer renderer_;
  Connection connection_;
  StreamState stream_;
  AssetMap assets_;
  std::map<std::string, double> asset_retry_at_;  // failed fetches: when to try again
  std::map<std::string, std::string> asset_errors_;
  OrbitCamera camera_;
  std::vector<ReceivedFrame> received_;
  std::vector<CharacterSample> samples_;
  bool frame_pending_ = true;
  std::string last_error_;
  double bytes_per_second_ = 0.0;
  uint64_t announced_generation_ = 0;  // connection whose first frames were reported
};

}  // namespace animview

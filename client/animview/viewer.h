#pragma once
// The viewer application: owns the window, the connections (one per daemon: --connect may
// name several, shards of one world drawn in one scene), a stream state per connection, the
// assets on the GPU (shared by name: the daemons of a fleet serve the same assets) and the
// camera, and runs either the interactive loop or the headless render-and-screenshot sequence.
// Characters are keyed by (daemon, id).

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
  // Moves received frames into the stream states and fetches assets of new characters.
  void pump(double now);
  void fetch_missing_assets(double now);
  // True when every character (or every requested id) has two frames and its asset.
  bool ready_to_render() const;
  // Every stream's characters, daemon after daemon, into samples_.
  void sample(double now);
  void frame_all(int width, int height);
  // After daemon `index` (re)connected: its stream starts over; assets are fetched again.
  void reset_server_state(size_t index);
  std::string title(double fps) const;
  bool all_connected() const;
  size_t character_count() const;
  uint64_t bytes_received() const;
  std::string endpoints_text() const;

  Options options_;
  std::unique_ptr<GlContext> gl_;
  Renderer renderer_;
  std::vector<std::unique_ptr<Connection>> connections_;  // endpoints(options) order
  std::vector<StreamState> streams_;                      // one per connection
  AssetMap assets_;
  std::map<std::string, double> asset_retry_at_;  // failed fetches: when to try again
  std::map<std::string, std::string> asset_errors_;
  OrbitCamera camera_;
  std::vector<ReceivedFrame> received_;
  std::vector<CharacterSample> samples_;
  std::vector<CharacterSample> stream_samples_;  // one stream's, before they join samples_
  bool frame_pending_ = true;
  std::string last_error_;
  double bytes_per_second_ = 0.0;
  // Per connection: the generation whose first frames were reported.
  std::vector<uint64_t> announced_generation_;
};

}  // namespace animview

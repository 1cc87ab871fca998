#pragma once
// What the viewer knows of the stream: per character the last two frames received, and a
// clock mapping the client's time to the server's, so that palettes can be interpolated by
// render time. Runs on the render thread only; no GL, no sockets.
//
// Render time = estimated current server time minus one frame period: at render rates above
// the stream rate the viewer then always sits between the two newest frames of a character
// (one period of added latency buys smooth motion). When frames stop coming, render time
// passes the newest frame and that pose is held.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "anim/v1/stream.pb.h"
#include "palette_interp.h"

namespace animview {

// Maps the client's steady clock (seconds) to the server's `server_time` (seconds).
// offset = max over frames of (server_time - arrival time), i.e. the fastest delivery seen,
// decaying by 1 ms per second so that clock drift and a changed route are followed.
class ServerClock {
 public:
  void observe(double server_time, double local_time);
  bool valid() const { return valid_; }
  double to_server(double local_time) const { return local_time + offset_; }
  void reset() { valid_ = false; }

 private:
  double offset_ = 0.0;
  double last_local_ = 0.0;
  bool valid_ = false;
};

// One character's pose at one tick.
struct TimedPose {
  uint64_t tick = 0;
  double server_time = 0.0;  // seconds, the server's clock
  RootTransform root;
  std::vector<float> palette;  // 12 floats per joint
  // CharacterFrame.morph_weights (AssetInfo.morph_targets order); empty when not sent.
  std::vector<float> morph_weights;
};

struct CharacterTrack {
  uint32_t id = 0;
  std::string asset;
  TimedPose prev;    // valid when has_prev
  TimedPose latest;  // always valid
  bool has_prev = false;
  std::vector<float> blended;          // scratch for sample(); kept to avoid allocating per frame
  std::vector<float> blended_weights;  // likewise, for the morph weights
};

// One character as it should be drawn now.
struct CharacterSample {
  uint32_t id = 0;
  // Which daemon's stream it came from (Options::endpoints() order): (daemon, id) names a
  // character when several daemons are drawn.
  uint32_t daemon = 0;
  const std::string* asset = nullptr;  // points into the StreamState (valid until next change)
  glm::mat4 model{1.0f};               // root transform
  const float* palette = nullptr;      // 12 floats per joint, valid until the next sample()
  uint32_t joints = 0;
  // Morph weights as streamed (interpolated like the palette), valid until the next sample();
  // null when the frames carry none. The renderer uses them when there is one per target of
  // the mesh, else the mesh's default weights.
  const float* morph_weights = nullptr;
  uint32_t morph_weight_count = 0;
  uint64_t tick = 0;  // of the newest frame used
};

class StreamState {
 public:
  // Applies one stream frame that arrived at `local_time` (client steady clock, seconds).
  // Character entries whose palette is not a whole, non-empty number of joints, whose palette
  // or morph weights hold a non-finite value, or whose root is invalid are skipped; the count of
  // skipped entries and the last reason are kept (rejected(), last_error()). Frames older than a
  // character's newest are ignored for it.
  void on_frame(const anim::v1::StreamFrame& frame, double local_time);

  // Every character's pose at `local_time`, in increasing id order: interpolated between its
  // last two frames by render time (palette and, when both frames have as many, morph
  // weights), or its newest frame when `interpolate` is false.
  void sample(double local_time, bool interpolate, std::vector<CharacterSample>& out);

  // Forgets everything (after a reconnect: the server may have restarted).
  void clear();

  const std::map<uint32_t, CharacterTrack>& characters() const { return tracks_; }
  uint64_t latest_tick() const { return latest_tick_; }
  uint64_t frames_received() const { return frames_; }
  uint64_t rejected() const { return rejected_; }
  const std::string& last_error() const { return last_error_; }
  // Estimated seconds between consecutive stream frames (0 until two frames arrived).
  double frame_period() const { return period_; }
  // The server time the last sample() rendered (for tests and the title).
  double render_time() const { return render_time_; }

 private:
  bool accept(const anim::v1::CharacterFrame& cf, uint64_t tick, double server_time);

  std::map<uint32_t, CharacterTrack> tracks_;
  ServerClock clock_;
  uint64_t latest_tick_ = 0;
  double last_frame_time_ = -1.0;
  double period_ = 0.0;
  double render_time_ = 0.0;
  uint64_t frames_ = 0;
  uint64_t rejected_ = 0;
  std::string last_error_;
};

}  // namespace animview

#include "viewer.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include <GL/glew.h>

#include "bone_mesh.h"
#include "grid_layout.h"
#include "input.h"
#include "mesh_decode.h"
#include "render_target.h"
#include "screenshot.h"

namespace animview {
namespace {

constexpr double kReconnectInterval = 1.0;   // seconds between connection attempts
constexpr double kAssetRetryInterval = 5.0;  // seconds before refetching a failed asset

// A viewport's width / height; 0 without area (a minimised window: no camera is sent).
float aspect_of(int width, int height) {
  return width > 0 && height > 0 ? static_cast<float>(width) / static_cast<float>(height) : 0.0f;
}

}  // namespace

Viewer::Viewer(const Options& options) : options_(options) {
  for (const auto& [host, port] : endpoints(options)) {
    Options one = options;
    one.host = host;
    one.port = port;
    connections_.push_back(std::make_unique<Connection>(one));
  }
  streams_.resize(connections_.size());
  announced_generation_.assign(connections_.size(), 0);
  if (options.look_at)
    camera_.target = {(*options.look_at)[0], (*options.look_at)[1], (*options.look_at)[2]};
}

// Members go in reverse order of declaration: GPU objects (renderer_, assets_) before the
// context gl_, which is declared first for that reason.
Viewer::~Viewer() {
  for (auto& c : connections_) c->close();
}

int Viewer::run() {
  return options_.headless ? run_headless() : run_window();
}

void Viewer::toggle_interpolation() {
  options_.interpolate = !options_.interpolate;
  std::printf("animview: interpolation %s\n", options_.interpolate ? "on" : "off");
}

bool Viewer::all_connected() const {
  for (const auto& c : connections_)
    if (!c->connected()) return false;
  return true;
}

size_t Viewer::character_count() const {
  size_t n = 0;
  for (const auto& s : streams_) n += s.characters().size();
  return n;
}

uint64_t Viewer::bytes_received() const {
  uint64_t n = 0;
  for (const auto& c : connections_) n += c->bytes_received();
  return n;
}

std::string Viewer::endpoints_text() const {
  std::string out;
  for (const auto& c : connections_) out += (out.empty() ? "" : ", ") + c->endpoint();
  return out;
}

void Viewer::reset_server_state(size_t index) {
  streams_[index].clear();
  assets_.clear();
  asset_retry_at_.clear();
  asset_errors_.clear();
}

void Viewer::pump(double now) {
  for (size_t i = 0; i < connections_.size(); ++i) {
    StreamState& stream = streams_[i];
    connections_[i]->drain(received_);
    const uint64_t rejected_before = stream.rejected();
    for (const ReceivedFrame& f : received_) stream.on_frame(f.frame, f.local_time);
    if (stream.rejected() != rejected_before)
      std::fprintf(stderr, "animview: skipped a bad character frame from %s: %s\n",
                   connections_[i]->endpoint().c_str(), stream.last_error().c_str());
  }
  fetch_missing_assets(now);
}

void Viewer::sample(double now) {
  samples_.clear();
  for (size_t i = 0; i < streams_.size(); ++i) {
    streams_[i].sample(now, options_.interpolate, stream_samples_);
    for (CharacterSample& c : stream_samples_) {
      c.daemon = static_cast<uint32_t>(i);
      samples_.push_back(c);
    }
  }
}

void Viewer::fetch_missing_assets(double now) {
  for (size_t i = 0; i < streams_.size(); ++i) {
    for (const auto& [id, track] : streams_[i].characters()) {
      const std::string& name = track.asset;
      if (assets_.count(name)) continue;
      if (auto r = asset_retry_at_.find(name); r != asset_retry_at_.end() && now < r->second)
        continue;
      std::string error;
      auto reply = connections_[i]->fetch_asset(name);
      if (reply) {
        const uint32_t joints = static_cast<uint32_t>(reply->skeleton().joint_names_size());
        CpuMesh mesh;
        // An asset without a mesh (a BVH capture) is drawn as its bones.
        const bool meshless = !reply->has_mesh() || reply->mesh().num_vertices() == 0;
        if (meshless ? build_bone_mesh(reply->skeleton(), mesh, error)
                     : decode_mesh(reply->mesh(), joints, mesh, error)) {
          auto asset = std::make_unique<DrawableAsset>();
          asset->mesh.upload(mesh);
          if (!asset->mesh.morph_error().empty())
            std::fprintf(stderr, "animview: asset '%s': %s\n", name.c_str(),
                         asset->mesh.morph_error().c_str());
          asset->bounds = mesh.bounds;
          asset->joint_bounds = std::move(mesh.joint_bounds);
          asset->joints = joints;
          assets_[name] = std::move(asset);
          asset_retry_at_.erase(name);
          asset_errors_.erase(name);
          continue;
        }
      } else {
        error = reply.error().to_string();
      }
      asset_errors_[name] = error;
      asset_retry_at_[name] = now + kAssetRetryInterval;
      std::fprintf(stderr, "animview: cannot draw asset '%s' (character %u): %s\n", name.c_str(),
                   id, error.c_str());
    }
  }
}

bool Viewer::ready_to_render() const {
  if (character_count() == 0) return false;
  for (uint32_t id : options_.characters) {
    bool found = false;
    for (const auto& stream : streams_) found = found || stream.characters().count(id) > 0;
    if (!found) return false;
  }
  for (const auto& stream : streams_) {
    // Two stream frames give the interpolation its first pair, and every daemon's first frames
    // (sent every tick, empty or not) name all its characters: none is left out of the framing.
    if (stream.frames_received() < 2) return false;
    for (const auto& [id, track] : stream.characters())
      if (!assets_.count(track.asset) && !asset_errors_.count(track.asset)) return false;
  }
  return true;
}

void Viewer::frame_all(int width, int height) {
  Aabb box = scene_bounds(samples_, assets_);
  if (box.empty()) return;  // nothing drawable yet: try again next frame
  camera_.frame(box, height > 0 ? static_cast<float>(width) / static_cast<float>(height) : 1.0f);
  renderer_.set_grid(layout_grid(box));
  frame_pending_ = false;
}

std::string Viewer::title(double fps) const {
  char buf[1024];
  uint64_t tick = 0;
  for (const auto& stream : streams_) tick = std::max(tick, stream.latest_tick());
  if (!all_connected()) {
    std::snprintf(buf, sizeof buf,
                  "animview | reconnecting to %s (every 1 s) | showing the last frame | %zu "
                  "characters",
                  endpoints_text().c_str(), character_count());
  } else {
    std::snprintf(
        buf, sizeof buf, "animview | %s | %.0f fps | tick %llu | %zu characters | %.1f KB/s | %s",
        endpoints_text().c_str(), fps, static_cast<unsigned long long>(tick), character_count(),
        bytes_per_second_ / 1024.0, options_.interpolate ? "interpolated" : "latest frame");
  }
  return buf;
}

int Viewer::run_window() {
  std::string error;
  gl_ = GlContext::create(options_.width, options_.height, false, "animview", error);
  if (!gl_ || !renderer_.init(error)) {
    std::fprintf(stderr, "animview: %s\n", error.c_str());
    return kExitGraphics;
  }
  install_input(gl_->window(), this);
  std::vector<double> next_connect(connections_.size(), 0.0);
  std::vector<std::string> last_errors(connections_.size());
  double last_time = monotonic_seconds(), title_time = last_time;
  uint64_t title_bytes = 0;
  int title_frames = 0;
  double fps = 0.0;
  const double quit_at = options_.run_seconds > 0.0 ? last_time + options_.run_seconds : 1e300;
  // --region: where the region starts, and the camera with it.
  for (auto& c : connections_) c->follow(camera_, aspect_of(options_.width, options_.height));
  while (!gl_->should_close()) {
    const double now = monotonic_seconds();
    if (now >= quit_at) break;
    for (size_t i = 0; i < connections_.size(); ++i) {
      Connection& connection = *connections_[i];
      if (connection.connected() || now < next_connect[i]) continue;
      next_connect[i] = now + kReconnectInterval;
      std::string e;
      if (connection.connect(e)) {
        std::printf("animview: connected to %s\n", connection.endpoint().c_str());
        reset_server_state(i);  // the server may have restarted: new ids, new assets
        title_bytes = bytes_received();
      } else if (e != last_errors[i]) {
        std::fprintf(stderr, "animview: %s (retrying every second)\n", e.c_str());
      }
      last_errors[i] = e;
    }
    pump(now);
    for (size_t i = 0; i < connections_.size(); ++i) {
      if (announced_generation_[i] == connections_[i]->generation() ||
          streams_[i].characters().empty())
        continue;
      announced_generation_[i] = connections_[i]->generation();
      std::printf("animview: receiving frames of %zu characters from %s\n",
                  streams_[i].characters().size(), connections_[i]->endpoint().c_str());
    }
    apply_held_keys(gl_->window(), *this, static_cast<float>(now - last_time));
    last_time = now;
    int width = 0, height = 0;
    gl_->framebuffer_size(width, height);
    // --region: the regions go where the camera looks, and the camera with them.
    for (auto& c : connections_) c->follow(camera_, aspect_of(width, height));
    sample(now);
    if (frame_pending_) frame_all(width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (width > 0 && height > 0) renderer_.draw(camera_, width, height, samples_, assets_);
    renderer_.forget_characters_except(samples_);
    gl_->swap_buffers();
    gl_->poll_events();
    if (options_.max_fps > 0.0) {
      // Without vsync (Xvfb, some drivers) the loop would spin a core: sleep out the frame.
      const double frame_end = now + 1.0 / options_.max_fps;
      const double left = frame_end - monotonic_seconds();
      if (left > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
    }

    ++title_frames;
    if (now - title_time >= 0.5) {
      const uint64_t bytes = bytes_received();
      fps = title_frames / (now - title_time);
      bytes_per_second_ = static_cast<double>(bytes - title_bytes) / (now - title_time);
      title_bytes = bytes;
      title_frames = 0;
      title_time = now;
      gl_->set_title(title(fps));
    }
  }
  return kExitOk;
}

int Viewer::run_headless() {
  std::string error;
  gl_ = GlContext::create(options_.width, options_.height, true, "animview", error);
  RenderTarget target;
  if (!gl_ || !renderer_.init(error) ||
      !target.create(options_.width, options_.height, options_.samples, error)) {
    std::fprintf(stderr, "animview: %s\n", error.c_str());
    return kExitGraphics;
  }
  for (auto& c : connections_) {
    // --region: where the region starts, and the camera with it.
    c->follow(camera_, aspect_of(options_.width, options_.height));
    if (!c->connect(error)) {
      std::fprintf(stderr, "animview: %s\n", error.c_str());
      return kExitNoServer;
    }
  }
  const double deadline = monotonic_seconds() + options_.wait_seconds;
  while (true) {
    const double now = monotonic_seconds();
    pump(now);
    if (ready_to_render()) break;
    for (auto& c : connections_) {
      if (c->connected()) continue;
      std::fprintf(stderr, "animview: animd at %s closed the connection\n", c->endpoint().c_str());
      return kExitNoServer;
    }
    if (now >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  sample(monotonic_seconds());
  if (scene_bounds(samples_, assets_).empty()) {
    std::string missing;
    for (uint32_t id : options_.characters) {
      bool found = false;
      for (const auto& stream : streams_) found = found || stream.characters().count(id) > 0;
      if (found) continue;
      missing += ' ';
      missing += std::to_string(id);
    }
    uint64_t frames = 0;
    for (const auto& stream : streams_) frames += stream.frames_received();
    std::fprintf(stderr,
                 "animview: nothing to draw after %.1f s: %llu stream frames from animd at %s, "
                 "%zu characters%s%s\n",
                 options_.wait_seconds, static_cast<unsigned long long>(frames),
                 endpoints_text().c_str(), character_count(),
                 missing.empty() ? "" : "; no frames for characters", missing.c_str());
    return kExitNoFrames;
  }
  if (!ready_to_render())
    std::fprintf(stderr, "animview: not every character is ready after %.1f s; drawing the rest\n",
                 options_.wait_seconds);
  frame_all(options_.width, options_.height);
  for (auto& c : connections_) c->follow(camera_, aspect_of(options_.width, options_.height));
  for (int i = 0; i < options_.frames; ++i) {
    const double now = monotonic_seconds();
    pump(now);
    sample(now);
    target.bind();
    renderer_.draw(camera_, target.width(), target.height(), samples_, assets_);
    renderer_.forget_characters_except(samples_);
    glFinish();  // pace frames by the GPU (llvmpipe) like a swap would
  }
  uint64_t tick = 0;
  for (const CharacterSample& s : samples_) tick = std::max(tick, s.tick);
  if (!options_.screenshot.empty()) {
    std::vector<uint8_t> pixels = target.read_pixels();
    if (!write_png(options_.screenshot, target.width(), target.height(), pixels, error)) {
      std::fprintf(stderr, "animview: %s\n", error.c_str());
      return kExitGraphics;
    }
  }
  std::string region;
  if (options_.region_radius > 0.0f) {
    // A move sent after framing is answered at the daemon's next tick: report where it ended.
    const double until = monotonic_seconds() + 2.0;
    while (connections_[0]->update_in_flight() && monotonic_seconds() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (auto c = connections_[0]->region_center()) {
      char text[96];
      std::snprintf(text, sizeof text, "; region centre (%.2f, %.2f, %.2f)", c->x, c->y, c->z);
      region = text;
    }
    if (auto v = connections_[0]->accepted_camera()) {
      char text[96];
      std::snprintf(text, sizeof text, "; camera eye (%.2f, %.2f, %.2f)", v->eye.x, v->eye.y,
                    v->eye.z);
      region += text;
    }
  }
  std::printf("animview: drew %d frames of %zu characters (%zu skipped) at tick %llu%s%s%s\n",
              options_.frames, samples_.size(), renderer_.skipped(),
              static_cast<unsigned long long>(tick), region.c_str(),
              options_.screenshot.empty() ? "" : "; wrote ", options_.screenshot.c_str());
  return kExitOk;
}

}  // namespace animview

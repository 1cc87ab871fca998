#pragma once
// The viewer's link to animd: connects, subscribes, timestamps stream frames as they arrive
// (on the client library's I/O thread) and hands them to the render thread; fetches asset
// data. After the server goes away, reconnect() is called again (once a second) by the app.

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "animclient/client.h"
#include "camera_follow.h"
#include "options.h"
#include "region_follow.h"

namespace animview {

struct ReceivedFrame {
  anim::v1::StreamFrame frame;
  double local_time = 0.0;  // seconds on the steady clock (monotonic_seconds()) at arrival
};

// Seconds on the steady clock since an arbitrary start.
double monotonic_seconds();

class Connection {
 public:
  explicit Connection(const Options& options) : options_(options) {}
  ~Connection();

  // Connects and subscribes (to options.characters, every character, or with
  // options.region_radius the region around the camera target follow() was last given, and
  // that camera with it). False with `error` ("cannot connect to animd at 127.0.0.1:7450:
  // ...") when either fails.
  bool connect(std::string& error);
  bool connected() const;
  // Drops the connection (keeps counters).
  void close();
  // Moves the frames received since the last call into `out` (oldest first).
  void drain(std::vector<ReceivedFrame>& out);
  // Region subscriptions: the camera looks at its target for a viewport of `aspect` (width /
  // height); moves the region to the target when it has moved far enough (RegionFollow) and
  // sends the camera when it has changed enough (CameraFollow), in one update_subscription,
  // without waiting for the answer. No-op otherwise.
  void follow(const OrbitCamera& camera, float aspect);
  // Region subscriptions: the centre and the camera the daemon has accepted, and whether a
  // change is awaiting its answer (nullopt / false otherwise).
  std::optional<glm::vec3> region_center();
  std::optional<CameraView> accepted_camera();
  bool update_in_flight();
  // Fetches an asset's skeleton and mesh. Blocks up to the request timeout.
  animclient::Result<anim::v1::GetAssetDataReply> fetch_asset(const std::string& name);
  // Bytes received over every connection so far.
  uint64_t bytes_received() const;
  // Increments on every successful connect: state tied to a server lives one generation.
  uint64_t generation() const { return generation_; }
  std::string endpoint() const;

 private:
  Options options_;
  std::unique_ptr<animclient::Client> client_;
  uint64_t generation_ = 0;
  uint64_t bytes_before_ = 0;  // bytes of closed connections
  uint32_t subscription_id_ = 0;
  glm::vec3 target_{0.0f};          // the camera target follow() last saw (a new region's centre)
  std::optional<CameraView> view_;  // the camera follow() last saw (a new region's camera)
  // Region subscriptions: where the daemon has the region and the camera (null otherwise).
  // The move's reply callback updates them on the I/O thread: guarded by mutex_.
  std::optional<RegionFollow> follow_;
  std::optional<CameraFollow> camera_follow_;

  std::mutex mutex_;  // guards pending_ (filled on the I/O thread), follow_, camera_follow_
  std::deque<ReceivedFrame> pending_;
};

}  // namespace animview

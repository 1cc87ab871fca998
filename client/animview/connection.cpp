#include "connection.h"

namespace animview {
namespace {

anim::v1::Region sphere_region(const glm::vec3& c, const Options& o) {
  anim::v1::Region r;
  auto* center = r.mutable_sphere()->mutable_center();
  center->set_x(c.x);
  center->set_y(c.y);
  center->set_z(c.z);
  r.mutable_sphere()->set_radius(o.region_radius);
  r.set_outer_margin(o.region_margin);
  r.set_outer_rate_divisor(o.region_margin > 0.0f ? 4 : 0);
  return r;
}

anim::v1::Camera to_proto(const CameraView& v) {
  anim::v1::Camera c;
  c.mutable_eye()->set_x(v.eye.x);
  c.mutable_eye()->set_y(v.eye.y);
  c.mutable_eye()->set_z(v.eye.z);
  c.mutable_forward()->set_x(v.forward.x);
  c.mutable_forward()->set_y(v.forward.y);
  c.mutable_forward()->set_z(v.forward.z);
  c.set_vertical_fov(v.fov_y);
  c.set_aspect(v.aspect);
  return c;
}

// Frames waiting for the render thread. If it stalls (a window drag, an asset fetch), only
// the newest matter: older ones are dropped rather than piling up.
constexpr size_t kMaxPending = 256;

}  // namespace

double monotonic_seconds() {
  using namespace std::chrono;
  static const steady_clock::time_point start = steady_clock::now();
  return duration<double>(steady_clock::now() - start).count();
}

Connection::~Connection() {
  close();
}

std::string Connection::endpoint() const {
  return options_.host + ":" + std::to_string(options_.port);
}

bool Connection::connect(std::string& error) {
  close();
  animclient::ClientOptions co;
  co.host = options_.host;
  co.port = options_.port;
  co.tls = options_.tls;
  co.ca_file = options_.ca_file;
  co.cert_file = options_.cert_file;
  co.key_file = options_.key_file;
  co.server_name = options_.server_name;
  co.connect_timeout = std::chrono::milliseconds(1000);
  co.request_timeout = std::chrono::milliseconds(10000);  // asset data can be megabytes
  auto client = animclient::Client::connect(co);
  if (!client) {
    error = "cannot connect to animd at " + endpoint() + ": " + client.error().to_string();
    return false;
  }
  client_ = std::move(client.value());
  client_->set_frame_callback([this](const anim::v1::StreamFrame& f) {
    double t = monotonic_seconds();
    std::lock_guard lock(mutex_);
    if (pending_.size() >= kMaxPending) pending_.pop_front();
    pending_.push_back(ReceivedFrame{f, t});
  });
  anim::v1::SubscribeRequest sub;
  const bool region = options_.region_radius > 0.0f;
  sub.set_all_characters(options_.characters.empty() && !region);
  if (region) *sub.mutable_region() = sphere_region(target_, options_);
  if (region && view_) *sub.mutable_camera() = to_proto(*view_);
  for (uint32_t id : options_.characters) sub.add_character_ids(id);
  sub.set_encoding(options_.compact ? anim::v1::ENCODING_COMPACT : anim::v1::ENCODING_FLOAT_3X4);
  auto reply = client_->subscribe(sub);
  if (!reply) {
    error = "animd at " + endpoint() + " refused the subscription: " + reply.error().to_string();
    close();
    return false;
  }
  subscription_id_ = reply->subscription_id();
  {
    std::lock_guard lock(mutex_);
    follow_.reset();
    camera_follow_.reset();
    if (region) follow_.emplace(options_.region_radius, target_);
    if (region) camera_follow_.emplace(options_.region_radius, view_);
  }
  ++generation_;
  return true;
}

std::optional<glm::vec3> Connection::region_center() {
  std::lock_guard lock(mutex_);
  if (!follow_) return std::nullopt;
  return follow_->center();
}

std::optional<CameraView> Connection::accepted_camera() {
  std::lock_guard lock(mutex_);
  if (!camera_follow_) return std::nullopt;
  return camera_follow_->accepted();
}

bool Connection::update_in_flight() {
  std::lock_guard lock(mutex_);
  return (follow_ && follow_->in_flight()) || (camera_follow_ && camera_follow_->in_flight());
}

void Connection::follow(const OrbitCamera& camera, float aspect) {
  target_ = camera.target;
  if (auto v = view_of(camera, aspect)) view_ = v;
  std::optional<glm::vec3> center;
  std::optional<CameraView> view;
  {
    std::lock_guard lock(mutex_);
    if (!follow_ || !connected()) return;
    center = follow_->update(target_);
    if (camera_follow_ && view_) view = camera_follow_->update(*view_);
  }
  if (!center && !view) return;
  anim::v1::Request request;
  auto* u = request.mutable_update_subscription();
  u->set_subscription_id(subscription_id_);
  if (center) *u->mutable_region() = sphere_region(*center, options_);
  if (view) *u->mutable_camera() = to_proto(*view);
  // Answered at the daemon's next tick: the reply arrives on the I/O thread. Region and camera
  // go in one request, accepted or refused together.
  // (close() joins the I/O thread before a reconnect replaces follow_: no stale answer.)
  const bool moved = center.has_value(), turned = view.has_value();
  client_->call_async(std::move(request),
                      [this, moved, turned](animclient::Result<anim::v1::Reply> r) {
                        const bool ok = r && r->status().code() == anim::v1::STATUS_OK;
                        std::lock_guard lock(mutex_);
                        if (moved && follow_) follow_->answered(ok);
                        if (turned && camera_follow_) camera_follow_->answered(ok);
                      });
}

bool Connection::connected() const {
  return client_ && client_->connected();
}

void Connection::close() {
  if (client_) {
    bytes_before_ += client_->counters().bytes_received;
    client_.reset();  // joins the I/O thread: no callback runs after this
  }
  std::lock_guard lock(mutex_);
  pending_.clear();
}

void Connection::drain(std::vector<ReceivedFrame>& out) {
  out.clear();
  std::lock_guard lock(mutex_);
  while (!pending_.empty()) {
    out.push_back(std::move(pending_.front()));
    pending_.pop_front();
  }
}

animclient::Result<anim::v1::GetAssetDataReply> Connection::fetch_asset(const std::string& name) {
  if (!client_) {
    return animclient::Error{animclient::Error::Kind::kDisconnected, anim::v1::STATUS_UNAVAILABLE,
                             "not connected to " + endpoint()};
  }
  return client_->get_asset_data(name);
}

uint64_t Connection::bytes_received() const {
  return bytes_before_ + (client_ ? client_->counters().bytes_received : 0);
}

}  // namespace animview

#include "connection.h"

namespace animview {
namespace {

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
  sub.set_all_characters(options_.characters.empty());
  for (uint32_t id : options_.characters) sub.add_character_ids(id);
  sub.set_encoding(options_.compact ? anim::v1::ENCODING_COMPACT : anim::v1::ENCODING_FLOAT_3X4);
  auto reply = client_->subscribe(sub);
  if (!reply) {
    error = "animd at " + endpoint() + " refused the subscription: " + reply.error().to_string();
    close();
    return false;
  }
  ++generation_;
  return true;
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

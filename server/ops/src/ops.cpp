#include "animops/ops.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <spdlog/spdlog.h>

namespace animops {

namespace {

// Writes `port` to `path` via a temporary file and rename, so a reader polling for the file
// never sees it half-written.
std::string write_port_file(const std::string& path, uint16_t port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << '\n';
    if (!out) return "http: cannot write port file " + tmp;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return "http: cannot rename " + tmp + " to " + path + ": " + ec.message();
  return {};
}

constexpr auto kStatusPeriod = std::chrono::seconds{10};

}  // namespace

BuildInfo this_build() {
  return {ANIMOPS_VERSION, ANIMOPS_BUILD_TYPE};
}

Ops::Ops(boost::asio::io_context& io, OpsConfig config, BuildInfo build)
    : io_(io), config_(std::move(config)), metrics_(std::move(build)) {}

Ops::~Ops() {
  shutdown();
}

void Ops::serve_web(std::vector<StaticFile> files, std::string upgrade_path, UpgradeHandler upgrade,
                    std::shared_ptr<boost::asio::ssl::context> tls) {
  web_tls_ = std::move(tls);
  web_files_ = std::move(files);
  upgrade_path_ = std::move(upgrade_path);
  upgrade_ = std::move(upgrade);
}

std::string Ops::start() {
  if (config_.http_port >= 0) {
    if (config_.http_port > 65535) return "http: port out of range";
    HttpOptions options;
    options.address = config_.http_address;
    options.port = static_cast<uint16_t>(config_.http_port);
    options.files = web_files_;
    options.upgrade_path = upgrade_path_;
    options.upgrade = upgrade_;
    options.tls = web_tls_;
    options.max_connections = config_.http_max_connections;
    options.max_connections_per_address = config_.http_max_connections_per_address;
    options.header_timeout = std::chrono::milliseconds{
        static_cast<int64_t>(config_.http_header_timeout_s * 1000.0 + 0.5)};
    options.allowed_hosts = config_.http_allowed_hosts;
    options.log = peer_log_;
    http_ = std::make_unique<HttpEndpoint>(io_, metrics_, health_, options);
    if (auto err = http_->start(); !err.empty()) {
      http_.reset();
      return err;
    }
    if (!config_.http_port_file.empty()) {
      if (auto err = write_port_file(config_.http_port_file, http_->port()); !err.empty())
        return err;
    }
  } else {
    spdlog::info("http: disabled (--http-port -1)");
  }
  if (config_.agones) {
    AgonesOptions options;
    options.sdk_url = config_.agones_sdk_url;
    options.health_interval = std::chrono::milliseconds{
        static_cast<int64_t>(config_.agones_health_seconds * 1000.0 + 0.5)};
    if (!config_.agones_counter.empty()) {
      options.counter = config_.agones_counter;
      options.counter_capacity = agones_capacity_;
      options.counter_count = agones_count_;
      options.counter_interval = std::chrono::milliseconds{
          static_cast<int64_t>(config_.agones_counter_seconds * 1000.0 + 0.5)};
    }
    // Validate now (fail fast on a bad URL or counter); the loop itself starts in ready().
    if (auto err = check_agones_options(options); !err.empty()) return err;
    agones_ = std::make_unique<AgonesClient>(io_, options, [this] { return health_.ticking(); });
  }
  return {};
}

void Ops::ready(const std::string& status) {
  health_.set_assets_loaded(true);
  systemd_.ready(status);
  if (agones_) {
    if (auto err = agones_->start(); !err.empty()) spdlog::error("{}", err);
  }
}

void Ops::on_tick(std::chrono::nanoseconds duration, std::chrono::nanoseconds period) {
  const auto now = std::chrono::steady_clock::now();
  metrics_.observe_tick(duration, period);
  health_.note_tick(now);
  systemd_.watchdog(now);
  if (systemd_.enabled() && now - last_status_ >= kStatusPeriod) {
    last_status_ = now;
    systemd_.status(std::to_string(metrics_.characters.value()) + " characters, " +
                    std::to_string(metrics_.sessions.value()) + " sessions, tick " +
                    std::to_string(metrics_.ticks.value()));
  }
}

void Ops::stopping(const std::string& status) {
  health_.set_draining();
  systemd_.stopping(status);
  if (agones_) agones_->stop();
  if (http_) http_->stop();
}

void Ops::shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (agones_) agones_->shutdown();
  if (http_) http_->stop();
}

uint16_t Ops::http_port() const {
  return http_ ? http_->port() : 0;
}

}  // namespace animops

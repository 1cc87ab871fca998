#include "daemon_probe.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace animhostile {

namespace {
using Clock = std::chrono::steady_clock;
}

std::optional<uint64_t> read_vmrss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::istringstream in(line.substr(6));
    uint64_t kib = 0;
    if (in >> kib) return kib;
    return std::nullopt;
  }
  return std::nullopt;
}

DaemonProbe::~DaemonProbe() {
  if (thread_.joinable()) thread_.join();
}

bool DaemonProbe::setup(std::string& error) {
  const animclient::ClientOptions co = client_options(options_);
  auto c = animclient::Client::connect(co);
  if (!c) {
    error = "stats connection: " + c.error().to_string();
    return false;
  }
  client_ = std::move(c.value());
  auto s = client_->stats();
  if (!s) {
    error = "stats: " + s.error().to_string();
    return false;
  }
  result_.overruns_start = s->tick_overruns();
  result_.overruns_end = s->tick_overruns();
  if (options_.daemon_pid > 0) {
    if (auto rss = read_vmrss_kib(options_.daemon_pid)) {
      result_.rss_sampled = true;
      result_.rss_start_kib = result_.rss_peak_kib = result_.rss_end_kib = *rss;
    } else {
      error = "--daemon-pid " + std::to_string(options_.daemon_pid) +
              ": no VmRSS in /proc/PID/status (no such process?)";
      return false;
    }
  }
  return true;
}

void DaemonProbe::sample_stats() {
  auto s = client_->stats();
  if (!s) {
    result_.stats_failed++;
    return;
  }
  result_.stats_answered++;
  result_.tick_p99_us_max = std::max(result_.tick_p99_us_max, s->tick_time_p99_us());
  result_.tick_max_us_max = std::max(result_.tick_max_us_max, s->tick_time_max_us());
  result_.sessions_max = std::max(result_.sessions_max, s->sessions());
  result_.overruns_end = s->tick_overruns();
}

void DaemonProbe::start(const std::atomic<bool>& stop, Clock::time_point t0) {
  thread_ = std::thread([this, &stop, t0] {
    auto next_stats = Clock::now();
    auto next_timeline = Clock::now();
    while (!stop.load()) {
      const auto now = Clock::now();
      if (result_.rss_sampled) {
        if (auto rss = read_vmrss_kib(options_.daemon_pid)) {
          result_.rss_peak_kib = std::max(result_.rss_peak_kib, *rss);
          if (now >= next_timeline) {
            result_.rss_timeline_kib.emplace_back(std::chrono::duration<double>(now - t0).count(),
                                                  *rss);
            next_timeline += std::chrono::seconds(1);
          }
        }
      }
      // A stats call may take long under attack: it delays the next RSS sample, never the
      // attack itself.
      if (now >= next_stats && client_ && client_->connected()) {
        sample_stats();
        next_stats = Clock::now() + std::chrono::seconds(1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

ProbeResult DaemonProbe::finish() {
  if (thread_.joinable()) thread_.join();
  client_.reset();
  const animclient::ClientOptions co = client_options(options_);
  auto c = animclient::Client::connect(co);
  if (!c) {
    result_.after_error = "connect: " + c.error().to_string();
  } else if (auto s = c.value()->stats(); !s) {
    result_.after_error = "stats: " + s.error().to_string();
  } else {
    result_.daemon_alive_after = true;
    result_.tick_p99_us_end = s->tick_time_p99_us();
    result_.overruns_end = s->tick_overruns();
  }
  if (result_.rss_sampled) {
    if (auto rss = read_vmrss_kib(options_.daemon_pid)) {
      result_.rss_end_kib = *rss;
      result_.rss_peak_kib = std::max(result_.rss_peak_kib, *rss);
    }
  }
  return result_;
}

}  // namespace animhostile
